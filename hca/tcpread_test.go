package hca_test

import (
	"bytes"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// loseOnce returns a loss filter that loses the first n frames match
// selects.
func loseOnce(n int, match func(*fabric.Packet) bool) func(*fabric.Packet) bool {
	return func(p *fabric.Packet) bool {
		if n > 0 && match(p) {
			n--
			return true
		}
		return false
	}
}

func isOp(p *fabric.Packet, op fabric.Opcode) bool {
	return p.Kind == fabric.KindData && p.Opcode.Operation() == op
}

// pattern fills n bytes with a pattern no two READs' share by chance.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>12 + 1)
	}
	return b
}

// TestIWARPReadRequestLost: four 1 MiB READs (256 PSNs each) whose first
// request is lost. The later requests reach the responder past the gap
// and wait in its reassembly queue; the requester keeps its stream
// within that queue's reach (srWindow PSNs), so none is dropped there and
// SACKed regardless (which left them never resent, and two READs
// unfinished after 1,000 s). Only one segment follows the lost one (the
// next request waits for the queue), so no fast retransmit: the stream
// has no round-trip sample yet, and its timer's first RTO is RFC 6298's
// 1 s. All four complete soon after it, each sink holding the
// responder's bytes.
func TestIWARPReadRequestLost(t *testing.T) {
	const reads, size = 4, 1 << 20
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, iwarpProfile("newreno", true), swtch.DefaultProfile())
	qa, _ := connect(h[0], h[1])
	src := pattern(reads * size)
	remote := h[1].RegMR(h[1].DefaultPD(), 0, src, hca.AccessRemoteRead)
	sink := h[0].RegMR(h[0].DefaultPD(), 0, make([]byte, reads*size), hca.AccessLocalWrite|hca.AccessRemoteWrite)
	h[0].Port().Link().SetLossFilter(loseOnce(1, func(p *fabric.Packet) bool { return isOp(p, fabric.OpReadRequest) }))
	var ws []*hca.WQE
	for i := 0; i < reads; i++ {
		w, err := h[0].PostSend(qa, hca.SendWR{ID: uint64(i), Op: hca.WRRead, Signaled: true, RemoteAddr: remote.Addr + uint64(i*size), RKey: remote.RKey,
			SGL: []hca.SGE{{Addr: sink.Addr + uint64(i*size), Len: size, LKey: sink.LKey}}})
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	eng.Run(2*sim.Second, nil)
	for i, w := range ws {
		if w.Status != hca.WCSuccess || w.Completed > sim.Second+10*sim.Millisecond {
			t.Fatalf("READ %d: %v at %v, want done by 1.01 s", i, w.Status, w.Completed)
		}
	}
	if !bytes.Equal(sink.Buf, src) {
		t.Error("the sink differs from the responder's memory")
	}
	if n := h[0].Port().Link().Lost; n != 1 {
		t.Errorf("%d frames lost, want the one request", n)
	}
	checkInvariant(t, eng, h)
}

// TestIWARPReadsDoNotShareSlots: a READ of 10 packets, a WRITE of 502 and
// another READ of 10, so that the two READs' responses fall on the same
// slots of the requester's placement ring (PSN mod 512). The first
// READ's sixth response is lost twice. The second READ must complete
// with its own bytes, not be taken as done from the first one's slots
// (which left the first READ waiting for ever), and the first must
// complete once its response is resent.
func TestIWARPReadsDoNotShareSlots(t *testing.T) {
	const mtu = 4096
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, iwarpProfile("newreno", true), swtch.DefaultProfile())
	qa, _ := connect(h[0], h[1])
	remote := pattern(20 * mtu)
	rsrc := h[1].RegMR(h[1].DefaultPD(), 0, remote, hca.AccessRemoteRead)
	sink := h[0].RegMR(h[0].DefaultPD(), 0, make([]byte, 20*mtu), hca.AccessLocalWrite|hca.AccessRemoteWrite)
	wsrc := h[0].RegMR(h[0].DefaultPD(), 0, make([]byte, 502*mtu), hca.AccessLocalWrite)
	wdst := h[1].RegMR(h[1].DefaultPD(), 0, make([]byte, 502*mtu), hca.AccessLocalWrite|hca.AccessRemoteWrite)
	first := int64(-1)
	h[1].Port().Link().SetLossFilter(loseOnce(2, func(p *fabric.Packet) bool {
		op := p.Opcode.Operation()
		if p.Kind != fabric.KindData || op < fabric.OpReadResponseFirst || op > fabric.OpReadResponseOnly {
			return false
		}
		if first < 0 {
			first = int64(p.PSN)
		}
		return int64(p.PSN) == first+5
	}))
	post := func(wr hca.SendWR) *hca.WQE {
		w, err := h[0].PostSend(qa, wr)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	r1 := post(hca.SendWR{ID: 1, Op: hca.WRRead, Signaled: true, RemoteAddr: rsrc.Addr, RKey: rsrc.RKey, SGL: []hca.SGE{{Addr: sink.Addr, Len: 10 * mtu, LKey: sink.LKey}}})
	w := post(hca.SendWR{ID: 2, Op: hca.WRWrite, Signaled: true, RemoteAddr: wdst.Addr, RKey: wdst.RKey, SGL: []hca.SGE{{Addr: wsrc.Addr, Len: 502 * mtu, LKey: wsrc.LKey}}})
	r2 := post(hca.SendWR{ID: 3, Op: hca.WRRead, Signaled: true, RemoteAddr: rsrc.Addr + 10*mtu, RKey: rsrc.RKey, SGL: []hca.SGE{{Addr: sink.Addr + 10*mtu, Len: 10 * mtu, LKey: sink.LKey}}})
	if (r2.FirstPSN-r1.FirstPSN)%512 != 0 {
		t.Fatalf("the READs start at PSNs %d and %d: the test needs them 512 apart", r1.FirstPSN, r2.FirstPSN)
	}
	eng.Run(sim.Second, nil)
	for _, x := range []*hca.WQE{r1, w, r2} {
		if x.Status != hca.WCSuccess {
			t.Fatalf("WR %d: %v", x.ID, x.Status)
		}
	}
	if !bytes.Equal(sink.Buf, remote) {
		t.Error("a READ's sink differs from the responder's memory")
	}
	if n := h[1].Port().Link().Lost; n != 2 {
		t.Errorf("%d frames lost, want 2", n)
	}
	checkInvariant(t, eng, h)
}

// TestIWARPReadRequestResentWhole: the TCP ACK of a READ's request and
// the READ's last response are both lost. The requester's stream times
// out and resends the request (the segment at its first PSN, whole); the
// responder only acknowledges it (TCP has it), and its own stream's
// timer resends the response. Nothing else is resent: the requester's
// timer does not run while it only waits for responses (it ran, cutting
// its window with nothing lost, and with no congestion control the
// request was resent 586 times): a READ whose last response alone is
// lost costs the requester no timeout.
func TestIWARPReadRequestResentWhole(t *testing.T) {
	for _, withCC := range []bool{true, false} {
		prof := iwarpProfile("newreno", true)
		if !withCC {
			prof.WithTCP(func(c *hca.TCPProfile) { c.NewCC = nil })
		}
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
		qa, _ := connect(h[0], h[1])
		rsrc := h[1].RegMR(h[1].DefaultPD(), 0, pattern(64<<10), hca.AccessRemoteRead)
		sink := h[0].RegMR(h[0].DefaultPD(), 0, make([]byte, 64<<10), hca.AccessLocalWrite|hca.AccessRemoteWrite)
		read := func(n uint64) *hca.WQE {
			w, err := h[0].PostSend(qa, hca.SendWR{ID: n, Op: hca.WRRead, Signaled: true, RemoteAddr: rsrc.Addr, RKey: rsrc.RKey,
				SGL: []hca.SGE{{Addr: sink.Addr, Len: 64 << 10, LKey: sink.LKey}}})
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		// A first READ gives both streams their round-trip samples.
		r1 := read(1)
		eng.Run(200*sim.Microsecond, nil)
		if r1.Status != hca.WCSuccess {
			t.Fatalf("cc %v: the first READ: %v", withCC, r1.Status)
		}
		lostACK, lostLast := loseOnce(1, func(p *fabric.Packet) bool { return p.Kind == fabric.KindAck && p.TSeq() == 0 }),
			loseOnce(1, func(p *fabric.Packet) bool { return isOp(p, fabric.OpReadResponseLast) })
		h[1].Port().Link().SetLossFilter(func(p *fabric.Packet) bool { return lostACK(p) || lostLast(p) })
		resent0, timeouts0 := h[0].Stats.Retransmitted, h[0].Stats.Timeouts
		sent := eng.Now()
		r := read(2)
		eng.Run(sent+100*sim.Millisecond, nil)
		if r.Status != hca.WCSuccess || h[1].Port().Link().Lost != 2 {
			t.Fatalf("cc %v: READ %v, %d frames lost (want 2)", withCC, r.Status, h[1].Port().Link().Lost)
		}
		if n := h[0].Stats.Retransmitted - resent0; n != 1 {
			t.Errorf("cc %v: the requester resent %d segments, want its request once", withCC, n)
		}
		if n := h[0].Stats.Timeouts - timeouts0; n != 1 {
			t.Errorf("cc %v: the requester timed out %d times, want once", withCC, n)
		}
		if d := r.Completed - sent; d > 10*sim.Millisecond {
			t.Errorf("cc %v: the READ took %v, want a few 1 ms RTOs", withCC, d)
		}
		// Only the last response lost: the requester's stream has
		// nothing outstanding, and must not time out.
		h[1].Port().Link().SetLossFilter(loseOnce(1, func(p *fabric.Packet) bool { return isOp(p, fabric.OpReadResponseLast) }))
		timeouts0 = h[0].Stats.Timeouts
		r = read(3)
		eng.Run(eng.Now()+100*sim.Millisecond, nil)
		if r.Status != hca.WCSuccess || h[0].Stats.Timeouts != timeouts0 {
			t.Errorf("cc %v: READ %v; the requester timed out %d times waiting for a response, want 0", withCC, r.Status, h[0].Stats.Timeouts-timeouts0)
		}
		checkInvariant(t, eng, h)
	}
}

// TestIWARPSendWithoutRecvTerminates: on iWARP a SEND that finds no RECV
// posted is not retried (there is no RNR NAK): DDP has no buffer for it
// (RFC 5041 §7), RDMAP sends a Terminate and closes the stream (RFC 5040
// §7). TCP took the segment, so a 1-segment SEND completes; the
// Terminate puts both QPs in the error state with IBV_EVENT_QP_FATAL on
// each host, and the WRITE posted after the SEND is flushed. The
// responder's QP records when it terminated (QP.Terminated, which the
// byte accounting reads: issue 45's seed 20313 had the SEND's byte in no
// term), the requester's does not. With one RECV posted for two 8 KiB
// SENDs (two 4 KiB segments each), the first is delivered (8192 bytes)
// and the second terminated: its second segment reaches a QP in error
// and is never acknowledged, so it is flushed with the WRITE.
func TestIWARPSendWithoutRecvTerminates(t *testing.T) {
	for _, tc := range []struct {
		name      string
		recvs     int
		sends     int
		size      int64
		status    []hca.WCStatus // the SENDs'
		delivered int64
	}{
		{"a 64-byte SEND, no RECV", 0, 1, 64, []hca.WCStatus{hca.WCSuccess}, 0},
		{"two 8 KiB SENDs, one RECV", 1, 2, 8192, []hca.WCStatus{hca.WCSuccess, hca.WCFlushed}, 8192},
	} {
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, iwarpProfile("newreno", true), swtch.DefaultProfile())
		qa, qb := connect(h[0], h[1])
		var fatal [2]int
		var fatalAt sim.Time
		for i := range h {
			i := i
			h[i].OnAsyncEvent = func(ev hca.AsyncEvent) {
				if ev.Type == hca.EventQPFatal {
					fatal[i]++
					if i == 1 {
						fatalAt = h[1].Engine().Now()
					}
				}
			}
		}
		for i := 0; i < tc.recvs; i++ {
			if err := h[1].PostRecv(qb, hca.RecvWR{ID: uint64(i), Length: tc.size}); err != nil {
				t.Fatal(err)
			}
		}
		var sends []*hca.WQE
		for i := 0; i < tc.sends; i++ {
			w, err := h[0].PostSend(qa, hca.SendWR{ID: uint64(i), Op: hca.WRSend, Signaled: true, Length: tc.size})
			if err != nil {
				t.Fatal(err)
			}
			sends = append(sends, w)
		}
		eng.Run(50*sim.Microsecond, nil)
		write, err := h[0].PostSend(qa, hca.SendWR{ID: 9, Op: hca.WRWrite, Signaled: true, Length: 64})
		if err != nil {
			t.Fatal(err)
		}
		eng.Run(sim.Millisecond, nil)
		for i, w := range sends {
			if w.Status != tc.status[i] {
				t.Errorf("%s: SEND %d %v, want %v", tc.name, i, w.Status, tc.status[i])
			}
		}
		if write.Status != hca.WCFlushed {
			t.Errorf("%s: WRITE %v, want wr_flush_err", tc.name, write.Status)
		}
		if qa.State != hca.QPErr || qb.State != hca.QPErr || fatal != [2]int{1, 1} {
			t.Errorf("%s: QPs %v and %v, QP_FATAL events %v; want both in ERR, one event each", tc.name, qa.State, qb.State, fatal)
		}
		if qb.Terminated == 0 || qb.Terminated != fatalAt || qa.Terminated != 0 {
			t.Errorf("%s: Terminated %v at the responder (its QP_FATAL at %v), %v at the requester; want the event's time, and 0",
				tc.name, qb.Terminated, fatalAt, qa.Terminated)
		}
		if qb.Delivered != tc.delivered {
			t.Errorf("%s: the responder delivered %d bytes, want %d", tc.name, qb.Delivered, tc.delivered)
		}
		if h[1].Stats.RNRNaksSent != 0 {
			t.Errorf("%s: %d RNR NAKs: iWARP has none", tc.name, h[1].Stats.RNRNaksSent)
		}
	}
}

// TestIWARPReadDoneBeforeItsACK: a READ completes when its responses are
// in, and they come on the responder's own stream, so the READ can leave
// the send queue before the TCP ACK of its request has come: here every
// ACK of the request stream is lost until ackLostUntil, and a WRITE
// waits behind the READs. Their segments stay outstanding; the
// retransmission timer (RFC 6298's first 1 s: no round-trip sample yet)
// counts them lost and resends the first, a READ's request. The resend
// looked the READ up in the send queue, which no longer held it, and
// indexed past its end (issue 45's random scenario, seed 62763: a
// perftest's 1-byte READs starved behind a flow of a higher priority).
// Now each READ completes within 100 µs (its round trip is a few µs),
// and the WRITE one timeout later, or three when the resend's ACK is lost
// too (1 s, then 2 s: the timeout doubles, RFC 6298 5.5), within 10 ms.
// Each timeout resends one segment (NewReno keeps one segment after a
// timeout, RFC 5681 3.1, and the ACK of the READ's request covers what
// follows it), which the responder takes as a duplicate.
func TestIWARPReadDoneBeforeItsACK(t *testing.T) {
	for _, tc := range []struct {
		name         string
		reads        int
		size         int64
		sack         bool
		ackLostUntil sim.Time
		timeouts     int64
	}{
		{"a 1-byte READ (perftest's)", 1, 1, true, 100 * sim.Millisecond, 1},
		{"a 64 KiB READ (16 responses)", 1, 64 << 10, true, 100 * sim.Millisecond, 1},
		{"three 1-byte READs, no SACK", 3, 1, false, 100 * sim.Millisecond, 1},
		{"two READs, the resend's ACK lost too", 2, 4096, true, 1500 * sim.Millisecond, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, iwarpProfile("newreno", tc.sack), swtch.DefaultProfile())
			qa, _ := connect(h[0], h[1])
			n := int64(tc.reads) * tc.size
			rsrc := h[1].RegMR(h[1].DefaultPD(), 0, pattern(int(n)), hca.AccessRemoteRead)
			sink := h[0].RegMR(h[0].DefaultPD(), 0, make([]byte, n), hca.AccessLocalWrite|hca.AccessRemoteWrite)
			wsrc := h[0].RegMR(h[0].DefaultPD(), 0, pattern(4096), hca.AccessLocalWrite)
			wdst := h[1].RegMR(h[1].DefaultPD(), 0, make([]byte, 4096), hca.AccessLocalWrite|hca.AccessRemoteWrite)
			h[1].Port().Link().SetLossFilter(func(p *fabric.Packet) bool {
				return p.Kind == fabric.KindAck && p.TSeq() == 0 && eng.Now() < tc.ackLostUntil
			})
			post := func(wr hca.SendWR) *hca.WQE {
				w, err := h[0].PostSend(qa, wr)
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			var reads []*hca.WQE
			for i := int64(0); i < int64(tc.reads); i++ {
				reads = append(reads, post(hca.SendWR{ID: uint64(i), Op: hca.WRRead, Signaled: true, RemoteAddr: rsrc.Addr + uint64(i*tc.size), RKey: rsrc.RKey,
					SGL: []hca.SGE{{Addr: sink.Addr + uint64(i*tc.size), Len: tc.size, LKey: sink.LKey}}}))
			}
			write := post(hca.SendWR{ID: 99, Op: hca.WRWrite, Signaled: true, RemoteAddr: wdst.Addr, RKey: wdst.RKey,
				SGL: []hca.SGE{{Addr: wsrc.Addr, Len: 4096, LKey: wsrc.LKey}}})
			eng.Run(5*sim.Second, nil)
			for i, w := range reads {
				if w.Status != hca.WCSuccess || w.Completed > 100*sim.Microsecond {
					t.Errorf("READ %d: %v at %v, want done within 100 µs", i, w.Status, w.Completed)
				}
			}
			rto := sim.Second
			if tc.timeouts == 2 {
				rto = 3 * sim.Second
			}
			if write.Status != hca.WCSuccess || write.Completed < rto || write.Completed > rto+10*sim.Millisecond {
				t.Errorf("WRITE: %v at %v, want done %v after the start, within 10 ms", write.Status, write.Completed, rto)
			}
			if !bytes.Equal(sink.Buf, rsrc.Buf) || !bytes.Equal(wdst.Buf, wsrc.Buf) {
				t.Error("a READ's sink or the WRITE's target differs from its source")
			}
			if s := h[0].Stats; s.Timeouts != tc.timeouts || s.Retransmitted != tc.timeouts {
				t.Errorf("the requester timed out %d times and resent %d segments, want %d and %d", s.Timeouts, s.Retransmitted, tc.timeouts, tc.timeouts)
			}
			if d := h[1].Stats.Duplicates; d != tc.timeouts {
				t.Errorf("the responder saw %d duplicates, want %d (each resent READ request)", d, tc.timeouts)
			}
			if h[1].Port().Link().Lost == 0 {
				t.Error("no ACK lost: the test lost its point")
			}
			checkInvariant(t, eng, h)
		})
	}
}
