package cm_test

import (
	"testing"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// iwPair makes two iWARP hosts on a switch, 100 Gb/s, 1 µs links, NIC
// latencies zero, and the one-way time of a frame of wire bytes between
// them.
func iwPair(t *testing.T) (*sim.Engine, []*hca.HCA, func(wire int) sim.Time) {
	sp := swtch.DefaultProfile()
	prof := hca.DefaultProfile().Zero()
	prof.Transport = fabric.IWARP
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, sp)
	return eng, h, func(wire int) sim.Time {
		return 2*fabric.SerializationTime(int64(wire), 100*fabric.Gbps) + 2*sim.Microsecond + sp.Latency
	}
}

// TestCMConnectIWARP: rdma_connect over iw_cm to a listener on an idle
// network. As over CM MADs (TestCMConnectOne), eight QP commands (c) and
// two upcalls (P), but the wire's part is the NIC's own connection
// (hca's iwconn.go): the active side's create and INIT, the SYN and the
// SYN-ACK, the ACK's serialization ahead of the MPA Request, the
// Request, the passive side's upcall (CONNECT_REQUEST) and its four
// commands, the Reply, the active side's upcall and its RTR and RTS:
// ESTABLISHED there at 8c + 2P + two round trips; the passive side's
// once its Reply is sent (iw_cxgb4's established_upcall). No QP1 and no
// MAD on either host; the private data arrives after MPA's IRD and ORD;
// a WRITE then goes through; rdma_disconnect closes with FIN, FIN-ACK
// and the last ACK, and both sides see DISCONNECTED with their QPs in
// ERR.
func TestCMConnectIWARP(t *testing.T) {
	eng, h, ow := iwPair(t)
	c, P := cm.DefaultProfile().QPCommand, cm.DefaultProfile().MADProcessing
	var server *hca.QP
	var events []string
	var sconn *cm.Conn
	if err := cm.Of(h[1]).Listen(&cm.Listener{Port: 7471,
		OnRequest: func(cc *cm.Conn, private []byte) *hca.QP {
			if string(private) != "hello" {
				t.Errorf("private data %q, want hello", private)
			}
			sconn = cc
			server = h[1].CreateQP()
			return server
		},
		OnEvent: func(_ *cm.Conn, e cm.Event) { events = append(events, "server "+e.String()) },
	}); err != nil {
		t.Fatal(err)
	}
	client := h[0].CreateQP()
	conn, err := cm.Of(h[0]).Connect(client, cm.ConnectParams{Dest: h[1].ID, DestIP: h[1].IP, Port: 7471, Private: []byte("hello"),
		OnEvent: func(_ *cm.Conn, e cm.Event) { events = append(events, "client "+e.String()) }})
	if err != nil {
		t.Fatal(err)
	}
	eng.Run(sim.Second, nil)
	want := []string{"client RDMA_CM_EVENT_ADDR_RESOLVED", "client RDMA_CM_EVENT_ROUTE_RESOLVED", "server RDMA_CM_EVENT_CONNECT_REQUEST",
		"server RDMA_CM_EVENT_ESTABLISHED", "client RDMA_CM_EVENT_ESTABLISHED"}
	if len(events) != len(want) {
		t.Fatalf("events %q, want %q", events, want)
	}
	for i := range want {
		if events[i] != want[i] {
			t.Errorf("event %d: %s, want %s", i, events[i], want[i])
		}
	}
	mpa := fabric.MPA{CRC: true}
	syn := fabric.SetupFrame(fabric.StepSYN, mpa, false, false, 0, 0) + fabric.PreambleIFGBytes
	req := fabric.SetupFrame(fabric.StepMPARequest, mpa, false, false, fabric.MPAv2ParamsBytes, len("hello")) + fabric.PreambleIFGBytes
	rep := fabric.SetupFrame(fabric.StepMPAReply, mpa, false, false, fabric.MPAv2ParamsBytes, 0) + fabric.PreambleIFGBytes
	ack := fabric.SerializationTime(int64(fabric.TCPAckWire(false, false)), 100*fabric.Gbps)
	if got, want := conn.Established, 8*c+2*P+2*ow(syn)+ack+ow(req)+ow(rep); got != want {
		t.Errorf("active side established at %v, want 8c + 2P + two round trips = %v", got, want)
	}
	if got, want := sconn.Established, 6*c+P+2*ow(syn)+ack+ow(req); got != want {
		t.Errorf("passive side established at %v, want its Reply's time, %v", got, want)
	}
	cm0, cm1 := cm.Of(h[0]), cm.Of(h[1])
	if len(cm0.Sent)+len(cm1.Sent) != 0 || cm0.QP1() != nil || cm1.QP1() != nil {
		t.Errorf("MADs sent on iWARP: %v and %v; QP1 %v and %v", cm0.Sent, cm1.Sent, cm0.QP1(), cm1.QP1())
	}
	if client.State != hca.QPRTS || server.State != hca.QPRTS || client.RemoteQPN != server.QPN || server.RemoteQPN != client.QPN {
		t.Fatalf("client %v (remote %d), server %v (remote %d)", client, client.RemoteQPN, server, server.RemoteQPN)
	}
	mr := h[1].RegMR(h[1].DefaultPD(), 1<<20, nil, hca.AccessAll)
	if _, err := h[0].PostSend(client, hca.SendWR{ID: 1, Op: hca.WRWrite, Length: 1 << 20, Signaled: true, RemoteAddr: mr.Addr, RKey: mr.RKey}); err != nil {
		t.Fatal(err)
	}
	eng.Run(2*sim.Second, nil)
	if wc := h[0].DefaultCQ().Poll(1); len(wc) != 1 || wc[0].Status != hca.WCSuccess {
		t.Errorf("the WRITE after the connection: %v", wc)
	}
	conn.Disconnect()
	eng.Run(3*sim.Second, nil)
	if conn.Disconnected == 0 || sconn.Disconnected == 0 || client.State != hca.QPErr || server.State != hca.QPErr {
		t.Errorf("disconnect: %v / %v; client %v, server %v; want both disconnected, in ERR", conn.Disconnected, sconn.Disconnected, client, server)
	}
	if a := cm0.Active; a.Requested != 1 || a.Established != 1 || a.Failed != 0 {
		t.Errorf("the active side's stats: %+v", a)
	}
}

// TestCMIWARPFailures: over iw_cm, a SYN to a port nobody listens on is
// reset (RST), which rdma_cm raises as REJECTED (cma_iw_handler's
// answer to ECONNREFUSED), a round trip after the SYN; a listener that
// refuses (OnRequest gives no QP: rdma_reject) answers with a Reply whose
// R bit is set, REJECTED too.
func TestCMIWARPFailures(t *testing.T) {
	for _, listen := range []bool{false, true} {
		eng, h, _ := iwPair(t)
		if listen {
			if err := cm.Of(h[1]).Listen(&cm.Listener{Port: 7471, OnRequest: func(*cm.Conn, []byte) *hca.QP { return nil }}); err != nil {
				t.Fatal(err)
			}
		}
		var got []cm.Event
		qp := h[0].CreateQP()
		if _, err := cm.Of(h[0]).Connect(qp, cm.ConnectParams{Dest: h[1].ID, DestIP: h[1].IP, Port: 7471,
			OnEvent: func(_ *cm.Conn, e cm.Event) { got = append(got, e) }}); err != nil {
			t.Fatal(err)
		}
		eng.Run(sim.Second, nil)
		if len(got) != 3 || got[2] != cm.EventRejected || qp.State != hca.QPErr {
			t.Errorf("listening %v: events %v, QP %v; want ADDR, ROUTE, REJECTED and ERR", listen, got, qp.State)
		}
		if a := cm.Of(h[0]).Active; a.Failed != 1 {
			t.Errorf("listening %v: the active side's stats %+v", listen, a)
		}
	}
}
