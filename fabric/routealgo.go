package fabric

import (
	"cmp"
	"slices"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/simple"
)

func (b *routeBuilder) ecmp(shortest bool) error {
	n := len(b.sw)
	d := make([]int32, n) // hop distance to the group's hosts
	for gi := range b.groups {
		g := &b.groups[gi]
		for x := 0; x < n; x++ {
			m := int32(unreachable)
			for _, s := range g.attach {
				m = min(m, b.dist[int(b.row[s])*n+x]+1)
			}
			d[x] = m
		}
		b.deliver(g)
		for x := int32(0); int(x) < n; x++ {
			if d[x] == 1 {
				continue // attached: delivered above
			}
			if d[x] >= unreachable {
				if b.partial {
					b.setGroup(x, g, nil)
					continue
				}
				return b.unreachableError(x, g)
			}
			b.list = b.list[:0]
			for _, a := range b.adj[x] {
				if d[a.peer] == d[x]-1 {
					b.list = append(b.list, a.port)
					if shortest {
						break
					}
				}
			}
			b.setGroup(x, g, b.list)
		}
	}
	return nil
}

// upDownRank returns, per switch index, the switch's position in the order
// (level, NodeID); link x->y goes up when rank(y) < rank(x). With
// singleRoot, the levels count from the default root with the smallest
// NodeID only.
func (b *routeBuilder) upDownRank(singleRoot bool) []int32 {
	n := len(b.sw)
	// Farthest from any host, among the switches without hosts: far[x]
	// is x's distance to the nearest switch with hosts, by one search
	// from a node n linked to each of them (the least of the distances
	// from each, without their table).
	hostSw := make([]graph.Node, len(b.hostSw))
	for i, s := range b.hostSw {
		hostSw[i] = simple.Node(s)
	}
	far := b.levelsFrom(hostSw)
	best := int32(-1)
	for x := 0; x < n; x++ {
		if b.row[x] < 0 && far[x] < unreachable {
			best = max(best, far[x])
		}
	}
	var roots []graph.Node
	if b.r.algo == RoutingUpDn && !singleRoot {
		// OpenSM's updn finds its own roots; where it finds none, the
		// one root below (as OpenSM routes when given it).
		for _, x := range b.openSMRoots() {
			roots = append(roots, simple.Node(x))
		}
		singleRoot = len(roots) == 0
	}
	if len(roots) == 0 {
		for x := 0; x < n; x++ {
			if best < 0 || (b.row[x] < 0 && far[x] == best) {
				roots = append(roots, simple.Node(x))
				if singleRoot {
					break
				}
			}
		}
	}
	level := b.levelsFrom(roots)
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	// Switch indexes ascend with NodeID, so the index breaks level ties.
	slices.SortFunc(order, func(x, y int32) int {
		return cmp.Or(cmp.Compare(level[x], level[y]), cmp.Compare(x, y))
	})
	rank := make([]int32, n)
	for i, x := range order {
		rank[x] = int32(i)
	}
	return rank
}

// levelsFrom is each switch's hop distance to the nearest of from (0 for
// them), or unreachable, by one search from a node linked to each of
// them; it has one entry more, that node's.
func (b *routeBuilder) levelsFrom(from []graph.Node) []int32 {
	n := len(b.sw)
	b.graph.nbrs = append(b.graph.nbrs[:n], from)
	level := make([]int32, n+1)
	b.bfs(level, int32(n))
	b.graph.nbrs = b.graph.nbrs[:n]
	for x := range level {
		if level[x] < unreachable {
			level[x]--
		}
	}
	return level
}

func (b *routeBuilder) upDown() error {
	partial := b.partial
	b.partial = false // a degraded fabric first tries for full reachability
	defer func() { b.partial = partial }()
	if err := b.upDownWith(b.upDownRank(false)); err == nil {
		return nil
	}
	b.resetTables()
	err := b.upDownWith(b.upDownRank(true))
	if err == nil || !partial {
		return err
	}
	b.resetTables()
	b.partial = true
	return b.upDownWith(b.upDownRank(true))
}

func (b *routeBuilder) resetTables() {
	b.r.ports = b.r.ports[:0]
	for i := range b.last {
		b.last[i].off = -1
	}
}

func (b *routeBuilder) upDownWith(rank []int32) error {
	n := len(b.sw)
	order := make([]int32, n) // switch indexes by rank
	for x, r := range rank {
		order[r] = int32(x)
	}
	down := make([]int32, n) // shortest all-down path to the group's hosts
	dd := make([]int32, n)   // length of the path the rule gives
	attached := make([]bool, n)
	for gi := range b.groups {
		g := &b.groups[gi]
		for _, s := range g.attach {
			attached[s] = true
		}
		// Down hops go to higher ranks: fill from the highest rank down.
		for i := n - 1; i >= 0; i-- {
			x := order[i]
			if attached[x] {
				down[x] = 1
				continue
			}
			m := int32(unreachable)
			for _, a := range b.adj[x] {
				if rank[a.peer] > rank[x] {
					m = min(m, down[a.peer]+1)
				}
			}
			down[x] = m
		}
		// Up hops go to lower ranks: fill from the lowest rank up.
		for _, x := range order {
			if down[x] < unreachable {
				dd[x] = down[x]
				continue
			}
			m := int32(unreachable)
			for _, a := range b.adj[x] {
				if rank[a.peer] < rank[x] {
					m = min(m, dd[a.peer]+1)
				}
			}
			dd[x] = m
		}
		b.deliver(g)
		for x := int32(0); int(x) < n; x++ {
			if attached[x] {
				continue
			}
			if dd[x] >= unreachable && b.partial {
				b.setGroup(x, g, nil)
				continue
			}
			if dd[x] >= unreachable {
				for _, s := range g.attach {
					attached[s] = false
				}
				return b.unreachableError(x, g)
			}
			b.list = b.list[:0]
			for _, a := range b.adj[x] {
				if down[x] < unreachable {
					if rank[a.peer] > rank[x] && down[a.peer] == down[x]-1 {
						b.list = append(b.list, a.port)
					}
				} else if rank[a.peer] < rank[x] && dd[a.peer] == dd[x]-1 {
					b.list = append(b.list, a.port)
				}
			}
			b.setGroup(x, g, b.list)
		}
		for _, s := range g.attach {
			attached[s] = false
		}
	}
	return nil
}
