package resolve

import (
	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// ccConfig reads hca.dcqcn, hca.hpcc, hca.timely and hca.dctcp over their defaults:
// DCQCN's variant (default nvidia, what ConnectX NICs run) picks its
// defaults, then each key given overrides one.
func (b *builder) ccConfig(h *scenario.HCAS) CCConfig {
	c := CCConfig{DCQCN: congestion.DCQCNNvidia(), HPCC: congestion.HPCCDefaults(), TIMELY: congestion.TIMELYDefaults(), DCTCP: congestion.DCTCPDefaults()}
	d := &h.DCQCN
	if d.Variant.Set && d.Variant.V == "paper" {
		c.DCQCN = congestion.DCQCNPaper()
	}
	b.dcqcnConfig(&c.DCQCN, d)
	b.hpccConfig(&c.HPCC, &h.HPCC)
	b.timelyConfig(&c.TIMELY, h)
	b.dctcpConfig(&c.DCTCP, &h.DCTCP)
	return c
}

// dctcpMarking is the switches' ECN marking under hca.cc: dctcp when
// switch.ecn is not given: every packet that arrives to a queue above
// K = 100 KB is marked (kmin = kmax, pmax 1, at enqueue), DCTCP's single
// threshold on the instantaneous queue (Alizadeh et al., SIGCOMM 2010,
// section 3.1). Their guideline
// K > C × RTT / 7 (section 3.4) then holds for paths of up to 100 Gb/s
// with round trips up to 57 us.
var dctcpMarking = swtch.ECN{Enabled: true, Kmin: 100 * fabric.KB, Kmax: 100 * fabric.KB, Pmax: 1, AtEnqueue: true}

// dctcpConfig overrides p with hca.dctcp (d).
func (b *builder) dctcpConfig(p *congestion.DCTCPParams, d *scenario.DCTCPS) {
	if d.G.Set {
		if d.G.V <= 0 {
			b.errorf(d.G.Pos, "hca.dctcp.g", "g is the weight of each window's marked fraction in alpha; it must be above 0 (RFC 8257 recommends 1/16)")
		}
		p.G = d.G.V
	}
	if d.InitialAlpha.Set {
		p.InitialAlpha = d.InitialAlpha.V
	}
	if d.InitialWindow.Set {
		p.InitialWindow = int64(d.InitialWindow.V)
	}
}

// dcqcnConfig overrides p with hca.dcqcn (d), under mlxconfig's names.
func (b *builder) dcqcnConfig(p *congestion.DCQCNParams, d *scenario.DCQCNS) {
	setRate(&p.AIRate, d.RpgAIRate)
	setRate(&p.HAIRate, d.RpgHAIRate)
	setTime(&p.TimeReset, d.RpgTimeReset)
	if d.RpgByteReset.Set {
		p.ByteReset = int64(d.RpgByteReset.V)
	}
	setInt(&p.Threshold, d.RpgThreshold)
	setRate(&p.MaxRate, d.RpgMaxRate)
	setRate(&p.MinRate, d.RpgMinRate)
	setInt(&p.MinDecFac, d.RpgMinDecFac)
	setRate(&p.RateOnFirstCNP, d.RateToSetOnFirstCNP)
	if d.DceTCPG.Set {
		if d.DceTCPG.V > 1024 || d.DceTCPG.V != float64(int(d.DceTCPG.V)) {
			b.errorf(d.DceTCPG.Pos, "hca.dcqcn.dce_tcp_g", "dce_tcp_g is a whole number of 1/1024ths from 0 to 1024 (alpha's gain g = (1024 - dce_tcp_g)/1024), not %v", d.DceTCPG.V)
		}
		p.G = int(d.DceTCPG.V)
	}
	setTime(&p.AlphaPeriod, d.DceTCPRTT)
	if d.InitialAlphaValue.Set && d.InitialAlphaValue.V > 1024 {
		b.errorf(d.InitialAlphaValue.Pos, "hca.dcqcn.initial_alpha_value", "initial_alpha_value is in 1/1024ths, at most 1024, not %d", d.InitialAlphaValue.V)
	}
	setInt(&p.InitialAlpha, d.InitialAlphaValue)
	setTime(&p.ReduceMonitorPeriod, d.RateReduceMonitorPeriod)
	setTime(&p.CNPInterval, d.MinTimeBetweenCNPs)
	if d.ClampTgtRate.Set {
		p.ClampTgtRate = d.ClampTgtRate.V
	}
	if d.ClampTgtRateAfterTimeInc.Set {
		p.ClampTgtRateAfterTimeInc = d.ClampTgtRateAfterTimeInc.V
	}
	if p.TimeReset <= 0 {
		b.errorf(d.RpgTimeReset.Pos, "hca.dcqcn.rpg_time_reset", "rpg_time_reset must be above 0")
	}
}

// hpccConfig overrides p with hca.hpcc (hp).
func (b *builder) hpccConfig(p *congestion.HPCCParams, hp *scenario.HPCCS) {
	if hp.Eta.Set {
		if hp.Eta.V <= 0 {
			b.errorf(hp.Eta.Pos, "hca.hpcc.eta", "eta must be above 0")
		}
		p.Eta = hp.Eta.V
	}
	setInt(&p.MaxStage, hp.MaxStage)
	if hp.WAI.Set {
		p.WAI = int64(hp.WAI.V)
	}
}

// timelyConfig overrides tp with hca.timely.
func (b *builder) timelyConfig(tp *congestion.TIMELYParams, h *scenario.HCAS) {
	t := &h.TIMELY
	setTime(&tp.TLow, t.TLow)
	setTime(&tp.THigh, t.THigh)
	if t.Beta.Set {
		tp.Beta = t.Beta.V
	}
	if t.Alpha.Set {
		tp.Alpha = t.Alpha.V
	}
	setRate(&tp.Delta, t.Delta)
	setTime(&tp.MinRTT, t.MinRTT)
	setInt(&tp.HAIAfter, t.HAIAfter)
	setRate(&tp.MinRate, t.MinRate)
	if tp.TLow >= tp.THigh {
		b.errorf(h.TIMELY.KeyPos("t_low"), "hca.timely.t_low", "t_low (%v) must be below t_high (%v)", tp.TLow, tp.THigh)
	}
	if tp.MinRTT <= 0 {
		b.errorf(h.TIMELY.KeyPos("min_rtt"), "hca.timely.min_rtt", "min_rtt must be above 0")
	}
}

// setRate, setTime and setInt copy a value that the file gives.
func setRate(dst *fabric.Rate, v scenario.RateV) {
	if v.Set {
		*dst = v.V
	}
}

func setTime(dst *sim.Time, v scenario.TimeV) {
	if v.Set {
		*dst = v.V
	}
}

func setInt(dst *int, v scenario.IntV) {
	if v.Set {
		*dst = int(v.V)
	}
}

// noNodeCCParams rejects congestion parameters in a per-host override.
func (b *builder) noNodeCCParams(h *scenario.HCAS, path string) {
	for _, k := range []string{"dcqcn", "hpcc", "timely", "dctcp"} {
		if h.Has(k) {
			b.errorf(h.KeyPos(k), path+"."+k, "congestion-control parameters are the same for every host: set them under the top-level hca:, not per host")
		}
	}
}

// ApplyCCToProfile sets what an algorithm needs of the NIC: DCQCN's
// notification point sends at most one CNP per QP per
// min_time_between_cnps, in the paper variant one per window of that
// length (hca.Profile.CNPWindowed); HPCC acknowledges every packet, as the
// paper's senders see every ACK; DCTCP's receiver acknowledges every
// packet too and echoes CE marks in its ACKs instead of sending CNPs (as
// a TCP receiver with delayed ACKs off: the paper's section 3.1 echoes
// each mark exactly).
func ApplyCCToProfile(p *hca.Profile, c *CCConfig) {
	switch p.CC {
	case "dcqcn":
		p.CNPInterval = c.DCQCN.CNPInterval
		p.CNPWindowed = c.DCQCN.Variant == "paper"
	case "hpcc":
		p.AckEvery = 1
	case "dctcp":
		p.AckEvery = 1
		p.EchoECN = true
	}
}
