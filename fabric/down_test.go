package fabric

import (
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// TestCutPFCFramesAreNotPacketDrops: a PFC frame a cut link loses, on
// the wire when the far port goes down or sent into the cut link, is
// counted among the link's lost PFC frames, not in DownDrops, which
// counts packets: packets.sent leaves PFC frames out, so counting them
// in packets.dropped unbalanced a run's packets by one per such frame.
func TestCutPFCFramesAreNotPacketDrops(t *testing.T) {
	eng := sim.NewEngine(1)
	tp, err := Star(2, testLink)
	if err != nil {
		t.Fatal(err)
	}
	n := NewNetwork(eng, tp)
	h := n.Ports[0][0]
	s := h.Peer()
	h.SetOwner(idleOwner{})
	s.SetOwner(idleOwner{})
	l := h.Link()

	// On the wire when the far port goes down.
	h.SendPause(3, 0xFFFF)
	eng.Run(100*sim.Nanosecond, nil) // serialized, not arrived (1 us cable)
	s.SetDown(true)
	eng.Run(5*sim.Microsecond, nil)
	// Being serialized when its own port goes down: it ends in the cut
	// link.
	s.SetDown(false)
	h.SendPause(3, 0)
	for h.Sending() == nil {
		eng.Run(eng.Now()+sim.Nanosecond, nil)
	}
	h.SetDown(true)
	eng.Run(10*sim.Microsecond, nil)

	// The first is counted where it arrived (the far port's own
	// direction), the second on the link it was sent into.
	if cut := l.PausesCut + s.Link().PausesCut; l.DownDrops+s.Link().DownDrops != 0 || cut != 2 {
		t.Errorf("DownDrops %d, PausesCut %d; want 0 and 2", l.DownDrops+s.Link().DownDrops, cut)
	}
	if got := n.DownDrops(); got != 0 {
		t.Errorf("network DownDrops %d, want 0", got)
	}
	if l.PausesInFlight() != 0 || l.InFlight() != 0 {
		t.Errorf("in flight: %d PFC frames, %d frames; want none", l.PausesInFlight(), l.InFlight())
	}
}
