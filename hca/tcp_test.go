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
		t.NewCC = func(h *hca.HCA, qp *hca.QP, apply func(fabric.Rate, int64)) hca.CongestionControl {
			path := congestion.Path{LineRate: h.Port().Rate, MTU: h.Prof.MTU}
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
// resend's round trip) after it was sent, with NewReno and CUBIC. Then a
// READ whose responses are all lost completes one RTO of the
// responder's own stream later.
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
			// A READ whose responses (and the ACK of its request) are
			// all lost: the responder's own stream's timer resends them.
			rsink := h[0].RegMR(h[0].DefaultPD(), 0, make([]byte, 16<<10), hca.AccessLocalWrite|hca.AccessRemoteWrite)
			rsrc := h[1].RegMR(h[1].DefaultPD(), 0, make([]byte, 16<<10), hca.AccessRemoteRead)
			back := h[1].Port().Link()
			back.SetLoss(1, eng.Rand("loss-back"))
			sent = eng.Now()
			read, err := h[0].PostSend(qa, hca.SendWR{ID: 3, Op: hca.WRRead, Signaled: true, RemoteAddr: rsrc.Addr, RKey: rsrc.RKey,
				SGL: []hca.SGE{{Addr: rsink.Addr, Len: 16 << 10, LKey: rsink.LKey}}})
			if err != nil {
				t.Fatal(err)
			}
			eng.Run(sent+50*sim.Microsecond, nil)
			back.SetLoss(0, nil)
			eng.Run(sent+2*sim.Second, nil)
			if read.Status != hca.WCSuccess || back.Lost != 5 {
				t.Fatalf("READ: %v; %d frames lost, want 5 (4 responses, 1 ACK)", read.Status, back.Lost)
			}
			// The response stream has no round-trip sample yet (its first
			// window is what was lost), so its RTO is RFC 6298's initial
			// 1 s (2.1); the requester's own stream resent the READ
			// request after its 1 ms, and the responder only acknowledged
			// it (TCP drops what it has).
			if d := read.Completed - sent; d < sim.Second || d > sim.Second+50*sim.Microsecond {
				t.Errorf("the READ whose responses were lost completed %v after it was posted, want one 1 s initial RTO later", d)
			}
			if n := h[1].Stats.ReadResponses; n != 8 {
				t.Errorf("%d READ responses sent, want 8 (4, and 4 resent): a request resent was served again", n)
			}
			checkInvariant(t, eng, h)
		})
	}
}

// TestIWARPReadRecoversEveryByte: RDMA READs on iWARP with 1% of the
// frames lost on both hosts' links. The requests go on the requester's
// TCP, the responses on the responder's own (RFC 5040 §4.4), which
// resends what it loses while the requester places each response as it
// comes (DDP's tagged placement): every READ completes once, in order,
// with the responder's bytes in the sink buffer, and the requester never
// asks again for a response (its requests resent are only those lost).
func TestIWARPReadRecoversEveryByte(t *testing.T) {
	const reads, size = 8, 512 << 10
	for _, cc := range []string{"newreno", "cubic"} {
		for _, sack := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/sack=%v", cc, sack), func(t *testing.T) {
				eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, iwarpProfile(cc, sack), swtch.DefaultProfile())
				h[0].Port().Link().SetLoss(0.01, eng.Rand("link/h0"))
				h[1].Port().Link().SetLoss(0.01, eng.Rand("link/h1"))
				qa, _ := connect(h[0], h[1])
				src := make([]byte, reads*size)
				r := rand.New(rand.NewPCG(3, 4))
				for i := range src {
					src[i] = byte(r.Uint32())
				}
				remote := h[1].RegMR(h[1].DefaultPD(), 0, src, hca.AccessLocalWrite|hca.AccessRemoteRead)
				sink := h[0].RegMR(h[0].DefaultPD(), 0, make([]byte, reads*size), hca.AccessLocalWrite|hca.AccessRemoteWrite)
				var ws []*hca.WQE
				for i := 0; i < reads; i++ {
					off := uint64(i * size)
					w, err := h[0].PostSend(qa, hca.SendWR{ID: uint64(i), Op: hca.WRRead, Signaled: true, RemoteAddr: remote.Addr + off, RKey: remote.RKey,
						SGL: []hca.SGE{{Addr: sink.Addr + off, Len: size, LKey: sink.LKey}}})
					if err != nil {
						t.Fatal(err)
					}
					ws = append(ws, w)
				}
				eng.Run(sim.Second, nil)
				for i, w := range ws {
					if w.Status != hca.WCSuccess || (i > 0 && w.Completed < ws[i-1].Completed) {
						t.Fatalf("READ %d: %v at %v", i, w.Status, w.Completed)
					}
				}
				if !bytes.Equal(sink.Buf, src) {
					t.Fatal("the sink buffer differs from the responder's")
				}
				lostRsp, resentRsp := h[1].Port().Link().Lost, h[1].Stats.Retransmitted
				if lostRsp == 0 || resentRsp < lostRsp || resentRsp > 4*lostRsp {
					t.Errorf("%d frames lost from the responder, %d responses resent; want between %d and %d", lostRsp, resentRsp, lostRsp, 4*lostRsp)
				}
				if got := h[1].Stats.ReadResponses - h[1].Stats.Retransmitted; got != reads*size/4096 {
					t.Errorf("%d responses sent once, want %d: a READ was served twice", got, reads*size/4096)
				}
				checkInvariant(t, eng, h)
				t.Logf("%d frames lost from the requester (requests, ACKs), %d from the responder; %d responses and %d requests resent; done at %v", h[0].Port().Link().Lost, lostRsp, resentRsp, h[0].Stats.Retransmitted, ws[reads-1].Completed)
			})
		}
	}
}

// TestIWARPReadSinkNeedsRemoteWrite: an iWARP READ's responses are
// tagged writes into its sink buffer, so a sink registered without
// remote write fails the WR with a local protection error and the QP
// goes to the error state (as iw_cxgb4 refuses it); on RoCE the same
// READ completes.
func TestIWARPReadSinkNeedsRemoteWrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		prof hca.Profile
		want hca.WCStatus
	}{{"iwarp", iwarpProfile("newreno", true), hca.WCLocProtError}, {"rocev2", hca.DefaultProfile(), hca.WCSuccess}} {
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, tc.prof, swtch.DefaultProfile())
		qa, _ := connect(h[0], h[1])
		remote := h[1].RegMR(h[1].DefaultPD(), 0, make([]byte, 8192), hca.AccessLocalWrite|hca.AccessRemoteRead)
		sink := h[0].RegMR(h[0].DefaultPD(), 0, make([]byte, 8192), hca.AccessLocalWrite)
		w, err := h[0].PostSend(qa, hca.SendWR{Op: hca.WRRead, Signaled: true, RemoteAddr: remote.Addr, RKey: remote.RKey,
			SGL: []hca.SGE{{Addr: sink.Addr, Len: 8192, LKey: sink.LKey}}})
		if err != nil {
			t.Fatal(err)
		}
		eng.Run(sim.Millisecond, nil)
		if w.Status != tc.want {
			t.Errorf("%s: READ into a sink without remote write: %v, want %v", tc.name, w.Status, tc.want)
		}
	}
}

// TestIWARPResponderWaitsForFirstFPDU: on iWARP the passive side of a
// connection (Accept: MPA's Responder) sends no FPDU until the
// Initiator's first has arrived (RFC 5044's connection startup rules,
// rule 4). The Responder's SEND posted at once goes only after the
// Initiator's SEND, posted 50 µs later, arrives; on RoCE it goes at
// once.
func TestIWARPResponderWaitsForFirstFPDU(t *testing.T) {
	for _, tc := range []struct {
		name string
		prof hca.Profile
		wait bool
	}{{"iwarp", iwarpProfile("newreno", true), true}, {"rocev2", hca.DefaultProfile(), false}} {
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, tc.prof, swtch.DefaultProfile())
		qa, qb := h[0].CreateQP(), h[1].CreateQP()
		h[0].Connect(qa, h[1].ID, h[1].IP, qb.QPN)
		h[1].Accept(qb, h[0].ID, h[0].IP, qa.QPN)
		if err := h[0].PostRecv(qa, hca.RecvWR{}); err != nil {
			t.Fatal(err)
		}
		if err := h[1].PostRecv(qb, hca.RecvWR{}); err != nil {
			t.Fatal(err)
		}
		reply, err := h[1].PostSend(qb, hca.SendWR{Op: hca.WRSend, Signaled: true})
		if err != nil {
			t.Fatal(err)
		}
		eng.Run(50*sim.Microsecond, nil)
		if _, err := h[0].PostSend(qa, hca.SendWR{Op: hca.WRSend, Signaled: true}); err != nil {
			t.Fatal(err)
		}
		eng.Run(sim.Millisecond, nil)
		if reply.Status != hca.WCSuccess {
			t.Fatalf("%s: the Responder's SEND: %v", tc.name, reply.Status)
		}
		if waited := reply.Completed > 50*sim.Microsecond; waited != tc.wait {
			t.Errorf("%s: the Responder's SEND completed at %v; want it to wait for the Initiator's first FPDU: %v", tc.name, reply.Completed, tc.wait)
		}
	}
}
