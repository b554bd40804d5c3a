package hca_test

import (
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// exampleHosts is n hosts around one switch, 100 Gb/s links of 1 us,
// with the default NIC profile.
func exampleHosts(n int) (*sim.Engine, []*hca.HCA) {
	topo, _ := fabric.Star(n, fabric.LinkSpec{Rate: 100 * fabric.Gbps, Delay: sim.Microsecond})
	routes, _, _ := fabric.ComputeRoutes(topo, fabric.RoutingECMP, nil)
	eng := sim.NewEngine(1)
	net := fabric.NewNetwork(eng, topo)
	prof := hca.DefaultProfile()
	var nic []*hca.HCA
	for i, id := range topo.Hosts() {
		nic = append(nic, hca.New(eng, net.Pool, id, topo.Nodes[id].Name, fabric.HostIP(i), prof, net.Ports[id][0]))
	}
	sw := swtch.New(eng, net.Pool, 0, "s0", swtch.DefaultProfile(), net.Ports[0], routes, fabric.MaxRoCEv2Frame(prof.MTU))
	// A multicast group for Example_mckey: its tree at the switch is
	// every host's port.
	ports, _ := fabric.MulticastTree(topo, topo.Hosts()[0], topo.Hosts())
	sw.SetMulticast(fabric.MulticastGroup(0), ports[0])
	return eng, nic
}

// Example_cmConnect connects an RC QP with rdma_cm: the server listens
// on a port and accepts a request with a QP of its own; the client's
// Connect sends the REQ, the server answers with a REP, the client with
// an RTU. Each side sees rdma_cm's events.
func Example_cmConnect() {
	eng, h := exampleHosts(2)
	var server *hca.QP
	_ = h[1].CM().Listen(&hca.CMListener{Port: 7471,
		OnRequest: func(c *hca.CMConn, private []byte) *hca.QP { // rdma_get_request, rdma_accept
			server = h[1].CreateQP()
			return server
		},
		OnEvent: func(c *hca.CMConn, e hca.CMEvent) { fmt.Printf("%v server: %v\n", eng.Now().Short(), e) },
	})
	client := h[0].CreateQP()
	_, _ = h[0].CM().Connect(client, hca.ConnectParams{Dest: h[1].ID, DestIP: h[1].IP, Port: 7471, // rdma_connect
		OnEvent: func(c *hca.CMConn, e hca.CMEvent) { fmt.Printf("%v client: %v\n", eng.Now().Short(), e) }})
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

// Example_rping runs librdmacm's rping -C 3 -S 64 -v -V, connected with
// rdma_cm as the tool connects; Report is what both sides print.
func Example_rping() {
	eng, h := exampleHosts(2)
	r, _ := hca.NewRping(h[0], h[1], hca.RpingConfig{Count: 3, Size: 64, Verbose: true, Validate: true, CM: true})
	eng.Run(sim.Second, nil)
	fmt.Print(r.Report())
	// Output:
	// # h0 (client): rping -c -C 3 -S 64 -v -V
	// ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmnopqr
	// ping data: rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmnopqrs
	// ping data: rdma-ping-2: CDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmnopqrst
	// client DISCONNECT EVENT...
	// # h1 (server): rping -s -C 3 -S 64 -v -V
	// server ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmnopqr
	// server ping data: rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmnopqrs
	// server ping data: rdma-ping-2: CDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmnopqrst
	// server DISCONNECT EVENT...
	// wait for RDMA_READ_ADV state 10
}

// Example_rdmaServerClient runs librdmacm's rdma_server and rdma_client,
// and a second client on a host where nothing listens.
func Example_rdmaServerClient() {
	eng, h := exampleHosts(3)
	srv := hca.NewRdmaServer(h[1], hca.RdmaServerPort, 0)
	cli := hca.NewRdmaClient(h[0], h[1].ID, h[1].IP, hca.RdmaServerPort, sim.Microsecond)
	lone := hca.NewRdmaClient(h[2], h[0].ID, h[0].IP, hca.RdmaServerPort, 0)
	eng.Run(sim.Second, nil)
	fmt.Print(srv.Report(), cli.Report(), lone.Report())
	// Output:
	// rdma_server: start
	// rdma_server: end 0
	// rdma_client: start
	// rdma_client: end 0
	// rdma_client: start
	// rdma_connect: Connection refused
	// rdma_client: end -1
}

// Example_mckey runs librdmacm's mckey: h0 sends 5 messages to a
// multicast group that h1 and h2 joined, after the tool's 3 s pause; the
// switch copies each message to both.
func Example_mckey() {
	eng, h := exampleHosts(3)
	m, _ := hca.NewMckey(h[0], h[1:], hca.MckeyConfig{Group: fabric.MulticastGroup(0), GroupIP: 239<<24 | 1<<16 | 1<<8 | 1, Count: 5})
	eng.Run(4*sim.Second, nil)
	fmt.Println(strings.TrimSpace(m.Report()))
	fmt.Println("received:", m.Received)
	// Output:
	// # h0: mckey -m 239.1.1.1 -s -C 5 -S 100
	// mckey: starting client
	// mckey: joining
	// mckey: joined dgid: ::ffff:239.1.1.1 mlid 0x0 sl 0
	// initiating data transfers
	// data transfers complete
	// test complete
	// return status 0
	// # h1: mckey -m 239.1.1.1 -C 5 -S 100
	// mckey: starting server
	// mckey: joining
	// mckey: joined dgid: ::ffff:239.1.1.1 mlid 0x0 sl 0
	// receiving data transfers
	// data transfers complete
	// test complete
	// return status 0
	// # h2: mckey -m 239.1.1.1 -C 5 -S 100
	// mckey: starting server
	// mckey: joining
	// mckey: joined dgid: ::ffff:239.1.1.1 mlid 0x0 sl 0
	// receiving data transfers
	// data transfers complete
	// test complete
	// return status 0
	// received: [5 5]
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
