package congestion

import (
	"math"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

const tcpMSS = 4096

var tcpPath = Path{LineRate: 100 * fabric.Gbps, MTU: tcpMSS}

// drive sends n segments from psn and acknowledges each with its own
// ACK, rtt after it was sent, from time at; it returns the next PSN.
func drive(s Sender, psn uint32, n int, at, rtt sim.Time) uint32 {
	for i := 0; i < n; i++ {
		s.OnSent(at, &fabric.Packet{PSN: psn})
		s.OnAck(at+rtt, &fabric.Packet{Kind: fabric.KindAck, PSN: psn, Echo: at})
		psn++
	}
	return psn
}

func segs(s Sender) float64 { return float64(s.State(0).Window) / tcpMSS }

// TestNewReno: ten segments to start (RFC 6928); slow start adds a
// segment per segment acknowledged; a fast retransmit with 40 segments
// in flight sets ssthresh and the window to 20 (RFC 5681 eq. 4) and
// holds it through recovery; congestion avoidance then adds one segment
// per window acknowledged; a timeout leaves one segment.
func TestNewReno(t *testing.T) {
	r := NewNewReno(tcpPath, func(fabric.Rate, int64) {})
	if w := segs(r); w != 10 {
		t.Fatalf("initial window %v segments, want 10", w)
	}
	psn := drive(r, 0, 30, 0, sim.Microsecond)
	if w := segs(r); w != 40 {
		t.Errorf("after 30 segments of slow start: %v, want 40", w)
	}
	r.OnFastRetransmit(0, 40*tcpMSS)
	psn = drive(r, psn, 10, 0, sim.Microsecond) // recovery: no growth
	if w := segs(r); w != 20 {
		t.Errorf("in recovery after a fast retransmit at 40: %v, want 20", w)
	}
	r.OnRecoveryEnd(0)
	drive(r, psn, 20, 0, sim.Microsecond) // one window
	if w := segs(r); math.Abs(w-21) > 0.05 {
		t.Errorf("a window after recovery: %v, want 21 ± 0.05", w)
	}
	r.OnRTO(0, 30*tcpMSS)
	if w, ss := segs(r), r.ssthresh/tcpMSS; w != 1 || ss != 15 {
		t.Errorf("after a timeout: window %v, ssthresh %v; want 1 and 15", w, ss)
	}
}

// TestCUBIC: a loss at W = 100 segments cuts to beta 0.7 (70) and sets
// K = cbrt(W_max (1 - beta) / C) = cbrt(75) = 4.217 s (RFC 9438 eq. 2).
// At a data centre's round trip (10 µs) t stays far below K, so the
// window is the Reno-friendly estimate, growing by 3 (1 - beta)/(1 +
// beta) = 0.529 segments per window acknowledged (§4.3); with a round
// trip of a second, the cubic curve rules and at t = K the window is
// back at W_max (within a segment).
func TestCUBIC(t *testing.T) {
	c := NewCUBIC(tcpPath, func(fabric.Rate, int64) {})
	c.cwnd = 100 * tcpMSS
	c.ssthresh = c.cwnd
	c.OnSent(0, &fabric.Packet{PSN: 0})
	c.OnFastRetransmit(0, 100*tcpMSS)
	if w := segs(c); w != 70 {
		t.Errorf("after the loss: %v segments, want 70", w)
	}
	if math.Abs(c.k-math.Cbrt(75)) > 1e-9 {
		t.Errorf("K = %v s, want %v", c.k, math.Cbrt(75))
	}
	c.OnRecoveryEnd(0)
	psn := drive(c, 0, 70, sim.Microsecond, 10*sim.Microsecond)
	if w := segs(c); math.Abs(w-(70+cubicAlpha)) > 0.02 {
		t.Errorf("a window later at 10 µs: %v, want %.3f ± 0.02 (Reno-friendly)", w, 70+cubicAlpha)
	}
	// Round trips of a second: one window per second until t = K.
	at := sim.Time(0)
	for at < sim.Time(c.k*float64(sim.Second)) {
		at += sim.Second / 4
		psn = drive(c, psn, int(segs(c))/4, at, sim.Second)
	}
	if w := segs(c); math.Abs(w-100) > 3 {
		t.Errorf("at t ≈ K: %v segments, want W_max 100 ± 3", w)
	}
}
