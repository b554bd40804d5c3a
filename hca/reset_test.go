package hca_test

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestResetLeavesTransmitRing: a QP moved to RESET (ibv_modify_qp) leaves
// the HCA's transmit ring, as a destroyed one does. h0 sends a WRITE of
// 1 MiB on qc, to h2; at 2 us, its link busy, it posts a WRITE of
// 256 KiB on qa, to h1, resets qa before the WQE's doorbell is done
// (nothing of it sent), brings qa back to RTS and posts the WRITE again.
// qa must be in the ring once, each of the 320 packets sent once, and
// qa's WRITE must take what it takes without the reset (qa and qc
// sharing h0's link a packet each in turn): 49.654 us, the same to the
// picosecond. Before, the reset cleared qa's place (active) and left
// its pointer in the ring, where the arbiter, busy with qc's packet,
// had not dropped it: the post put qa in a second time, qa took two
// turns a round, 2 packets to qc's 1, and its WRITE took 38.959 us,
// 0.785 of the fair time, in either arbiter (tried).
func TestResetLeavesTransmitRing(t *testing.T) {
	const size, at = 256 << 10, 2 * sim.Microsecond
	for _, c := range []struct {
		name string
		prof func(p *hca.Profile)
	}{
		{"one ring", func(p *hca.Profile) {}},
		{"rings by VL (arbitration)", func(p *hca.Profile) {
			a := &hca.VLArb{}
			for i := range a.Weight {
				a.Weight[i] = 64 * 255
			}
			p.VLArb = a
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			prof := hca.DefaultProfile()
			c.prof(&prof)
			var took [2]sim.Time // without the reset, with it
			for i, reset := range []bool{false, true} {
				eng, h, _ := star(t, 3, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
				qa, _ := connect(h[0], h[1])
				qc, _ := connect(h[0], h[2])
				write := func(q *hca.QP, size int64) *hca.WQE {
					w, err := h[0].PostSend(q, hca.SendWR{Op: hca.WRWrite, Length: size, Signaled: true, RemoteAddr: q.RemoteAddr, RKey: q.RemoteRKey})
					if err != nil {
						t.Fatal(err)
					}
					return w
				}
				wc := write(qc, 4*size)
				eng.Run(at, nil)
				if reset {
					first := write(qa, size)
					remote, addr, rkey := qa.RemoteQPN, qa.RemoteAddr, qa.RemoteRKey
					if err := h[0].ModifyQP(qa, hca.QPAttr{State: hca.QPReset}); err != nil {
						t.Fatal(err)
					}
					if first.Status != hca.WCFlushed {
						t.Fatalf("the WRITE posted before the reset: %v; want wr_flush_err", first.Status)
					}
					h[0].Connect(qa, h[1].ID, h[1].IP, remote) // RESET forgot its peer
					qa.RemoteAddr, qa.RemoteRKey = addr, rkey
				}
				wa := write(qa, size)
				if n := h[0].InRing(qa); n != 1 {
					t.Errorf("reset %v: after the post qa is %d times in the ring; want 1", reset, n)
				}
				eng.Run(sim.Second, nil)
				if wa.Status != hca.WCSuccess || wc.Status != hca.WCSuccess {
					t.Fatalf("reset %v: WRITEs %v and %v; want success", reset, wa.Status, wc.Status)
				}
				if s := h[0].Stats; s.DataPackets != 5*size/int64(prof.MTU) || s.Retransmitted != 0 {
					t.Errorf("reset %v: %d data packets sent, %d of them again; want %d, none", reset, s.DataPackets, s.Retransmitted, 5*size/int64(prof.MTU))
				}
				took[i] = wa.Completed - at
				checkInvariant(t, eng, h)
			}
			if took[1] != took[0] {
				t.Errorf("qa's WRITE took %v after the reset, %v without it (%.3f); want the same", took[1], took[0], float64(took[1])/float64(took[0]))
			}
		})
	}
}

// TestResetOrDestroyCancelsProbe: a UET QP that runs SLEEK (a path BDP,
// its probe's times, a window of 64 KiB) has its probe timer running
// while a WRITE of 1 MiB is under way; reset or destroyed at 20 us, it
// loses its selective-repeat state, and the probe's event must not
// come: no probe is sent after it, and the run goes on to its end.
// Before, toErr left the timer running, and its event read the QP's
// state, gone: a nil dereference in sleekProbe, at reset and at destroy
// alike (tried).
func TestResetOrDestroyCancelsProbe(t *testing.T) {
	for _, c := range []struct {
		name string
		end  func(h *hca.HCA, qp *hca.QP) error
	}{
		{"reset", func(h *hca.HCA, qp *hca.QP) error { return h.ModifyQP(qp, hca.QPAttr{State: hca.QPReset}) }},
		{"destroy", func(h *hca.HCA, qp *hca.QP) error { return h.DestroyQP(qp) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			prof := hca.DefaultProfile()
			prof.MTU, prof.Retransmit, prof.Placement, prof.Transport = 4096, hca.Selective, hca.Direct, fabric.UET
			eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
			qa, _ := connect(h[0], h[1])
			h[0].SetPathBDP(qa, 100_000)
			h[0].SetSleekProbe(qa, 5*sim.Microsecond, 4*sim.Microsecond)
			h[0].SetWindowCap(qa, 64<<10)
			if _, err := h[0].PostSend(qa, hca.SendWR{Op: hca.WRWrite, Length: 1 << 20, Signaled: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey}); err != nil {
				t.Fatal(err)
			}
			eng.Run(20*sim.Microsecond, nil)
			if err := c.end(h[0], qa); err != nil {
				t.Fatal(err)
			}
			probes := h[0].SleekProbes()
			eng.Run(sim.Second, nil)
			if n := h[0].SleekProbes(); n != probes {
				t.Errorf("%d probes sent after the %s; want none", n-probes, c.name)
			}
		})
	}
}
