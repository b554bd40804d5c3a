package fabric

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

func mustID(t testing.TB, tp *Topology, name string) NodeID {
	t.Helper()
	id, ok := tp.Lookup(name)
	if !ok {
		t.Fatalf("no node %q", name)
	}
	return id
}

// explicitTopo builds a topology from host and switch names and links,
// ports numbered in link order as in an explicit scenario.
func explicitTopo(t testing.TB, hosts, switches []string, links [][2]string) *Topology {
	t.Helper()
	tp := NewTopology()
	for _, h := range hosts {
		if _, err := tp.AddNode(h, Host); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range switches {
		if _, err := tp.AddNode(s, Switch); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range links {
		tp.Connect(mustID(t, tp, l[0]), mustID(t, tp, l[1]), testLink)
	}
	return tp
}

// triangle is SCENARIO.md's explicit example: hosts a, b, c on switches
// s1, s2, s3, which form a triangle. Ports: s1 p0 a, p1 s2, p2 s3; s2 p0 b,
// p1 s1, p2 s3; s3 p0 c, p1 s2, p2 s1.
func triangle(t testing.TB) *Topology {
	return explicitTopo(t, []string{"a", "b", "c"}, []string{"s1", "s2", "s3"},
		[][2]string{{"a", "s1"}, {"b", "s2"}, {"c", "s3"}, {"s1", "s2"}, {"s2", "s3"}, {"s3", "s1"}})
}

func routesByName(t testing.TB, tp *Topology, rs ...[3]string) []ExplicitRoute {
	var out []ExplicitRoute
	for _, r := range rs {
		out = append(out, ExplicitRoute{At: mustID(t, tp, r[0]), Dst: mustID(t, tp, r[1]), Via: mustID(t, tp, r[2])})
	}
	return out
}

func mustRoutes(t testing.TB, tp *Topology, algo RoutingAlgo, explicit []ExplicitRoute) *Routes {
	t.Helper()
	r, loops, err := ComputeRoutes(tp, algo, explicit)
	if err != nil {
		t.Fatalf("ComputeRoutes(%s): %v", algo, err)
	}
	if len(explicit) == 0 && len(loops) > 0 {
		t.Fatalf("ComputeRoutes(%s) without explicit routes: loops %v", algo, loops)
	}
	return r
}

func switchesOf(tp *Topology) []NodeID {
	var out []NodeID
	for id, n := range tp.Nodes {
		if n.Kind == Switch {
			out = append(out, NodeID(id))
		}
	}
	return out
}

// followAll calls fn with every path of switches that traffic for host d
// entering at switch x can take, trying every next hop; it fails the test
// on a dead end, a delivery to another host, or a path longer than the
// number of switches (a loop).
func followAll(t *testing.T, tp *Topology, r *Routes, x, d NodeID, fn func(path []NodeID)) {
	t.Helper()
	limit := len(switchesOf(tp))
	var walk func(path []NodeID)
	walk = func(path []NodeID) {
		at := path[len(path)-1]
		ports := r.NextPorts(at, d)
		if len(ports) == 0 {
			t.Fatalf("%s has no route to %s (path %v)", tp.Nodes[at].Name, tp.Nodes[d].Name, names(tp, path))
		}
		for _, p := range ports {
			y := tp.Nodes[at].Ports[p].Peer
			switch {
			case y == d:
				fn(path)
			case tp.Nodes[y].Kind == Host:
				t.Fatalf("traffic for %s delivered to %s (path %v)", tp.Nodes[d].Name, tp.Nodes[y].Name, names(tp, path))
			case len(path) >= limit:
				t.Fatalf("traffic for %s loops: %v", tp.Nodes[d].Name, names(tp, append(path, y)))
			default:
				walk(append(path[:len(path):len(path)], y))
			}
		}
	}
	walk([]NodeID{x})
}

func names(tp *Topology, ids []NodeID) []string {
	var out []string
	for _, id := range ids {
		out = append(out, tp.Nodes[id].Name)
	}
	return out
}

// hopDistances returns the hop distance from every switch to every node
// through switches, by a plain breadth-first search (independent of the
// code under test).
func hopDistances(tp *Topology, from NodeID) []int {
	dist := make([]int, len(tp.Nodes))
	for i := range dist {
		dist[i] = -1
	}
	dist[from] = 0
	queue := []NodeID{from}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if tp.Nodes[x].Kind == Host {
			continue
		}
		for _, ref := range tp.Nodes[x].Ports {
			if dist[ref.Peer] < 0 {
				dist[ref.Peer] = dist[x] + 1
				queue = append(queue, ref.Peer)
			}
		}
	}
	return dist
}

func TestECMPFatTree4(t *testing.T) {
	tp, err := FatTree(4, testLink)
	if err != nil {
		t.Fatal(err)
	}
	ecmp := mustRoutes(t, tp, RoutingECMP, nil)
	shortest := mustRoutes(t, tp, RoutingShortest, nil)
	for _, tc := range []struct {
		at, dst string
		want    []int32
	}{
		{"s0", "h0", []int32{0}},
		{"s0", "h1", []int32{1}},
		{"s0", "h2", []int32{2, 3}},  // same pod, other edge: both aggregation switches
		{"s0", "h4", []int32{2, 3}},  // other pod
		{"s0", "h15", []int32{2, 3}}, // other pod
		{"s8", "h0", []int32{0}},     // aggregation down to edge s0
		{"s8", "h2", []int32{1}},     // aggregation down to edge s1
		{"s8", "h4", []int32{2, 3}},  // aggregation up to cores s16, s17
		{"s9", "h15", []int32{2, 3}}, // cores s18, s19
		{"s16", "h0", []int32{0}},    // core down to pod 0
		{"s16", "h5", []int32{1}},    // core down to pod 1
		{"s19", "h15", []int32{3}},   // core down to pod 3
	} {
		at, dst := mustID(t, tp, tc.at), mustID(t, tp, tc.dst)
		if got := ecmp.NextPorts(at, dst); !slices.Equal(got, tc.want) {
			t.Errorf("ecmp %s -> %s: %v, want %v", tc.at, tc.dst, got, tc.want)
		}
		if got := shortest.NextPorts(at, dst); !slices.Equal(got, tc.want[:1]) {
			t.Errorf("shortest %s -> %s: %v, want %v", tc.at, tc.dst, got, tc.want[:1])
		}
	}
	// Every tier, every destination.
	for _, d := range tp.Hosts() {
		dpod := int(d-tp.Hosts()[0]) / 4
		for _, x := range switchesOf(tp) {
			n := mustIndex(tp.Nodes[x].Name)
			got := len(ecmp.NextPorts(x, d))
			var want int
			switch {
			case n < 8: // edge
				want = 2
				if tp.Nodes[d].Ports[0].Peer == x {
					want = 1
				}
			case n < 16: // aggregation
				want = 2
				if (n-8)/2 == dpod {
					want = 1
				}
			default: // core
				want = 1
			}
			if got != want {
				t.Errorf("%s -> %s: %d next hops, want %d", tp.Nodes[x].Name, tp.Nodes[d].Name, got, want)
			}
		}
	}
}

func mustIndex(name string) int {
	n := 0
	for _, c := range name[1:] {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestRoutesReachAndAreShortest follows every ECMP choice from every switch
// to every host and checks that each path arrives, is a shortest path, and
// that shortest keeps one of them, the lowest port.
func TestRoutesReachAndAreShortest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func() (*Topology, error)
	}{
		{"star", func() (*Topology, error) { return Star(5, testLink) }},
		{"dumbbell", func() (*Topology, error) { return Dumbbell(3, 2, testLink, testLink) }},
		{"leaf-spine", func() (*Topology, error) { return LeafSpine(4, 3, 2, testLink, testLink) }},
		{"fat-tree k=4", func() (*Topology, error) { return FatTree(4, testLink) }},
		{"fat-tree k=8", func() (*Topology, error) { return FatTree(8, testLink) }},
		{"ring 5", func() (*Topology, error) { return Ring(5, 2, testLink) }},
		{"ring 6", func() (*Topology, error) { return Ring(6, 1, testLink) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			ecmp := mustRoutes(t, tp, RoutingECMP, nil)
			shortest := mustRoutes(t, tp, RoutingShortest, nil)
			for _, x := range switchesOf(tp) {
				dist := hopDistances(tp, x)
				for _, d := range tp.Hosts() {
					all := ecmp.NextPorts(x, d)
					if len(all) == 0 {
						t.Fatalf("%s has no next hop to %s", tp.Nodes[x].Name, tp.Nodes[d].Name)
					}
					if !slices.IsSorted(all) {
						t.Errorf("%s -> %s: ports %v not sorted", tp.Nodes[x].Name, tp.Nodes[d].Name, all)
					}
					if one := shortest.NextPorts(x, d); len(one) != 1 || one[0] != all[0] {
						t.Errorf("%s -> %s: shortest %v, want [%d]", tp.Nodes[x].Name, tp.Nodes[d].Name, one, all[0])
					}
					followAll(t, tp, ecmp, x, d, func(path []NodeID) {
						if len(path) != dist[d] {
							t.Errorf("%s -> %s: path %v is not shortest (%d hops)", tp.Nodes[x].Name, tp.Nodes[d].Name, names(tp, path), dist[d])
						}
					})
				}
			}
			for _, d := range tp.Hosts() {
				if loops := ecmp.loopsFor(tp, d); len(loops) > 0 {
					t.Errorf("ecmp loops: %v", loops)
				}
			}
		})
	}
}

func TestParallelLinks(t *testing.T) {
	tp := explicitTopo(t, []string{"h0", "h1"}, []string{"s0", "s1"},
		[][2]string{{"h0", "s0"}, {"s0", "s1"}, {"h1", "s1"}, {"s1", "s0"}, {"s0", "s1"}})
	// s0: p0 h0, p1 s1, p2 s1, p3 s1; s1: p0 s0, p1 h1, p2 s0, p3 s0.
	s0, s1, h0, h1 := mustID(t, tp, "s0"), mustID(t, tp, "s1"), mustID(t, tp, "h0"), mustID(t, tp, "h1")
	for _, algo := range []RoutingAlgo{RoutingECMP, RoutingUpDown, RoutingShortest} {
		r := mustRoutes(t, tp, algo, nil)
		want0, want1 := []int32{1, 2, 3}, []int32{0, 2, 3}
		if algo == RoutingShortest {
			want0, want1 = want0[:1], want1[:1]
		}
		if got := r.NextPorts(s0, h1); !slices.Equal(got, want0) {
			t.Errorf("%s: s0 -> h1: %v, want %v", algo, got, want0)
		}
		if got := r.NextPorts(s1, h0); !slices.Equal(got, want1) {
			t.Errorf("%s: s1 -> h0: %v, want %v", algo, got, want1)
		}
	}
}

// upDownOracle returns whether the hop x->y goes up, for levels counted by
// breadth-first search from the given roots.
func upDownOracle(tp *Topology, roots []string) func(x, y NodeID) bool {
	level := make([]int, len(tp.Nodes))
	for i := range level {
		level[i] = 1 << 30
	}
	for _, root := range roots {
		id, _ := tp.Lookup(root)
		for n, d := range hopDistances(tp, id) {
			if d >= 0 && tp.Nodes[n].Kind == Switch {
				level[n] = min(level[n], d)
			}
		}
	}
	return func(x, y NodeID) bool {
		return level[y] < level[x] || level[y] == level[x] && y < x
	}
}

func TestUpDownLegal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func() *Topology
		roots []string
		// sameAsECMP: every shortest path is legal, so the tables equal ECMP's.
		sameAsECMP bool
	}{
		{"fat-tree k=4", func() *Topology { tp, _ := FatTree(4, testLink); return tp }, []string{"s16", "s17", "s18", "s19"}, true},
		{"fat-tree k=8", func() *Topology { tp, _ := FatTree(8, testLink); return tp }, []string{"s64", "s65", "s66", "s67", "s68", "s69", "s70", "s71", "s72", "s73", "s74", "s75", "s76", "s77", "s78", "s79"}, true},
		{"leaf-spine", func() *Topology { tp, _ := LeafSpine(4, 2, 2, testLink, testLink); return tp }, []string{"s4", "s5"}, true},
		{"ring 4", func() *Topology { tp, _ := Ring(4, 1, testLink); return tp }, []string{"s0", "s1", "s2", "s3"}, false},
		{"ring 7", func() *Topology { tp, _ := Ring(7, 2, testLink); return tp }, []string{"s0", "s1", "s2", "s3", "s4", "s5", "s6"}, false},
		{"triangle", func() *Topology { return triangle(t) }, []string{"s1", "s2", "s3"}, true},
		{
			// A host-less switch in the middle of a chain is the only root.
			"chain with a spine", func() *Topology {
				return explicitTopo(t, []string{"h0", "h1", "h2"}, []string{"s0", "s1", "s2", "s3"},
					[][2]string{{"h0", "s0"}, {"h1", "s1"}, {"h2", "s2"}, {"s0", "s1"}, {"s1", "s3"}, {"s3", "s2"}})
			}, []string{"s3"}, true,
		},
		{
			// Every switch has a host, so all are roots, but oriented by
			// NodeID alone s0 -> s2 -> s1 is down then up: no legal path,
			// so the levels count from s0 alone.
			"chain fallback", func() *Topology {
				return explicitTopo(t, []string{"h0", "h1", "h2"}, []string{"s0", "s1", "s2"},
					[][2]string{{"h0", "s0"}, {"h1", "s1"}, {"h2", "s2"}, {"s0", "s2"}, {"s2", "s1"}})
			}, []string{"s0"}, true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := tc.build()
			r := mustRoutes(t, tp, RoutingUpDown, nil)
			up := upDownOracle(tp, tc.roots)
			paths := 0
			for _, x := range switchesOf(tp) {
				for _, d := range tp.Hosts() {
					followAll(t, tp, r, x, d, func(path []NodeID) {
						paths++
						down := false
						for i := 1; i < len(path); i++ {
							if !up(path[i-1], path[i]) {
								down = true
							} else if down {
								t.Fatalf("path %v to %s goes up after going down", names(tp, path), tp.Nodes[d].Name)
							}
						}
					})
				}
			}
			if paths == 0 {
				t.Fatal("no paths followed")
			}
			for _, d := range tp.Hosts() {
				if loops := r.loopsFor(tp, d); len(loops) > 0 {
					t.Errorf("updown loops: %v", loops)
				}
			}
			if tc.sameAsECMP {
				ecmp := mustRoutes(t, tp, RoutingECMP, nil)
				for _, x := range switchesOf(tp) {
					for _, d := range tp.Hosts() {
						if a, b := r.NextPorts(x, d), ecmp.NextPorts(x, d); !slices.Equal(a, b) {
							t.Errorf("%s -> %s: updown %v, ecmp %v", tp.Nodes[x].Name, tp.Nodes[d].Name, a, b)
						}
					}
				}
			}
		})
	}
}

// TestUpDownRing4Tables pins the tables of the 4-ring, where all switches
// are roots and links go up toward lower NodeIDs.
func TestUpDownRing4Tables(t *testing.T) {
	tp, _ := Ring(4, 1, testLink) // sI: p0 hI, p1 s(I+1), p2 s(I-1)
	r := mustRoutes(t, tp, RoutingUpDown, nil)
	for _, tc := range []struct {
		at, dst string
		want    []int32
	}{
		{"s0", "h2", []int32{1}},    // down s1, down s2 (s3 has no all-down path)
		{"s3", "h1", []int32{1, 2}}, // up s0 then down s1, or up s2 then up s1
		{"s3", "h2", []int32{2}},    // s3 -> s2 is up
		{"s2", "h0", []int32{2}},    // up s1, up s0
		{"s1", "h3", []int32{1}},    // down s2, down s3: an all-down path exists, so not up s0
		{"s0", "h3", []int32{2}},    // down s3
	} {
		if got := r.NextPorts(mustID(t, tp, tc.at), mustID(t, tp, tc.dst)); !slices.Equal(got, tc.want) {
			t.Errorf("%s -> %s: %v, want %v", tc.at, tc.dst, got, tc.want)
		}
	}
}

// channelDeps is the graph of channel dependencies that the tables use: a
// node per switch-to-switch port (link direction), an edge c1 -> c2 where
// traffic for some host arrives over c1 and leaves over c2.
func channelDeps(tp *Topology, r *Routes) *simple.DirectedGraph {
	base := make([]int64, len(tp.Nodes)+1)
	for i, n := range tp.Nodes {
		base[i+1] = base[i] + int64(len(n.Ports))
	}
	g := simple.NewDirectedGraph()
	for _, d := range tp.Hosts() {
		for _, u := range switchesOf(tp) {
			for _, q := range r.NextPorts(u, d) {
				x := tp.Nodes[u].Ports[q].Peer
				if tp.Nodes[x].Kind != Switch {
					continue
				}
				for _, p := range r.NextPorts(x, d) {
					if tp.Nodes[tp.Nodes[x].Ports[p].Peer].Kind != Switch {
						continue
					}
					g.SetEdge(simple.Edge{F: simple.Node(base[u] + int64(q)), T: simple.Node(base[x] + int64(p))})
				}
			}
		}
	}
	return g
}

func TestChannelDependencies(t *testing.T) {
	ring4, _ := Ring(4, 1, testLink)
	ring6, _ := Ring(6, 2, testLink)
	fat4, _ := FatTree(4, testLink)
	tri := triangle(t)
	for _, tc := range []struct {
		name     string
		tp       *Topology
		algo     RoutingAlgo
		explicit [][3]string
		cyclic   bool
	}{
		{"ring 4 ecmp", ring4, RoutingECMP, nil, true},
		{"ring 4 updown", ring4, RoutingUpDown, nil, false},
		{"ring 6 ecmp", ring6, RoutingECMP, nil, true},
		{"ring 6 shortest", ring6, RoutingShortest, nil, true},
		{"ring 6 updown", ring6, RoutingUpDown, nil, false},
		{"fat-tree ecmp", fat4, RoutingECMP, nil, false},
		{"fat-tree updown", fat4, RoutingUpDown, nil, false},
		{"triangle ecmp", tri, RoutingECMP, nil, false},
		// SCENARIO.md's explicit routes: no forwarding loop, but a cyclic
		// buffer dependency (the PFC deadlock lab).
		{"triangle explicit", tri, RoutingECMP, [][3]string{{"s1", "c", "s2"}, {"s2", "a", "s3"}, {"s3", "b", "s1"}}, true},
		{"triangle explicit updown", tri, RoutingUpDown, [][3]string{{"s1", "c", "s2"}, {"s2", "a", "s3"}, {"s3", "b", "s1"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, loops, err := ComputeRoutes(tc.tp, tc.algo, routesByName(t, tc.tp, tc.explicit...))
			if err != nil || len(loops) > 0 {
				t.Fatalf("ComputeRoutes: %v, loops %v", err, loops)
			}
			_, err = topo.Sort(channelDeps(tc.tp, r))
			if cyclic := err != nil; cyclic != tc.cyclic {
				t.Errorf("cyclic channel dependency: %v, want %v (%v)", cyclic, tc.cyclic, err)
			}
		})
	}
}

func TestRouteLoops(t *testing.T) {
	for _, tc := range []struct {
		name   string
		routes [][3]string
		want   []string // Describe of each loop, in order
		check  func(t *testing.T, tp *Topology, r *Routes)
	}{
		{
			// The routes of SCENARIO.md's example send each host's traffic
			// the long way round; no destination loops.
			name:   "scenario example",
			routes: [][3]string{{"s1", "c", "s2"}, {"s2", "a", "s3"}, {"s3", "b", "s1"}},
			check: func(t *testing.T, tp *Topology, r *Routes) {
				for _, tc := range []struct {
					at, dst string
					want    int32
				}{{"s1", "c", 1}, {"s2", "c", 2}, {"s2", "a", 2}, {"s3", "a", 2}, {"s3", "b", 2}, {"s1", "b", 1}} {
					if got := r.NextPorts(mustID(t, tp, tc.at), mustID(t, tp, tc.dst)); !slices.Equal(got, []int32{tc.want}) {
						t.Errorf("%s -> %s: %v, want [%d]", tc.at, tc.dst, got, tc.want)
					}
				}
			},
		},
		{
			name:   "clean override",
			routes: [][3]string{{"s1", "c", "s2"}},
		},
		{
			name:   "override to the destination itself",
			routes: [][3]string{{"s3", "c", "c"}, {"s1", "c", "s3"}},
		},
		{
			name:   "three-switch loop",
			routes: [][3]string{{"s1", "c", "s2"}, {"s2", "c", "s3"}, {"s3", "c", "s1"}},
			want:   []string{"traffic for c loops s1 -> s2 -> s3 -> s1"},
		},
		{
			name:   "three-switch loop given backwards",
			routes: [][3]string{{"s3", "c", "s2"}, {"s2", "c", "s1"}, {"s1", "c", "s3"}},
			want:   []string{"traffic for c loops s1 -> s3 -> s2 -> s1"},
		},
		{
			name:   "two loops, sorted by destination",
			routes: [][3]string{{"s1", "c", "s2"}, {"s2", "c", "s1"}, {"s2", "a", "s3"}, {"s3", "a", "s2"}},
			want:   []string{"traffic for a loops s2 -> s3 -> s2", "traffic for c loops s1 -> s2 -> s1"},
		},
		{
			// s2 and s3 bounce b's traffic; s1 feeds the loop but is not in it.
			name:   "loop with a tail",
			routes: [][3]string{{"s2", "b", "s3"}, {"s3", "b", "s2"}, {"s1", "b", "s3"}},
			want:   []string{"traffic for b loops s2 -> s3 -> s2"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := triangle(t)
			for _, algo := range []RoutingAlgo{RoutingECMP, RoutingUpDown} {
				r, loops, err := ComputeRoutes(tp, algo, routesByName(t, tp, tc.routes...))
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, l := range loops {
					got = append(got, l.Describe(tp))
					if l.Cycle[0] != slices.Min(l.Cycle) {
						t.Errorf("loop %v does not start at its smallest node", l)
					}
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s: loops %q, want %q", algo, got, tc.want)
				}
				// The explicit routes' destinations are the only ones that can loop.
				var all []RouteLoop
				for _, d := range tp.Hosts() {
					all = append(all, r.loopsFor(tp, d)...)
				}
				sortLoops(all)
				if !reflect.DeepEqual(all, loops) {
					t.Errorf("%s: loops over every destination %v, returned %v", algo, all, loops)
				}
				if tc.check != nil && algo == RoutingECMP {
					tc.check(t, tp, r)
				}
			}
		})
	}
}

func TestSelfLoop(t *testing.T) {
	tp := triangle(t)
	s1 := mustID(t, tp, "s1")
	tp.connectAt(s1, 3, s1, 4, testLink) // a cable from s1 back to itself
	routes := routesByName(t, tp, [3]string{"s1", "c", "s1"})
	r, loops, err := ComputeRoutes(tp, RoutingECMP, routes)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.NextPorts(s1, mustID(t, tp, "c")); !slices.Equal(got, []int32{3, 4}) {
		t.Errorf("s1 -> c: %v, want [3 4]", got)
	}
	if len(loops) != 1 || loops[0].Describe(tp) != "traffic for c loops s1 -> s1" {
		t.Errorf("loops %v", loops)
	}
}

func TestComputeRoutesErrors(t *testing.T) {
	twoIslands := func() *Topology {
		return explicitTopo(t, []string{"h0", "h1"}, []string{"s0", "s1"}, [][2]string{{"h0", "s0"}, {"h1", "s1"}})
	}
	for _, tc := range []struct {
		name   string
		tp     func() *Topology
		algo   RoutingAlgo
		routes [][3]string
		raw    []ExplicitRoute
		want   string
	}{
		{name: "at not a switch", routes: [][3]string{{"a", "c", "s1"}}, want: "explicit route at a: a is not a switch"},
		{name: "dst not a host", routes: [][3]string{{"s1", "s2", "s2"}}, want: "explicit route at s1 for s2: s2 is not a host"},
		{name: "via not a neighbour", routes: [][3]string{{"s1", "c", "c"}}, want: "explicit route at s1 for c: c is not a neighbour of s1"},
		{name: "via another host", routes: [][3]string{{"s1", "c", "a"}}, want: "a is a host, and hosts do not forward"},
		{name: "twice", routes: [][3]string{{"s1", "c", "s2"}, {"s1", "c", "s3"}}, want: "explicit route at s1 for c is given twice (via s2 and via s3)"},
		{name: "no such node", raw: []ExplicitRoute{{At: 99, Dst: 2, Via: 3}}, want: "node 99, which does not exist"},
		{name: "negative node", raw: []ExplicitRoute{{At: 3, Dst: -1, Via: 4}}, want: "node -1, which does not exist"},
		{name: "unknown algorithm", algo: "ospf", want: `unknown routing "ospf"`},
		{name: "unreachable ecmp", tp: twoIslands, want: "s1 cannot reach host h0"},
		{name: "unreachable updown", tp: twoIslands, algo: RoutingUpDown, want: "cannot reach host"},
		{name: "unreachable shortest", tp: twoIslands, algo: RoutingShortest, want: "s1 cannot reach host h0"},
		{
			name: "host without links",
			tp: func() *Topology {
				tp, _ := Star(2, testLink)
				tp.AddNode("lonely", Host)
				return tp
			},
			want: "host lonely is not linked to any switch",
		},
		{
			name: "switch without links",
			tp: func() *Topology {
				tp, _ := Star(2, testLink)
				tp.AddNode("s9", Switch)
				return tp
			},
			want: "s9 cannot reach host h0",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := triangle(t)
			if tc.tp != nil {
				tp = tc.tp()
			}
			algo := tc.algo
			if algo == "" {
				algo = RoutingECMP
			}
			explicit := append(routesByName(t, tp, tc.routes...), tc.raw...)
			r, _, err := ComputeRoutes(tp, algo, explicit)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v; want one containing %q", err, tc.want)
			}
			if err != nil && r != nil {
				t.Error("routes returned with an error")
			}
		})
	}
}

func TestDefaultAlgoIsECMP(t *testing.T) {
	tp, _ := FatTree(4, testLink)
	def := mustRoutes(t, tp, "", nil)
	ecmp := mustRoutes(t, tp, RoutingECMP, nil)
	if def.Algo() != RoutingECMP {
		t.Errorf("Algo() = %q", def.Algo())
	}
	if !reflect.DeepEqual(def, ecmp) {
		t.Error(`routing "" differs from ecmp`)
	}
}

func TestRoutesDeterministic(t *testing.T) {
	tp, _ := FatTree(8, testLink)
	for _, algo := range []RoutingAlgo{RoutingECMP, RoutingShortest, RoutingUpDown} {
		a := mustRoutes(t, tp, algo, nil)
		for i := 0; i < 3; i++ {
			if b := mustRoutes(t, tp, algo, nil); !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: two builds differ", algo)
			}
		}
	}
	tri := triangle(t)
	routes := routesByName(t, tri, [3]string{"s1", "c", "s2"}, [3]string{"s2", "c", "s1"}, [3]string{"s2", "a", "s3"}, [3]string{"s3", "a", "s2"})
	_, first, _ := ComputeRoutes(tri, RoutingECMP, routes)
	for i := 0; i < 10; i++ {
		if _, loops, _ := ComputeRoutes(tri, RoutingECMP, routes); !reflect.DeepEqual(loops, first) {
			t.Fatalf("loops differ between builds: %v, %v", loops, first)
		}
	}
}

func TestNextPortsEdges(t *testing.T) {
	tp, _ := FatTree(4, testLink)
	r := mustRoutes(t, tp, RoutingECMP, nil)
	h0, s0, s1 := mustID(t, tp, "h0"), mustID(t, tp, "s0"), mustID(t, tp, "s1")
	for _, tc := range []struct{ at, dst NodeID }{
		{h0, mustID(t, tp, "h1")}, // a host does not forward
		{s0, s1},                  // a switch is not a destination
		{-1, h0}, {s0, -1}, {NodeID(len(tp.Nodes)), h0}, {s0, NodeID(len(tp.Nodes))},
	} {
		if got := r.NextPorts(tc.at, tc.dst); len(got) != 0 {
			t.Errorf("NextPorts(%d, %d) = %v, want none", tc.at, tc.dst, got)
		}
	}
	got := r.NextPorts(s0, mustID(t, tp, "h4"))
	if cap(got) != len(got) {
		t.Errorf("NextPorts capacity %d > length %d: an append would overwrite the table", cap(got), len(got))
	}
}

func TestNextPortsDoesNotAllocate(t *testing.T) {
	tp, _ := FatTree(4, testLink)
	r := mustRoutes(t, tp, RoutingECMP, nil)
	s0, h9 := mustID(t, tp, "s0"), mustID(t, tp, "h9")
	key := FlowKey{SrcIP: HostIP(0), DstIP: HostIP(9), SrcPort: 49152, DstPort: RoCEv2UDPPort}
	var sink int32
	if n := testing.AllocsPerRun(1000, func() {
		sink += PickPort(r.NextPorts(s0, h9), key.Hash(7))
	}); n != 0 {
		t.Errorf("NextPorts + Hash + PickPort: %v allocations per call", n)
	}
	_ = sink
}

func TestComputeRoutesFatTree16(t *testing.T) {
	if testing.Short() {
		t.Skip("k=16 in -short mode")
	}
	tp, _ := FatTree(16, testLink)
	for _, algo := range []RoutingAlgo{RoutingECMP, RoutingUpDown} {
		r := mustRoutes(t, tp, algo, nil)
		for _, x := range switchesOf(tp) {
			for _, d := range tp.Hosts() {
				if len(r.NextPorts(x, d)) == 0 {
					t.Fatalf("%s: %s has no route to %s", algo, tp.Nodes[x].Name, tp.Nodes[d].Name)
				}
			}
		}
		// Edge s0 toward another pod: 8 uplinks; core: one port.
		if got := r.NextPorts(mustID(t, tp, "s0"), mustID(t, tp, "h1023")); !slices.Equal(got, []int32{8, 9, 10, 11, 12, 13, 14, 15}) {
			t.Errorf("%s: s0 -> h1023: %v", algo, got)
		}
		if got := r.NextPorts(mustID(t, tp, "s256"), mustID(t, tp, "h1023")); !slices.Equal(got, []int32{15}) {
			t.Errorf("%s: s256 -> h1023: %v", algo, got)
		}
	}
}

func BenchmarkComputeRoutesFatTree16(b *testing.B) {
	tp, err := FatTree(16, testLink)
	if err != nil {
		b.Fatal(err)
	}
	for _, algo := range []RoutingAlgo{RoutingECMP, RoutingUpDown} {
		b.Run(string(algo), func(b *testing.B) {
			b.ReportAllocs()
			var r *Routes
			for b.Loop() {
				r, _, err = ComputeRoutes(tp, algo, nil)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.tableBytes()), "table-bytes")
		})
	}
}

func BenchmarkNextPorts(b *testing.B) {
	tp, _ := FatTree(16, testLink)
	r := mustRoutes(b, tp, RoutingECMP, nil)
	hosts := tp.Hosts()
	sw := switchesOf(tp)
	b.ReportAllocs()
	var sink int
	i := 0
	for b.Loop() {
		sink += len(r.NextPorts(sw[i%len(sw)], hosts[i%len(hosts)]))
		i++
	}
	_ = sink
}

// TestRoutesTableBytes: a switch's entries are 2-byte numbers of its
// few distinct lists, so a k=16 fat tree's ECMP tables (320 switches,
// 1,024 hosts) take under 0.4 MB (2.6 MB with a span per entry, 0.72
// before switches shared their rows), and a k=32 one's (1,280 switches,
// 8,192 hosts) under 10 MB (84 MB; 21.5), for ECMP; minhop's entries
// keep their candidate lists too (LMC's LIDs) at 2 bytes more each.
func TestRoutesTableBytes(t *testing.T) {
	for _, tc := range []struct {
		k    int
		algo RoutingAlgo
		max  int
	}{{16, RoutingECMP, 400 << 10}, {16, RoutingMinHop, 750 << 10}, {32, RoutingECMP, 10 << 20}, {32, RoutingMinHop, 20 << 20}} {
		if tc.k == 32 && testing.Short() {
			continue
		}
		tp, err := FatTree(tc.k, testLink)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := ComputeRoutes(tp, tc.algo, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.tableBytes(); got > tc.max {
			t.Errorf("k=%d %s: tables take %d bytes, want at most %d", tc.k, tc.algo, got, tc.max)
		} else {
			t.Logf("k=%d %s: %d bytes, %d lists", tc.k, tc.algo, got, len(r.lists))
		}
	}
}

// BenchmarkRouteRowNext is what a switch does per packet (its own row
// of the tables), to set beside BenchmarkNextPorts.
func BenchmarkRouteRowNext(b *testing.B) {
	tp, _ := FatTree(16, testLink)
	r := mustRoutes(b, tp, RoutingECMP, nil)
	hosts := tp.Hosts()
	sw := switchesOf(tp)
	rows := make([]*RouteRow, len(sw))
	for i, s := range sw {
		rows[i] = r.Row(s)
	}
	b.ReportAllocs()
	var sink int
	i := 0
	for b.Loop() {
		sink += len(rows[i%len(rows)].Next(hosts[i%len(hosts)]))
		i++
	}
	_ = sink
}

// TestRoutesShareRows: switches whose rows of entries are the same share
// one: a k=8 fat tree's 32 edge switches have a row each, its 32
// aggregation switches one per pod (8), its 16 core switches one, so 41
// rows for 80 switches; an OpenSM engine's tables (with their candidate
// lists, wideEntry) as many. And every switch still reads its own routes:
// each of its entries (and candidate lists) gives the ports its span gave
// before compact.
func TestRoutesShareRows(t *testing.T) {
	tp, err := FatTree(8, testLink)
	if err != nil {
		t.Fatal(err)
	}
	for _, algo := range []RoutingAlgo{RoutingECMP, RoutingMinHop} {
		b := newRouteBuilder(tp, algo)
		b.tables()
		if err := b.groupHosts(); err != nil {
			t.Fatal(err)
		}
		b.distances()
		if err := b.ecmp(false); err != nil {
			t.Fatal(err)
		}
		if algo.IsLFT() {
			b.pickOne(algo)
		}
		r := b.r
		spans, wide := slices.Clone(r.spans), slices.Clone(r.wide)
		if err := r.compact(); err != nil {
			t.Fatal(err)
		}
		if rows := len(r.entry) / r.hosts; rows != 41 {
			t.Errorf("%s: %d rows for %d switches, want 41", algo, rows, len(r.base))
		}
		if (wide != nil) != (r.wideEntry != nil) || algo.IsLFT() != (wide != nil) {
			t.Fatalf("%s: candidate lists %v before compact, %v after", algo, wide != nil, r.wideEntry != nil)
		}
		for si := range b.sw {
			for hi := 0; hi < r.hosts; hi++ {
				k := si*r.hosts + hi
				got := r.NextPorts(b.sw[si], tp.Endpoints()[hi])
				if want := r.ports[spans[k].off : spans[k].off+spans[k].n]; !slices.Equal(got, want) {
					t.Fatalf("%s: switch %d host %d: %v, want %v", algo, si, hi, got, want)
				}
				if wide != nil {
					s := r.lists[int(r.base[si])+int(r.wideEntry[int(r.row[si])+hi])]
					if got, want := r.ports[s.off:s.off+s.n], r.ports[wide[k].off:wide[k].off+wide[k].n]; !slices.Equal(got, want) {
						t.Fatalf("%s: switch %d host %d: candidates %v, want %v", algo, si, hi, got, want)
					}
				}
			}
		}
	}
}
