package assembly

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// TestRoCEv1Goodput: one long WRITE at 100 Gb/s delivers payload at
// rate × payload / (payload + Ethernet 14 + 802.1Q tag 4 + GRH 40 + BTH
// 12 + ICRC 4 + FCS 4 + preamble and gap 20), within 0.5%, for MTUs 1024
// and 4096; RoCEv2 (IPv4 20 + UDP 8 in place of tag and GRH) is checked
// the same way beside it.
func TestRoCEv1Goodput(t *testing.T) {
	for _, tc := range []struct {
		transport string
		mtu       int
		overhead  int
	}{
		{"rocev1", 4096, 14 + 4 + 40 + 12 + 4 + 4 + 20},
		{"rocev1", 1024, 14 + 4 + 40 + 12 + 4 + 4 + 20},
		{"rocev2", 4096, 14 + 20 + 8 + 12 + 4 + 4 + 20},
	} {
		sc := mustParse(t, fmt.Sprintf(`
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {transport: %s, mtu: %d}
traffic:
  - flow: {from: h0, to: h1, size: 1GiB}
`, tc.transport, tc.mtu))
		n, err := Build(sc)
		if err != nil {
			t.Fatal(err)
		}
		t1, t2 := 100*sim.Microsecond, 2*sim.Millisecond
		n.Eng.Run(t1, nil)
		d1 := n.Flows[0].Live.Responder.Delivered
		n.Eng.Run(t2, nil)
		got := float64(n.Flows[0].Live.Responder.Delivered-d1) * 8 / (t2 - t1).Seconds()
		want := 100e9 * float64(tc.mtu) / float64(tc.mtu+tc.overhead)
		if math.Abs(got-want)/want > 0.005 {
			t.Errorf("%s, MTU %d: goodput %.3f Gb/s, want %.3f ± 0.5%%", tc.transport, tc.mtu, got/1e9, want/1e9)
		}
		t.Logf("%s, MTU %d: goodput %.3f Gb/s, closed form %.3f (%+.3f%%)", tc.transport, tc.mtu, got/1e9, want/1e9, 100*(got-want)/want)
	}
}

// TestRoCEv1OneSpine: a permutation on a leaf-spine with 4 spines. Under
// RoCEv1 the switches bridge along one spanning tree, so every byte that
// leaves a leaf goes up one spine (the root bridge's tree: the other
// three carry nothing); under RoCEv2, ECMP spreads the same flows over
// all four.
func TestRoCEv1OneSpine(t *testing.T) {
	for _, transport := range []string{"rocev1", "rocev2"} {
		_, r := runSource(t, "ls.yaml", `
topology: {kind: leaf-spine, leaves: 4, spines: 4, hosts_per_leaf: 4, link: {rate: 100Gbps, delay: 1us}}
hca: {transport: `+transport+`}
traffic:
  - permutation: {size: 1MiB}
`)
		perSpine := map[string]int64{}
		for _, u := range r.Uplinks {
			perSpine[strings.Split(u.Peer, ":")[0]] += u.Bytes
		}
		used := 0
		for _, b := range perSpine {
			if b > 0 {
				used++
			}
		}
		if want := map[string]int{"rocev1": 1, "rocev2": 4}[transport]; used != want || len(perSpine) != 4 {
			t.Errorf("%s: bytes per spine %v: %d of %d spines used, want %d", transport, perSpine, used, len(perSpine), want)
		}
		if r.Summary.Flows.Completed != 16 {
			t.Errorf("%s: %d of 16 flows completed", transport, r.Summary.Flows.Completed)
		}
	}
}

// TestRoCEv1Refuses: what a RoCEv1 fabric cannot do is an error that
// says why, at the key that asks for it.
func TestRoCEv1Refuses(t *testing.T) {
	const base = "topology: {kind: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 2%s}\n%shca: {transport: rocev1%s}\ntraffic:\n  - flow: {from: h0, to: h3, size: 1MiB}\n"
	for _, tc := range []struct{ topo, sw, hca, want string }{
		{"", "switch: {ecn: {kmin: 10KB}}\n", "", "t.yaml:2:10: switch.ecn: ECN is marked in the IP header, and a RoCEv1 frame has none"},
		{"", "", ", cc: dcqcn", "t.yaml:2:30: hca.cc: dcqcn reacts to ECN marks"},
		{"", "", ", cc: dctcp", "t.yaml:2:30: hca.cc: dctcp reacts to ECN marks"},
		{"", "", ", cc: hpcc", "t.yaml:2:30: hca.cc: hpcc reads the telemetry"},
		{"", "switch: {load_balance: spray}\n", "", "t.yaml:2:24: switch.load_balance: a RoCEv1 fabric forwards by MAC along one spanning tree"},
		{", routing: ecmp", "", "", "t.yaml:1:80: topology.routing: RoCEv1 frames are bridged, not routed"},
		{"", "switch: {link_layer: infiniband}\n", "", "t.yaml:3:18: hca.transport: rocev1 frames RDMA for Ethernet"},
	} {
		_, err := resolve.Parse("t.yaml", []byte(fmt.Sprintf(base, tc.topo, tc.sw, tc.hca)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s%s%s: got %v, want %q", tc.topo, tc.sw, tc.hca, err, tc.want)
		}
	}
	// Per host and per switch alike.
	for _, tc := range []struct{ src, want string }{
		{"topology:\n  kind: explicit\n  hosts: [a, {name: b, hca: {transport: rocev2}}]\n  switches: [s1]\n  links: [[a, s1], [b, s1]]\nhca: {transport: rocev1}\n",
			"t.yaml:3:41: topology.hosts[1].hca.transport: every NIC of a fabric frames RDMA the same way"},
		{"topology:\n  kind: explicit\n  hosts: [a, b]\n  switches: [{name: s1, switch: {ecn: {kmin: 5KB}}}]\n  links: [[a, s1], [b, s1]]\nhca: {transport: rocev1}\n",
			"t.yaml:4:34: topology.switches[0].switch.ecn: ECN is marked in the IP header"},
	} {
		_, err := resolve.Parse("t.yaml", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
	// What it may ask for: TIMELY and PFC.
	sc := mustParse(t, "topology: {kind: star, hosts: 2}\nhca: {transport: rocev1, cc: timely}\nswitch: {pfc: {priorities: [3]}}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1MiB}\n")
	if sc.Routing != fabric.RoutingSpanningTree || sc.HCA.Transport != fabric.RoCEv1 {
		t.Errorf("routing %q, transport %v", sc.Routing, sc.HCA.Transport)
	}
}

// TestRoCEv1TreeReconverges: on a leaf-spine with 2 spines, cutting the
// tree's link between leaf s1 and spine s2 mid-flow leaves a tree over
// the other spine: the flows complete, spine s3 carries bytes only after
// the cut, and the change makes no loop, so PFC never deadlocks (with
// hop-by-hop installs s0 and s2 bounced h2's packets between them for a
// convergence interval, and their pauses closed a cycle).
func TestRoCEv1TreeReconverges(t *testing.T) {
	src := `
stop: {when: flows-done, at: 50ms}
topology: {kind: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {transport: rocev1, ack_timeout: 8}
traffic:
  - flow: {from: h0, to: h2, size: 8MiB}
  - flow: {from: h3, to: h1, size: 8MiB}
%s`
	_, before := runSource(t, "a.yaml", fmt.Sprintf(src, ""))
	_, after := runSource(t, "b.yaml", fmt.Sprintf(src, "faults:\n  - {at: 200us, link: [s1, s2], action: down}\n"))
	spineBytes := func(r *reports.Results) map[string]int64 {
		m := map[string]int64{}
		for _, u := range r.Uplinks {
			m[strings.Split(u.Peer, ":")[0]] += u.Bytes
		}
		return m
	}
	b, a := spineBytes(before), spineBytes(after)
	if b["s2"] == 0 || b["s3"] != 0 {
		t.Errorf("without the cut: bytes per spine %v, want all on s2", b)
	}
	if a["s3"] == 0 {
		t.Errorf("after the cut: bytes per spine %v, want s3 carrying the rest", a)
	}
	if s := after.Summary; s.Flows.Completed != 2 || s.Deadlock.Detected {
		t.Errorf("after the cut: %d of 2 flows completed; deadlock %+v", s.Flows.Completed, s.Deadlock)
	}
}
