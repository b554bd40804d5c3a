package hca_test

import (
	"slices"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestReadTailLossAskedAgainByTimeout: under selective repeat with
// direct placement (IRN's option, and UET's own), a READ of 64 KiB at a
// 1024-byte MTU (64 responses) that loses its 61st response has only 3
// responses past the gap, fewer than ReorderWindow (256), so nothing but
// the ACK timeout can ask for it again: the READ completes with all
// 65,536 bytes delivered, where it failed with retry_exc_err after
// retry_cnt timeouts that resent nothing.
func TestReadTailLossAskedAgainByTimeout(t *testing.T) {
	const size, mtu, lost = 64 << 10, 1024, 60
	for _, c := range []struct {
		name string
		tr   fabric.Transport
	}{{"rocev2", fabric.RoCEv2}, {"uet", fabric.UET}} {
		t.Run(c.name, func(t *testing.T) {
			prof := hca.DefaultProfile()
			prof.MTU, prof.Retransmit, prof.Placement, prof.Transport = mtu, hca.Selective, hca.Direct, c.tr
			eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
			qa, _ := connect(h[0], h[1])
			h[1].Port().Link().SetLossFilter(loseOnce(1, func(p *fabric.Packet) bool {
				return isOp(p, fabric.OpReadResponseMiddle) && p.PSN == lost
			}))
			w, err := h[0].PostSend(qa, hca.SendWR{Op: hca.WRRead, Length: size, Signaled: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey})
			if err != nil {
				t.Fatal(err)
			}
			eng.Run(sim.Second, nil)
			if n := h[1].Port().Link().Lost; n != 1 {
				t.Fatalf("%d frames lost, want 1 (the case tests nothing)", n)
			}
			if w.Status != hca.WCSuccess || qa.ReadDelivered != size {
				t.Fatalf("READ %v with %d bytes delivered, want success with %d", w.Status, qa.ReadDelivered, size)
			}
			checkInvariant(t, eng, h)
		})
	}
}

// TestReadFirstResponseLostAskedAgainByTimeout: under selective repeat
// with direct placement, READs of 16 KiB at a 1024-byte MTU (16
// responses each), posted together, the first READ's first response
// lost once. Its other 15 responses are placed past the gap (fewer than
// ReorderWindow, so nothing asks again), so it holds none in order
// (respPkts 0); the next READ's in-order responses acknowledge its
// request (the cumulative PSN past it), so a timeout's recovery, which
// starts at the cumulative PSN, never reaches it. The timeout must ask
// for it again from its first response, as it does a READ that took
// some in order (srTimeout). Asserted: every READ completes with all its
// bytes. Before: the first READ completed with retry_exc_err after 8
// timeouts that resent nothing (tried, both transports), as the
// metamorphic all-to-all's READ under UET did
// (assembly/readloss_test.go).
func TestReadFirstResponseLostAskedAgainByTimeout(t *testing.T) {
	const size, mtu, reads = 16 << 10, 1024, 4
	for _, c := range []struct {
		name string
		tr   fabric.Transport
	}{{"rocev2", fabric.RoCEv2}, {"uet", fabric.UET}} {
		t.Run(c.name, func(t *testing.T) {
			prof := hca.DefaultProfile()
			prof.MTU, prof.Retransmit, prof.Placement, prof.Transport = mtu, hca.Selective, hca.Direct, c.tr
			eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
			qa, _ := connect(h[0], h[1])
			h[1].Port().Link().SetLossFilter(loseOnce(1, func(p *fabric.Packet) bool {
				return isOp(p, fabric.OpReadResponseFirst) && p.PSN == 0
			}))
			read := hca.SendWR{Op: hca.WRRead, Length: size, Signaled: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey}
			ws := postAll(t, h[0], qa, slices.Repeat([]hca.SendWR{read}, reads)...)
			eng.Run(sim.Second, nil)
			wantLostOnceAllDone(t, h[1].Port().Link(), "READ", ws)
			if qa.ReadDelivered != reads*size {
				t.Errorf("%d bytes delivered; want %d", qa.ReadDelivered, reads*size)
			}
			checkInvariant(t, eng, h)
		})
	}
}
