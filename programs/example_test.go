package programs_test

import (
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/programs"
	"github.com/lfsim/lfsim/sim"
)

// Example_rping runs librdmacm's rping -C 3 -S 64 -v -V, connected with
// rdma_cm as the tool connects; Report is what both sides print.
func Example_rping() {
	eng, h := exampleHosts(2)
	r, _ := programs.NewRping(h[0], h[1], programs.RpingConfig{Count: 3, Size: 64, Verbose: true, Validate: true, CM: true})
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
	srv := programs.NewRdmaServer(h[1], programs.RdmaServerPort, 0)
	cli := programs.NewRdmaClient(h[0], h[1].ID, h[1].IP, programs.RdmaServerPort, sim.Microsecond)
	lone := programs.NewRdmaClient(h[2], h[0].ID, h[0].IP, programs.RdmaServerPort, 0)
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
	m, _ := programs.NewMckey(h[0], h[1:], programs.MckeyConfig{Group: fabric.MulticastGroup(0), GroupIP: 239<<24 | 1<<16 | 1<<8 | 1, Count: 5,
		Size: programs.MckeySize, Settle: programs.MckeySettle})
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
