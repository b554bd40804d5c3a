package hca_test

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestRdmaServerClient: rdma_server and rdma_client print what the
// programs print (rdma-core's librdmacm/examples: "rdma_server: start",
// "rdma_server: end 0", and the client's likewise); the client's 16
// bytes reach the server and the server's come back; the client ends
// when they arrive, one SEND's one-way time after the server's took the
// client's (with NIC latencies zero the server answers at once, its SEND
// just behind its ACK of the client's). A client with no
// server listening is refused: the REJ's reason 8 is ECONNREFUSED.
func TestRdmaServerClient(t *testing.T) {
	sp := swtch.DefaultProfile()
	eng, h, _ := star(t, 3, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile().Zero(), sp)
	srv := hca.NewRdmaServer(h[1], hca.RdmaServerPort, 0)
	cli := hca.NewRdmaClient(h[0], h[1].ID, h[1].IP, hca.RdmaServerPort, 10*sim.Microsecond)
	lone := hca.NewRdmaClient(h[2], h[0].ID, h[0].IP, hca.RdmaServerPort, 0)
	eng.Run(sim.Second, nil)
	if got := strings.Join(srv.Lines, "|"); got != "rdma_server: start|rdma_server: end 0" {
		t.Errorf("server printed %q", srv.Lines)
	}
	if got := strings.Join(cli.Lines, "|"); got != "rdma_client: start|rdma_client: end 0" {
		t.Errorf("client printed %q", cli.Lines)
	}
	if got := strings.Join(lone.Lines, "|"); got != "rdma_client: start|rdma_connect: Connection refused|rdma_client: end -1" {
		t.Errorf("client without a server printed %q", lone.Lines)
	}
	ser := func(w int) sim.Time { return fabric.SerializationTime(int64(w), 100*fabric.Gbps) }
	send := fabric.RoCEv2Wire(fabric.OpSendOnly, 16)
	oneWay := 2*ser(send) + 2*sim.Microsecond + sp.Latency
	// The client's SEND leaves at ESTABLISHED, behind the RTU (which
	// delays it by 2·ser(RTU) - ser(SEND), as in TestRpingCM); the
	// server's answer leaves when the client's arrives.
	rtu := 2*ser(fabric.RoCEv2Wire(fabric.TransportUD|fabric.OpSendOnly, 256)) - ser(send)
	ack := ser(fabric.RoCEv2Wire(fabric.OpAcknowledge, 0))
	if want := cli.Connected + rtu + 2*oneWay + ack; cli.Done != want {
		t.Errorf("client ended at %v; want connected %v + the RTU ahead %v + two SENDs' one-way times %v + the ACK ahead %v = %v", cli.Done, cli.Connected, rtu, 2*oneWay, ack, want)
	}
	if srv.Done <= cli.Connected || srv.Ret != 0 || cli.Ret != 0 {
		t.Errorf("server ended at %v (ret %d), client connected at %v (ret %d)", srv.Done, srv.Ret, cli.Connected, cli.Ret)
	}
}
