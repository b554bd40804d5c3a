package hca_test

import (
	"testing"
	"unsafe"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestGoBack0AckedWithinSent: under go-back-0 the highest PSN
// acknowledged since the last restart (acked, from which a window counts
// what is in flight) never passes what has been sent since the restart
// (nextPSN). An ACK timeout shorter than the round trip (ack_timeout 2,
// 16.4 us, where a 16-packet window of 4096-byte packets goes every 17
// to 23 us over a star with 2.5 to 4 us links) restarts a 1 MiB
// WRITE (256 packets) while the first window's ACKs are on their way;
// arriving after the restart, they acknowledged PSNs not yet sent again,
// and acked went up to 81 (2.5 and 3 us) and 101 (4 us) packets past
// nextPSN: the window counted fewer than nothing in flight and let a
// burst go, and the WRITE did not complete in 1 s (51,138, 48,644 and
// 59,431 timeouts; tried). Checked before every event of the run. The
// WRITE must also complete within 1.25 × its time with the default
// timeout (67 ms, none firing), 16 windows a round trip apart: the
// spurious timeouts resend a window or so each (measured 1.07, 0.97 and
// 1.21 × with 2, 2 and 7 timeouts).
func TestGoBack0AckedWithinSent(t *testing.T) {
	run := func(delay sim.Time, timeout int) (w *hca.WQE, worst, timeouts int64) {
		prof := hca.DefaultProfile()
		prof.Retransmit, prof.AckTimeout = hca.GoBack0, timeout
		eng, h, _ := star(t, 2, 100*fabric.Gbps, delay, prof, swtch.DefaultProfile())
		qa, _ := connect(h[0], h[1])
		h[0].SetWindowCap(qa, 16*4096)
		w, _ = h[0].PostSend(qa, hca.SendWR{Op: hca.WRWrite, Length: 1 << 20, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey})
		eng.SetTrace(func(sim.Time, unsafe.Pointer, sim.Handler) {
			acked, next := h[0].GoBack0Acked(qa)
			worst = max(worst, acked-next)
		})
		eng.Run(sim.Second, nil)
		checkInvariant(t, eng, h)
		return w, worst, h[0].Stats.Timeouts
	}
	for _, delay := range []sim.Time{2500 * sim.Nanosecond, 3 * sim.Microsecond, 4 * sim.Microsecond} {
		w, worst, timeouts := run(delay, 2)
		base, _, _ := run(delay, 14)
		t.Logf("delay %v: %v at %v, %d timeouts, acked past nextPSN by %d at worst; with the default timeout at %v", delay, w.Status, w.Completed, timeouts, worst, base.Completed)
		if worst > 0 {
			t.Errorf("delay %v: acked passed nextPSN by %d packets", delay, worst)
		}
		if w.Status != hca.WCSuccess || base.Status != hca.WCSuccess || float64(w.Completed) > 1.25*float64(base.Completed) {
			t.Errorf("delay %v: %v at %v (%d timeouts); want success within 1.25 × %v", delay, w.Status, w.Completed, timeouts, base.Completed)
		}
	}
}
