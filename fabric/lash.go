package fabric

import (
	"fmt"
	"slices"
)

// RoutingLASH is OpenSM's lash: LAyered SHortest path routing
// (Skeie, Lysne, Theiss, "Layered Shortest Path (LASH) Routing in
// Irregular System Area Networks", IPDPS 2002; osm_ucast_lash.c). Every
// pair of switches gets one shortest path, and each pair (both of its
// directions together) is put on the first layer, a virtual lane, whose
// channel dependencies stay acyclic with it; a pair that fits no layer
// opens a new one. The layers are then balanced: pairs move from the
// fullest layer to the emptiest while that keeps it acyclic, until the
// two differ by fewer than six pairs (OpenSM's balance_limit). A host
// pair uses its switches' layer as its SL (and VL, SL2VL being the
// identity); hosts on one switch use layer 0 (lash_start_vl 0).
//
// The paths are OpenSM's: from every switch in switch order, a
// breadth-first tree over the links in port order; a switch's port
// toward a destination switch is the one the first tree that has the
// destination below the switch gives it (generate_routing_func_for_mst).
// Each is a shortest path, and a switch forwards every host of a
// destination switch the same way.
const RoutingLASH RoutingAlgo = "lash"

// lashBalanceLimit is OpenSM's p_lash->balance_limit (osm_ucast_lash.c,
// lash_process): balancing stops when the fullest and emptiest layers
// differ by fewer pairs than this.
const lashBalanceLimit = 6

// lashNext returns, for every switch index and destination switch index,
// the port lash's trees give (-1 for the switch itself or one it cannot
// reach).
func (b *routeBuilder) lashNext() [][]int32 {
	n := len(b.sw)
	next := make([][]int32, n)
	for i := range next {
		next[i] = make([]int32, n)
		for j := range next[i] {
			next[i][j] = -1
		}
	}
	parent := make([]int32, n)
	via := make([]int32, n) // the port of the parent toward the child
	order := make([]int32, 0, n)
	for root := 0; root < n; root++ {
		for i := range parent {
			parent[i] = -2
		}
		parent[root] = -1
		order = append(order[:0], int32(root))
		for q := 0; q < len(order); q++ {
			x := order[q]
			for _, a := range b.adj[x] {
				if parent[a.peer] == -2 {
					parent[a.peer], via[a.peer] = x, a.port
					order = append(order, a.peer)
				}
			}
		}
		// Every switch on the way down from the root to d forwards d
		// toward the child that leads to it, unless an earlier tree has.
		for _, d := range order[1:] {
			for c := d; parent[c] >= 0; c = parent[c] {
				if p := parent[c]; next[p][d] < 0 {
					next[p][d] = via[c]
				}
			}
		}
	}
	return next
}

// pickLASH reduces every next-hop list to the port of lash's trees
// toward the destination host's switch (its first, for a host on
// several).
func (b *routeBuilder) pickLASH() {
	r := b.r
	next := b.lashNext()
	for _, g := range b.groups {
		d := g.attach[0]
		for si := range b.sw {
			p := next[si][d]
			for _, hi := range g.hosts {
				s := &r.spans[si*r.hosts+int(hi)]
				if s.n <= 1 {
					continue
				}
				pick := int32(0) // a host on several switches, reached nearer another
				for i, q := range r.ports[s.off : s.off+s.n] {
					if q == p {
						pick = int32(i)
					}
				}
				s.off, s.n = s.off+pick, 1
			}
		}
	}
}

// lashPair is a pair of switches lash lays out: switch indexes i < j,
// the channels of the path each way, and its layer.
type lashPair struct {
	i, j  int32
	there []int32 // i to j
	back  []int32 // j to i
	lane  int32
}

// AssignLASHLanes lays out every pair of t's switches' paths (lash's,
// as RoutingLASH's tables forward them) on at most vls layers as lash
// does, and returns the lane of every host pair. It fails when the pairs
// need more layers than vls (OpenSM's "Lane requirements exceed
// available lanes"), and, before it lays out anything, when t is past
// lash's limits (SizeRouting).
func AssignLASHLanes(t *Topology, vls int) (*PairLanes, error) {
	if _, err := SizeRouting(t, RoutingLASH); err != nil {
		return nil, err
	}
	b := newRouteBuilder(t, RoutingLASH)
	if err := b.groupHosts(); err != nil {
		return nil, err
	}
	n := len(b.sw)
	next := b.lashNext()
	base, channels := switchChannels(t)
	// path lists the channels from switch i to switch j, in a slice of
	// its own length; nil if j cannot be reached.
	path := func(i, j int) []int32 {
		hops := 0
		for at := i; at != j; hops++ {
			p := next[at][j]
			if p < 0 || hops > n {
				return nil
			}
			at = int(b.r.swIndex[t.Nodes[b.sw[at]].Ports[p].Peer])
		}
		out := make([]int32, 0, hops)
		for at := i; at != j; {
			p := next[at][j]
			out = append(out, int32(base[b.sw[at]])+p)
			at = int(b.r.swIndex[t.Nodes[b.sw[at]].Ports[p].Peer])
		}
		return out
	}
	var pairs []lashPair
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if there, back := path(i, j), path(j, i); there != nil && back != nil {
				pairs = append(pairs, lashPair{i: int32(i), j: int32(j), there: there, back: back})
			}
		}
	}
	var layers []*cdg
	var count []int
	fits := func(l *cdg, p *lashPair) bool {
		if !l.add(p.there) {
			return false
		}
		if !l.add(p.back) {
			l.remove(p.there)
			return false
		}
		return true
	}
	for k := range pairs {
		p := &pairs[k]
		p.lane = -1
		for lane, l := range layers {
			if fits(l, p) {
				p.lane = int32(lane)
				break
			}
		}
		if p.lane < 0 {
			if len(layers) == vls {
				return nil, fmt.Errorf("lash needs more than %d VLs to keep every switch pair's path acyclic (%s <-> %s fits none); raise switch.ib.data_vls",
					vls, t.Nodes[b.sw[p.i]].Name, t.Nodes[b.sw[p.j]].Name)
			}
			l := newCDG(channels)
			fits(l, p)
			layers = append(layers, l)
			count = append(count, 0)
			p.lane = int32(len(layers) - 1)
		}
		count[p.lane]++
	}
	// Balance: move pairs from the fullest layer to the emptiest, in
	// pair order (OpenSM draws them at random), until they differ by
	// fewer than lashBalanceLimit or no pair of the fullest moves. A pair
	// that did not fit a layer cannot fit it until the layer loses a
	// dependency, so each (from, to) scan goes on from where it stopped,
	// and starts again only when its layers change in that way (to lost
	// a pair, from gained one).
	nl := len(layers)
	cursor := make([]int, nl*nl) // [from*nl+to]
	for nl > 1 {
		lo, hi := 0, 0
		for lane, c := range count {
			if c < count[lo] {
				lo = lane
			}
			if c > count[hi] {
				hi = lane
			}
		}
		if count[hi]-count[lo] < lashBalanceLimit {
			break
		}
		k := cursor[hi*nl+lo]
		for ; k < len(pairs); k++ {
			if p := &pairs[k]; int(p.lane) == hi && fits(layers[lo], p) {
				break
			}
		}
		if k == len(pairs) {
			break
		}
		p := &pairs[k]
		layers[hi].remove(p.there)
		layers[hi].remove(p.back)
		count[hi]--
		count[lo]++
		p.lane = int32(lo)
		cursor[hi*nl+lo] = k + 1
		for x := 0; x < nl; x++ {
			cursor[x*nl+hi] = 0 // hi lost dependencies: more may fit it
			cursor[lo*nl+x] = 0 // lo has a pair to give that it had not
		}
	}
	// Every host takes the lanes of its first switch: a row per switch.
	out := newPairLanes(t, n)
	for _, g := range b.groups {
		for _, hi := range g.hosts {
			out.row[t.Endpoints()[hi]] = g.attach[0]
		}
	}
	for _, p := range pairs {
		out.lane[int(p.i)*n+int(p.j)], out.lane[int(p.j)*n+int(p.i)] = uint8(p.lane), uint8(p.lane)
	}
	return out, nil
}

// switchChannels numbers the channels of t, a channel being a switch's
// output port: switch node id's port p is channel base[id]+p, of n in
// all (hosts have none).
func switchChannels(t *Topology) (base []int, n int) {
	base = make([]int, len(t.Nodes))
	for id, node := range t.Nodes {
		base[id] = n
		if node.Kind == Switch {
			n += len(node.Ports)
		}
	}
	return base, n
}

// cdg is one layer's channel dependency graph over channels 0..n-1,
// each dependency counted by the paths that use it (so a path can be
// taken out again), kept acyclic by a topological order maintained as
// dependencies are added (Pearce and Kelly, "A Dynamic Topological Sort
// Algorithm for Directed Acyclic Graphs", JEA 2006): a dependency that
// agrees with the order costs nothing, and one that does not searches
// only the channels ordered between its ends.
type cdg struct {
	out   [][]dep   // channel -> the channels it depends on
	in    [][]int32 // channel -> the channels that depend on it
	ord   []int32   // channel -> its place in the order
	seen  []bool
	stack []int32
	fwd   []int32
	back  []int32
	slots []int32
}

type dep struct{ to, paths int32 }

func newCDG(n int) *cdg {
	g := &cdg{out: make([][]dep, n), in: make([][]int32, n), ord: make([]int32, n), seen: make([]bool, n)}
	for i := range g.ord {
		g.ord[i] = int32(i)
	}
	return g
}

func (g *cdg) find(u, v int32) int {
	for i, d := range g.out[u] {
		if d.to == v {
			return i
		}
	}
	return -1
}

// add puts the dependencies of path in the graph if they keep it
// acyclic, and reports whether it did; when it does not, the graph is as
// it was (the order may differ, and stays a topological one).
func (g *cdg) add(path []int32) bool {
	for k := 0; k+1 < len(path); k++ {
		u, v := path[k], path[k+1]
		if i := g.find(u, v); i >= 0 {
			g.out[u][i].paths++
			continue
		}
		if !g.reorder(u, v) {
			g.remove(path[:k+1])
			return false
		}
		g.out[u] = append(g.out[u], dep{to: v, paths: 1})
		g.in[v] = append(g.in[v], u)
	}
	return true
}

// reorder makes the order put u before v, as the new dependency u -> v
// needs, and reports false (changing nothing) if v already reaches u.
func (g *cdg) reorder(u, v int32) bool {
	lb, ub := g.ord[v], g.ord[u]
	if lb > ub {
		return true
	}
	if u == v {
		return false
	}
	// Forward from v among the channels ordered up to u.
	g.fwd = g.fwd[:0]
	g.stack = append(g.stack[:0], v)
	g.seen[v] = true
	cycle := false
	for len(g.stack) > 0 && !cycle {
		x := g.stack[len(g.stack)-1]
		g.stack = g.stack[:len(g.stack)-1]
		g.fwd = append(g.fwd, x)
		for _, d := range g.out[x] {
			if d.to == u {
				cycle = true
				break
			}
			if !g.seen[d.to] && g.ord[d.to] < ub {
				g.seen[d.to] = true
				g.stack = append(g.stack, d.to)
			}
		}
	}
	if cycle {
		for _, x := range g.stack {
			g.seen[x] = false
		}
		for _, x := range g.fwd {
			g.seen[x] = false
		}
		return false
	}
	// Backward from u among the channels ordered from v.
	g.back = g.back[:0]
	g.stack = append(g.stack[:0], u)
	g.seen[u] = true
	for len(g.stack) > 0 {
		x := g.stack[len(g.stack)-1]
		g.stack = g.stack[:len(g.stack)-1]
		g.back = append(g.back, x)
		for _, w := range g.in[x] {
			if !g.seen[w] && g.ord[w] > lb {
				g.seen[w] = true
				g.stack = append(g.stack, w)
			}
		}
	}
	// The channels that reach u take the lowest of the places both sets
	// held, in their own order, and those v reaches the rest.
	byOrd := func(a, b int32) int { return int(g.ord[a]) - int(g.ord[b]) }
	slices.SortFunc(g.back, byOrd)
	slices.SortFunc(g.fwd, byOrd)
	g.slots = g.slots[:0]
	for _, x := range g.back {
		g.slots = append(g.slots, g.ord[x])
	}
	for _, x := range g.fwd {
		g.slots = append(g.slots, g.ord[x])
	}
	slices.Sort(g.slots)
	i := 0
	for _, set := range [2][]int32{g.back, g.fwd} {
		for _, x := range set {
			g.ord[x] = g.slots[i]
			g.seen[x] = false
			i++
		}
	}
	return true
}

// remove takes path's dependencies out of the graph.
func (g *cdg) remove(path []int32) {
	for k := 0; k+1 < len(path); k++ {
		u, v := path[k], path[k+1]
		i := g.find(u, v)
		if g.out[u][i].paths--; g.out[u][i].paths > 0 {
			continue
		}
		g.out[u] = slices.Delete(g.out[u], i, i+1)
		j := slices.Index(g.in[v], u)
		g.in[v] = slices.Delete(g.in[v], j, j+1)
	}
}
