package hca_test

import (
	"math"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestFetchAddFourHosts: four hosts each fetch-and-add 1 to one counter
// 1000 times, one outstanding at a time; atomics execute at the responder
// on the MR's bytes, so the final value is exactly 4000 and every host saw
// 1000 distinct previous values.
func TestFetchAddFourHosts(t *testing.T) {
	eng, h, _ := star(t, 5, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile(), swtch.DefaultProfile())
	counter := h[4].RegMR(h[4].DefaultPD(), 8, make([]byte, 8), hca.AccessAll)
	for i := 0; i < 4; i++ {
		qa, _ := connect(h[i], h[4])
		res := h[i].RegMR(h[i].DefaultPD(), 8, make([]byte, 8), hca.AccessAll)
		n := 0
		wr := hca.SendWR{Op: hca.WRFetchAdd, SGL: []hca.SGE{{Addr: res.Addr, Len: 8, LKey: res.LKey}},
			RemoteAddr: counter.Addr, RKey: counter.RKey, CompareAdd: 1, Signaled: true}
		hi := h[i]
		hi.OnComplete = func(qp *hca.QP, w *hca.WQE) {
			if w.Status != hca.WCSuccess {
				t.Errorf("%s: %v", hi.Name, w.Status)
				return
			}
			if n++; n < 1000 {
				if _, err := hi.PostSend(qp, wr); err != nil {
					t.Error(err)
				}
			}
		}
		if _, err := hi.PostSend(qa, wr); err != nil {
			t.Fatal(err)
		}
	}
	eng.Run(sim.Second, nil)
	if got := counter.Word(counter.Addr); got != 4000 {
		t.Errorf("counter %d, want 4000", got)
	}
	checkInvariant(t, eng, h)
}

// runLossy writes four 1 MiB messages over a link that drops 1/256 of the
// frames and returns the WQEs after d of simulated time.
func runLossy(t *testing.T, rt hca.Retransmit, mtu int, d sim.Time) ([]*hca.WQE, *hca.QP, *hca.HCA, func()) {
	prof := hca.DefaultProfile()
	prof.MTU, prof.Retransmit, prof.AckTimeout = mtu, rt, 8
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
	h[0].Port().Link().SetLoss(1.0/256, eng.Rand("link/h0"))
	qa, qb := connect(h[0], h[1])
	var ws []*hca.WQE
	for i := 0; i < 4; i++ {
		ws = append(ws, h[0].PostWrite(qa, i, 1<<20, 0))
	}
	eng.Run(d, nil)
	return ws, qb, h[0], func() { checkInvariant(t, eng, h) }
}

// TestLossGoBackNvsGoBack0: under 1/256 random loss, go-back-N completes
// every message, in order. Go-back-0 restarts a message from its first
// packet and the responder discards the partial message, so a message
// completes only after a pass without any loss: with MTU 256 a 1 MiB
// message is 4096 packets and a clean pass has probability
// (255/256)^4096 ≈ 1.1e-7, so within 20 ms nothing completes (the livelock
// IRN describes, Mittal et al., SIGCOMM 2018, §2).
func TestLossGoBackNvsGoBack0(t *testing.T) {
	ws, qb, _, inv := runLossy(t, hca.GoBackN, 256, 20*sim.Millisecond)
	for i, w := range ws {
		if w.Status != hca.WCSuccess {
			t.Fatalf("go-back-N: message %d %v", i, w.Status)
		}
		if i > 0 && w.Completed < ws[i-1].Completed {
			t.Errorf("go-back-N: message %d completed before %d", i, i-1)
		}
	}
	if qb.Delivered != 4<<20 {
		t.Errorf("go-back-N delivered %d, want %d", qb.Delivered, 4<<20)
	}
	inv()
	ws, _, h0, inv := runLossy(t, hca.GoBack0, 256, 20*sim.Millisecond)
	for i, w := range ws {
		if w.Status != hca.WCPending {
			t.Errorf("go-back-0: message %d completed (%v) within the run", i, w.Status)
		}
	}
	if h0.Stats.Retransmitted == 0 {
		t.Error("go-back-0 retransmitted nothing")
	}
	t.Logf("go-back-0: %d packets retransmitted, none of 4 messages done in 20 ms", h0.Stats.Retransmitted)
	inv()
}

// TestWriteLatencyClosedForm: a 2-byte inline WRITE lands in the
// responder's memory after the doorbell and transmit pipeline, the
// serialization of its 102-byte frame on both links, two propagation
// delays, the switch latency, the receive pipeline and the DMA write, to
// the picosecond (the one-way time ib_write_lat reports).
func TestWriteLatencyClosedForm(t *testing.T) {
	prof := hca.DefaultProfile()
	sp := swtch.DefaultProfile()
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, sp)
	qa, _ := connect(h[0], h[1])
	var landed sim.Time
	h[1].OnWrite = func(_ *hca.QP, _ *hca.MR, _ uint64, n int64) { landed = eng.Now() }
	if _, err := h[0].PostSend(qa, hca.SendWR{Op: hca.WRWrite, Length: 2, Inline: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey}); err != nil {
		t.Fatal(err)
	}
	eng.Run(sim.Second, nil)
	ser := fabric.SerializationTime(int64(fabric.RoCEv2Wire(fabric.OpWriteOnly, 2)), 100*fabric.Gbps)
	want := prof.DoorbellLatency + prof.TxPktLatency + 2*ser + 2*sim.Microsecond + sp.Latency + prof.RxPktLatency + prof.DMALatency
	if landed != want {
		t.Errorf("WRITE landed at %v, closed form %v", landed, want)
	}
	checkInvariant(t, eng, h)
}

// TestWriteBandwidth: ib_write_bw's loop (64 KiB × 5000, 128 outstanding,
// MTU 4096) at 100 Gb/s through one switch. A 64 KiB WRITE is 16 packets
// of 4178 wire bytes plus a 16-byte RETH, so the ceiling is
// 65536 / 66864 × 100 = 98.01 Gb/s; start-up (doorbell, fetch, the first
// round trip) keeps the average above 96.
func TestWriteBandwidth(t *testing.T) {
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile(), swtch.DefaultProfile())
	qa, _ := connect(h[0], h[1])
	const size, iters, depth = 64 << 10, 5000, 128
	posted := 0
	wr := hca.SendWR{Op: hca.WRWrite, Length: size, Signaled: true, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey}
	var last sim.Time
	h[0].OnComplete = func(qp *hca.QP, w *hca.WQE) {
		last = w.Completed
		if posted < iters {
			posted++
			h[0].PostSend(qp, wr)
		}
	}
	for ; posted < depth; posted++ {
		h[0].PostSend(qa, wr)
	}
	eng.Run(sim.Second, nil)
	bw := float64(size) * iters * 8 / last.Seconds() / 1e9
	if bw < 96 || bw > 98.01 {
		t.Errorf("BW average %.3f Gb/s, want 96..98.01", bw)
	}
	t.Logf("BW average %.3f Gb/s", bw)
	checkInvariant(t, eng, h)
}

// TestMaxRdAtomic: with max_rd_atomic 1 eight small READs go one round
// trip after another; with 16 they overlap, so the first case takes
// several times longer (8 round trips against about one).
func TestMaxRdAtomic(t *testing.T) {
	took := map[int]sim.Time{}
	for _, limit := range []int{1, 16} {
		prof := hca.DefaultProfile()
		prof.MaxRdAtomic = limit
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
		qa, _ := connect(h[0], h[1])
		var last *hca.WQE
		for i := 0; i < 8; i++ {
			last, _ = h[0].PostSend(qa, hca.SendWR{Op: hca.WRRead, Length: 64, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey})
		}
		eng.Run(sim.Second, nil)
		if last.Status != hca.WCSuccess {
			t.Fatalf("limit %d: %v", limit, last.Status)
		}
		took[limit] = last.Completed
		checkInvariant(t, eng, h)
	}
	if took[1] < 4*took[16] {
		t.Errorf("max_rd_atomic 1: %v, 16: %v; want the first at least 4× longer", took[1], took[16])
	}
	t.Logf("8 READs: %v with max_rd_atomic 1, %v with 16", took[1], took[16])
}

// TestDuplicatesAfterLostAcks: losing ACKs (loss on the responder's
// uplink) makes the requester time out and resend; the responder sees
// duplicates, re-acknowledges them without delivering twice, and every
// message completes.
func TestDuplicatesAfterLostAcks(t *testing.T) {
	prof := hca.DefaultProfile()
	prof.AckTimeout = 4 // 65 us
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
	h[1].Port().Link().SetLoss(0.2, eng.Rand("link/h1"))
	qa, qb := connect(h[0], h[1])
	var ws []*hca.WQE
	for i := 0; i < 50; i++ {
		w, _ := h[0].PostSend(qa, hca.SendWR{Op: hca.WRWrite, Length: 4096, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey})
		ws = append(ws, w)
	}
	eng.Run(sim.Second, nil)
	for i, w := range ws {
		if w.Status != hca.WCSuccess {
			t.Fatalf("message %d: %v", i, w.Status)
		}
	}
	if qb.Delivered != 50*4096 {
		t.Errorf("delivered %d, want %d (once each)", qb.Delivered, 50*4096)
	}
	if h[1].Stats.Duplicates == 0 {
		t.Error("no duplicates seen")
	}
	checkInvariant(t, eng, h)
}

// TestPSNWrap: PSNs are 24 bits on the wire; a 1 MiB WRITE that starts 10
// packets before the wrap completes and delivers every byte.
func TestPSNWrap(t *testing.T) {
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile(), swtch.DefaultProfile())
	qa, qb := h[0].CreateQP(), h[1].CreateQP()
	start := uint32(1<<24 - 10)
	h[0].ModifyQP(qa, hca.QPAttr{State: hca.QPRTR, Dest: h[1].ID, DestIP: h[1].IP, DestQPN: qb.QPN, RQPSN: start})
	h[0].ModifyQP(qa, hca.QPAttr{State: hca.QPRTS, SQPSN: start})
	h[1].ModifyQP(qb, hca.QPAttr{State: hca.QPRTR, Dest: h[0].ID, DestIP: h[0].IP, DestQPN: qa.QPN, RQPSN: start})
	h[1].ModifyQP(qb, hca.QPAttr{State: hca.QPRTS, SQPSN: start})
	mr := h[1].RegMR(h[1].DefaultPD(), 1<<20, nil, hca.AccessAll)
	w, _ := h[0].PostSend(qa, hca.SendWR{Op: hca.WRWrite, Length: 1 << 20, RemoteAddr: mr.Addr, RKey: mr.RKey})
	eng.Run(sim.Second, nil)
	if w.Status != hca.WCSuccess || qb.Delivered != 1<<20 {
		t.Fatalf("status %v, delivered %d", w.Status, qb.Delivered)
	}
	checkInvariant(t, eng, h)
}

// TestUCUnderLoss: UC has no retransmission; a message with a lost packet
// is dropped at the receiver and counted, the sender completes every WR,
// and the messages that arrived whole are delivered.
func TestUCUnderLoss(t *testing.T) {
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile(), swtch.DefaultProfile())
	h[0].Port().Link().SetLoss(1.0/64, eng.Rand("link/h0"))
	qa, qb := h[0].CreateTypedQP(hca.UC), h[1].CreateTypedQP(hca.UC)
	h[0].Connect(qa, h[1].ID, h[1].IP, qb.QPN)
	h[1].Connect(qb, h[0].ID, h[0].IP, qa.QPN)
	mr := h[1].RegMR(h[1].DefaultPD(), 64<<10, nil, hca.AccessAll)
	for i := 0; i < 100; i++ {
		h[0].PostSend(qa, hca.SendWR{Op: hca.WRWrite, Length: 64 << 10, RemoteAddr: mr.Addr, RKey: mr.RKey})
	}
	eng.Run(sim.Second, nil)
	lost := h[0].Port().Link().Lost
	dropped := h[1].Stats.UCDroppedMsgs
	if lost == 0 || dropped == 0 || dropped > lost {
		t.Errorf("lost %d packets, dropped %d messages; want 0 < dropped <= lost", lost, dropped)
	}
	if h[0].Stats.CompletedSend != 100 {
		t.Errorf("sender completed %d of 100", h[0].Stats.CompletedSend)
	}
	// Whole messages: every dropped message lost at least one packet.
	if whole := qb.Delivered / (64 << 10); whole < 100-dropped-1 {
		t.Errorf("delivered %d whole messages, want at least %d", whole, 100-dropped-1)
	}
	checkInvariant(t, eng, h)
}

// TestSlowReceiverPFC: a receiver that drains at 20 Gb/s fills its NIC
// buffer, sends PAUSE frames, nothing is dropped, and goodput settles near
// 20 × 4096 / 4178 Gb/s (the drain rate over wire bytes).
func TestSlowReceiverPFC(t *testing.T) {
	prof := hca.DefaultProfile()
	eng, h, sw := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
	h[1].SetRxRate(20 * fabric.Gbps)
	qa, qb := connect(h[0], h[1])
	w, _ := h[0].PostSend(qa, hca.SendWR{Op: hca.WRWrite, Length: 8 << 20, RemoteAddr: qa.RemoteAddr, RKey: qa.RemoteRKey})
	eng.Run(sim.Second, nil)
	if w.Status != hca.WCSuccess {
		t.Fatalf("%v", w.Status)
	}
	if h[1].Stats.PauseSent == 0 {
		t.Error("the NIC sent no PAUSE")
	}
	if d := sw.Stats.Drops; d != [len(d)]int64{} {
		t.Errorf("drops %v", d)
	}
	got := float64(qb.Delivered) * 8 / (qb.LastDelivery - qb.FirstDelivery).Seconds() / 1e9
	want := 20 * 4096.0 / 4178
	if math.Abs(got-want)/want > 0.02 {
		t.Errorf("goodput %.3f Gb/s, want %.3f ± 2%%", got, want)
	}
	t.Logf("goodput %.3f Gb/s, %d PAUSE frames", got, h[1].Stats.PauseSent)
	checkInvariant(t, eng, h)
}

// TestCNPOnePerInterval: CE-marked packets for one QP make CNPs at most
// once per CNPInterval (4 us, NVIDIA's min_time_between_cnps default), or
// with CNPWindowed one per 4 us window that saw a mark (the DCQCN paper's
// notification point, windows counted from the first CNP); the requester
// counts them. Marks at 0, 7, 8.5, 30 and 33 us: the minimum gap sends at
// 0, 7 and 30; the windows [0,4), [4,8), [8,12), [28,32) and [32,36) send
// at 0, 7, 8.5, 30 and 33.
func TestCNPOnePerInterval(t *testing.T) {
	for _, tc := range []struct {
		windowed bool
		want     []sim.Time
	}{
		{false, []sim.Time{0, 7000 * sim.Nanosecond, 30 * sim.Microsecond}},
		{true, []sim.Time{0, 7000 * sim.Nanosecond, 8500 * sim.Nanosecond, 30 * sim.Microsecond, 33 * sim.Microsecond}},
	} {
		prof := hca.DefaultProfile()
		prof.CNPWindowed = tc.windowed
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
		qa, qb := connect(h[0], h[1])
		var got []sim.Time
		qa.OnCNP = func(*hca.QP) { got = append(got, eng.Now()) }
		pool := &fabric.Pool{}
		for _, at := range []sim.Time{0, 7000 * sim.Nanosecond, 8500 * sim.Nanosecond, 30 * sim.Microsecond, 33 * sim.Microsecond} {
			eng.Schedule(at, handlerFunc(func(*sim.Event) {
				p := pool.Get()
				p.Kind, p.ECN, p.Opcode = fabric.KindData, fabric.CE, fabric.TransportRC|fabric.OpWriteMiddle
				p.Src, p.Dst, p.DestQP, p.SrcQP, p.PSN = h[0].ID, h[1].ID, qb.QPN, qa.QPN, 1000 // out of sequence: not accepted
				p.Wire = 100
				h[1].Receive(p, h[1].Port())
			}), 0, 0, nil)
		}
		eng.Run(sim.Millisecond, nil)
		if h[1].Stats.CNPsSent != int64(len(tc.want)) || qa.CNPs != int64(len(tc.want)) || len(got) != len(tc.want) {
			t.Fatalf("windowed %v: CNPs sent %d, received %d; want %d", tc.windowed, h[1].Stats.CNPsSent, qa.CNPs, len(tc.want))
		}
		// Each CNP reaches the requester one path delay after its mark.
		for i := range got {
			if d := got[i] - got[0] - tc.want[i]; d != 0 {
				t.Errorf("windowed %v: CNP %d arrives at %v, %v after the first; want %v", tc.windowed, i, got[i], got[i]-got[0], tc.want[i])
			}
		}
	}
}

type handlerFunc func(*sim.Event)

func (f handlerFunc) HandleEvent(ev *sim.Event) { f(ev) }

// ackRecorder is a congestion control that only keeps the ACKs it hears.
type ackRecorder struct {
	sent []sim.Time
	acks []fabric.Packet
}

func (r *ackRecorder) OnSent(now sim.Time, _ *fabric.Packet) { r.sent = append(r.sent, now) }
func (r *ackRecorder) OnAck(_ sim.Time, ack *fabric.Packet)  { r.acks = append(r.acks, *ack) }
func (r *ackRecorder) OnCNP(sim.Time)                        {}

var _ hca.CongestionControl = (*ackRecorder)(nil)

// TestAckEchoes: every acknowledgement, an ATOMIC's as much as a
// WRITE's, carries what congestion control needs of its request
// (TIMELY's RTT sample, HPCC's telemetry): the request's send time, and
// the INT stack the request collected, one hop per switch crossed on the
// way there (one here, through the star's switch) and none added on the
// way back (HPCC, SIGCOMM 2019, §4.2: the receiver copies the request's
// INT into the ACK).
func TestAckEchoes(t *testing.T) {
	for _, op := range []hca.WROpcode{hca.WRFetchAdd, hca.WRCompSwap, hca.WRWrite} {
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile(), swtch.DefaultProfile())
		counter := h[1].RegMR(h[1].DefaultPD(), 8, make([]byte, 8), hca.AccessAll)
		qa, _ := connect(h[0], h[1])
		qa.INT = true
		rec := &ackRecorder{}
		qa.CC = rec
		res := h[0].RegMR(h[0].DefaultPD(), 8, make([]byte, 8), hca.AccessAll)
		wr := hca.SendWR{Op: op, SGL: []hca.SGE{{Addr: res.Addr, Len: 8, LKey: res.LKey}},
			RemoteAddr: counter.Addr, RKey: counter.RKey, CompareAdd: 1, Signaled: true}
		if _, err := h[0].PostSend(qa, wr); err != nil {
			t.Fatal(err)
		}
		eng.Run(sim.Millisecond, nil)
		if len(rec.sent) != 1 || len(rec.acks) != 1 {
			t.Fatalf("%v: %d requests sent, %d ACKs heard; want 1 and 1", op, len(rec.sent), len(rec.acks))
		}
		ack := rec.acks[0]
		want := fabric.OpAtomicAcknowledge
		if op == hca.WRWrite {
			want = fabric.OpAcknowledge
		}
		if ack.Opcode.Operation() != want {
			t.Errorf("%v: the ACK heard is %v, want %v", op, ack.Opcode, want)
		}
		if ack.Echo != rec.sent[0] || ack.Echo <= 0 {
			t.Errorf("%v: ACK echoes %v, want the request's send time %v", op, ack.Echo, rec.sent[0])
		}
		if ack.INT == nil || ack.INT.N != 1 {
			t.Errorf("%v: ACK telemetry %+v, want the request's one switch hop", op, ack.INT)
		}
	}
}

// TestCNPPassesPausedACK: a CNP goes on its own priority (cnp_802p_prio,
// 6) so that a PAUSE of the data priority does not hold it back; queued
// behind an ACK on priority 3 while the switch pauses priority 3, it
// leaves at once, and the ACK waits for the RESUME.
func TestCNPPassesPausedACK(t *testing.T) {
	prof := hca.DefaultProfile()
	eng, h, sw := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
	toH0 := 0 // the star's switch port p0 faces h0
	sw.Ports()[toH0].SendPause(3, fabric.MaxQuanta)
	eng.Run(5*sim.Microsecond, nil)
	if !h[0].Port().Paused(3) {
		t.Fatal("the switch's PAUSE did not reach h0")
	}
	control := func(kind fabric.PacketKind, prio uint8) *fabric.Packet {
		return &fabric.Packet{Kind: kind, Priority: prio, Src: h[0].ID, Dst: h[1].ID, InPort: -1,
			Wire: int32(fabric.RoCEv2Wire(fabric.OpAcknowledge, 0))}
	}
	ack, cnp := control(fabric.KindAck, 3), control(fabric.KindCNP, prof.CNPPriority)
	h[0].QueueControl(ack)
	h[0].QueueControl(cnp)
	eng.Run(10*sim.Microsecond, nil)
	if q := h[0].ControlQueued(); len(q) != 1 || q[0] != ack {
		t.Fatalf("5 us on, h0 still holds %d control packets; want the CNP gone and the ACK held", len(q))
	}
	sw.Ports()[toH0].SendPause(3, 0)
	eng.Run(20*sim.Microsecond, nil)
	if q := h[0].ControlQueued(); len(q) != 0 {
		t.Errorf("the ACK did not leave after the RESUME")
	}
}
