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

// TestRdmaServerClient: rdma_server and rdma_client print what the
// programs print (rdma-core's librdmacm/examples: "rdma_server: start",
// "rdma_server: end 0", and the client's likewise); the client's 16
// bytes reach the server and the server's come back. The server answers
// once rdma_accept has returned, when the RTU has come and been
// processed, so the client ends one RTU one-way time, the server's MAD
// processing and one SEND one-way time after it connected (NIC latencies
// zero). A client with no server listening is refused: the REJ's reason
// 8 is ECONNREFUSED.
func TestRdmaServerClient(t *testing.T) {
	sp := swtch.DefaultProfile()
	eng, h, _ := star(t, 3, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile().Zero(), sp)
	srv := programs.NewRdmaServer(h[1], programs.RdmaServerPort, 0)
	cli := programs.NewRdmaClient(h[0], h[1].ID, h[1].IP, programs.RdmaServerPort, 10*sim.Microsecond)
	lone := programs.NewRdmaClient(h[2], h[0].ID, h[0].IP, programs.RdmaServerPort, 0)
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
	oneWay := func(w int) sim.Time { return 2*ser(w) + 2*sim.Microsecond + sp.Latency }
	rtu, send := fabric.RoCEv2Wire(fabric.TransportUD|fabric.OpSendOnly, 256), fabric.RoCEv2Wire(fabric.OpSendOnly, 16)
	if want := cli.Connected + oneWay(rtu) + cm.DefaultProfile().MADProcessing + oneWay(send); cli.Done != want {
		t.Errorf("client ended at %v; want connected %v + the RTU's one-way time, the server's processing and a SEND's one-way time = %v", cli.Done, cli.Connected, want)
	}
	for _, h := range h[:2] {
		if n := cm.Of(h).Sent[cm.AttrDREQ]; n != 1 {
			t.Errorf("%s sent %d DREQs; both sides disconnect", h.Name, n)
		}
	}
	if srv.Done <= cli.Connected || srv.Ret != 0 || cli.Ret != 0 {
		t.Errorf("server ended at %v (ret %d), client connected at %v (ret %d)", srv.Done, srv.Ret, cli.Connected, cli.Ret)
	}
}
