package congestion

import (
	"fmt"
	"math"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// DCQCNParams are DCQCN's parameters under NVIDIA's names (the scenario's
// hca.dcqcn keys, so values can be pasted from mlxconfig). Both variants
// take the same names; the variant chooses the defaults and the rules.
type DCQCNParams struct {
	// Variant is "paper" (Zhu et al., SIGCOMM 2015) or "nvidia" (the
	// ConnectX firmware).
	Variant string
	// AIRate (rpg_ai_rate) is R_AI, the additive increase step;
	// HAIRate (rpg_hai_rate) R_HAI, the hyper increase step.
	AIRate, HAIRate fabric.Rate
	// TimeReset (rpg_time_reset) is the rate increase timer T.
	TimeReset sim.Time
	// ByteReset (rpg_byte_reset) is the byte counter B; the paper variant
	// counts an increase event every B bytes sent. The nvidia variant
	// increases on the timer only.
	ByteReset int64
	// Threshold (rpg_threshold) is F: increase events of fast recovery
	// before additive increase.
	Threshold int
	// MaxRate (rpg_max_rate; 0: the line rate) and MinRate (rpg_min_rate)
	// bound the rate.
	MaxRate, MinRate fabric.Rate
	// MinDecFac (rpg_min_dec_fac, percent) bounds one cut: the rate falls
	// to no less than MinDecFac% of itself, so 100 prevents cuts and 0
	// bounds nothing ("DCQCN Parameters", community.mellanox.com
	// DOC-2790: "setting min_dec_fac = 25 will bound a reduction of
	// current_rate to values above 25%*current_rate ... Setting
	// min_dec_fac = 100 will prevent rate reductions at all").
	MinDecFac int
	// RateOnFirstCNP (rate_to_set_on_first_cnp; 0: none) is the rate a QP
	// drops to on its first CNP.
	RateOnFirstCNP fabric.Rate
	// G (dce_tcp_g) sets alpha's gain g = (1024 - G) / 1024.
	G int
	// AlphaPeriod (dce_tcp_rtt) is tau': the paper variant decays alpha by
	// (1-g) after every tau' without a CNP; the nvidia variant updates it
	// every tau' with whether a CNP arrived in the period.
	AlphaPeriod sim.Time
	// InitialAlpha (initial_alpha_value) is alpha at the first CNP, in
	// 1/1024ths.
	InitialAlpha int
	// ReduceMonitorPeriod (rate_reduce_monitor_period; 0: every CNP) is
	// the least time between two cuts; CNPs in between are folded into the
	// next cut.
	ReduceMonitorPeriod sim.Time
	// CNPInterval (min_time_between_cnps) is the notification point's
	// least time between two CNPs to one QP.
	CNPInterval sim.Time
	// ClampTgtRate (clamp_tgt_rate) sets the target rate to the current
	// rate on every cut; ClampTgtRateAfterTimeInc
	// (clamp_tgt_rate_after_time_inc) does so on a cut that follows a
	// timer increase.
	ClampTgtRate, ClampTgtRateAfterTimeInc bool
	// GD (rpg_gd, NVIDIA's DcQcnAlphaToRateShift) is log2 of Gd in the
	// cut R_C = (1 - alpha/Gd) R_C, alpha being the firmware's fixed point
	// with 10 fraction bits (0..1023 for 0..1): the cut is R_C(1 - alpha ×
	// 2^(10-GD)) with alpha as a fraction. NVIDIA documents 10..11,
	// default 11 ("DCQCN Parameters", community.mellanox.com DOC-2790;
	// DOCA's "DCQCN CC Parameters": values 10..11, default 11), so the
	// default cut is the paper's R_C(1 - alpha/2) and 10 cuts by alpha
	// whole. 0 in a struct built by hand means 11.
	GD int
	// CNPDSCP (cnp_dscp) and CNP802pPrio (cnp_802p_prio) are the DSCP and
	// 802.1p priority of the CNPs the notification point sends. NVIDIA's
	// defaults, 48 and 6 (DOC-2790; DOCA's "DCQCN CC Parameters",
	// Notification Point), are what lfsim's CNPs carried before the keys
	// were modelled (priority 6, written as DSCP 48 in captures).
	CNPDSCP, CNP802pPrio int
}

// DCQCNPaper returns the defaults of Zhu et al., "Congestion Control for
// Large-Scale RDMA Deployments", SIGCOMM 2015 (section 5 and figure 7):
// g 1/256, tau' 55 us, T 55 us, B 10 MB, F 5, R_AI 40 Mb/s, CNP interval
// 50 us; the cut always clamps the target rate (R_T = R_C). The paper gives
// no value for R_HAI: we take 400 Mb/s, ten times R_AI, the ratio NVIDIA's
// firmware keeps between its defaults (50 and 5 Mb/s). Alpha starts at 1.
func DCQCNPaper() DCQCNParams {
	return DCQCNParams{
		Variant:      "paper",
		AIRate:       40 * fabric.Mbps,
		HAIRate:      400 * fabric.Mbps,
		TimeReset:    55 * sim.Microsecond,
		ByteReset:    10 * 1000 * 1000,
		Threshold:    5,
		MinRate:      1 * fabric.Mbps,
		G:            1020, // g = 4/1024 = 1/256
		AlphaPeriod:  55 * sim.Microsecond,
		InitialAlpha: 1024,
		CNPInterval:  50 * sim.Microsecond,
		ClampTgtRate: true,
		GD:           11,
		CNPDSCP:      48,
		CNP802pPrio:  6,
	}
}

// DCQCNNvidia returns the ConnectX defaults as mlxconfig reports them
// (rpg_gd 11, cnp_dscp 48 and cnp_802p_prio 6 as GD, CNPDSCP and
// CNP802pPrio say):
// rpg_time_reset 300 us, rpg_byte_reset 32767, rpg_threshold 1,
// rpg_ai_rate 5 Mb/s, rpg_hai_rate 50 Mb/s, rpg_min_dec_fac 50,
// rpg_min_rate 1 Mb/s, rate_to_set_on_first_cnp 0, dce_tcp_g 1019,
// dce_tcp_rtt 1 us, rate_reduce_monitor_period 4 us, initial_alpha_value
// 1023, min_time_between_cnps 4 us, clamp_tgt_rate false,
// clamp_tgt_rate_after_time_inc true.
func DCQCNNvidia() DCQCNParams {
	return DCQCNParams{
		Variant:                  "nvidia",
		AIRate:                   5 * fabric.Mbps,
		HAIRate:                  50 * fabric.Mbps,
		TimeReset:                300 * sim.Microsecond,
		ByteReset:                32767,
		Threshold:                1,
		MinRate:                  1 * fabric.Mbps,
		MinDecFac:                50,
		G:                        1019,
		AlphaPeriod:              sim.Microsecond,
		InitialAlpha:             1023,
		ReduceMonitorPeriod:      4 * sim.Microsecond,
		CNPInterval:              4 * sim.Microsecond,
		ClampTgtRateAfterTimeInc: true,
		GD:                       11,
		CNPDSCP:                  48,
		CNP802pPrio:              6,
	}
}

// DCQCN is one QP's reaction point. It starts at line rate (DCQCN has no
// slow start) and reacts from its first CNP on. Alpha is kept lazily: it
// is brought up to date, period by period in closed form, whenever it is
// read, so a QP costs no events for it.
type DCQCN struct {
	p     DCQCNParams
	eng   *sim.Engine
	apply Apply

	line, max, min float64 // bits per second
	rc, rt         float64
	alpha          float64
	g              float64
	gd             float64 // 2^(10 - rpg_gd): the cut is R_C(1 - alpha × gd)

	started     bool
	alphaFrom   sim.Time // start of the current alpha period
	cnpInPeriod bool     // nvidia: a CNP arrived in the current period

	timerStage, byteStage int
	bytes                 int64
	incTimer              sim.Timer

	lastCut     sim.Time
	hasCut      bool
	cutPending  bool
	cutTimer    sim.Timer
	incSinceCut bool
}

var _ Sender = (*DCQCN)(nil)

// DCQCN event kinds.
const (
	evIncrease int32 = iota
	evCut
)

// NewDCQCN makes a reaction point for a QP on a link of path.LineRate.
func NewDCQCN(eng *sim.Engine, p DCQCNParams, path Path, apply Apply) *DCQCN {
	line := float64(path.LineRate)
	d := &DCQCN{p: p, eng: eng, apply: apply, line: line, max: line, min: float64(p.MinRate),
		rc: line, rt: line, g: float64(1024-p.G) / 1024, gd: 0.5}
	if p.GD > 0 {
		d.gd = math.Ldexp(1, 10-p.GD)
	}
	if p.MaxRate > 0 {
		d.max = min(line, float64(p.MaxRate))
		d.rc, d.rt = d.max, d.max
	}
	return d
}

// Params returns the parameters in force.
func (d *DCQCN) Params() DCQCNParams { return d.p }

// State reports rc, rt and alpha as of now, changing nothing: alpha's
// periods are applied to a copy. (Applied to d, as they were, a sample
// split alpha's decay into two products, whose rounding differs from
// one's in the last bits: the sampling interval moved a run's results.)
func (d *DCQCN) State(now sim.Time) State {
	c := *d
	c.updateAlpha(now)
	return State{Rate: fabric.Rate(c.rc), Target: fabric.Rate(c.rt), Alpha: c.alpha, HasAlpha: true}
}

// updateAlpha applies the alpha periods that have ended by now: the
// nvidia variant moves alpha toward 1 for a period that saw a CNP, and
// every other period decays it by (1 - g).
func (d *DCQCN) updateAlpha(now sim.Time) {
	if !d.started || d.p.AlphaPeriod <= 0 {
		return
	}
	k := int64((now - d.alphaFrom) / d.p.AlphaPeriod)
	if k <= 0 {
		return
	}
	d.alphaFrom += sim.Time(k) * d.p.AlphaPeriod
	if d.p.Variant == "nvidia" && d.cnpInPeriod {
		d.alpha = (1-d.g)*d.alpha + d.g
		d.cnpInPeriod = false
		k--
	}
	d.alpha *= math.Pow(1-d.g, float64(k))
}

// OnCNP is the reaction point's response to congestion.
func (d *DCQCN) OnCNP(now sim.Time) {
	first := !d.started
	if first {
		// The first CNP sets alpha to its initial value; it does not also
		// count as a marked alpha period (as the firmware does).
		d.started = true
		d.alpha = float64(d.p.InitialAlpha) / 1024
		d.alphaFrom = now
		if d.p.RateOnFirstCNP > 0 {
			d.rc = clampRate(float64(d.p.RateOnFirstCNP), d.min, d.max)
		}
	}
	d.updateAlpha(now)
	switch d.p.Variant {
	case "nvidia":
		d.cnpInPeriod = d.cnpInPeriod || !first
		if d.p.ReduceMonitorPeriod > 0 && d.hasCut && now-d.lastCut < d.p.ReduceMonitorPeriod {
			if !d.cutPending {
				d.cutPending = true
				d.cutTimer = d.eng.Schedule(d.lastCut+d.p.ReduceMonitorPeriod, d, evCut, 0, nil)
			}
			return
		}
		d.cut(now)
	default:
		// Paper (section 3.1, in its order): R_T = R_C, R_C = R_C(1 -
		// alpha/2) with alpha as it was, then alpha = (1-g)alpha + g, which
		// restarts alpha's period.
		d.cut(now)
		d.alpha = (1-d.g)*d.alpha + d.g
		d.alphaFrom = now
	}
}

// cut is the rate decrease: R_T = R_C (when clamping), R_C = R_C(1 -
// alpha/Gd) (alpha/2 at rpg_gd 11), and the increase counters start over.
func (d *DCQCN) cut(now sim.Time) {
	d.cutPending = false
	d.lastCut, d.hasCut = now, true
	if d.p.ClampTgtRate || (d.p.ClampTgtRateAfterTimeInc && d.incSinceCut) || d.rt >= d.max {
		d.rt = d.rc
	}
	factor := 1 - d.alpha*d.gd
	if d.p.MinDecFac > 0 {
		factor = max(factor, float64(d.p.MinDecFac)/100)
	}
	d.rc = clampRate(d.rc*factor, d.min, d.max)
	d.timerStage, d.byteStage, d.bytes = 0, 0, 0
	d.incSinceCut = false
	d.eng.Cancel(d.incTimer)
	d.incTimer = d.eng.After(d.p.TimeReset, d, evIncrease, 0, nil)
	d.apply(fabric.Rate(d.rc), 0)
}

// OnSent counts bytes for the paper variant's byte counter.
func (d *DCQCN) OnSent(now sim.Time, p *fabric.Packet) {
	if !d.started || d.p.Variant == "nvidia" || d.p.ByteReset <= 0 || d.rc >= d.max {
		return
	}
	d.bytes += int64(p.Wire)
	for d.bytes >= d.p.ByteReset {
		d.bytes -= d.p.ByteReset
		d.byteStage++
		d.increase()
	}
}

// OnAck: DCQCN does not use ACKs.
func (d *DCQCN) OnAck(sim.Time, *fabric.Packet) {}

// HandleEvent runs the increase timer and a deferred cut.
func (d *DCQCN) HandleEvent(ev *sim.Event) {
	now := d.eng.Now()
	switch ev.Kind {
	case evIncrease:
		d.timerStage++
		d.incSinceCut = true
		d.increase()
		if d.rc < d.max || d.rt < d.max {
			d.incTimer = d.eng.After(d.p.TimeReset, d, evIncrease, 0, nil)
		}
	case evCut:
		if d.cutPending {
			d.updateAlpha(now)
			d.cut(now)
		}
	}
}

// increase is one increase event, its counters already counting it (the
// first event after a cut is stage 1). The paper variant is QCN's rule as
// DCQCN keeps it (section 3.1; htsim's DCQCNSrc::increaseRate): fast
// recovery (R_C halfway to R_T) while neither counter has passed F, so F
// events of it; hyper increase (R_T += (min - F) R_HAI) once both have;
// additive increase (R_T += R_AI) between. The nvidia variant counts timer
// events only, as the ConnectX firmware does, with the rule of the HPCC
// authors' ns-3 model of it (rdma-hw.cc, RateIncEventMlx): F events of
// fast recovery, one of additive increase, then hyper increase by a
// constant R_HAI each.
func (d *DCQCN) increase() {
	f := d.p.Threshold
	lo, hi := min(d.timerStage, d.byteStage), max(d.timerStage, d.byteStage)
	if d.p.ByteReset <= 0 {
		lo, hi = d.timerStage, d.timerStage
	}
	if d.p.Variant == "nvidia" {
		switch t := d.timerStage; {
		case t <= f:
			// fast recovery
		case t == f+1:
			d.rt += float64(d.p.AIRate)
		default:
			d.rt += float64(d.p.HAIRate)
		}
	} else {
		switch {
		case hi <= f:
			// fast recovery
		case lo > f:
			d.rt += float64(lo-f) * float64(d.p.HAIRate)
		default:
			d.rt += float64(d.p.AIRate)
		}
	}
	d.rt = min(d.rt, d.max)
	d.rc = clampRate((d.rt+d.rc)/2, d.min, d.max)
	d.apply(fabric.Rate(d.rc), 0)
}

// dcqcnControl is DCQCN's row: hca.cc: dcqcn, its parameters under
// NVIDIA's names (hca.dcqcn), the variant picking the defaults
// (DCQCNNvidia unless variant: paper). It reacts to ECN marks (the
// switches mark by default, with switch.ecn's defaults) and, its
// notification point being the data's receiver, controls READs too.
func dcqcnControl() Control {
	type P = DCQCNParams
	rate := func(key string, f func(*P) *fabric.Rate) kind.Param { return kind.Rate(key, f) }
	tm := func(key string, f func(*P) *sim.Time) kind.Param { return kind.Time(key, f) }
	in := func(key string, f func(*P) *int) kind.Param { return kind.Int(key, f) }
	bl := func(key string, f func(*P) *bool) kind.Param { return kind.Bool(key, f) }
	row := kind.CC{
		Name: "dcqcn", Title: "DCQCN", Basis: "ECN-based", RDMA: true, Ethernet: true,
		Doc: "DCQCN (Zhu et al., SIGCOMM 2015), in the paper's form or NVIDIA's (ConnectX firmware, the default)",
		ECN: true, ControlsReads: true, Metrics: []string{"rc_gbps", "rt_gbps", "alpha"},
		Params: []kind.Param{
			{Key: "variant", Type: kind.TypeText, Enum: []string{"paper", "nvidia"}, Preset: true, Doc: "paper (DCQCNPaper) or nvidia (DCQCNNvidia, the default): picks the defaults"},
			rate("rpg_ai_rate", func(p *P) *fabric.Rate { return &p.AIRate }),
			rate("rpg_hai_rate", func(p *P) *fabric.Rate { return &p.HAIRate }),
			tm("rpg_time_reset", func(p *P) *sim.Time { return &p.TimeReset }).Checked(func(v any) string {
				if v.(sim.Time) <= 0 {
					return "rpg_time_reset must be above 0"
				}
				return ""
			}),
			kind.Size("rpg_byte_reset", func(p *P) *int64 { return &p.ByteReset }),
			in("rpg_threshold", func(p *P) *int { return &p.Threshold }).Range("1", ""),
			rate("rpg_max_rate", func(p *P) *fabric.Rate { return &p.MaxRate }).ZeroMeans("the line rate"),
			rate("rpg_min_rate", func(p *P) *fabric.Rate { return &p.MinRate }),
			in("rpg_gd", func(p *P) *int { return &p.GD }).Range("10", "11"),
			in("rpg_min_dec_fac", func(p *P) *int { return &p.MinDecFac }).Range("0", "100"),
			rate("rate_to_set_on_first_cnp", func(p *P) *fabric.Rate { return &p.RateOnFirstCNP }).ZeroMeans("none"),
			kind.Num("dce_tcp_g", func(p *P, v float64) { p.G = int(v) }, func(p *P) float64 { return float64(p.G) }).Range("0", "").Checked(func(v any) string {
				if g := v.(float64); g > 1024 || g != float64(int(g)) {
					return fmt.Sprintf("dce_tcp_g is a whole number of 1/1024ths from 0 to 1024 (alpha's gain g = (1024 - dce_tcp_g)/1024), not %v", g)
				}
				return ""
			}),
			tm("dce_tcp_rtt", func(p *P) *sim.Time { return &p.AlphaPeriod }),
			kind.Int("initial_alpha_value", func(p *P) *int { return &p.InitialAlpha }).Range("0", "").Checked(func(v any) string {
				if a := v.(int64); a > 1024 {
					return fmt.Sprintf("initial_alpha_value is in 1/1024ths, at most 1024, not %d", a)
				}
				return ""
			}),
			tm("rate_reduce_monitor_period", func(p *P) *sim.Time { return &p.ReduceMonitorPeriod }),
			tm("min_time_between_cnps", func(p *P) *sim.Time { return &p.CNPInterval }),
			bl("clamp_tgt_rate", func(p *P) *bool { return &p.ClampTgtRate }),
			bl("clamp_tgt_rate_after_time_inc", func(p *P) *bool { return &p.ClampTgtRateAfterTimeInc }),
			in("cnp_dscp", func(p *P) *int { return &p.CNPDSCP }).Range("0", "63"),
			in("cnp_802p_prio", func(p *P) *int { return &p.CNP802pPrio }).Range("0", "7"),
		},
	}
	defaults := func(preset string) P {
		if preset == "paper" {
			return DCQCNPaper()
		}
		return DCQCNNvidia()
	}
	c := Define(row, defaults, nil, func(p P, env Env) Sender { return NewDCQCN(env.Engine, p, env.Path, env.Apply) })
	// The notification point sends at most one CNP per QP per
	// min_time_between_cnps, in the paper variant one per window of that
	// length (hca.Profile.CNPWindowed).
	c.CNP = func(params any) (sim.Time, bool) {
		p := params.(*P)
		return p.CNPInterval, p.Variant == "paper"
	}
	c.CNPClass = func(params any) (dscp, prio uint8) {
		p := params.(*P)
		return uint8(p.CNPDSCP), uint8(p.CNP802pPrio)
	}
	return c
}
