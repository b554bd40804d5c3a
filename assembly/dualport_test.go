package assembly

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/resolve"
)

// dualPort is h0 with a dual-port HCA, one port under each of two leaves
// (s0, s1), and h1 under a third (s2) that both reach; 8 MiB from h0 to
// h1, and h0's first port cut at 100 µs.
const dualPort = `stop: {at: 1s, when: flows-done}
switch: {link_layer: infiniband}
topology:
  kind: explicit
  hosts: [h0, h1]
  switches: [s0, s1, s2]
  links: [[h0, s0], [h0, s1], [h1, s2], [s0, s2], [s1, s2]]
  link: {rate: 100Gbps, delay: 1us}
faults:
  - {at: 100us, link: [h0, s0], action: down}
traffic:
  - flow: {from: h0, to: h1, size: 8MiB}
  - asyncwatch: {hosts: [h0, h1]}
`

// TestDualPortAPM: a host's own link goes down under a dual-port HCA.
// With hca.apm its QP migrates to the second port at once: asyncwatch on
// h0 prints PORT_ERR (port 1) and then PATH_MIG for the QP, both at
// 100 µs; h1's QP follows when the first request comes from h0's second
// port (PATH_MIG there too), and the flow completes on the alternate
// path, a few microseconds past the 8 MiB's 0.68 ms at line rate (what
// the cut lost is resent at once). Without APM the QP's retries run out
// (8 local ACK timeouts of 4.096 µs × 2^14: 537 ms) and it fails with
// retry_exc_err, and asyncwatch prints QP_FATAL.
func TestDualPortAPM(t *testing.T) {
	_, with := runSource(t, "apm.yaml", strings.Replace(dualPort, "faults:", "hca: {apm: true}\nfaults:", 1))
	f := with.Flows[0]
	if f.Status != "success" || f.EndNs > 800_000 {
		t.Errorf("with APM: %s at %d ns; want success within 0.8 ms", f.Status, f.EndNs)
	}
	aw := string(with.Extra["asyncwatch.txt"])
	i, j := strings.Index(aw, "IBV_EVENT_PORT_ERR (10), port 1   at 100us"), strings.Index(aw, "IBV_EVENT_PATH_MIG (6), qp 0x000002   at 100us")
	if i < 0 || j < i || strings.Contains(aw, "QP_FATAL") {
		t.Errorf("asyncwatch with APM: want PORT_ERR then PATH_MIG at 100us on h0, and no QP_FATAL:\n%s", aw)
	}
	if h1 := aw[strings.Index(aw, "# asyncwatch on h1"):]; !strings.Contains(h1, "IBV_EVENT_PATH_MIG") {
		t.Errorf("h1's QP did not follow to h0's second port:\n%s", aw)
	}
	_, without := runSource(t, "noapm.yaml", dualPort)
	if f := without.Flows[0]; f.Status != "retry_exc_err" {
		t.Errorf("without APM: %s, want retry_exc_err", f.Status)
	}
	if nw := string(without.Extra["asyncwatch.txt"]); !strings.Contains(nw, "IBV_EVENT_PORT_ERR (10), port 1") || !strings.Contains(nw, "IBV_EVENT_QP_FATAL") || strings.Contains(nw, "PATH_MIG") {
		t.Errorf("asyncwatch without APM:\n%s", nw)
	}
}

// TestDualPortRoutes: the second port is an endpoint of its own, with its
// own LID, routed to by its own link: the LFT dump has a line for h0/2,
// and every switch forwards h0/2's LID toward s1, h0's LID toward s0.
func TestDualPortRoutes(t *testing.T) {
	n := buildSource(t, "d.yaml", dualPort)
	topo, r := n.Scenario.Topology, n.Scenario.Routes
	h0, _ := topo.Lookup("h0")
	p2, ok := topo.SecondPort(h0)
	if !ok || topo.Nodes[p2].Name != "h0/2" || topo.Owner(p2) != h0 || len(topo.Hosts()) != 2 || len(topo.Endpoints()) != 3 {
		t.Fatalf("second port %v %q; hosts %d, endpoints %d", ok, topo.Nodes[p2].Name, len(topo.Hosts()), len(topo.Endpoints()))
	}
	s0, _ := topo.Lookup("s0")
	s1, _ := topo.Lookup("s1")
	s2, _ := topo.Lookup("s2")
	hop := func(at, dst fabric.NodeID) fabric.NodeID {
		p, ok := r.LFTPort(at, dst, 0)
		if !ok {
			t.Fatalf("no route at %s for %s", topo.Nodes[at].Name, topo.Nodes[dst].Name)
		}
		return topo.Nodes[at].Ports[p].Peer
	}
	if hop(s2, h0) != s0 || hop(s2, p2) != s1 || hop(s1, p2) != p2 || hop(s0, h0) != h0 {
		t.Errorf("routes: s2 sends h0 to %s and h0/2 to %s; s1 sends h0/2 to %s", topo.Nodes[hop(s2, h0)].Name, topo.Nodes[hop(s2, p2)].Name, topo.Nodes[hop(s1, p2)].Name)
	}
	if tj := reportTopology(topo, nil, nil); tj.Nodes[p2].PortOf != "h0" || tj.Nodes[h0].PortOf != "" {
		t.Errorf("topology.json: h0/2 port_of %q, h0 port_of %q", tj.Nodes[p2].PortOf, tj.Nodes[h0].PortOf)
	}
	dump := string(fabric.LFTDump(topo, r, fabric.AssignLIDsLMC(topo, 0)))
	if !strings.Contains(dump, "'h0/2'") {
		t.Errorf("the LFT dump has no line for h0/2:\n%s", dump)
	}
	for _, tc := range []struct{ src, want string }{
		{strings.Replace(dualPort, "[s1, s2]]", "[s1, s2], [h0, s2]]", 1), "topology.links[5]: a third link for host h0; an HCA has at most two ports"},
		{strings.Replace(dualPort, "from: h0, to: h1", "from: h0/2, to: h1", 1), "traffic[0].flow.from: h0/2 is h0's second port, not a host; name h0"},
		{dualPort + "  - rping: {client: h0/2, server: h1, count: 1, size: 64}\n", "traffic[2].rping.client: h0/2 is h0's second port, not a host"},
		{strings.Replace(dualPort, "switch: {link_layer: infiniband}\n", "", 1), "a host has one port, p0 (a second port, for APM's alternate path, is InfiniBand's"},
	} {
		if _, err := resolve.Parse("t.yaml", []byte(tc.src)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
	// APM needs no second LID where hosts have a second port.
	if _, err := resolve.Parse("t.yaml", []byte(strings.Replace(dualPort, "faults:", "hca: {apm: true}\nfaults:", 1))); err != nil {
		t.Errorf("APM with a dual-port host and LMC 0: %v", err)
	}
}

// TestDualPortReviewCases: three cases a review found.
//   - A responder moves once: a READ request sent on h0's first port
//     before the cut, slowed by a 30 µs link, reaches h1 after the
//     resent ones from h0's second port, and must not pull h1's QP back
//     to the dead port (it did: the flow then waited a 67 ms ACK
//     timeout; now it ends within a millisecond).
//   - With LMC 0, only a pair with a dual-port end has an alternate
//     path: h1 -> h2, both single-port, fails at its 8th timeout
//     (537 ms) with retry_exc_err, with no PATH_MIG and no second round
//     of retries, though h0 has two ports.
//   - post_list counts the work requests max_msg_sz cuts a flow into.
func TestDualPortReviewCases(t *testing.T) {
	flip := strings.Replace(strings.Replace(dualPort, "[s0, s2], [s1, s2]]", "{a: s0, b: s2, delay: 30us}, [s1, s2]]", 1),
		"size: 8MiB}", "size: 2MiB, op: read, messages: 128}", 1)
	_, r := runSource(t, "flip.yaml", strings.Replace(flip, "faults:", "hca: {apm: true}\nfaults:", 1))
	if f := r.Flows[0]; f.Status != "success" || f.EndNs > 1_000_000 {
		t.Errorf("READ across the cut: %s at %d ns, want success within 1 ms", f.Status, f.EndNs)
	}
	const fake = `stop: {at: 3s, when: flows-done}
switch: {link_layer: infiniband}
topology:
  kind: explicit
  hosts: [h0, h1, h2]
  switches: [s0, s1, s2]
  links: [[h0, s0], [h0, s1], [h1, s2], [h2, s0], [s0, s2], [s1, s2]]
  link: {rate: 100Gbps, delay: 1us}
hca: {apm: true}
faults: [{at: 100us, link: [h2, s0], action: down}]
traffic:
  - flow: {from: h1, to: h2, size: 8MiB}
  - asyncwatch: {hosts: [h1]}
`
	_, r = runSource(t, "fake.yaml", fake)
	if f := r.Flows[0]; f.Status != "retry_exc_err" || f.EndNs > 600_000_000 || strings.Contains(string(r.Extra["asyncwatch.txt"]), "PATH_MIG") {
		t.Errorf("h1 -> h2 with no alternate path: %s at %d ns; asyncwatch:\n%s", f.Status, f.EndNs, r.Extra["asyncwatch.txt"])
	}
	if _, err := resolve.Parse("pl.yaml", []byte("topology: {kind: star, hosts: 2}\ntraffic:\n  - flow: {from: h0, to: h1, size: 3GiB, post_list: 3}\n")); err != nil {
		t.Errorf("post_list over the parts max_msg_sz makes: %v", err)
	}
}
