package hca_test

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
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
	r, err := hca.NewRping(h[0], h[1], hca.RpingConfig{Count: 10, Size: 64, Verbose: true, Validate: true})
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
