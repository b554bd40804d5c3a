package congestion

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// IBCC is InfiniBand congestion control at the source (IBTA vol. 1, annex
// A10): switches mark FECN on packets leaving a congested port, the
// destination returns a BECN (here in a CNP, as for RoCE), and the source
// raises its Congestion Control Table index by CCTI_Increase, up to
// CCTI_Limit; every CCTI_Timer the index falls by one, down to CCTI_Min.
// The table gives the inter-packet delay at each index.
//
// The table here: entry i delays each packet by i/8 of its own
// transmission time, so the rate is line / (1 + i/8): index 8 halves it,
// 127 (the default limit) leaves line / 16.9. The annex leaves the table
// to the subnet manager (OpenSM's congestion control is off by default,
// its table empty); Gran et al. (IPDPS 2010) and Pfister et al. (HiPC
// 2001) evaluate linearly increasing delays of this kind.
type IBCC struct {
	p     IBCCParams
	eng   *sim.Engine
	apply Apply
	line  float64
	ccti  int
	timer sim.Timer
}

// IBCCParams are hca.ibcc, by the annex's names.
type IBCCParams struct {
	// CCTIIncrease is what a BECN adds to the index. Default 1.
	CCTIIncrease int
	// CCTILimit is the largest index. Default 127.
	CCTILimit int
	// CCTITimer is the time after which the index falls by one. Default
	// 20 µs (SCENARIO.md's example; the annex counts it in 1.024 µs units).
	CCTITimer sim.Time
	// CCTIMin is the smallest index. Default 0.
	CCTIMin int
}

// IBCCDefaults are IBCCParams' defaults.
func IBCCDefaults() IBCCParams {
	return IBCCParams{CCTIIncrease: 1, CCTILimit: 127, CCTITimer: 20 * sim.Microsecond}
}

var _ Sender = (*IBCC)(nil)

// NewIBCC makes a QP's source of IB congestion control, at line rate.
func NewIBCC(eng *sim.Engine, p IBCCParams, path Path, apply Apply) *IBCC {
	return &IBCC{p: p, eng: eng, apply: apply, line: float64(path.LineRate), ccti: p.CCTIMin}
}

// rate is the table's rate at the current index.
func (c *IBCC) rate() fabric.Rate { return fabric.Rate(c.line / (1 + float64(c.ccti)/8)) }

// CCTI returns the current index.
func (c *IBCC) CCTI() int { return c.ccti }

// OnCNP takes a BECN: the index rises.
func (c *IBCC) OnCNP(sim.Time) {
	c.ccti = min(c.p.CCTILimit, c.ccti+c.p.CCTIIncrease)
	c.apply(c.rate(), 0)
	if !c.timer.Pending() && c.p.CCTITimer > 0 {
		c.timer = c.eng.After(c.p.CCTITimer, c, 0, 0, nil)
	}
}

// HandleEvent is the CCTI timer: the index falls by one.
func (c *IBCC) HandleEvent(*sim.Event) {
	if c.ccti > c.p.CCTIMin {
		c.ccti--
		c.apply(c.rate(), 0)
	}
	if c.ccti > c.p.CCTIMin {
		c.timer = c.eng.After(c.p.CCTITimer, c, 0, 0, nil)
	}
}

// OnSent and OnAck: IB CC uses neither.
func (c *IBCC) OnSent(sim.Time, *fabric.Packet) {}
func (c *IBCC) OnAck(sim.Time, *fabric.Packet)  {}

// State reports the rate, and the index in CCTI.
func (c *IBCC) State(sim.Time) State { return State{Rate: c.rate(), CCTI: c.ccti, HasCCTI: true} }

// ibccControl is InfiniBand congestion control's row: hca.cc: ibcc on
// InfiniBand, with hca.ibcc's keys (the annex's names) over
// IBCCDefaults. Its packets are FECN-capable; the responder's CCT
// controls a READ's responses as any other packets it sends.
func ibccControl() Control {
	type P = IBCCParams
	row := kind.CC{
		Name: "ibcc", Title: "InfiniBand congestion control", Basis: "FECN-based", RDMA: true, InfiniBand: true,
		Doc: "InfiniBand congestion control at the source (IBTA vol. 1, annex A10): a CCT index raised by BECNs",
		ECN: true, ControlsReads: true, Metrics: []string{"rc_gbps", "ccti"},
		Params: []kind.Param{
			kind.Int("ccti_increase", func(p *P) *int { return &p.CCTIIncrease }).Range("0", "255"),
			kind.Int("ccti_limit", func(p *P) *int { return &p.CCTILimit }).Range("0", "16383"),
			kind.Time("ccti_timer", func(p *P) *sim.Time { return &p.CCTITimer }).Range("1ns", ""),
			kind.Int("ccti_min", func(p *P) *int { return &p.CCTIMin }).Range("0", "16383"),
		},
	}
	check := func(p *P) []kind.Problem {
		if p.CCTIMin > p.CCTILimit {
			return []kind.Problem{kind.Problemf("ccti_min", "ccti_min (%d) is above ccti_limit (%d)", p.CCTIMin, p.CCTILimit)}
		}
		return nil
	}
	return Define(row, func(string) P { return IBCCDefaults() }, check, func(p P, env Env) Sender { return NewIBCC(env.Engine, p, env.Path, env.Apply) })
}
