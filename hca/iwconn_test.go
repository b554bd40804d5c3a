package hca_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// wireEntry is a frame as one of a test's ports sent it.
type wireEntry struct {
	at   sim.Time
	port string
	kind fabric.PacketKind
	step fabric.SetupStep
	wire int32
}

// wireLog records what the hosts' links carry, both ways.
func wireLog(eng *sim.Engine, hs []*hca.HCA) *[]wireEntry {
	var log []wireEntry
	for _, h := range hs {
		for _, p := range []*fabric.Port{h.Port(), h.Port().Peer()} {
			p.OnTx = func(p *fabric.Port, pkt *fabric.Packet) {
				e := wireEntry{at: eng.Now(), port: p.Name, kind: pkt.Kind, wire: pkt.Wire}
				if pkt.Kind == fabric.KindSetup {
					e.step = pkt.Step()
				}
				log = append(log, e)
			}
		}
	}
	return &log
}

// sentBy is the setup steps port sent, in order.
func sentBy(log []wireEntry, port string) string {
	var out []string
	for _, e := range log {
		if e.port == port && e.kind == fabric.KindSetup {
			out = append(out, e.step.String())
		}
	}
	return strings.Join(out, ", ")
}

// at is when port first sent step.
func at(log []wireEntry, port string, step fabric.SetupStep) sim.Time {
	for _, e := range log {
		if e.port == port && e.kind == fabric.KindSetup && e.step == step {
			return e.at
		}
	}
	return -1
}

// oneWay is a frame's time from the sending NIC to the receiving NIC's
// transport through the test star's switch, at 100 Gb/s with 1 µs links:
// its serialization (80 ps a byte) and propagation on each of two links,
// the switch's pipeline (swtch.DefaultProfile: 500 ns) and the receiving
// NIC's RxPktLatency (200 ns). Control frames leave at once (no transmit
// latency: they are made by the NIC, not fetched).
func oneWay(wire int32) sim.Time {
	ser := sim.Time(wire) * 80 * sim.Picosecond
	return 2*(ser+sim.Microsecond) + 500*sim.Nanosecond + hca.DefaultProfile().RxPktLatency
}

// iwConnect connects a's qa to b's qb as rdma_cm does over iw_cm, with
// no time for the commands and host work between (package cm adds
// them): b listens on port 18516 and, on the Request, moves qb to RTS and
// accepts; a opens from port 40000 and, on the Reply, moves qa to RTS
// and calls ready (if not nil), where an application would post.
func iwConnect(t *testing.T, a, b *hca.HCA, qa, qb *hca.QP, ready func()) (ca, cb *hca.IWConn) {
	t.Helper()
	if err := b.IWListen(&hca.IWListener{Port: 18516, OnRequest: func(c *hca.IWConn) {
		cb = c
		toRTS(t, b, qb, c)
		if err := c.Accept(qb, nil); err != nil {
			t.Fatal(err)
		}
	}}); err != nil {
		t.Fatal(err)
	}
	ca, err := a.IWConnect(qa, hca.IWConnectParams{Dest: b.ID, DestIP: b.IP, LocalPort: 40000, Port: 18516,
		OnReply: func(c *hca.IWConn) {
			toRTS(t, a, qa, c)
			if ready != nil {
				ready()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	return ca, cb
}

// toRTS moves qp through RTR to RTS, connected to c's peer.
func toRTS(t *testing.T, h *hca.HCA, qp *hca.QP, c *hca.IWConn) {
	t.Helper()
	if err := h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTR, Dest: c.Peer, DestIP: c.PeerIP, DestQPN: c.PeerQPN}); err != nil {
		t.Fatal(err)
	}
	if err := h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTS}); err != nil {
		t.Fatal(err)
	}
}

// TestIWConnSetup: an iWARP connection is made as Linux's iWARP drivers
// make it for rdma_cm (fabric's tcpsetup.go): SYN, SYN-ACK, ACK and the
// MPA Request from the active end; the MPA Reply; the RTR (a zero-length
// READ); its response; the last ACK. The active end's QP sends its first
// FPDU two round trips after its SYN, to the picosecond: the SYN's and
// the SYN-ACK's one-way times, the ACK's serialization ahead of the
// Request, the Request's and the Reply's one-way times (oneWay: 10.867 µs
// here), with no time for the hosts' work between (package cm's); its
// first FPDU follows the RTR. The passive end's QP, whose WRITE is posted
// before the connection is made, sends no FPDU before the RTR has
// arrived (RFC 6581 §4). Both WRITEs complete.
func TestIWConnSetup(t *testing.T) {
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, iwarpProfile("newreno", false), swtch.DefaultProfile())
	log := wireLog(eng, h)
	qa, qb := h[0].CreateQP(), h[1].CreateQP()
	mb := h[1].RegMR(h[1].DefaultPD(), 1<<20, nil, hca.AccessAll)
	ma := h[0].RegMR(h[0].DefaultPD(), 1<<20, nil, hca.AccessAll)
	var w *hca.WQE
	ca, _ := iwConnect(t, h[0], h[1], qa, qb, func() {
		var err error
		if w, err = h[0].PostSend(qa, hca.SendWR{Op: hca.WRWrite, Signaled: true, RemoteAddr: mb.Addr, RKey: mb.RKey, Length: 64 << 10}); err != nil {
			t.Fatal(err)
		}
	})
	eng.Run(9*sim.Microsecond, nil) // the passive end's QP is in RTS once the Request is in (at 8.15 µs); the RTR comes at 13.6 µs
	back, err := h[1].PostSend(qb, hca.SendWR{Op: hca.WRWrite, Signaled: true, RemoteAddr: ma.Addr, RKey: ma.RKey, Length: 4096})
	if err != nil {
		t.Fatal(err)
	}
	eng.Run(sim.Millisecond, nil)
	cb := h[1].IWConnOf(qb)
	a, p := h[0].Port().Name, h[1].Port().Name
	if got, want := sentBy(*log, a), "SYN, ACK, MPA Request, RTR, ACK of the RTR response"; got != want {
		t.Errorf("the active end sent %s; want %s", got, want)
	}
	if got, want := sentBy(*log, p), "SYN-ACK, MPA Reply, RTR response"; got != want {
		t.Errorf("the passive end sent %s; want %s", got, want)
	}
	if ca == nil || cb == nil || !ca.Active || cb.Active || !ca.Ready() || !cb.Ready() {
		t.Fatalf("connections %+v and %+v: want the active end and the passive end, both sending", ca, cb)
	}
	syn := at(*log, a, fabric.StepSYN)
	tcp := fabric.TCPSynOptionBytes(false, false)
	synWire := int32(fabric.SetupFrame(fabric.StepSYN, fabric.MPA{CRC: true}, false, false, 0, 0) + fabric.PreambleIFGBytes)
	ackWire := int32(fabric.TCPAckWire(false, false))
	reqWire := int32(fabric.SetupFrame(fabric.StepMPARequest, fabric.MPA{CRC: true}, false, false, 4, 0) + fabric.PreambleIFGBytes)
	want2 := oneWay(synWire) + oneWay(synWire) + sim.Time(ackWire)*80*sim.Picosecond + oneWay(reqWire) + oneWay(reqWire)
	if got := ca.Established - syn; got != want2 {
		t.Errorf("the active end reached FPDU mode %v after its SYN; want two round trips, %v (SYN %d B with %d B of options, Request %d B)", got, want2, synWire, tcp, reqWire)
	}
	rtr := at(*log, a, fabric.StepRTR)
	rtrWire := int32(fabric.IWARPWire(fabric.OpReadRequest, 0, fabric.MPA{CRC: true}, false))
	var firstA, firstP sim.Time = -1, -1
	for _, e := range *log {
		if e.kind == fabric.KindData && e.port == a && firstA < 0 {
			firstA = e.at
		}
		if e.kind == fabric.KindData && e.port == p && firstP < 0 {
			firstP = e.at
		}
	}
	if rtr != ca.Established || firstA < rtr {
		t.Errorf("the RTR went at %v, the active end's first FPDU at %v; want the RTR at FPDU mode (%v), the FPDU after it", rtr, firstA, ca.Established)
	}
	if rtrIn := rtr + oneWay(rtrWire); firstP < rtrIn {
		t.Errorf("the passive end's first FPDU went at %v, before the RTR arrived (%v)", firstP, rtrIn)
	}
	if w == nil || w.Status != hca.WCSuccess || back.Status != hca.WCSuccess {
		t.Errorf("the WRITEs: %v and %v", w.Status, back.Status)
	}
	t.Logf("SYN at %v, FPDU mode at %v (two round trips: %v); RTR at %v, the passive end's first FPDU at %v", syn, ca.Established, want2, rtr, firstP)
}

// TestIWConnLoss: each set-up segment lost once (the first of its step,
// on either link), connected as iwConnect does. A segment the exchange waits on is sent again one
// retransmission timeout later (RFC 6298's initial 1 s): the SYN, the
// SYN-ACK (the active end's SYN goes again and finds it answered again),
// the Request and the Reply each delay the active end's FPDU mode by one
// timeout; the handshake's ACK does not (the Request acknowledges the
// SYN-ACK too), nor do the RTR and what follows it (the passive end
// starts with the Initiator's first FPDU; the RTR is sent again, or its
// response, a timeout later). The 64 KiB WRITE posted at Connect
// completes in every case.
func TestIWConnLoss(t *testing.T) {
	base := sim.Time(-1)
	for _, tc := range []struct {
		step   fabric.SetupStep
		delays bool
	}{
		{0, false},
		{fabric.StepSYN, true}, {fabric.StepSYNACK, true}, {fabric.StepACK, false},
		{fabric.StepMPARequest, true}, {fabric.StepMPAReply, true},
		{fabric.StepRTR, false}, {fabric.StepRTRResponse, false}, {fabric.StepRTRAck, false},
	} {
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, iwarpProfile("newreno", false), swtch.DefaultProfile())
		lost := 0
		for _, x := range h {
			x.Port().Link().SetLossFilter(func(p *fabric.Packet) bool {
				if p.Kind == fabric.KindSetup && p.Step() == tc.step && lost == 0 {
					lost++
					return true
				}
				return false
			})
		}
		qa, qb := h[0].CreateQP(), h[1].CreateQP()
		mr := h[1].RegMR(h[1].DefaultPD(), 1<<20, nil, hca.AccessAll)
		var w *hca.WQE
		ca, _ := iwConnect(t, h[0], h[1], qa, qb, func() {
			var err error
			if w, err = h[0].PostSend(qa, hca.SendWR{Op: hca.WRWrite, Signaled: true, RemoteAddr: mr.Addr, RKey: mr.RKey, Length: 64 << 10}); err != nil {
				t.Fatal(err)
			}
		})
		eng.Run(5*sim.Second, nil)
		cp := h[1].IWConnOf(qb)
		if cp == nil {
			t.Fatalf("%v lost: no passive end", tc.step)
		}
		if w == nil || w.Status != hca.WCSuccess || !ca.Ready() || !cp.Ready() {
			t.Errorf("%v lost: the WRITE %v, the ends sending %v and %v", tc.step, w.Status, ca.Ready(), cp.Ready())
			continue
		}
		if tc.step == 0 {
			base = ca.Established
			continue
		}
		if lost != 1 {
			t.Errorf("%v: %d lost, want 1", tc.step, lost)
		}
		extra := ca.Established - base
		want := sim.Time(0)
		if tc.delays {
			want = hca.DefaultTCPProfile().RTOInitial
		}
		if extra < want || extra > want+base {
			t.Errorf("%v lost: FPDU mode %v later than without loss, want %v (within one set-up, %v)", tc.step, extra, want, base)
		}
		if ca.Resent+cp.Resent == 0 && tc.step != fabric.StepACK {
			t.Errorf("%v lost: no segment was sent again", tc.step)
		}
		t.Logf("%v lost: FPDU mode %v later; %d and %d segments sent again", tc.step, extra, ca.Resent, cp.Resent)
	}
}

// TestIWConnFailures: a SYN to a port no one listens on is answered by
// RST (refused, one round trip); a SYN that is always lost is sent again
// six times (Linux's tcp_syn_retries), the timeout doubling from 1 s, and
// the connection fails after 1 + 2 + 4 + 8 + 16 + 32 + 64 = 127 s (timed
// out), as Linux's connect does.
// Either way the QP goes to the error state.
func TestIWConnFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		lose bool
		why  hca.IWFailure
		when sim.Time
	}{
		{"nobody listens", false, hca.IWRefused, oneWay(86) + oneWay(84)}, // the SYN, 86 bytes, and the RST, 84
		{"every SYN lost", true, hca.IWTimedOut, 127 * sim.Second},
	} {
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, iwarpProfile("newreno", false), swtch.DefaultProfile())
		if tc.lose {
			h[0].Port().Link().SetLossFilter(func(p *fabric.Packet) bool { return p.Kind == fabric.KindSetup })
		}
		qa := h[0].CreateQP()
		var failed hca.IWFailure
		var failedAt sim.Time
		c, err := h[0].IWConnect(qa, hca.IWConnectParams{Dest: h[1].ID, DestIP: h[1].IP, LocalPort: 40000, Port: 18516,
			OnFail: func(_ *hca.IWConn, why hca.IWFailure) { failed, failedAt = why, eng.Now() }})
		if err != nil {
			t.Fatal(err)
		}
		eng.Run(200*sim.Second, nil)
		if failed != tc.why || failedAt != tc.when || qa.State != hca.QPErr {
			t.Errorf("%s: failed %q at %v, QP %v; want %q at %v, QP in ERR", tc.name, failed, failedAt, qa.State, tc.why, tc.when)
		}
		if tc.lose && c.Resent != hca.SynRetries {
			t.Errorf("%s: the SYN went again %d times, want %d", tc.name, c.Resent, hca.SynRetries)
		}
	}
}

// TestIWConnListen: rdma_cm's way over iw_cm. The passive end listens;
// the MPA Request brings the active end's private data after revision
// 2's IRD and ORD (the NIC's max_dest_rd_atomic and max_rd_atomic, 16,
// with the peer-to-peer model and a READ as the RTR); the application
// accepts with its QP in RTS, or rejects, which the active end hears as
// the Reply's R bit. Accepted, the active end learns the peer's QP from
// the Reply, moves its QP to RTS, and its WRITE completes; its Close
// sends a FIN, the peer answers with its own, and both ends hear the
// close. Both ends' requests carry the connection's TCP ports.
func TestIWConnListen(t *testing.T) {
	for _, reject := range []bool{false, true} {
		eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, iwarpProfile("newreno", false), swtch.DefaultProfile())
		log := wireLog(eng, h)
		qa, qb := h[0].CreateQP(), h[1].CreateQP()
		var req *hca.IWConn
		closed := map[string]sim.Time{}
		if err := h[1].IWListen(&hca.IWListener{Port: 18516, OnRequest: func(c *hca.IWConn) {
			req = c
			c.OnClosed = func(*hca.IWConn) { closed["passive"] = eng.Now() }
			if reject {
				c.Reject([]byte("no"))
				return
			}
			// To RTS, as rdma_accept's commands move it.
			if err := h[1].ModifyQP(qb, hca.QPAttr{State: hca.QPRTR, Dest: c.Peer, DestIP: c.PeerIP, DestQPN: c.PeerQPN}); err != nil {
				t.Fatal(err)
			}
			if err := h[1].ModifyQP(qb, hca.QPAttr{State: hca.QPRTS}); err != nil {
				t.Fatal(err)
			}
			if err := c.Accept(qb, []byte("ok")); err != nil {
				t.Fatal(err)
			}
		}}); err != nil {
			t.Fatal(err)
		}
		var failed hca.IWFailure
		var conn *hca.IWConn
		conn, err := h[0].IWConnect(qa, hca.IWConnectParams{Dest: h[1].ID, DestIP: h[1].IP, LocalPort: 40000, Port: 18516, Private: []byte("flow 7"),
			OnReply: func(c *hca.IWConn) {
				if err := h[0].ModifyQP(qa, hca.QPAttr{State: hca.QPInit, Access: hca.AccessAll}); err != nil {
					t.Fatal(err)
				}
				if err := h[0].ModifyQP(qa, hca.QPAttr{State: hca.QPRTR, Dest: c.Peer, DestIP: c.PeerIP, DestQPN: c.PeerQPN}); err != nil {
					t.Fatal(err)
				}
				if err := h[0].ModifyQP(qa, hca.QPAttr{State: hca.QPRTS}); err != nil {
					t.Fatal(err)
				}
			},
			OnFail:   func(_ *hca.IWConn, why hca.IWFailure) { failed = why },
			OnClosed: func(*hca.IWConn) { closed["active"] = eng.Now() }})
		if err != nil {
			t.Fatal(err)
		}
		mr := h[1].RegMR(h[1].DefaultPD(), 1<<20, nil, hca.AccessAll)
		eng.Run(100*sim.Microsecond, nil)
		if req == nil || string(req.PeerPrivate) != "flow 7" || req.PeerMPA.Rev != 2 || req.PeerMPA.IRD != 16 || req.PeerMPA.ORD != 16 ||
			!req.PeerMPA.CRC || !req.PeerMPA.PeerToPeer || !req.PeerMPA.RTRRead || req.PeerQPN != qa.QPN {
			t.Fatalf("reject=%v: the Request: %+v", reject, req)
		}
		if reject {
			if failed != hca.IWRejected || string(conn.PeerPrivate) != "no" || qa.State != hca.QPErr {
				t.Errorf("rejected: the active end failed %q with %q, QP %v; want rejected, \"no\", ERR", failed, conn.PeerPrivate, qa.State)
			}
			continue
		}
		if conn.PeerQPN != qb.QPN || string(conn.PeerPrivate) != "ok" || !conn.Ready() {
			t.Fatalf("the active end: peer QP %d (want %d), private %q, sending %v", conn.PeerQPN, qb.QPN, conn.PeerPrivate, conn.Ready())
		}
		w, err := h[0].PostSend(qa, hca.SendWR{Op: hca.WRWrite, Signaled: true, RemoteAddr: mr.Addr, RKey: mr.RKey, Length: 16 << 10})
		if err != nil {
			t.Fatal(err)
		}
		var ports []uint16
		logTx := h[0].Port().OnTx
		h[0].Port().OnTx = func(port *fabric.Port, p *fabric.Packet) {
			logTx(port, p)
			if p.Kind == fabric.KindData {
				ports = append(ports, p.Flow.SrcPort, p.Flow.DstPort)
			}
		}
		eng.Run(eng.Now()+100*sim.Microsecond, nil)
		if w.Status != hca.WCSuccess || len(ports) == 0 || ports[0] != 40000 || ports[1] != 18516 {
			t.Fatalf("the WRITE: %v, its first segment's ports %v; want success from 40000 to 18516", w.Status, ports)
		}
		conn.Close()
		eng.Run(eng.Now()+100*sim.Microsecond, nil)
		if got := sentBy(*log, h[0].Port().Name); !strings.HasSuffix(got, "FIN, last ACK") {
			t.Errorf("the active end sent %s; want it to end with FIN, last ACK", got)
		}
		if got := sentBy(*log, h[1].Port().Name); !strings.HasSuffix(got, "FIN-ACK") {
			t.Errorf("the passive end sent %s; want it to end with FIN-ACK", got)
		}
		if closed["active"] == 0 || closed["passive"] == 0 || h[0].IWConnOf(qa) != nil || h[1].IWConnOf(qb) != nil {
			t.Errorf("closed %v; connections %v and %v: want both closed and forgotten", closed, h[0].IWConnOf(qa), h[1].IWConnOf(qb))
		}
		steps := slices.Collect(func(yield func(string) bool) {
			for _, e := range *log {
				if e.kind == fabric.KindSetup && !yield(e.step.String()) {
					return
				}
			}
		})
		t.Logf("accepted: %s", strings.Join(steps, ", "))
	}
}

// TestIWConnPassiveCloseBeforeRTR: the passive end's connection is made
// once its Reply is sent (rdma_cm's ESTABLISHED there, as iw_cxgb4 raises
// it), before the RTR comes: closing it then sends a FIN, as any close of
// a made connection, and the active end hears of it; it was reset (RST)
// before the fix, its close being graceful only in FPDU mode.
func TestIWConnPassiveCloseBeforeRTR(t *testing.T) {
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, iwarpProfile("newreno", false), swtch.DefaultProfile())
	log := wireLog(eng, h)
	qa, qb := h[0].CreateQP(), h[1].CreateQP()
	var closed sim.Time
	ca, _ := iwConnect(t, h[0], h[1], qa, qb, nil)
	ca.OnClosed = func(*hca.IWConn) { closed = eng.Now() }
	eng.Run(9*sim.Microsecond, nil) // the Reply went at 8.15 µs; the RTR comes at 13.6 µs
	cb := h[1].IWConnOf(qb)
	if cb == nil || cb.Established == 0 {
		t.Fatalf("the passive end at 9 µs: %+v, want its Reply sent", cb)
	}
	cb.Close()
	eng.Run(sim.Millisecond, nil)
	if got := sentBy(*log, h[1].Port().Name); !strings.HasPrefix(got, "SYN-ACK, MPA Reply, FIN") || strings.Contains(got, "RST") {
		t.Errorf("the passive end sent %s; want SYN-ACK, MPA Reply, FIN, and no RST", got)
	}
	if closed == 0 {
		t.Error("the active end never heard of the close")
	}
}
