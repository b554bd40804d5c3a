package fabric

import (
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/topo"
)

// TestSTPPortCost: 802.1D-2004 table 17-3's recommended costs.
func TestSTPPortCost(t *testing.T) {
	for _, tc := range []struct {
		rate Rate
		want int64
	}{{10 * Gbps, 2000}, {25 * Gbps, 800}, {100 * Gbps, 200}, {400 * Gbps, 50}, {100 * Tbps, 1}, {1000 * Tbps, 1}} {
		if got := STPPortCost(tc.rate); got != tc.want {
			t.Errorf("cost at %v = %d, want %d", tc.rate, got, tc.want)
		}
	}
}

// stpPath is the one path the spanning tree gives from host a to host b,
// switch names in order.
func stpPath(t *testing.T, tp *Topology, r *Routes, a, b string) string {
	t.Helper()
	src, dst := mustID(t, tp, a), mustID(t, tp, b)
	var got []string
	followAll(t, tp, r, tp.Nodes[src].Ports[0].Peer, dst, func(path []NodeID) {
		got = append(got, strings.Join(names(tp, path), " "))
	})
	if len(got) != 1 {
		t.Fatalf("%s to %s: paths %v, want one", a, b, got)
	}
	return got[0]
}

// TestSpanningTreeTables: the tree that 802.1D's rules elect, on small
// fabrics worked by hand.
func TestSpanningTreeTables(t *testing.T) {
	slow := LinkSpec{Rate: 10 * Gbps, Delay: testLink.Delay}
	for _, tc := range []struct {
		name  string
		build func() *Topology
		paths map[[2]string]string
	}{{
		// A ring s1-s2-s3-s4-s1: the root is s1 (lowest node id); s3 is
		// 400 from it both ways and takes the neighbour with the lower
		// bridge id, s2; the link s3-s4 is blocked.
		name: "ring",
		build: func() *Topology {
			return explicitTopo(t, []string{"a", "b", "c", "d"}, []string{"s1", "s2", "s3", "s4"},
				[][2]string{{"a", "s1"}, {"b", "s2"}, {"c", "s3"}, {"d", "s4"}, {"s1", "s2"}, {"s2", "s3"}, {"s3", "s4"}, {"s4", "s1"}})
		},
		paths: map[[2]string]string{{"c", "d"}: "s3 s2 s1 s4", {"d", "c"}: "s4 s1 s2 s3", {"b", "d"}: "s2 s1 s4", {"a", "c"}: "s1 s2 s3"},
	}, {
		// A triangle whose s1-s2 link is 10 Gb/s (cost 2000): s2 reaches
		// the root s1 through s3 (200 + 200), and the slow link is blocked.
		name: "cost by rate",
		build: func() *Topology {
			tp := explicitTopo(t, []string{"a", "b", "c"}, []string{"s1", "s2", "s3"},
				[][2]string{{"a", "s1"}, {"b", "s2"}, {"c", "s3"}, {"s2", "s3"}, {"s3", "s1"}})
			tp.Connect(mustID(t, tp, "s1"), mustID(t, tp, "s2"), slow)
			return tp
		},
		paths: map[[2]string]string{{"a", "b"}: "s1 s3 s2", {"b", "a"}: "s2 s3 s1"},
	}, {
		// The triangle with equal links: s2 and s3 both hang off the root.
		name:  "triangle",
		build: func() *Topology { return triangle(t) },
		paths: map[[2]string]string{{"b", "c"}: "s2 s1 s3", {"c", "b"}: "s3 s1 s2"},
	}} {
		tp := tc.build()
		r := mustRoutes(t, tp, RoutingSpanningTree, nil)
		for pair, want := range tc.paths {
			if got := stpPath(t, tp, r, pair[0], pair[1]); got != want {
				t.Errorf("%s: %s to %s goes %s, want %s", tc.name, pair[0], pair[1], got, want)
			}
		}
	}
}

// TestSpanningTreeParallelLinks: of two links between s1 and s2, the
// one on the root's lower port is the root port's (the neighbour's port
// number decides); the other is blocked, so one carries everything.
func TestSpanningTreeParallelLinks(t *testing.T) {
	tp := explicitTopo(t, []string{"a", "b"}, []string{"s1", "s2"}, [][2]string{{"a", "s1"}, {"b", "s2"}, {"s1", "s2"}, {"s2", "s1"}})
	r := mustRoutes(t, tp, RoutingSpanningTree, nil)
	s1, s2, a, b := mustID(t, tp, "s1"), mustID(t, tp, "s2"), mustID(t, tp, "a"), mustID(t, tp, "b")
	if got := r.NextPorts(s1, b); !slices.Equal(got, []int32{1}) {
		t.Errorf("s1 to b on ports %v, want [1] (its first link to s2)", got)
	}
	if got := r.NextPorts(s2, a); !slices.Equal(got, []int32{1}) {
		t.Errorf("s2 to a on ports %v, want [1] (the link on s1's port 1)", got)
	}
}

// TestSpanningTreeIsATree: on a k=8 fat tree every switch-to-switch hop
// the tables use is one of switches-1 links, the channel dependencies
// have no cycle, and every pair of hosts has exactly one path.
func TestSpanningTreeIsATree(t *testing.T) {
	tp, err := FatTree(8, testLink)
	if err != nil {
		t.Fatal(err)
	}
	r := mustRoutes(t, tp, RoutingSpanningTree, nil)
	used := map[[2]NodeID]bool{}
	for _, d := range tp.Hosts() {
		for _, x := range switchesOf(tp) {
			ports := r.NextPorts(x, d)
			if len(ports) != 1 {
				t.Fatalf("%s to %s: ports %v, want one", tp.Nodes[x].Name, tp.Nodes[d].Name, ports)
			}
			if y := tp.Nodes[x].Ports[ports[0]].Peer; tp.Nodes[y].Kind == Switch {
				used[[2]NodeID{min(x, y), max(x, y)}] = true
			}
		}
	}
	if n := len(switchesOf(tp)); len(used) != n-1 {
		t.Errorf("%d switch links used, want %d (a spanning tree of %d switches)", len(used), n-1, n)
	}
	if cycles := topo.DirectedCyclesIn(channelDeps(tp, r)); len(cycles) != 0 {
		t.Errorf("%d cycles of channel dependencies on a tree", len(cycles))
	}
}

// TestSpanningTreePartition: a fabric cut in two is two layer-2 domains:
// an error that names them, or, once a link has failed
// (ComputeRoutesDegraded), no entry across the cut and a tree in each
// part, each with its own root.
func TestSpanningTreePartition(t *testing.T) {
	tp := explicitTopo(t, []string{"a", "b", "c", "d"}, []string{"s1", "s2", "s3", "s4"},
		[][2]string{{"a", "s1"}, {"b", "s2"}, {"c", "s3"}, {"d", "s4"}, {"s1", "s2"}, {"s3", "s4"}})
	if _, _, err := ComputeRoutes(tp, RoutingSpanningTree, nil); err == nil || !strings.Contains(err.Error(), "separate layer-2 domains") {
		t.Errorf("a split fabric gives %v", err)
	}
	ring := explicitTopo(t, []string{"a", "b", "c", "d"}, []string{"s1", "s2", "s3", "s4"},
		[][2]string{{"a", "s1"}, {"b", "s2"}, {"c", "s3"}, {"d", "s4"}, {"s1", "s2"}, {"s2", "s3"}, {"s3", "s4"}, {"s4", "s1"}})
	// Cut s1-s2 and s3-s4 (links 4 and 6): {s1, s4} and {s2, s3}.
	cut := ring.Without([]int{4, 6})
	r, _, err := ComputeRoutesDegraded(cut, RoutingSpanningTree, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.NextPorts(mustID(t, cut, "s1"), mustID(t, cut, "c")); len(got) != 0 {
		t.Errorf("s1 still sends to c on %v", got)
	}
	if got := stpPath(t, cut, r, "b", "c"); got != "s2 s3" {
		t.Errorf("b to c goes %s, want s2 s3", got)
	}
	if got := stpPath(t, cut, r, "d", "a"); got != "s4 s1" {
		t.Errorf("d to a goes %s, want s4 s1", got)
	}
}
