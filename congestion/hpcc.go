package congestion

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// HPCCParams are HPCC's parameters (Li et al., "HPCC: High Precision
// Congestion Control", SIGCOMM 2019).
type HPCCParams struct {
	// Eta is the target utilisation, 0.95 in the paper.
	Eta float64
	// MaxStage is how many RTTs of additive increase may pass before a
	// multiplicative adjustment; the issue asks for 0 (every update
	// multiplicative), the paper evaluates 5.
	MaxStage int
	// WAI is the additive increase per update, bytes; 0 means the paper's
	// W_init × (1 - eta) / N with N = 100 flows (about 50 Mb/s worth at
	// 100 Gb/s, the value the paper's simulations use).
	WAI int64
}

// HPCCDefaults returns eta 0.95, maxStage 0, W_AI from the paper's rule.
func HPCCDefaults() HPCCParams { return HPCCParams{Eta: 0.95} }

// HPCC is one QP's HPCC sender: a window W (and the rate W/T) computed
// from the utilisation of the most loaded hop, which the INT records in
// each ACK give: u = qlen / (B T) + txRate / B.
type HPCC struct {
	p     HPCCParams
	apply Apply
	t     float64 // base RTT, seconds
	line  float64 // bits per second
	w, wc float64 // window and reference window, bytes
	wai   float64
	u     float64
	stage int

	last       fabric.INTStack
	haveLast   bool
	lastUpdate uint32 // snd_nxt at the last reference update (24-bit PSN)
	sndNxt     uint32 // one past the last PSN sent
	sent       bool   // a packet was sent: lastUpdate starts at its PSN
}

var _ Sender = (*HPCC)(nil)

// NewHPCC starts a sender at line rate with W = W_init = line rate × base
// RTT (the bandwidth-delay product).
func NewHPCC(p HPCCParams, path Path, apply Apply) *HPCC {
	h := &HPCC{p: p, apply: apply, t: path.BaseRTT.Seconds(), line: float64(path.LineRate)}
	winit := h.line / 8 * h.t
	h.w, h.wc = winit, winit
	h.wai = float64(p.WAI)
	if h.wai <= 0 {
		h.wai = winit * (1 - p.Eta) / 100
	}
	return h
}

// OnSent tracks snd_nxt, for the once-per-RTT reference update. The
// first packet sets lastUpdateSeq too (the paper's algorithm 1 starts it
// at snd_nxt): a QP's first PSN is any 24-bit number (rdma_cm draws it
// at random), and from 0 a first PSN 2^23 or more away would never be
// "after" it, so the reference window would never be updated.
func (h *HPCC) OnSent(_ sim.Time, p *fabric.Packet) {
	if !h.sent {
		h.sent, h.lastUpdate = true, p.PSN&psnMask
	}
	h.sndNxt = (p.PSN + 1) & psnMask
}

const psnMask = 1<<24 - 1

// psnAfter reports whether 24-bit PSN a is after b.
func psnAfter(a, b uint32) bool {
	d := (a - b) & psnMask
	return d != 0 && d < 1<<23
}

// OnCNP: HPCC does not use ECN.
func (h *HPCC) OnCNP(sim.Time) {}

// OnAck is the paper's NewAck (algorithm 1).
func (h *HPCC) OnAck(_ sim.Time, ack *fabric.Packet) {
	if ack.INT == nil || ack.INT.N == 0 || ack.Kind != fabric.KindAck {
		return
	}
	if !h.haveLast || h.last.N != ack.INT.N {
		h.last, h.haveLast = *ack.INT, true
		return
	}
	u := h.measureInflight(ack.INT)
	// The ACK of a packet sent after the last update starts a new RTT.
	update := psnAfter(ack.PSN, h.lastUpdate) || ack.PSN == h.lastUpdate
	h.computeWind(u, update)
	if update {
		h.lastUpdate = h.sndNxt
	}
	h.last = *ack.INT
	h.apply(fabric.Rate(min(h.line, h.w*8/h.t)), int64(h.w))
}

// measureInflight estimates the bottleneck's normalised inflight bytes.
func (h *HPCC) measureInflight(now *fabric.INTStack) float64 {
	var u, tau float64
	for i := 0; i < int(now.N); i++ {
		cur, prev := now.Hops[i], h.last.Hops[i]
		dt := (cur.TS - prev.TS).Seconds()
		if dt <= 0 {
			continue
		}
		b := float64(cur.Rate)
		txRate := float64(cur.TxBytes-prev.TxBytes) * 8 / dt
		q := float64(min(cur.QLen, prev.QLen)) * 8
		if v := q/(b*h.t) + txRate/b; v > u {
			u, tau = v, dt
		}
	}
	tau = min(tau, h.t)
	h.u = (1-tau/h.t)*h.u + tau/h.t*u
	return h.u
}

func (h *HPCC) computeWind(u float64, update bool) {
	if u >= h.p.Eta || h.stage >= h.p.MaxStage {
		h.w = h.wc/(u/h.p.Eta) + h.wai
		if update {
			h.stage = 0
			h.wc = h.w
		}
	} else {
		h.w = h.wc + h.wai
		if update {
			h.stage++
			h.wc = h.w
		}
	}
	maxW := h.line / 8 * h.t
	h.w = max(min(h.w, maxW), 64)
	h.wc = max(min(h.wc, maxW), 64)
}

// State reports rate W/T and the window.
func (h *HPCC) State(sim.Time) State {
	return State{Rate: fabric.Rate(min(h.line, h.w*8/h.t)), Window: int64(h.w)}
}

// hpccControl is HPCC's row: hca.cc: hpcc with hca.hpcc's keys over
// HPCCDefaults. It reads the telemetry switches stamp (INT) and the
// receiver acknowledges every packet, as the paper's senders see every
// ACK; READ responses, which no ACK answers, it cannot control.
func hpccControl() Control {
	type P = HPCCParams
	row := kind.CC{
		Name: "hpcc", Title: "HPCC", Basis: "INT-based", RDMA: true, Ethernet: true,
		Doc: "HPCC (Li et al., SIGCOMM 2019): a window from the in-band telemetry of every hop",
		INT: true, AckEvery: true, Metrics: []string{"rc_gbps", "window_bytes"},
		Params: []kind.Param{
			kind.Frac("eta", func(p *P) *float64 { return &p.Eta }).Checked(func(v any) string {
				if v.(float64) <= 0 {
					return "eta must be above 0"
				}
				return ""
			}),
			kind.Int("max_stage", func(p *P) *int { return &p.MaxStage }).Range("0", "100"),
			kind.Size("w_ai", func(p *P) *int64 { return &p.WAI }).ZeroMeans("W_init × (1 − eta) / 100, the paper's rule for 100 flows per link"),
		},
	}
	return Define(row, func(string) P { return HPCCDefaults() }, nil, func(p P, env Env) Sender { return NewHPCC(p, env.Path, env.Apply) })
}
