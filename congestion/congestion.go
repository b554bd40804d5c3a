// Package congestion holds the congestion controls a QP's sender (the
// reaction point) can run: DCQCN in its paper and NVIDIA forms, HPCC,
// TIMELY, DCTCP and InfiniBand's CCA. Each is per-QP state driven by three events the HCA reports
// (a request sent, an ACK received, a CNP received) and by its own timers
// on the engine; it answers with a rate and optionally a window through
// the Apply function it was made with. No goroutines, no wall clock.
//
// Each control registers itself once (register.go): its row of the
// table of kinds (kind.CC: its name in a scenario file, its parameters
// with their defaults, what it needs of the switches and the NIC), its
// defaults and checks, and how to make a sender. The scenario format,
// the assembly and the docs read that row; none of them names a
// control. Adding one is a file here and a line in register.go's list.
//
// The HCA calls the methods of hca.CongestionControl, which every type
// here implements; this package does not import hca (siblings stay apart,
// DESIGN.md). It imports only sim, fabric and kind of lfsim's.
package congestion

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// Apply sets the QP's sending rate (bits per second) and window (bytes in
// flight; 0 for none). The scenario builder wires it to hca.HCA.SetRate.
type Apply func(rate fabric.Rate, window int64)

// Sender is one QP's congestion control.
type Sender interface {
	OnSent(now sim.Time, p *fabric.Packet)
	OnAck(now sim.Time, ack *fabric.Packet)
	OnCNP(now sim.Time)
	// State reports the current rate, target rate, alpha and window, for
	// the time series (rc_gbps, rt_gbps, alpha).
	State(now sim.Time) State
}

// State is a reaction point's state at one time. Algorithms without a
// rate (window-based: DCTCP, TCP's), a target rate, a window or an alpha
// report zero there.
type State struct {
	Rate   fabric.Rate
	Target fabric.Rate
	Alpha  float64
	Window int64
	// HasAlpha says Alpha is the algorithm's (DCQCN, DCTCP).
	HasAlpha bool
	// CCTI is IB congestion control's table index (HasCCTI).
	CCTI    int
	HasCCTI bool
	// RTT is the round-trip time the algorithm last reacted to (TIMELY's
	// latest sample), 0 for one that takes none.
	RTT sim.Time
}

// TargetDelayer is a Sender that steers to a target queueing delay
// (NSCC), by which UET's SLEEK probes time a silence (hca/uet.go).
type TargetDelayer interface {
	TargetDelay() sim.Time
}

// Path is what a sender knows of its flow's path when it starts: the
// rate of its own link and the base round-trip time (propagation,
// serialization of one packet per hop, switch latencies, both ways) and
// the payload bytes of a full packet (the MTU), for window-based senders.
type Path struct {
	LineRate fabric.Rate
	BaseRTT  sim.Time
	MTU      int
}

// clampRate keeps r within [lo, hi].
func clampRate(r, lo, hi float64) float64 { return max(lo, min(hi, r)) }
