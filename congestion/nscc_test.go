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
	// Each ACK acknowledges the next packet (PSN 1 on: NSCC counts the
	// packets an ACK reports received).
	psn := uint32(1)
	ack := func(sent sim.Time, marked bool) {
		n.OnSent(sent, &fabric.Packet{PSN: psn, Payload: 4096})
		a := nsccAck(sent, marked, false)
		a.PSN = psn
		psn++
		n.OnAck(now, a)
	}
	for i := 0; i < 400; i++ {
		now += 250 * sim.Nanosecond
		ack(now-path.BaseRTT-20*sim.Microsecond, true)
	}
	if w > 4096*2 {
		t.Errorf("after 100 us of marked, delayed ACKs: %d, want the floor (4096) or near it", w)
	}
	low := w
	for i := 0; i < 4000; i++ {
		now += 250 * sim.Nanosecond
		ack(now-path.BaseRTT, false)
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

// TestNSCCCountsReceivedPackets: NSCC counts the packets the receiver
// reports received, each once, as uet-htsim's sender counts the ACK's
// recvd_bytes (uec.cpp processAck), not one packet an ACK: its bytes in
// flight (sent less acknowledged) after each ACK, on a QP that sent
// PSNs 0 to 7 of 4096 bytes. A coalesced ACK counts all it covers, a
// cumulative ACK past SACKed packets counts only the others, a
// duplicate ACK or SACK nothing. When each ACK counted one packet the
// coalesced ACK left 3 packets in flight, the duplicates took off more
// than was sent and the SACKed ones were counted twice.
func TestNSCCCountsReceivedPackets(t *testing.T) {
	type ev struct {
		psn  uint32 // an ACK's PSN, or a NAK's expected PSN
		sack int    // a NAK's SACKed PSN; -1: an ACK
	}
	for _, c := range []struct {
		name string
		evs  []ev
		want []int // packets in flight after each
	}{
		{"in order", []ev{{0, -1}, {1, -1}, {2, -1}}, []int{7, 6, 5}},
		{"coalesced", []ev{{3, -1}, {7, -1}}, []int{4, 0}},
		{"duplicate ACK", []ev{{1, -1}, {1, -1}, {2, -1}}, []int{6, 6, 5}},
		{"SACKs then the gap", []ev{{0, 2}, {0, 3}, {0, 3}, {3, -1}, {5, 7}, {7, -1}}, []int{7, 6, 6, 4, 2, 0}},
		{"SACK behind the cumulative", []ev{{4, -1}, {5, 2}}, []int{3, 3}},
	} {
		n := NewNSCC(NSCCDefaults(), Path{LineRate: 100 * fabric.Gbps, BaseRTT: 10 * sim.Microsecond, MTU: 4096}, true, func(fabric.Rate, int64) {})
		for psn := uint32(0); psn < 8; psn++ {
			n.OnSent(0, &fabric.Packet{PSN: psn, Payload: 4096})
		}
		now := 20 * sim.Microsecond
		for i, e := range c.evs {
			a := &fabric.Packet{Kind: fabric.KindAck, PSN: e.psn}
			if e.sack >= 0 {
				a.Syndrome = fabric.SyndromeNAKSeqErr
				a.Ext = &fabric.PacketExt{SackPSN: uint32(e.sack)}
			}
			now += sim.Microsecond
			n.OnAck(now, a)
			if got := n.inFlight / 4096; got != float64(c.want[i]) {
				t.Errorf("%s: after %d (PSN %d, SACK %d) %.0f packets in flight, want %d", c.name, i+1, e.psn, e.sack, got, c.want[i])
			}
		}
	}
}

// TestNSCCLastHopTrimUnderRCCC: beside RCCC a packet trimmed on the last
// link, into its receiver, leaves NSCC's window as it was, where one
// trimmed elsewhere, or any without RCCC, takes the packet off it
// (uet-htsim's updateCwndOnNack_NSCC: `!_receiver_based_cc || !last_hop`).
// The path as TestNSCCWindow's: a first window of 187,500 bytes, and the
// first trim comes before quick adapt's first period.
func TestNSCCLastHopTrimUnderRCCC(t *testing.T) {
	path := Path{LineRate: 100 * fabric.Gbps, BaseRTT: 10 * sim.Microsecond, MTU: 4096}
	for _, c := range []struct {
		name          string
		rccc, lastHop bool
		want          float64
	}{
		{"rccc, last hop", true, true, 187500},
		{"rccc, elsewhere", true, false, 187500 - 4096},
		{"no rccc, last hop", false, true, 187500 - 4096},
	} {
		var w int64
		n := NewNSCC(NSCCDefaults(), path, true, func(_ fabric.Rate, win int64) { w = win })
		n.SetReceiverCredits(c.rccc)
		now := 20 * sim.Microsecond
		n.OnSent(0, &fabric.Packet{Payload: 4096})
		a := nsccAck(now-path.BaseRTT, false, true)
		a.Ext.LastHop = c.lastHop
		n.OnAck(now, a)
		if math.Abs(float64(w)-c.want) > 1 {
			t.Errorf("%s: window %d after the trim; want %.0f", c.name, w, c.want)
		}
	}
}
