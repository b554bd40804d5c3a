package hca_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// iwarpProfile is an iWARP NIC running cc ("newreno" or "cubic") with
// or without SACK, and a 1 ms minimum RTO.
func iwarpProfile(cc string, sack bool) hca.Profile {
	p := hca.DefaultProfile()
	p.Transport = fabric.IWARP
	p.WithTCP(func(t *hca.TCPProfile) {
		t.CC, t.SACK, t.RTOMin = cc, sack, sim.Millisecond
		t.NewCC = func(h *hca.HCA, qp *hca.QP) hca.CongestionControl {
			path := congestion.Path{LineRate: h.Port().Rate, MTU: h.Prof.MTU}
			apply := func(r fabric.Rate, w int64) { h.SetRate(qp, r, w) }
			if h.Prof.TCP.CC == "cubic" {
				return congestion.NewCUBIC(path, apply)
			}
			return congestion.NewNewReno(path, apply)
		}
	})
	return p
}

// TestIWARPLossRecoversEveryByte: with 1% of the frames lost on both
// hosts' links (segments, duplicate ACKs and ACKs alike), iWARP's TCP
// under NewReno and CUBIC, with and without SACK, delivers sixteen 512 KiB
// SENDs whole: every byte in its place, the messages completing in
// order, each posted WR completing once (the test of recovery).
// It resends about as many segments as were lost (SACK: within 1.5×;
// without SACK a timeout may resend a window's tail again, within 4×).
func TestIWARPLossRecoversEveryByte(t *testing.T) {
	const msgs, size = 16, 512 << 10
	for _, cc := range []string{"newreno", "cubic"} {
		for _, sack := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/sack=%v", cc, sack), func(t *testing.T) {
				eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, iwarpProfile(cc, sack), swtch.DefaultProfile())
				h[0].Port().Link().SetLoss(0.01, eng.Rand("link/h0"))
				h[1].Port().Link().SetLoss(0.01, eng.Rand("link/h1"))
				qa, qb := connect(h[0], h[1])
				src := make([]byte, msgs*size)
				r := rand.New(rand.NewPCG(1, 2))
				for i := range src {
					src[i] = byte(r.Uint32())
				}
				ms := h[0].RegMR(h[0].DefaultPD(), 0, src, hca.AccessLocalWrite)
				dst := h[1].RegMR(h[1].DefaultPD(), 0, make([]byte, msgs*size), hca.AccessLocalWrite)
				var ws []*hca.WQE
				for i := 0; i < msgs; i++ {
					off := uint64(i * size)
					if err := h[1].PostRecv(qb, hca.RecvWR{ID: uint64(i), SGL: []hca.SGE{{Addr: dst.Addr + off, Len: size, LKey: dst.LKey}}}); err != nil {
						t.Fatal(err)
					}
					w, err := h[0].PostSend(qa, hca.SendWR{ID: uint64(i), Op: hca.WRSend, Signaled: true, SGL: []hca.SGE{{Addr: ms.Addr + off, Len: size, LKey: ms.LKey}}})
					if err != nil {
						t.Fatal(err)
					}
					ws = append(ws, w)
				}
				eng.Run(sim.Second, nil)
				for i, w := range ws {
					if w.Status != hca.WCSuccess || (i > 0 && w.Completed < ws[i-1].Completed) {
						t.Fatalf("message %d: %v at %v", i, w.Status, w.Completed)
					}
				}
				if !bytes.Equal(dst.Buf, src) {
					t.Fatal("the receive buffer differs from what was sent")
				}
				lost, resent := h[0].Port().Link().Lost, h[0].Stats.Retransmitted
				limit := 4 * lost
				if sack {
					limit = lost + lost/2
				}
				if lost == 0 || resent < lost || resent > limit {
					t.Errorf("%d segments lost, %d resent; want between %d and %d", lost, resent, lost, limit)
				}
				checkInvariant(t, eng, h)
				t.Logf("%d segments and %d ACKs lost; %d resent, %d timeouts; done at %v", lost, h[1].Port().Link().Lost, resent, h[0].Stats.Timeouts, ws[msgs-1].Completed)
			})
		}
	}
}

// TestIWARPTailLossRecoversByTimeout: when every segment of the last
// message is lost, no ACK comes back to start a fast retransmit; only the
// retransmission timer can recover it. The first WRITE gives TCP a
// round-trip sample, so its RTO is the 1 ms minimum (RFC 6298 2.4); the
// second is lost whole on the wire and must complete one RTO (and its
// resend's round trip) after it was sent, with NewReno and CUBIC.
func TestIWARPTailLossRecoversByTimeout(t *testing.T) {
	for _, cc := range []string{"newreno", "cubic"} {
		t.Run(cc, func(t *testing.T) {
			eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, iwarpProfile(cc, true), swtch.DefaultProfile())
			qa, _ := connect(h[0], h[1])
			src := h[0].RegMR(h[0].DefaultPD(), 0, make([]byte, 64<<10), hca.AccessLocalWrite)
			dst := h[1].RegMR(h[1].DefaultPD(), 0, make([]byte, 64<<10), hca.AccessLocalWrite|hca.AccessRemoteWrite)
			write := func(id uint64) *hca.WQE {
				w, err := h[0].PostSend(qa, hca.SendWR{ID: id, Op: hca.WRWrite, Signaled: true, RemoteAddr: dst.Addr, RKey: dst.RKey,
					SGL: []hca.SGE{{Addr: src.Addr, Len: 16 << 10, LKey: src.LKey}}})
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			first := write(1)
			eng.Run(100*sim.Microsecond, nil)
			if first.Status != hca.WCSuccess {
				t.Fatalf("first WRITE: %v", first.Status)
			}
			link := h[0].Port().Link()
			link.SetLoss(1, eng.Rand("loss"))
			sent := eng.Now()
			second := write(2)
			eng.Run(sent+50*sim.Microsecond, nil)
			link.SetLoss(0, nil)
			eng.Run(sim.Second, nil)
			if second.Status != hca.WCSuccess || link.Lost != 4 {
				t.Fatalf("second WRITE: %v; %d segments lost, want 4", second.Status, link.Lost)
			}
			// 1 ms ± 50 µs: the timer starts with the first segment sent
			// and the resend's round trip is a few microseconds.
			if d := second.Completed - sent; d < sim.Millisecond || d > sim.Millisecond+50*sim.Microsecond {
				t.Errorf("the lost WRITE completed %v after it was posted, want one 1 ms RTO later", d)
			}
			checkInvariant(t, eng, h)
		})
	}
}
