package congestion

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// TIMELYParams are TIMELY's parameters (Mittal et al., "TIMELY: RTT-based
// Congestion Control for the Datacenter", SIGCOMM 2015, table 1).
type TIMELYParams struct {
	TLow, THigh sim.Time    // 50 us, 500 us
	Beta        float64     // multiplicative decrease, 0.8
	Alpha       float64     // EWMA weight of the RTT difference, 0.875
	Delta       fabric.Rate // additive increment, 10 Mb/s
	MinRTT      sim.Time    // normalises the gradient, 20 us
	HAIAfter    int         // completions with a non-positive gradient before hyperactive increase, 5
	MinRate     fabric.Rate // floor, 10 Mb/s
}

// TIMELYDefaults returns table 1's values.
func TIMELYDefaults() TIMELYParams {
	return TIMELYParams{
		TLow: 50 * sim.Microsecond, THigh: 500 * sim.Microsecond,
		Beta: 0.8, Alpha: 0.875, Delta: 10 * fabric.Mbps, MinRTT: 20 * sim.Microsecond,
		HAIAfter: 5, MinRate: 10 * fabric.Mbps,
	}
}

// TIMELY is one QP's RTT-gradient rate control, updated on every ACK (a
// completion event).
type TIMELY struct {
	p       TIMELYParams
	apply   Apply
	line    float64
	rate    float64
	prevRTT float64
	rttDiff float64
	negRun  int
	started bool
}

var _ Sender = (*TIMELY)(nil)

// NewTIMELY starts at line rate.
func NewTIMELY(p TIMELYParams, path Path, apply Apply) *TIMELY {
	line := float64(path.LineRate)
	return &TIMELY{p: p, apply: apply, line: line, rate: line}
}

// OnSent: TIMELY reacts to completions only.
func (t *TIMELY) OnSent(sim.Time, *fabric.Packet) {}

// OnCNP: TIMELY does not use ECN.
func (t *TIMELY) OnCNP(sim.Time) {}

// OnAck is the paper's algorithm 1 with the RTT of the acknowledged
// request.
func (t *TIMELY) OnAck(now sim.Time, ack *fabric.Packet) {
	if ack.Echo <= 0 || ack.Kind != fabric.KindAck {
		return
	}
	rtt := float64(now - ack.Echo)
	if !t.started {
		t.started, t.prevRTT = true, rtt
		return
	}
	newDiff := rtt - t.prevRTT
	t.prevRTT = rtt
	t.rttDiff = (1-t.p.Alpha)*t.rttDiff + t.p.Alpha*newDiff
	gradient := t.rttDiff / float64(t.p.MinRTT)
	delta := float64(t.p.Delta)
	switch {
	case rtt < float64(t.p.TLow):
		t.rate += delta
		t.negRun = 0
	case rtt > float64(t.p.THigh):
		t.rate *= 1 - t.p.Beta*(1-float64(t.p.THigh)/rtt)
		t.negRun = 0
	case gradient <= 0:
		t.negRun++
		n := 1.0
		if t.negRun >= t.p.HAIAfter {
			n = 5
		}
		t.rate += n * delta
	default:
		t.negRun = 0
		// The paper's factor 1 - beta × gradient goes below zero once the
		// gradient passes 1/beta (an RTT rising faster than minRTT per
		// completion, as behind a PFC-held queue); one update cuts at most
		// by beta here, the bound the T_high rule also keeps.
		t.rate *= max(1-t.p.Beta, 1-t.p.Beta*gradient)
	}
	t.rate = clampRate(t.rate, float64(t.p.MinRate), t.line)
	t.apply(fabric.Rate(t.rate), 0)
}

// State reports the rate.
func (t *TIMELY) State(sim.Time) State {
	return State{Rate: fabric.Rate(t.rate), RTT: sim.Time(t.prevRTT)}
}

// timelyControl is TIMELY's row: hca.cc: timely with hca.timely's keys
// over TIMELYDefaults. It reacts to RTT samples only, so it needs nothing
// of the switches (and runs on RoCEv1, whose frames carry no ECN).
func timelyControl() Control {
	type P = TIMELYParams
	tm := func(key string, f func(*P) *sim.Time) kind.Param { return kind.Time(key, f) }
	row := kind.CC{
		Name: "timely", Title: "TIMELY", Basis: "RTT-based", RDMA: true, Ethernet: true,
		Doc:     "TIMELY (Mittal et al., SIGCOMM 2015): a rate from the gradient of RTT samples",
		Metrics: []string{"rc_gbps", "rtt_us"},
		Params: []kind.Param{
			tm("t_low", func(p *P) *sim.Time { return &p.TLow }),
			tm("t_high", func(p *P) *sim.Time { return &p.THigh }),
			kind.Frac("beta", func(p *P) *float64 { return &p.Beta }),
			kind.Frac("alpha", func(p *P) *float64 { return &p.Alpha }),
			kind.Rate("delta", func(p *P) *fabric.Rate { return &p.Delta }),
			tm("min_rtt", func(p *P) *sim.Time { return &p.MinRTT }),
			kind.Int("hai_after", func(p *P) *int { return &p.HAIAfter }).Range("1", "1000"),
			kind.Rate("min_rate", func(p *P) *fabric.Rate { return &p.MinRate }),
		},
	}
	check := func(p *P) []kind.Problem {
		var out []kind.Problem
		if p.TLow >= p.THigh {
			out = append(out, kind.Problemf("t_low", "t_low (%v) must be below t_high (%v)", p.TLow, p.THigh))
		}
		if p.MinRTT <= 0 {
			out = append(out, kind.Problemf("min_rtt", "min_rtt must be above 0"))
		}
		return out
	}
	return Define(row, func(string) P { return TIMELYDefaults() }, check, func(p P, env Env) Sender { return NewTIMELY(p, env.Path, env.Apply) })
}
