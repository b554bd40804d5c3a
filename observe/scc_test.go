package observe

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// TestSCCAgainstGonum holds sccFinder to gonum's topo.TarjanSCC, which
// the detector used before, on random graphs from sparse to dense and on
// a few by hand: the same partition into components, and least's answer
// (the least node of any component of two or more, and its component)
// read off gonum's.
func TestSCCAgainstGonum(t *testing.T) {
	type edge struct{ u, v int32 }
	cases := []struct {
		name  string
		n     int
		edges []edge
	}{
		{"empty", 0, nil},
		{"one node", 1, nil},
		{"self loop", 2, []edge{{0, 0}, {0, 1}}},
		{"a chain", 4, []edge{{0, 1}, {1, 2}, {2, 3}}},
		{"a ring", 3, []edge{{0, 1}, {1, 2}, {2, 0}}},
		// The search closes {2, 3} first, then {0, 1}, whose least is less.
		{"two rings, the later one least", 4, []edge{{0, 1}, {1, 0}, {0, 2}, {2, 3}, {3, 2}}},
		{"two rings apart", 6, []edge{{3, 4}, {4, 5}, {5, 3}, {1, 0}, {0, 1}, {5, 1}}},
		{"a ring behind a tail", 5, []edge{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 2}}},
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 300; i++ {
		n := 1 + rng.IntN(60)
		m := rng.IntN(3 * n)
		var es []edge
		for range m {
			es = append(es, edge{int32(rng.IntN(n)), int32(rng.IntN(n))})
		}
		cases = append(cases, struct {
			name  string
			n     int
			edges []edge
		}{"random", n, es})
	}
	var f sccFinder
	var g depGraph
	for _, tc := range cases {
		// Ours, with edges in the order given, grouped by source.
		byNode := make([][]int32, tc.n)
		gg := simple.NewDirectedGraph()
		for i := 0; i < tc.n; i++ {
			gg.AddNode(simple.Node(i))
		}
		for _, e := range tc.edges {
			if !slices.Contains(byNode[e.u], e.v) {
				byNode[e.u] = append(byNode[e.u], e.v)
			}
			if e.u != e.v {
				gg.SetEdge(simple.Edge{F: simple.Node(e.u), T: simple.Node(e.v)})
			}
		}
		g.reset()
		for u := range byNode {
			g.startNode()
			for _, w := range byNode[u] {
				g.addEdge(w)
			}
		}
		v, c := f.least(&g)

		want, wantComp := int32(-1), []int64(nil)
		same := map[int64]int64{} // node -> least of its gonum component
		for _, scc := range topo.TarjanSCC(gg) {
			least := scc[0].ID()
			for _, x := range scc {
				least = min(least, x.ID())
			}
			var ids []int64
			for _, x := range scc {
				same[x.ID()] = least
				ids = append(ids, x.ID())
			}
			if len(scc) > 1 && (want < 0 || int32(least) < want) {
				want, wantComp = int32(least), ids
			}
		}
		if v != want {
			t.Fatalf("%s (n=%d, edges %v): least node %d, gonum's %d", tc.name, tc.n, tc.edges, v, want)
		}
		if v >= 0 {
			for _, x := range wantComp {
				if f.comp[x] != c {
					t.Fatalf("%s: node %d is in component %d, want %d with %v", tc.name, x, f.comp[x], c, wantComp)
				}
			}
		}
		// The whole partition: two nodes share a component in ours exactly
		// when they do in gonum's.
		for a := 0; a < tc.n; a++ {
			for b := a + 1; b < tc.n; b++ {
				if (f.comp[a] == f.comp[b]) != (same[int64(a)] == same[int64(b)]) {
					t.Fatalf("%s (n=%d, edges %v): nodes %d and %d together %v, gonum %v", tc.name, tc.n, tc.edges, a, b, f.comp[a] == f.comp[b], same[int64(a)] == same[int64(b)])
				}
			}
		}
	}
}

// TestSCCSearchAllocatesNothing: once its buffers have grown, a search
// of the same size allocates nothing (the detector runs one every
// observe.deadlock.after/8 of a PFC-heavy run).
func TestSCCSearchAllocatesNothing(t *testing.T) {
	var g depGraph
	build := func() {
		g.reset()
		for u := int32(0); u < 1000; u++ {
			g.startNode()
			g.addEdge((u + 1) % 1000)
			g.addEdge((u * 7) % 1000)
		}
	}
	var f sccFinder
	build()
	f.least(&g)
	if n := testing.AllocsPerRun(20, func() { build(); f.least(&g) }); n != 0 {
		t.Errorf("%v allocations per search, want 0", n)
	}
}
