package programs_test

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/programs"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestRping: rping -C 10 -S 64 -v -V between two hosts of a switch. The
// client prints each ping's data as rping does; rdma-core's rping prints,
// for the first,
//
//	ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmnopqr
//
// and the next starts one letter later. With NIC latencies zero the run
// takes exactly its one-way times: per ping, four 16-byte SENDs (the
// adverts and the go-aheads), the READ's request and response, the
// WRITE and its ACK; and the ACK a side owes for a SEND it received goes
// out ahead of its next request, four of them per ping but the first.
func TestRping(t *testing.T) {
	sp := swtch.DefaultProfile()
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile().Zero(), sp)
	r, err := programs.NewRping(h[0], h[1], programs.RpingConfig{Count: 10, Size: 64, Verbose: true, Validate: true})
	if err != nil {
		t.Fatal(err)
	}
	eng.Run(sim.Second, nil)
	if r.Err != "" || r.Iters != 10 {
		t.Fatalf("%d of 10 pings, error %q", r.Iters, r.Err)
	}
	if r.Client[0] != "ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr" ||
		r.Client[1] != "ping data: rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrs" || len(r.Client) != 10 {
		t.Errorf("client lines:\n%s", strings.Join(r.Client, "\n"))
	}
	if len(r.Server) != 10 || r.Server[9] != "server ping data: rdma-ping-9: JKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyzA" {
		t.Errorf("server lines:\n%s", strings.Join(r.Server, "\n"))
	}
	ser := func(w int) sim.Time { return fabric.SerializationTime(int64(w), 100*fabric.Gbps) }
	oneWay := func(w int) sim.Time { return 2*ser(w) + 2*sim.Microsecond + sp.Latency }
	info := fabric.RoCEv2Wire(fabric.OpSendOnly, 16)
	ack := fabric.RoCEv2Wire(fabric.OpAcknowledge, 0)
	perPing := 4*oneWay(info) + oneWay(fabric.RoCEv2Wire(fabric.OpReadRequest, 0)) + oneWay(fabric.RoCEv2Wire(fabric.OpReadResponseOnly, 64)) +
		oneWay(fabric.RoCEv2Wire(fabric.OpWriteOnly, 64)) + oneWay(ack) + 4*ser(ack)
	if want := 10*perPing - ser(ack); r.Done != want {
		t.Errorf("10 pings took %v, want the closed form %v (%v per ping)", r.Done, want, perPing)
	}
}

// TestRpingCM: rping connected with rdma_cm as the tool does. The
// connection takes what TestCMConnectOne's closed form says (8 QP
// commands, 2 MADs' processing, the REQ's and REP's one-way times); the
// ten pings then take exactly what they take without it, but for the RTU
// that goes just ahead of the first; after the last
// the client disconnects, and both print the tool's DISCONNECT lines
// (the server's loop, waiting for the next advert, sees state 10,
// DISCONNECTED).
func TestRpingCM(t *testing.T) {
	sp := swtch.DefaultProfile()
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile().Zero(), sp)
	plain, err := programs.NewRping(h[0], h[1], programs.RpingConfig{Count: 10, Size: 64, Verbose: true, Validate: true})
	if err != nil {
		t.Fatal(err)
	}
	eng.Run(sim.Second, nil)
	eng, h, _ = star(t, 2, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile().Zero(), sp)
	r, err := programs.NewRping(h[0], h[1], programs.RpingConfig{Count: 10, Size: 64, Verbose: true, Validate: true, CM: true, Start: sim.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	eng.Run(sim.Second, nil)
	if r.Err != "" || r.Iters != 10 || r.Closed == 0 {
		t.Fatalf("%d of 10 pings, error %q, closed %v", r.Iters, r.Err, r.Closed)
	}
	p := cm.DefaultProfile()
	w := fabric.RoCEv2Wire(fabric.TransportUD|fabric.OpSendOnly, 256)
	ow := 2*fabric.SerializationTime(int64(w), 100*fabric.Gbps) + 2*sim.Microsecond + sp.Latency
	if want := sim.Millisecond + 8*p.QPCommand + 2*p.MADProcessing + 2*ow; r.Connected != want {
		t.Errorf("connected at %v, want %v", r.Connected, want)
	}
	// The RTU leaves just before the first advert, which waits for it on
	// the client's link and again, less its own length, at the switch.
	ser := func(w int) sim.Time { return fabric.SerializationTime(int64(w), 100*fabric.Gbps) }
	rtu := 2*ser(w) - ser(fabric.RoCEv2Wire(fabric.OpSendOnly, 16))
	if got, want := r.Done-r.Connected, plain.Done+rtu; got != want {
		t.Errorf("ten pings after the connection took %v; want as without rdma_cm (%v) and the RTU ahead of the first (%v)", got, plain.Done, rtu)
	}
	if n := len(r.Client); n != 11 || r.Client[10] != "client DISCONNECT EVENT..." || r.Client[0] != plain.Client[0] {
		t.Errorf("client lines:\n%s", strings.Join(r.Client, "\n"))
	}
	if n := len(r.Server); n != 12 || r.Server[10] != "server DISCONNECT EVENT..." || r.Server[11] != "wait for RDMA_READ_ADV state 10" {
		t.Errorf("server lines:\n%s", strings.Join(r.Server, "\n"))
	}
}
