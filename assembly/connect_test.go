package assembly

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// TestConnectCM: a flow with connect: cm first connects with rdma_cm.
// On an idle two-host network its set-up takes eight QP commands, two
// MADs' processing and the REQ's and REP's one-way times
// (hca.TestCMConnectOne): here each one-way time is the wire's plus the
// NIC's latencies a UD SEND meets (doorbell, WQE fetch, the DMA read of
// the MAD, transmit, receive, and the DMA write into the receive
// buffer). The WRITE then takes what it takes with connect: instant,
// and the flow's FCT is the sum; its source disconnects after (DREQ and
// DREP). Three flows to one host share its listener.
func TestConnectCM(t *testing.T) {
	const base = "stop: {at: 20ms, when: flows-done}\ntopology: {kind: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}\ntraffic:\n"
	_, inst := runSource(t, "i.yaml", base+"  - flow: {from: h0, to: h1, size: 1MiB}\n")
	n, r := runSource(t, "c.yaml", base+"  - flow: {from: h0, to: h1, size: 1MiB, connect: cm}\n  - flow: {from: h2, to: h1, size: 1MiB, connect: cm, start: 5ms}\n")
	p := cm.DefaultProfile()
	w := fabric.RoCEv2Wire(fabric.TransportUD|fabric.OpSendOnly, 256)
	ow := 2*fabric.SerializationTime(int64(w), 100*fabric.Gbps) + 2*sim.Microsecond + n.Switches[0].Prof.Latency
	hp := hca.DefaultProfile()
	ow += hp.DoorbellLatency + hp.WQEFetchLatency + 2*hp.DMALatency + hp.TxPktLatency + hp.RxPktLatency
	want := (8*p.QPCommand + 2*p.MADProcessing + 2*ow).Nanoseconds()
	for _, f := range r.Flows {
		if f.Status != "success" || !f.CM || f.ConnectNs != want {
			t.Errorf("flow %d: %s, connect_ns %d; want success in %d", f.ID, f.Status, f.ConnectNs, want)
		}
		if d := f.FCTNs - (f.ConnectNs + inst.Flows[0].FCTNs); d < -100 || d > 100 {
			t.Errorf("flow %d: FCT %d ns; want connect_ns %d + the instant flow's %d", f.ID, f.FCTNs, f.ConnectNs, inst.Flows[0].FCTNs)
		}
	}
	csv := string(reports.FlowsCSV(r.Flows))
	if !strings.HasSuffix(strings.SplitN(csv, "\n", 2)[0], ",status,connect_ns") {
		t.Errorf("flows.csv header: %s", strings.SplitN(csv, "\n", 2)[0])
	}
	for _, h := range n.HCAs {
		if h != nil && h.Name == "h1" && (cm.Of(h).Sent[cm.AttrREP] != 2 || cm.Of(h).Sent[cm.AttrDREP] != 1) {
			// The run stops when the last flow completes, before its
			// DREQ arrives: one DREP, for the first.
			t.Errorf("h1 sent %v; want two REPs and one DREP", cm.Of(h).Sent)
		}
	}
	// hca.cm sets the timing: eight commands of 20 µs in place of 222.
	_, r2 := runSource(t, "c2.yaml", strings.Replace(base, "traffic:", "hca: {cm: {qp_command: 20us}}\ntraffic:", 1)+"  - flow: {from: h0, to: h1, size: 1MiB, connect: cm}\n")
	if got := r2.Flows[0].ConnectNs; got != want-8*(p.QPCommand-20*sim.Microsecond).Nanoseconds() {
		t.Errorf("with hca.cm.qp_command 20us: connect_ns %d, want %d", got, want-8*(p.QPCommand-20*sim.Microsecond).Nanoseconds())
	}
	if c := r.Summary.Connections; c == nil || c.Requested != 2 || c.Established != 2 || c.SetupMaxNs != want || c.MADs != 3+3+2+1 { // REQ, REP, RTU each; both DREQs, one DREP
		t.Errorf("summary.json connections: %+v", c)
	}
	// A UD flow resolves its peer with SIDR: four commands on each side
	// (create, INIT, RTR, RTS), SIDR_REQ and SIDR_REP, and the same time
	// as an RC connection; its datagrams carry the Q_Key the SIDR_REP
	// gave (rdma_cm's, not the profile's), or the responder would drop
	// them.
	nu, ru := runSource(t, "ud.yaml", base+"  - flow: {from: h0, to: h1, size: 4KiB, qp: ud, op: send, connect: cm}\n")
	if f := ru.Flows[0]; f.Status != "success" || f.DeliveredBytes != 4096 || f.ConnectNs != want {
		t.Errorf("UD flow with SIDR: %s, %d bytes delivered, connect_ns %d (want %d)", f.Status, f.DeliveredBytes, f.ConnectNs, want)
	}
	for _, h := range nu.HCAs {
		if h != nil && h.Name == "h0" && (cm.Of(h).Sent[cm.AttrSIDRREQ] != 1 || cm.Of(h).Sent[cm.AttrREQ] != 0) {
			t.Errorf("h0 sent %v; want one SIDR_REQ", cm.Of(h).Sent)
		}
	}
	for _, tc := range []struct{ flow, want string }{
		{"{from: h0, to: h1, size: 1MiB, connect: tcp}", "traffic[0].flow.connect"},
	} {
		_, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 2}\ntraffic:\n  - flow: "+tc.flow+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.flow, err, tc.want)
		}
	}
}

// TestRdmaExamples: rdma_server and rdma_client as traffic items print
// the programs' lines into perftest.txt; a client whose server is not
// listening is refused; the loader refuses a client of itself and two
// servers on one port.
func TestRdmaExamples(t *testing.T) {
	n, r := runSource(t, "e.yaml", "stop: {at: 50ms, when: flows-done}\ntopology: {kind: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}\ntraffic:\n"+
		"  - rdma_server: {host: h1}\n  - rdma_client: {host: h0, server: h1, start: 1us}\n  - rdma_client: {host: h2, server: h0}\n")
	if r.Summary.StopReason != "flows-done" || r.Summary.SimTimeNs >= 50_000_000 {
		t.Errorf("the run did not end when the programs did: %s at %d ns", r.Summary.StopReason, r.Summary.SimTimeNs)
	}
	got := string(r.Extra["perftest.txt"])
	for _, want := range []string{
		"# traffic[0] rdma_server on h1: rdma_server -p 7471\nrdma_server: start\nrdma_server: end 0\n",
		"# traffic[1] rdma_client on h0: rdma_client -s h1 -p 7471\nrdma_client: start\nrdma_client: end 0\n",
		"# traffic[2] rdma_client on h2: rdma_client -s h0 -p 7471\nrdma_client: start\nrdma_connect: Connection refused\nrdma_client: end -1\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("perftest.txt lacks\n%s\nit has\n%s", want, got)
		}
	}
	if n.Tests[1].Client.Connected == 0 {
		t.Error("the client never connected")
	}
	for _, tc := range []struct{ items, want string }{
		{"  - rdma_client: {host: h0, server: h0}\n", "traffic[0].rdma_client.server: an rdma_client on h0 connecting to itself"},
		{"  - rdma_server: {host: h0}\n  - rdma_server: {host: h0, port: 7471}\n", "traffic[1].rdma_server.host: h0 already runs an rdma_server on port 7471"},
	} {
		_, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 2}\ntraffic:\n"+tc.items))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.items, err, tc.want)
		}
	}
}

// TestConnectingLabMutations: the change each scenario of the lab
// connecting teaches makes one of its expectations fail.
func TestConnectingLabMutations(t *testing.T) {
	checkLabMutations(t, "connecting", []labMutation{
		{"one-connection", "traffic:", "hca: {cm: {qp_command: 20us}}\ntraffic:"},
		{"one-connection", ", connect: cm}", "}"},
		{"thousand-connections", "count: 1000", "count: 100"},
		{"rping", "connect: cm", "connect: instant"},
		{"no-server", "  - rdma_server: {host: h1, port: 7472}\n", "  - rdma_server: {host: h1, port: 7472}\n  - rdma_server: {host: h1}\n"},
	})
}

// TestMckey: mckey with one sender and seven receivers in a k=4 fat
// tree. Each receiver gets every message once, hosts outside the group
// none; the sender's link carries each message once and no link more
// than once (the switches copy along the group's tree: 6 copies per
// message for 7 receivers); each side prints the tool's lines, after
// the tool's 3 s pause.
func TestMckey(t *testing.T) {
	const count = 100
	n, r := runSource(t, "m.yaml", "stop: {at: 4s, when: flows-done}\ntopology: {kind: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}\n"+
		"observe: {interval: 1ms}\ntraffic:\n  - mckey: {sender: h0, receivers: [h1, h2, h5, h8, h11, h14, h15], count: 100, size: 1KiB}\n")
	m := n.Tests[0].Mckey
	for i, got := range m.Received {
		if got != count {
			t.Errorf("receiver %d got %d of %d", i, got, count)
		}
	}
	if m.Done() < 3*sim.Second || r.Summary.StopReason != "flows-done" {
		t.Errorf("done at %v (%s); the transfers start after the 3 s pause", m.Done(), r.Summary.StopReason)
	}
	if p := r.Summary.Packets; p.Sent != count || p.Replicated != 6*count || p.Delivered != 7*count || p.Dropped != 0 {
		t.Errorf("packets %+v; want %d sent, %d replicated, %d delivered", p, count, 6*count, 7*count)
	}
	topo := n.Scenario.Topology
	for id, ports := range n.Fabric.Ports {
		for _, port := range ports {
			if port == nil {
				continue
			}
			name := topo.Nodes[id].Name
			if port.Stats.TxPackets > count {
				t.Errorf("%s:p%d sent %d packets; a tree link carries each of the %d messages once", name, port.Index, port.Stats.TxPackets, count)
			}
			if name == "h0" && port.Stats.TxPackets != count {
				t.Errorf("the sender's link carried %d packets, want %d", port.Stats.TxPackets, count)
			}
			if (name == "h3" || name == "h4") && port.Peer().Stats.TxPackets != 0 {
				t.Errorf("%s, not in the group, was sent %d packets", name, port.Peer().Stats.TxPackets)
			}
		}
	}
	out := string(r.Extra["perftest.txt"])
	for _, want := range []string{"# h0: mckey -m 239.1.1.1 -s -C 100 -S 1024\nmckey: starting client\nmckey: joining\nmckey: joined dgid: ::ffff:239.1.1.1 mlid 0x0 sl 0\ninitiating data transfers\ndata transfers complete\ntest complete\nreturn status 0\n",
		"# h15: mckey -m 239.1.1.1 -C 100 -S 1024\nmckey: starting server\nmckey: joining\nmckey: joined dgid: ::ffff:239.1.1.1 mlid 0x0 sl 0\nreceiving data transfers\ndata transfers complete\ntest complete\nreturn status 0\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("perftest.txt lacks\n%s\nit has\n%s", want, out)
		}
	}
	for _, tc := range []struct{ item, want string }{
		{"{sender: h0, receivers: [h0, h1]}", "traffic[0].mckey.receivers: h0 is the sender"},
		{"{sender: h0, receivers: [h1], size: 8KiB}", "larger than active mtu 4096"},
		{"{sender: h0, receivers: [h1], group: 10.0.0.1}", "traffic[0].mckey.group: 10.0.0.1 is not an IPv4 multicast address"},
	} {
		_, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 2}\ntraffic:\n  - mckey: "+tc.item+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.item, err, tc.want)
		}
	}
}

// TestFirstVerbsProgramLabMutations: the change each scenario of lab 1
// teaches makes one of its expectations fail.
func TestFirstVerbsProgramLabMutations(t *testing.T) {
	checkLabMutations(t, "first-verbs-program", []labMutation{
		{"rc-pingpong", "traffic:", "hca: {doorbell_latency: 0}\ntraffic:"},
		{"no-nic-latency", "hca: {doorbell_latency: 0, wqe_fetch_latency: 0, dma_latency: 0, tx_pkt_latency: 0, rx_pkt_latency: 0}\n", ""},
		{"no-inline", "hca: {max_inline: 0}", "hca: {max_inline: 220}"},
		{"timeline", "delay: 1us", "delay: 500ns"},
	})
	if _, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 2}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB}\nexpect: {max_usec_per_iter: 5}\n")); err == nil || !strings.Contains(err.Error(), "t.yaml:4:29: expect: min_usec_per_iter and max_usec_per_iter check pingpong programs") {
		t.Errorf("max_usec_per_iter without a pingpong: %v", err)
	}
}

// TestConnectCMInfiniBand: on InfiniBand, rdma_resolve_route asks the SA
// (on subnet_manager.host) for a path record before the QP commands and
// the REQ: a SubnAdmGet and its GetResp on the wire, one MAD's one-way
// time each way plus the SA's and the client's processing, more than
// with the SA on the client's own host (asked without the wire, its
// processing only). rping and rdma_client connect the same way.
func TestConnectCMInfiniBand(t *testing.T) {
	const base = "stop: {at: 20ms, when: flows-done}\ntopology: {kind: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}\nswitch: {link_layer: infiniband}\n"
	flow := "traffic:\n  - flow: {from: h0, to: h1, size: 64KiB, connect: cm}\n"
	nFar, far := runSource(t, "far.yaml", base+"subnet_manager: {host: h2}\n"+flow)
	_, near := runSource(t, "near.yaml", base+"subnet_manager: {host: h0}\n"+flow)
	p, hp := cm.DefaultProfile(), hca.DefaultProfile()
	w := fabric.IBWire(fabric.TransportUD|fabric.OpSendOnly, 256, false)
	ow := 2*fabric.SerializationTime(int64(w), 100*fabric.Gbps) + 2*sim.Microsecond + nFar.Switches[0].Prof.Latency +
		hp.DoorbellLatency + hp.WQEFetchLatency + 2*hp.DMALatency + hp.TxPktLatency + hp.RxPktLatency
	f, n := far.Flows[0], near.Flows[0]
	if f.Status != "success" || n.Status != "success" {
		t.Fatalf("flows: %s, %s", f.Status, n.Status)
	}
	// A one-way time is the propagation, the switch and the NICs, and at
	// most two serializations (fewer where the switch cuts through).
	least := (p.MADProcessing + 2*(ow-2*fabric.SerializationTime(int64(w), 100*fabric.Gbps))).Nanoseconds()
	most := (p.MADProcessing + 2*ow).Nanoseconds()
	if got := f.ConnectNs - n.ConnectNs; got < least || got > most {
		t.Errorf("the SA across the fabric adds %d ns to the set-up (%d against %d); want two MADs' one-way times and the SA's processing, within [%d, %d]", got, f.ConnectNs, n.ConnectNs, least, most)
	}
	if c := far.Summary.Connections; c == nil || c.MADs != 6 { // PathRecord Get and GetResp, REQ, REP, RTU, DREQ
		t.Errorf("connections: %+v", c)
	}
	_, r := runSource(t, "prog.yaml", base+"traffic:\n  - rping: {client: h0, server: h1, count: 3, connect: cm}\n  - rdma_server: {host: h2}\n  - rdma_client: {host: h1, server: h2}\n")
	if c := r.Summary.Connections; c == nil || c.Established != 2 {
		t.Errorf("rping and rdma_client on InfiniBand: %+v", c)
	}
	if _, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 2}\nsubnet_manager: {host: h0}\n")); err == nil || !strings.Contains(err.Error(), "subnet_manager") {
		t.Errorf("subnet_manager.host on Ethernet: %v", err)
	}
}

// TestConnectCMFailures: a flow whose connection is not made when the
// run stops is incomplete (not a success with nothing delivered); one
// whose path query to the SA goes unanswered (the SA's host cut off)
// ends cm_route_error after the 2 s route timeout; a REQ resent to a
// passive side that gave up gets a stale-connection REJ, not a panic.
func TestConnectCMFailures(t *testing.T) {
	_, r := runSource(t, "early.yaml", "stop: {at: 1ms}\ntopology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}\ntraffic:\n  - flow: {from: h0, to: h1, size: 64KiB, connect: cm}\n")
	if f := r.Flows[0]; f.Status != "incomplete" || f.ConnectNs != 0 || r.Summary.Flows.Completed != 0 {
		t.Errorf("a flow still connecting at the stop: %s, connect_ns %d, %d completed", f.Status, f.ConnectNs, r.Summary.Flows.Completed)
	}
	if b := reports.SummaryJSON(r.Summary); len(b) == 0 {
		t.Error("no summary.json")
	}
	_, r = runSource(t, "route.yaml", "stop: {at: 3s, when: flows-done}\ntopology: {kind: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}\n"+
		"switch: {link_layer: infiniband}\nsubnet_manager: {host: h2}\nfaults:\n  - {at: 0, link: [s0, h2], action: down}\n"+
		"traffic:\n  - flow: {from: h0, to: h1, size: 64KiB, connect: cm}\n")
	if f := r.Flows[0]; f.Status != "cm_route_error" || f.EndNs != 2_000_000_000 {
		t.Errorf("a path query unanswered: %s at %d ns; want cm_route_error at 2 s", f.Status, f.EndNs)
	}
	if c := r.Summary.Connections; c == nil || c.Failed != 1 {
		t.Errorf("connections: %+v", c)
	}
}

// TestConnectCMGenerators: every flow generator takes connect: cm. An
// all_to_all of 4 hosts makes 12 connections; each host runs four QP
// commands for each of its 3 outgoing and 3 incoming connections, one at
// a time, so the last is made after about 24 commands. perftest takes it
// as -R; pingpong, which has no rdma_cm mode, refuses it.
func TestConnectCMGenerators(t *testing.T) {
	const star = "stop: {at: 1s, when: flows-done}\ntopology: {kind: star, hosts: 4, link: {rate: 100Gbps, delay: 1us}}\ntraffic:\n"
	_, r := runSource(t, "a2a.yaml", star+"  - all_to_all: {hosts: all, size: 4KiB, connect: cm}\n")
	c := r.Summary.Connections
	min := 24 * cm.DefaultProfile().QPCommand.Nanoseconds()
	if c == nil || c.Established != 12 || c.Failed != 0 || c.TotalNs < min || c.TotalNs > min+sim.Millisecond.Nanoseconds() {
		t.Errorf("connections: %+v; want 12 made within [%d, %d] ns", c, min, min+1_000_000)
	}
	_, p := runSource(t, "poisson.yaml", star+"  - poisson: {hosts: [h0], to: h1, load: 1%, sizes: 1000, until: 100us, connect: cm}\n")
	if c := p.Summary.Connections; c == nil || c.Established == 0 || c.Established != len(p.Flows) {
		t.Errorf("poisson: connections %+v for %d flows", c, len(p.Flows))
	}
	for _, f := range append(r.Flows, p.Flows...) {
		if !f.CM || f.Status != "success" {
			t.Errorf("flow %d: cm %v, %s", f.ID, f.CM, f.Status)
		}
	}
	if _, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 2}\ntraffic:\n  - pingpong: {from: h0, to: h1, connect: cm}\n")); err == nil || !strings.Contains(err.Error(), "has no rdma_cm mode") {
		t.Errorf("pingpong with connect: cm: %v", err)
	}
	// perftest -R: the same bandwidth, after the connections, and the
	// header says how the QPs were connected; a cm flow into the same
	// host listens on another port.
	const pt = "  - perftest: {test: write_bw, from: h0, to: h1, size: 64KiB, iterations: 2000, qps: 4}\n"
	_, plain := runSource(t, "pt.yaml", star+pt)
	n, cm := runSource(t, "ptcm.yaml", star+strings.Replace(pt, "qps: 4}", "qps: 4, connect: cm}", 1)+"  - flow: {from: h2, to: h1, size: 4KiB, connect: cm}\n")
	ptr := n.Tests[0].Perftest
	if ptr.Err != "" || !ptr.Done || ptr.Connected == 0 {
		t.Fatalf("perftest -R: err %q, done %v, connected %v", ptr.Err, ptr.Done, ptr.Connected)
	}
	out := string(cm.Extra["perftest.txt"])
	if !strings.Contains(out, " rdma_cm QPs\t : ON\n Data ex. method : rdma_cm\n") || !strings.Contains(string(plain.Extra["perftest.txt"]), " rdma_cm QPs\t : OFF\n Data ex. method : Ethernet\n") {
		t.Errorf("perftest headers:\n%s", out)
	}
	bw := func(r *reports.Results) string {
		for _, l := range strings.Split(string(r.Extra["perftest.txt"]), "\n") {
			if f := strings.Fields(l); len(f) == 5 && f[0] == "65536" {
				return f[3] // BW average
			}
		}
		return ""
	}
	if a, b := bw(plain), bw(cm); a == "" || a != b {
		t.Errorf("BW average: %q out of band, %q with rdma_cm; want the same", a, b)
	}
	if c := cm.Summary.Connections; c == nil || c.Established != 5 {
		t.Errorf("connections: %+v; want perftest's 4 and the flow's", c)
	}
}

// TestAPM: on InfiniBand with two LIDs per host, a link on a RC flow's
// path goes down and the subnet manager takes 2 s to route around it.
// With hca.apm the requester, its retries spent on the primary path
// (8 local ACK timeouts of 4.096 µs × 2^14), moves to its alternate path
// (the peer's other LID, through the other spine), raises PATH_MIG, and
// the flow completes; without, it fails with retry_exc_err and QP_FATAL.
func TestAPM(t *testing.T) {
	const base = "stop: {at: 3s, when: flows-done}\ntopology: {kind: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 1, link: {rate: 100Gbps, delay: 1us}}\n" +
		"switch: {link_layer: infiniband}\nsubnet_manager: {lmc: 1, sweep_delay: 2s}\n"
	traffic := "traffic:\n  - flow: {from: h0, to: h1, size: 8MiB}\n  - asyncwatch: {hosts: [h0]}\n"
	// Which spine does the flow's primary path take, and its alternate?
	n := buildSource(t, "probe.yaml", base+traffic)
	topo, routes := n.Scenario.Topology, n.Scenario.Routes
	s0, _ := topo.Lookup("s0")
	s1, _ := topo.Lookup("s1")
	h0, _ := topo.Lookup("h0")
	h1, _ := topo.Lookup("h1")
	port := int(fabric.RoCEv2SourcePort(2)) // the flow's requester is h0's first QP
	spine := func(at, dst fabric.NodeID, offset int) fabric.NodeID {
		p, _ := routes.LFTPort(at, dst, offset)
		return topo.Nodes[at].Ports[p].Peer
	}
	primary, alternate := spine(s0, h1, port&1), spine(s0, h1, (port^1)&1)
	if primary == alternate || spine(s1, h0, (port^1)&1) == primary {
		t.Fatalf("the alternate path does not avoid spine %s both ways", topo.Nodes[primary].Name)
	}
	fault := fmt.Sprintf("faults:\n  - {at: 100us, link: [s0, %s], action: down}\n", topo.Nodes[primary].Name)
	_, with := runSource(t, "apm.yaml", base+"hca: {apm: true}\n"+fault+traffic)
	_, without := runSource(t, "noapm.yaml", base+fault+traffic)
	timeouts := 8 * 4096 * sim.Nanosecond << 14
	if f := with.Flows[0]; f.Status != "success" || f.EndNs < timeouts.Nanoseconds() {
		t.Errorf("with APM: %s at %d ns; want success after the primary path's 8 timeouts (%v)", f.Status, f.EndNs, timeouts)
	}
	if f := without.Flows[0]; f.Status != "retry_exc_err" {
		t.Errorf("without APM: %s, want retry_exc_err", f.Status)
	}
	// READ responses follow the requester's path index too, so a READ
	// flow migrates as a whole.
	_, rd := runSource(t, "apmread.yaml", base+"hca: {apm: true}\n"+fault+strings.Replace(traffic, "size: 8MiB}", "size: 8MiB, op: read}", 1))
	if f := rd.Flows[0]; f.Status != "success" {
		t.Errorf("READ with APM: %s", f.Status)
	}
	aw, nw := string(with.Extra["asyncwatch.txt"]), string(without.Extra["asyncwatch.txt"])
	if !strings.Contains(aw, "IBV_EVENT_PATH_MIG") || strings.Contains(aw, "IBV_EVENT_QP_FATAL") {
		t.Errorf("asyncwatch with APM:\n%s", aw)
	}
	if !strings.Contains(nw, "IBV_EVENT_QP_FATAL") || strings.Contains(nw, "IBV_EVENT_PATH_MIG") {
		t.Errorf("asyncwatch without APM:\n%s", nw)
	}
	for _, tc := range []struct{ src, want string }{
		{"topology: {kind: star, hosts: 2}\nhca: {apm: true}\n", "t.yaml:2:12: hca.apm: automatic path migration is InfiniBand's"},
		{"topology: {kind: star, hosts: 2}\nswitch: {link_layer: infiniband}\nhca: {apm: true}\n", "set subnet_manager.lmc to 1 or more"},
	} {
		if _, err := resolve.Parse("t.yaml", []byte(tc.src)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestListenerConflicts: two rdma_cm listeners on one host and port are
// refused where the second is declared: two perftest -R servers, an
// rdma_server on the port connect: cm flows (or a poisson generator's)
// listen on, two rping servers.
func TestListenerConflicts(t *testing.T) {
	for _, tc := range []struct{ items, want string }{
		{"  - perftest: {test: write_bw, from: h0, to: h1, connect: cm}\n  - perftest: {test: write_bw, from: h2, to: h1, connect: cm}\n",
			"t.yaml:4:5: traffic: a perftest -R server would listen on port 18515 of h1, where a perftest -R server already listens (line 3)"},
		{"  - rdma_server: {host: h1, port: 18516}\n  - flow: {from: h0, to: h1, size: 1KiB, connect: cm}\n",
			"connect: cm flows would listen on port 18516 of h1, where an rdma_server already listens"},
		{"  - rdma_server: {host: h1, port: 18516}\n  - poisson: {hosts: [h0], to: h1, load: 1%, sizes: 1000, until: 100us, connect: cm}\n",
			"connect: cm flows would listen on port 18516 of h1"},
		{"  - rping: {client: h0, server: h1, count: 1, connect: cm}\n  - rping: {client: h2, server: h1, count: 1, connect: cm}\n",
			"an rping server would listen on port 7174 of h1"},
	} {
		_, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 3}\ntraffic:\n"+tc.items))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.items, err, tc.want)
		}
	}
	// Flows share their host's listener.
	if _, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 3}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB, connect: cm}\n  - flow: {from: h2, to: h1, size: 1KiB, connect: cm}\n")); err != nil {
		t.Errorf("two cm flows into one host: %v", err)
	}
}

// TestAPMPerHost: a host's own hca.apm is checked as the top-level key
// is.
func TestAPMPerHost(t *testing.T) {
	src := "topology:\n  kind: explicit\n  hosts: [a, {name: b, hca: {apm: true}}]\n  switches: [s1]\n  links: [[a, s1], [b, s1]]\n"
	if _, err := resolve.Parse("t.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), "hca.apm: automatic path migration is InfiniBand's") {
		t.Errorf("a host's hca.apm on Ethernet: %v", err)
	}
}

// TestMckeyInfiniBand: the same mckey on an InfiniBand fat tree. The SM
// gives the group MLID 0xC000 and rdma_cm its MGID ff12:401b:ffff::
// with the address (librdmacm's cma_set_mgid), which each side prints;
// the switches copy each datagram along the group's tree under credit
// flow control, so every receiver gets every message once and the
// sender sends each once; and each datagram has a GRH, as a multicast
// packet on InfiniBand must (IBTA vol. 1, 8.3.1), though the hosts'
// unicast packets have none.
func TestMckeyInfiniBand(t *testing.T) {
	const count, size = 100, 1024
	n, r := runSource(t, "m.yaml", "stop: {at: 4s, when: flows-done}\ntopology: {kind: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}\n"+
		"switch: {link_layer: infiniband}\nobserve: {interval: 1ms}\ntraffic:\n  - mckey: {sender: h0, receivers: [h1, h2, h5, h8, h11, h14, h15], count: 100, size: 1KiB}\n")
	m := n.Tests[0].Mckey
	for i, got := range m.Received {
		if got != count {
			t.Errorf("receiver %d got %d of %d", i, got, count)
		}
	}
	if p := r.Summary.Packets; p.Sent != count || p.Replicated != 6*count || p.Delivered != 7*count || p.Dropped != 0 {
		t.Errorf("packets %+v; want %d sent, %d replicated, %d delivered", p, count, 6*count, 7*count)
	}
	h0, _ := n.Scenario.Topology.Lookup("h0")
	port := n.Fabric.Ports[h0][0]
	dgram := int64(fabric.IBWire(fabric.TransportUD|fabric.OpSendOnlyImm, size, true))
	// Besides the datagrams, h0 sends only credit packets (6 bytes each).
	if got, credits := port.Stats.TxBytes-count*dgram, port.Stats.TxPackets-count; got != 6*credits {
		t.Errorf("h0 sent %d bytes in %d packets: want %d datagrams of %d bytes (with a GRH) and 6 bytes per credit packet", port.Stats.TxBytes, port.Stats.TxPackets, count, dgram)
	}
	out := string(r.Extra["perftest.txt"])
	if want := "mckey: joined dgid: ff12:401b:ffff::ef01:101 mlid 0xc000 sl 0\n"; strings.Count(out, want) != 8 {
		t.Errorf("perftest.txt has %q %d times, want 8 (every side):\n%s", want, strings.Count(out, want), out)
	}
}
