package hca_test

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestACKTimerIsLazy: a long RC WRITE is acknowledged packet by packet,
// and each ACK restarts the requester's ACK timer. The restart moves the
// expiry and leaves the pending event be, so the engine's queue holds
// what is in flight and not a cancelled timer per ACK: when each ACK
// cancelled and rescheduled, more than 256 cancelled events piled up
// between compactions (sim.Engine.compact).
func TestACKTimerIsLazy(t *testing.T) {
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile(), swtch.DefaultProfile())
	qa, _ := connect(h[0], h[1])
	w := h[0].PostWrite(qa, 1, 16<<20, 0)
	most := 0
	for at := sim.Microsecond; w.Status == hca.WCPending && at < 10*sim.Millisecond; at += sim.Microsecond {
		eng.Run(at, nil)
		most = max(most, eng.Pending())
	}
	if w.Status != hca.WCSuccess {
		t.Fatalf("write: %v", w.Status)
	}
	if most > 128 {
		t.Errorf("up to %d events pending during one write; want at most 128", most)
	}
	t.Logf("at most %d events pending", most)
}
