package fabric

import (
	"cmp"
	"slices"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// loopsFor returns the forwarding loops for destination dst: the cycles of
// the graph "switch x -> switch y for each next hop y of x toward dst", one
// per strongly connected component of more than one switch (the shortest
// through its smallest NodeID), plus self loops.
func (r *Routes) loopsFor(t *Topology, dst NodeID) []RouteLoop {
	g := simple.NewDirectedGraph()
	var loops []RouteLoop
	for id, n := range t.Nodes {
		x := NodeID(id)
		if n.Kind != Switch {
			continue
		}
		self := false
		for _, p := range r.NextPorts(x, dst) {
			y := n.Ports[p].Peer
			switch {
			case t.Nodes[y].Kind != Switch:
			case y == x:
				if !self {
					self = true
					loops = append(loops, RouteLoop{Dst: dst, Cycle: []NodeID{x}})
				}
			default:
				g.SetEdge(simple.Edge{F: simple.Node(x), T: simple.Node(y)})
			}
		}
	}
	for _, scc := range topo.TarjanSCC(g) {
		if len(scc) < 2 {
			continue
		}
		in := make(map[NodeID]bool, len(scc)) // lookups only
		v := NodeID(scc[0].ID())
		for _, n := range scc {
			in[NodeID(n.ID())] = true
			v = min(v, NodeID(n.ID()))
		}
		loops = append(loops, RouteLoop{Dst: dst, Cycle: r.cycleThrough(t, dst, v, in)})
	}
	return loops
}

// cycleThrough returns the shortest cycle from v back to v inside the
// strongly connected component in, found by breadth-first search in port
// order so that the answer does not depend on map or graph order.
func (r *Routes) cycleThrough(t *Topology, dst, v NodeID, in map[NodeID]bool) []NodeID {
	parent := map[NodeID]NodeID{v: v}
	queue := []NodeID{v}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, p := range r.NextPorts(u, dst) {
			w := t.Nodes[u].Ports[p].Peer
			if w == v {
				var cycle []NodeID
				for x := u; x != v; x = parent[x] {
					cycle = append(cycle, x)
				}
				cycle = append(cycle, v)
				slices.Reverse(cycle)
				return cycle
			}
			if _, seen := parent[w]; !seen && in[w] {
				parent[w] = u
				queue = append(queue, w)
			}
		}
	}
	return []NodeID{v} // not reached: v lies on a cycle of its component
}

func sortLoops(loops []RouteLoop) {
	slices.SortFunc(loops, func(a, b RouteLoop) int {
		return cmp.Or(cmp.Compare(a.Dst, b.Dst), slices.Compare(a.Cycle, b.Cycle))
	})
}
