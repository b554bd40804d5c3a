package congestion

import (
	"math"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// nsccAck is an ACK (or a trimmed packet's NACK) of a request sent at
// sent, marked or not.
func nsccAck(sent sim.Time, marked, trimmed bool) *fabric.Packet {
	a := &fabric.Packet{Kind: fabric.KindAck, Echo: sent}
	if marked {
		a.ECE = 1
	}
	if trimmed {
		a.Syndrome = fabric.SyndromeNAKSeqErr
		a.Ext = &fabric.PacketExt{Trimmed: true}
	}
	return a
}

// TestNSCCWindow: NSCC's window against uet-htsim's arithmetic
// (uec.cpp) on a 100 Gb/s path with a 10 us base RTT and 4096-byte
// packets, BDP 125,000 bytes:
//   - it starts at 1.5 BDP, 187,500 bytes (initNscc);
//   - a trimmed packet's NACK, the first (no quick adapt yet: its period
//     has not started), takes one packet off it (updateCwndOnNack_NSCC);
//   - ACKs marked and delayed 20 us past the base RTT, for 100 us, cut
//     it, at most by half once a base RTT, to the one-packet floor:
//     multiplicative_decrease (a quick adapt may cut it first);
//   - unmarked ACKs with no delay then grow it back (proportional and
//     fast increase), never past 1.5 BDP.
func TestNSCCWindow(t *testing.T) {
	var w int64
	path := Path{LineRate: 100 * fabric.Gbps, BaseRTT: 10 * sim.Microsecond, MTU: 4096}
	n := NewNSCC(NSCCDefaults(), path, true, func(_ fabric.Rate, win int64) { w = win })
	if want := 187500.0; math.Abs(float64(w)-want) > 1 {
		t.Fatalf("first window %d, want %.0f (1.5 BDP)", w, want)
	}
	now := 20 * sim.Microsecond
	n.OnSent(0, &fabric.Packet{Payload: 4096})
	n.OnAck(now, nsccAck(now-path.BaseRTT, false, true))
	if want := 187500.0 - 4096; math.Abs(float64(w)-want) > 1 {
		t.Errorf("after a trim %d, want %.0f (one packet less)", w, want)
	}
	for i := 0; i < 400; i++ {
		now += 250 * sim.Nanosecond
		n.OnAck(now, nsccAck(now-path.BaseRTT-20*sim.Microsecond, true, false))
	}
	if w > 4096*2 {
		t.Errorf("after 100 us of marked, delayed ACKs: %d, want the floor (4096) or near it", w)
	}
	low := w
	for i := 0; i < 4000; i++ {
		now += 250 * sim.Nanosecond
		n.OnAck(now, nsccAck(now-path.BaseRTT, false, false))
	}
	if w <= 4*low || w > 187500 {
		t.Errorf("after 1 ms of clean ACKs: %d from %d; want it grown, at most 187500", w, low)
	}
}

// TestNSCCTargetDelay: the target queueing delay's default is uet-htsim's
// (initNsccParams): 0.75 × the base RTT where switches trim, the base
// RTT where they do not; a given one stands.
func TestNSCCTargetDelay(t *testing.T) {
	path := Path{LineRate: 100 * fabric.Gbps, BaseRTT: 8 * sim.Microsecond, MTU: 4096}
	given := NSCCDefaults()
	given.TargetQDelay = 3 * sim.Microsecond
	for _, c := range []struct {
		p    NSCCParams
		trim bool
		want sim.Time
	}{
		{NSCCDefaults(), true, 6 * sim.Microsecond},
		{NSCCDefaults(), false, 8 * sim.Microsecond},
		{given, true, 3 * sim.Microsecond},
	} {
		if got := NewNSCC(c.p, path, c.trim, func(fabric.Rate, int64) {}).target; got != c.want {
			t.Errorf("trim %v, given %v: target %v, want %v", c.trim, c.p.TargetQDelay, got, c.want)
		}
	}
}
