package fabric

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/traverse"
)

// ComputeRoutes builds the tables. Explicit routes override the algorithm
// at their switch for their destination (all ports of At that face Via, in
// port order). It returns the loops that the tables contain (legal:
// deadlock labs build one on purpose; the caller warns), sorted
// deterministically. Errors: Via not a neighbour of At, At not a switch,
// Dst not a host, a destination unreachable from some switch; also an
// unknown algorithm, a Via that is a host other than Dst (hosts do not
// forward), and two explicit routes for the same At and Dst.
//
// Every algorithm routes over switches only: a host is the end of a path,
// never a hop in one. Distances are hop counts.
//
// ECMP: switch x forwards traffic for host d on every port whose peer is d
// itself, or whose peer is a switch y with dist(y,d) = dist(x,d)-1, where
// dist(x,d) is the minimum over the switches s that d is linked to of
// dist(x,s)+1. Parallel links are all next hops. Shortest keeps the
// lowest-numbered of those ports.
//
// Up*/down* (Schroeder et al., "Autonet", IEEE JSAC 1991): levels are hop
// distances from the root switches by breadth-first search. The roots are
// the switches with no hosts that are farthest from any host (the largest
// minimum hop distance to a host); where every switch has hosts, every
// switch is a root. (OpenSM's updn, RoutingUpDn, takes OpenSM's roots
// instead, or one root where OpenSM finds none: see RoutingUpDn.) The link x->y goes up if level(y) < level(x), or the
// levels are equal and NodeID(y) < NodeID(x); otherwise it goes down. This
// orients every link one way, without cycles. A legal path is zero or more
// up hops then zero or more down hops, and legal paths cannot form a cyclic
// channel dependency, so up*/down* routing cannot deadlock. Tables hold one
// entry per destination, not per input port, so each switch x applies this
// rule, which keeps every forwarded path legal:
//
//   - if x is linked to d, it delivers on the ports that face d;
//   - else if x can reach d by down hops only, it uses all its down
//     neighbours on shortest all-down paths to d (it must: a packet that
//     reached x by a down hop may not go up again, and the table cannot
//     tell how the packet came);
//   - otherwise it uses the up neighbours y that minimize D(y), where D(y)
//     is the length of the path that this rule gives from y.
//
// A packet therefore climbs until it reaches a switch with an all-down path
// and then only descends; D strictly decreases along the way, so there is
// no loop. With several roots some pairs may have no legal path (for
// example a chain of switches that all have hosts, oriented by NodeID
// alone); then the levels are recomputed from one root, the default root
// with the smallest NodeID, with which every switch of a connected fabric
// reaches every host (up its breadth-first tree to the root, then down).
//
// Tables computed by an algorithm never loop; only explicit routes can
// make a loop, so only their destinations are searched for loops.
func ComputeRoutes(t *Topology, algo RoutingAlgo, explicit []ExplicitRoute) (*Routes, []RouteLoop, error) {
	return computeRoutes(t, algo, explicit, false, 0)
}

// ComputeRoutesLMC is ComputeRoutes for hosts with 2^lmc LIDs each
// (InfiniBand's LMC). Only dfsssp's tables depend on it: OpenSM's dfsssp
// runs its Dijkstra once per LID, each over the weights the LIDs before
// it left, so a host's LIDs may take different paths; the other engines
// spread a host's LIDs at lookup (Routes.LFTPort) whatever the LMC.
func ComputeRoutesLMC(t *Topology, algo RoutingAlgo, explicit []ExplicitRoute, lmc int) (*Routes, []RouteLoop, error) {
	return computeRoutes(t, algo, explicit, false, lmc)
}

func computeRoutes(t *Topology, algo RoutingAlgo, explicit []ExplicitRoute, partial bool, lmc int) (*Routes, []RouteLoop, error) {
	switch algo {
	case "":
		algo = RoutingECMP
	case RoutingECMP, RoutingShortest, RoutingUpDown, RoutingSpanningTree, RoutingMinHop, RoutingUpDn, RoutingFtree, RoutingDFSSSP, RoutingLASH:
	default:
		return nil, nil, fmt.Errorf("unknown routing %q (want %s, %s, %s, %s, or OpenSM's %s, %s, %s, %s or %s)", string(algo),
			RoutingECMP, RoutingShortest, RoutingUpDown, RoutingSpanningTree, RoutingMinHop, RoutingUpDn, RoutingFtree, RoutingDFSSSP, RoutingLASH)
	}
	b := newRouteBuilder(t, algo)
	b.tables()
	b.partial = partial
	b.lmc = lmc
	if err := b.checkExplicit(explicit); err != nil {
		return nil, nil, err
	}
	if err := b.groupHosts(); err != nil {
		return nil, nil, err
	}
	b.distances()
	var err error
	switch algo {
	case RoutingFtree:
		// OpenSM's ftree routes fat trees only; it refuses the rest,
		// and OpenSM routes them with minhop.
		if b.ft = b.newFtree(); b.ft != nil {
			err = b.upDown()
		} else {
			err = b.ecmp(false)
		}
	case RoutingUpDown, RoutingUpDn:
		err = b.upDown()
	case RoutingSpanningTree:
		err = b.spanningTree()
	default:
		err = b.ecmp(algo == RoutingShortest)
	}
	if err != nil {
		return nil, nil, err
	}
	if algo.IsLFT() {
		b.pickOne(algo)
	}
	var dsts []NodeID
	for _, e := range explicit {
		b.setSpan(b.r.swIndex[e.At], b.r.hostIndex[e.Dst], b.emit(b.r.swIndex[e.At], b.portsFacing(e.At, e.Via)))
		dsts = append(dsts, e.Dst)
	}
	if err := b.r.compact(); err != nil {
		return nil, nil, err
	}
	slices.Sort(dsts)
	dsts = slices.Compact(dsts)
	var loops []RouteLoop
	for _, d := range dsts {
		loops = append(loops, b.r.loopsFor(t, d)...)
	}
	sortLoops(loops)
	return b.r, loops, nil
}

// unreachable is the distance of what cannot be reached; twice it still
// fits in an int32.
const unreachable = math.MaxInt32 / 4

type adjacency struct {
	port int32 // port number of the switch
	peer int32 // switch index of the neighbour
}

// hostGroup is the hosts that are linked to the same set of switches: away
// from those switches, their next hops are the same.
type hostGroup struct {
	attach []int32 // switch indexes, ascending
	hosts  []int32 // host indexes, ascending
}

type routeBuilder struct {
	t      *Topology
	r      *Routes
	sw     []NodeID      // switch index -> NodeID, ascending
	adj    [][]adjacency // switch index -> links to switches, in port order
	groups []hostGroup
	graph  switchGraph
	// hostSw lists the switches that have hosts; row[s] is the row of
	// switch s in dist (-1 if it has no hosts), and dist[row*len(sw)+x] is
	// the hop distance between it and switch x.
	hostSw []int32
	row    []int32
	dist   []int32
	last   []portRange
	list   []int32 // scratch
	// partial leaves an unreachable destination's list empty instead of
	// failing (ComputeRoutesDegraded).
	partial bool
	// ft is ftree's view of a fat tree (RoutingFtree), nil where OpenSM's
	// ftree would refuse the fabric.
	ft *ftree
	// lmc is the hosts' LMC (2^lmc LIDs a host), which dfsssp routes
	// LID by LID (ComputeRoutesLMC).
	lmc int
}

func newRouteBuilder(t *Topology, algo RoutingAlgo) *routeBuilder {
	hosts := t.Endpoints()
	r := &Routes{
		algo:      algo,
		hosts:     len(hosts),
		swIndex:   make([]int32, len(t.Nodes)),
		hostIndex: make([]int32, len(t.Nodes)),
	}
	b := &routeBuilder{t: t, r: r}
	for i := range t.Nodes {
		r.swIndex[i], r.hostIndex[i] = -1, -1
	}
	for i, h := range hosts {
		r.hostIndex[h] = int32(i)
	}
	for id, n := range t.Nodes {
		if n.Kind == Switch {
			r.swIndex[id] = int32(len(b.sw))
			b.sw = append(b.sw, NodeID(id))
		}
	}
	b.adj = make([][]adjacency, len(b.sw))
	for i, id := range b.sw {
		for p, ref := range t.Nodes[id].Ports {
			if ref.Peer < 0 || int(ref.Peer) >= len(t.Nodes) || t.Nodes[ref.Peer].Kind != Switch {
				continue
			}
			b.adj[i] = append(b.adj[i], adjacency{port: int32(p), peer: r.swIndex[ref.Peer]})
		}
	}
	return b
}

// tables makes the routing tables' spans, a switch-by-host array that
// only building routes needs (8 bytes an entry: 84 MB at k=32, before
// Routes.compact).
func (b *routeBuilder) tables() {
	b.r.spans = make([]portRange, len(b.sw)*b.r.hosts)
	b.r.base = make([]int32, len(b.sw))
	b.last = make([]portRange, len(b.sw))
	for i := range b.last {
		b.last[i].off = -1
	}
}

func (b *routeBuilder) name(n NodeID) string { return nodeName(b.t, n) }

func (b *routeBuilder) checkExplicit(explicit []ExplicitRoute) error {
	nodes := NodeID(len(b.t.Nodes))
	type key struct{ at, dst NodeID }
	seen := map[key]NodeID{}
	for _, e := range explicit {
		for _, n := range []NodeID{e.At, e.Dst, e.Via} {
			if n < 0 || n >= nodes {
				return fmt.Errorf("explicit route names node %d, which does not exist", n)
			}
		}
		if b.t.Nodes[e.At].Kind != Switch {
			return fmt.Errorf("explicit route at %s: %s is not a switch", b.name(e.At), b.name(e.At))
		}
		if b.t.Nodes[e.Dst].Kind != Host {
			return fmt.Errorf("explicit route at %s for %s: %s is not a host", b.name(e.At), b.name(e.Dst), b.name(e.Dst))
		}
		if _, ok := b.t.PortTo(e.At, e.Via); !ok {
			return fmt.Errorf("explicit route at %s for %s: %s is not a neighbour of %s", b.name(e.At), b.name(e.Dst), b.name(e.Via), b.name(e.At))
		}
		if b.t.Nodes[e.Via].Kind == Host && e.Via != e.Dst {
			return fmt.Errorf("explicit route at %s for %s: %s is a host, and hosts do not forward", b.name(e.At), b.name(e.Dst), b.name(e.Via))
		}
		if prev, dup := seen[key{e.At, e.Dst}]; dup {
			return fmt.Errorf("explicit route at %s for %s is given twice (via %s and via %s)", b.name(e.At), b.name(e.Dst), b.name(prev), b.name(e.Via))
		}
		seen[key{e.At, e.Dst}] = e.Via
	}
	return nil
}

// groupHosts groups the hosts by the set of switches they are linked to,
// in order of their first host.
func (b *routeBuilder) groupHosts() error {
	index := map[string]int{} // lookups only, never iterated
	var key []byte
	for hi, h := range b.t.Endpoints() {
		var attach []int32
		for _, ref := range b.t.Nodes[h].Ports {
			if ref.Peer >= 0 && int(ref.Peer) < len(b.t.Nodes) && b.t.Nodes[ref.Peer].Kind == Switch {
				attach = append(attach, b.r.swIndex[ref.Peer])
			}
		}
		if len(attach) == 0 {
			return fmt.Errorf("host %s is not linked to any switch, so no switch can reach it", b.name(h))
		}
		slices.Sort(attach)
		attach = slices.Compact(attach)
		key = key[:0]
		for _, s := range attach {
			key = strconv.AppendInt(key, int64(s), 10)
			key = append(key, ',')
		}
		g, ok := index[string(key)]
		if !ok {
			g = len(b.groups)
			index[string(key)] = g
			b.groups = append(b.groups, hostGroup{attach: attach})
		}
		b.groups[g].hosts = append(b.groups[g].hosts, int32(hi))
	}
	return nil
}

// distances fills b.dist with the hop distance between every switch that
// has hosts and every switch: one breadth-first search (gonum's) from each
// switch with hosts over the graph of switches. Distances are symmetric,
// and a destination is a host, so no other pair is needed.
func (b *routeBuilder) distances() {
	b.findHostSwitches()
	n := len(b.sw)
	b.dist = make([]int32, len(b.hostSw)*n)
	for i, s := range b.hostSw {
		b.bfs(b.dist[i*n:(i+1)*n], s)
	}
}

// findHostSwitches makes the switches' graph and lists the switches that
// have hosts (hostSw, row).
func (b *routeBuilder) findHostSwitches() {
	n := len(b.sw)
	b.graph = newSwitchGraph(b.adj)
	b.row = make([]int32, n)
	for i := range b.row {
		b.row[i] = -1
	}
	for _, g := range b.groups {
		for _, s := range g.attach {
			if b.row[s] < 0 {
				b.row[s] = 0
			}
		}
	}
	for s := range b.row {
		if b.row[s] == 0 {
			b.row[s] = int32(len(b.hostSw))
			b.hostSw = append(b.hostSw, int32(s))
		}
	}
}

// bfs sets dist[x] to the hop distance from switch from to switch x, or
// to unreachable.
func (b *routeBuilder) bfs(dist []int32, from int32) {
	for i := range dist {
		dist[i] = unreachable
	}
	var bfs traverse.BreadthFirst
	bfs.Walk(b.graph, simple.Node(from), func(v graph.Node, depth int) bool {
		if int(v.ID()) < len(dist) {
			dist[v.ID()] = int32(depth)
		}
		return false
	})
}

// switchGraph is the undirected graph of the switches, node ids being
// switch indexes, held in slices for gonum's traversals: a
// simple.UndirectedGraph keeps its edges in maps, and iterating them made
// the all-pairs search of a k=16 fat-tree about ten times slower.
type switchGraph struct{ nbrs [][]graph.Node }

func newSwitchGraph(adj [][]adjacency) switchGraph {
	g := switchGraph{nbrs: make([][]graph.Node, len(adj))}
	mark := make([]int, len(adj)) // last switch that listed the neighbour, plus one
	for i, as := range adj {
		for _, a := range as {
			if int(a.peer) != i && mark[a.peer] != i+1 { // no self links, parallel links once
				mark[a.peer] = i + 1
				g.nbrs[i] = append(g.nbrs[i], simple.Node(a.peer))
			}
		}
	}
	return g
}

// From returns the neighbours of switch id.
func (g switchGraph) From(id int64) graph.Nodes { return iterator.NewOrderedNodes(g.nbrs[id]) }

// Edge returns the edge from switch uid to switch vid, or nil if there is none.
func (g switchGraph) Edge(uid, vid int64) graph.Edge {
	for _, n := range g.nbrs[uid] {
		if n.ID() == vid {
			return simple.Edge{F: simple.Node(uid), T: n}
		}
	}
	return nil
}

func (b *routeBuilder) setSpan(si, hi int32, s portRange) {
	i := int(si)*b.r.hosts + int(hi)
	b.r.spans[i] = s
	if b.r.wide != nil {
		// After pickOne (an explicit route): the pinned ports are the
		// entry's only candidates too, for LMC's LIDs and the adaptive-
		// routing groups (Groups) alike.
		b.r.wide[i] = s
	}
}

// emit stores a next-hop list of switch si and returns its span; a list
// equal to the previous one of the same switch shares its storage.
func (b *routeBuilder) emit(si int32, list []int32) portRange {
	if l := b.last[si]; l.off >= 0 && slices.Equal(b.r.ports[l.off:l.off+l.n], list) {
		return l
	}
	s := portRange{off: int32(len(b.r.ports)), n: int32(len(list))}
	b.r.ports = append(b.r.ports, list...)
	b.last[si] = s
	return s
}

// portsFacing lists the ports of node at whose peer is to, ascending.
func (b *routeBuilder) portsFacing(at, to NodeID) []int32 {
	b.list = b.list[:0]
	for p, ref := range b.t.Nodes[at].Ports {
		if ref.Peer == to {
			b.list = append(b.list, int32(p))
		}
	}
	return b.list
}

// deliver sets, at each switch of the group's attachment, the ports that
// face each host of the group.
func (b *routeBuilder) deliver(g *hostGroup) {
	hosts := b.t.Endpoints()
	for _, si := range g.attach {
		for _, hi := range g.hosts {
			b.setSpan(si, hi, b.emit(si, b.portsFacing(b.sw[si], hosts[hi])))
		}
	}
}

// setGroup sets the list of switch si for every host of the group.
func (b *routeBuilder) setGroup(si int32, g *hostGroup, list []int32) {
	s := b.emit(si, list)
	for _, hi := range g.hosts {
		b.setSpan(si, hi, s)
	}
}

func (b *routeBuilder) unreachableError(si int32, g *hostGroup) error {
	return fmt.Errorf("%s cannot reach host %s: no path through switches", b.name(b.sw[si]), b.name(b.t.Endpoints()[g.hosts[0]]))
}
