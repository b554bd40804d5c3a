package cm_test

import (
	"fmt"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// exampleHosts is n hosts around one switch, 100 Gb/s links of 1 us,
// with the default NIC profile and connection manager.
func exampleHosts(n int) (*sim.Engine, []*hca.HCA) {
	topo, _ := fabric.Star(n, fabric.LinkSpec{Rate: 100 * fabric.Gbps, Delay: sim.Microsecond})
	routes, _, _ := fabric.ComputeRoutes(topo, fabric.RoutingECMP, nil)
	eng := sim.NewEngine(1)
	net := fabric.NewNetwork(eng, topo)
	prof := hca.DefaultProfile()
	prof.NewGSIAgent = cm.Agent(cm.DefaultProfile(), nil) // each host's CM owns its QP1, and answers MADs whoever asks
	var nic []*hca.HCA
	for i, id := range topo.Hosts() {
		nic = append(nic, hca.New(eng, net.Pool, id, topo.Nodes[id].Name, fabric.HostIP(i), prof, net.Ports[id][0]))
	}
	swtch.New(eng, net.Pool, 0, "s0", swtch.DefaultProfile(), net.Ports[0], routes, fabric.MaxRoCEv2Frame(prof.MTU))
	return eng, nic
}

// Example_cmConnect connects an RC QP with rdma_cm: the server listens
// on a port and accepts a request with a QP of its own; the client's
// Connect sends the REQ, the server answers with a REP, the client with
// an RTU. Each side sees rdma_cm's events.
func Example_cmConnect() {
	eng, h := exampleHosts(2)
	var server *hca.QP
	_ = cm.Of(h[1]).Listen(&cm.Listener{Port: 7471,
		OnRequest: func(c *cm.Conn, private []byte) *hca.QP { // rdma_get_request, rdma_accept
			server = h[1].CreateQP()
			return server
		},
		OnEvent: func(c *cm.Conn, e cm.Event) { fmt.Printf("%v server: %v\n", eng.Now().Short(), e) },
	})
	client := h[0].CreateQP()
	_, _ = cm.Of(h[0]).Connect(client, cm.ConnectParams{Dest: h[1].ID, DestIP: h[1].IP, Port: 7471, // rdma_connect
		OnEvent: func(c *cm.Conn, e cm.Event) { fmt.Printf("%v client: %v\n", eng.Now().Short(), e) }})
	eng.Run(sim.Second, nil)
	fmt.Println("client", client.State, "to QP", client.RemoteQPN, "; server", server.State, "to QP", server.RemoteQPN)
	// Output:
	// 0 client: RDMA_CM_EVENT_ADDR_RESOLVED
	// 0 client: RDMA_CM_EVENT_ROUTE_RESOLVED
	// 458.2us server: RDMA_CM_EVENT_CONNECT_REQUEST
	// 1.36ms client: RDMA_CM_EVENT_CONNECT_RESPONSE
	// 1.804ms client: RDMA_CM_EVENT_ESTABLISHED
	// 1.819ms server: RDMA_CM_EVENT_ESTABLISHED
	// client RTS to QP 2 ; server RTS to QP 2
}

// Example_asyncwatch prints every asynchronous event as rdma-core's
// ibv_asyncwatch prints it ("event_type NAME (CODE), port N"): h0's
// port goes down and comes back (a link fault tells the HCA so), then a
// WRITE carries a key that h1 never gave, so h1's QP fails with a
// remote access error and h0's WRITE completes in error.
func Example_asyncwatch() {
	eng, h := exampleHosts(2)
	for _, n := range h {
		n.OnAsyncEvent = func(ev hca.AsyncEvent) {
			if ev.QP != nil {
				fmt.Printf("%s: event_type %v (%d), qp 0x%06x\n", n.Name, ev.Type, int(ev.Type), ev.QP.QPN)
				return
			}
			fmt.Printf("%s: event_type %v (%d), port %d\n", n.Name, ev.Type, int(ev.Type), ev.Port)
		}
	}
	h[0].PortChanged(1, false)
	h[0].PortChanged(1, true)
	qa, qb := h[0].CreateQP(), h[1].CreateQP()
	h[0].Connect(qa, h[1].ID, h[1].IP, qb.QPN)
	h[1].Connect(qb, h[0].ID, h[0].IP, qa.QPN)
	w, _ := h[0].PostSend(qa, hca.SendWR{Op: hca.WRWrite, Length: 64, RKey: 0xbad, Signaled: true})
	eng.Run(sim.Second, nil)
	fmt.Println("WRITE:", w.Status)
	// Output:
	// h0: event_type IBV_EVENT_PORT_ERR (10), port 1
	// h0: event_type IBV_EVENT_PORT_ACTIVE (9), port 1
	// h1: event_type IBV_EVENT_QP_ACCESS_ERR (3), qp 0x000002
	// h0: event_type IBV_EVENT_QP_FATAL (1), qp 0x000002
	// WRITE: rem_access_err
}
