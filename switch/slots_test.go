package swtch_test

import (
	"testing"

	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestSlotsLaidOutAgain: a switch that gives priorities slots while its
// queues are full (as a packet of a new priority does) runs on exactly as
// one that does not: a 3-to-1 incast on lossless priorities 3 and 4, one
// switch given slots for priorities 1 and 6 after 100 µs (before and
// after those two), compared at 300 µs flow by flow and port by port. And a priority without a slot
// reads as empty; a packet of one gets its slot and goes through.
func TestSlotsLaidOutAgain(t *testing.T) {
	run := func(grow bool) (*bed, []*testFlow) {
		prof := swtch.DefaultProfile()
		prof.PFC.Priorities = []uint8{3, 4}
		b := newBed(t, 4, link100, prof, frame4k)
		fl := []*testFlow{b.flow(0, 3, 3, wire4k, -1), b.flow(1, 3, 4, wire4k, -1), b.flow(2, 3, 3, wire4k, -1)}
		b.start()
		b.eng.Run(100*sim.Microsecond, nil)
		if got := b.sw.SlotMask(); got != 1<<3|1<<4 {
			t.Fatalf("slots for %#b, want priorities 3 and 4", got)
		}
		if b.sw.QueueBytes(3, 3) == 0 || b.sw.QueueBytes(3, 4) == 0 {
			t.Fatal("the incast built no queue: the test lays out nothing")
		}
		if grow {
			b.sw.AddSlots(1<<1 | 1<<6)
		}
		b.eng.Run(300*sim.Microsecond, nil)
		return b, fl
	}
	a, fa := run(false)
	b, fb := run(true)
	if got := b.sw.SlotMask(); got != 1<<1|1<<3|1<<4|1<<6 {
		t.Errorf("slots for %#b after AddSlots, want 1, 3, 4 and 6", got)
	}
	for i := range fa {
		if fa[i].rxBytes != fb[i].rxBytes || fa[i].rxPkts != fb[i].rxPkts {
			t.Errorf("flow %d: %d bytes in %d packets laid out again, %d in %d not", i, fb[i].rxBytes, fb[i].rxPkts, fa[i].rxBytes, fa[i].rxPkts)
		}
	}
	for port := 0; port < 4; port++ {
		for _, prio := range []uint8{3, 4} {
			pa, pb := *a.sw.PortPrio(port, prio), *b.sw.PortPrio(port, prio)
			if pa != pb {
				t.Errorf("port %d priority %d: counters %+v laid out again, %+v not", port, prio, pb, pa)
			}
			if qa, qb := a.sw.QueueStats(port, prio), b.sw.QueueStats(port, prio); qa != qb {
				t.Errorf("port %d priority %d: queue %+v laid out again, %+v not", port, prio, qb, qa)
			}
			if a.sw.IngressBytes(port, prio) != b.sw.IngressBytes(port, prio) || a.sw.PeakIngress(port, prio) != b.sw.PeakIngress(port, prio) {
				t.Errorf("port %d priority %d: ingress differs laid out again", port, prio)
			}
		}
		for _, prio := range []uint8{1, 6} {
			if b.sw.QueueBytes(port, prio) != 0 || *b.sw.PortPrio(port, prio) != (swtch.PortPrio{}) || b.sw.IngressBytes(port, prio) != 0 {
				t.Errorf("port %d priority %d: holds something, never used", port, prio)
			}
		}
	}
	if a.sw.PortPrio(0, 5).TxPackets != 0 || a.sw.QueueStats(3, 5) != (swtch.QueueStats{}) || a.sw.Waiting(3, 5) || a.sw.IngressPaused(0, 5) {
		t.Error("priority 5, without a slot, does not read as empty")
	}

	// A packet of a priority without a slot gets one, and arrives.
	f := a.flow(0, 2, 5, wire4k, 10)
	a.hosts[0].port.Kick()
	a.eng.Run(400*sim.Microsecond, nil)
	if got := a.sw.SlotMask(); got != 1<<3|1<<4|1<<5 {
		t.Errorf("slots for %#b after a priority-5 flow, want 3, 4 and 5", got)
	}
	if f.rxPkts != 10 || a.sw.PortPrio(2, 5).TxPackets != 10 {
		t.Errorf("priority 5: %d packets arrived, %d sent by the switch; want 10", f.rxPkts, a.sw.PortPrio(2, 5).TxPackets)
	}
}
