package fabric

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
	"gonum.org/v1/gonum/graph/traverse"
)

// RoutingAlgo selects how switches compute next hops.
type RoutingAlgo string

// Routing algorithms. The empty RoutingAlgo means RoutingECMP.
const (
	RoutingECMP     RoutingAlgo = "ecmp"     // all shortest paths (hop count), default
	RoutingShortest RoutingAlgo = "shortest" // one shortest path: the lowest-numbered port among the ECMP set
	RoutingUpDown   RoutingAlgo = "updown"   // up*/down* (Autonet; Schroeder et al. 1991)
)

// ExplicitRoute pins, at switch At, the next hop for traffic to host Dst:
// the neighbour Via.
type ExplicitRoute struct{ At, Dst, Via NodeID }

// RouteLoop is a forwarding loop for one destination: Cycle lists switches
// in order, the first repeated implicitly at the end.
type RouteLoop struct {
	Dst   NodeID
	Cycle []NodeID
}

// Describe says what the loop does in the topology's names, e.g. "traffic
// for c loops s1 -> s2 -> s3 -> s1".
func (l RouteLoop) Describe(t *Topology) string {
	var b strings.Builder
	b.WriteString("traffic for ")
	b.WriteString(nodeName(t, l.Dst))
	b.WriteString(" loops")
	for i, n := range l.Cycle {
		if i > 0 {
			b.WriteString(" ->")
		}
		b.WriteByte(' ')
		b.WriteString(nodeName(t, n))
	}
	if len(l.Cycle) > 0 {
		b.WriteString(" -> ")
		b.WriteString(nodeName(t, l.Cycle[0]))
	}
	return b.String()
}

func nodeName(t *Topology, n NodeID) string {
	if t == nil || n < 0 || int(n) >= len(t.Nodes) {
		return "node " + strconv.Itoa(int(n))
	}
	return t.Nodes[n].Name
}

// Routes is every switch's next-hop ports per destination host.
//
// The tables are one backing array of port numbers; each switch's
// distinct next-hop lists, as spans of it; and per (switch, host index)
// the number of its list among the switch's, in 2 bytes. Identical
// consecutive lists of a switch (for example a core switch's single port
// toward every host of one pod) share their storage, and a switch has
// few distinct lists (about its ports' number), so a k=16 fat-tree (320
// switches, 1024 hosts) needs about 0.7 MB and a k=32 one (1,280
// switches, 8,192 hosts) 21 MB, where a span per entry took 2.6 and 84.
// Switches whose rows of entries are the same share one (a fat tree's
// aggregation switches of a pod, its core switches: 545 rows of a k=32
// one's 1,280, 9 MB).
type Routes struct {
	algo      RoutingAlgo
	hosts     int
	swIndex   []int32 // by NodeID: index among the switches, -1 for a host
	hostIndex []int32 // by NodeID: host index, -1 for a switch
	// entry[row[switch index] + host index] is the entry's list among
	// its switch's: lists[base[switch index]+entry]. wideEntry's rows
	// are at the same offsets.
	entry []uint16
	row   []int32
	base  []int32
	lists []portRange
	ports []int32 // every next-hop list, back to back
	// wideEntry keeps, for OpenSM's engines (one port per destination),
	// the candidate list each entry was chosen from, for the LIDs of an
	// LMC above 0 (LFTPort), in entry's form; nil for the others.
	wideEntry []uint16
	// spans and wide are the entries as spans while the tables are
	// built (compact turns them into entry and wideEntry).
	spans, wide []portRange
}

type portRange struct{ off, n int32 }

// Algo returns the algorithm the tables were computed with.
func (r *Routes) Algo() RoutingAlgo { return r.algo }

// NextPorts returns the ports of switch at that lead toward host dst, sorted
// ascending; empty if none (at is not a switch, dst not a host). The slice
// belongs to the tables: callers must not modify it (its capacity is capped,
// so appending to it copies). It does not allocate.
func (r *Routes) NextPorts(at, dst NodeID) []int32 {
	if uint(at) >= uint(len(r.swIndex)) || uint(dst) >= uint(len(r.hostIndex)) {
		return nil
	}
	si, hi := r.swIndex[at], r.hostIndex[dst]
	if si < 0 || hi < 0 {
		return nil
	}
	s := r.lists[int(r.base[si])+int(r.entry[int(r.row[si])+int(hi)])]
	return r.ports[s.off : s.off+s.n : s.off+s.n]
}

// RouteRow is one switch's part of the tables (Routes.Row): what it
// reads for each packet, found without the switch's index.
type RouteRow struct {
	hostIndex []int32
	entry     []uint16    // the switch's entries, by host index
	lists     []portRange // the switch's lists
	ports     []int32
	wide      []uint16 // the switch's wideEntry, or nil
}

// Row returns switch at's part of the tables (empty if at is not a
// switch).
func (r *Routes) Row(at NodeID) *RouteRow {
	if uint(at) >= uint(len(r.swIndex)) || r.swIndex[at] < 0 {
		return &RouteRow{}
	}
	si := int(r.swIndex[at])
	end := len(r.lists)
	if si+1 < len(r.base) {
		end = int(r.base[si+1])
	}
	off := int(r.row[si])
	row := &RouteRow{hostIndex: r.hostIndex, entry: r.entry[off : off+r.hosts : off+r.hosts], lists: r.lists[r.base[si]:end], ports: r.ports}
	if r.wideEntry != nil {
		row.wide = r.wideEntry[off : off+r.hosts : off+r.hosts]
	}
	return row
}

// Next is Routes.NextPorts for the row's switch.
func (w *RouteRow) Next(dst NodeID) []int32 {
	if uint(dst) >= uint(len(w.hostIndex)) {
		return nil
	}
	hi := w.hostIndex[dst]
	if hi < 0 || int(hi) >= len(w.entry) {
		return nil
	}
	s := w.lists[w.entry[hi]]
	return w.ports[s.off : s.off+s.n : s.off+s.n]
}

// LFTPort is Routes.LFTPort for the row's switch.
func (w *RouteRow) LFTPort(dst NodeID, j int) (port int32, ok bool) {
	next := w.Next(dst)
	if len(next) == 0 {
		return 0, false
	}
	if j == 0 || w.wide == nil {
		return next[0], true
	}
	hi := w.hostIndex[dst]
	return lmcPort(w.ports, w.lists[w.wide[hi]], w.lists[w.entry[hi]], j), true
}

// tableBytes is what the tables take: the ports, the lists, the entries
// and the node indexes.
func (r *Routes) tableBytes() int {
	return 4*len(r.ports) + 8*len(r.lists) + 2*(len(r.entry)+len(r.wideEntry)) + 4*(len(r.row)+len(r.base)+len(r.swIndex)+len(r.hostIndex))
}

// compact turns the spans the builders set into each switch's distinct
// lists and the entries' numbers among them (Routes), a row of them per
// switch, shared by switches whose rows are the same; and drops the
// spans.
func (r *Routes) compact() error {
	n := len(r.base)
	r.row = make([]int32, n)
	entry, wide := make([]uint16, r.hosts), []uint16(nil) // the row being made
	if r.wide != nil {
		wide = make([]uint16, r.hosts)
	}
	index := map[portRange]uint16{} // lookups only, never iterated
	rows := map[uint64][]int32{}    // offsets of the rows made so far by hash; lookups only
	for si := 0; si < n; si++ {
		r.base[si] = int32(len(r.lists))
		clear(index)
		number := func(s portRange) (uint16, error) {
			if i, ok := index[s]; ok {
				return i, nil
			}
			i := len(r.lists) - int(r.base[si])
			if i > math.MaxUint16 {
				return 0, fmt.Errorf("a switch has more than %d distinct next-hop lists", math.MaxUint16+1)
			}
			index[s] = uint16(i)
			r.lists = append(r.lists, s)
			return uint16(i), nil
		}
		for hi, s := range r.spans[si*r.hosts : (si+1)*r.hosts] {
			i, err := number(s)
			if err != nil {
				return err
			}
			entry[hi] = i
		}
		if r.wide != nil {
			for hi, s := range r.wide[si*r.hosts : (si+1)*r.hosts] {
				i, err := number(s)
				if err != nil {
					return err
				}
				wide[hi] = i
			}
		}
		r.row[si] = r.shareRow(rows, entry, wide)
	}
	r.lists = slices.Clip(r.lists)
	// Exactly their size: appended row by row, they may hold up to
	// twice as much (8.9 MB of entries at k=32).
	r.entry, r.wideEntry = slices.Clone(r.entry), slices.Clone(r.wideEntry)
	r.spans, r.wide = nil, nil
	return nil
}

// shareRow returns the offset of a row of entries equal to entry (and
// wide, for wideEntry), appending them if there is none yet.
func (r *Routes) shareRow(rows map[uint64][]int32, entry, wide []uint16) int32 {
	key := uint64(14695981039346656037) // FNV-1a, a number at a time
	for _, row := range [][]uint16{entry, wide} {
		for _, e := range row {
			key = (key ^ uint64(e)) * 1099511628211
		}
	}
	for _, off := range rows[key] {
		if slices.Equal(r.entry[off:int(off)+len(entry)], entry) && (wide == nil || slices.Equal(r.wideEntry[off:int(off)+len(wide)], wide)) {
			return off
		}
	}
	off := int32(len(r.entry))
	r.entry = append(r.entry, entry...)
	if wide != nil {
		r.wideEntry = append(r.wideEntry, wide...)
	}
	rows[key] = append(rows[key], off)
	return off
}

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
// switch is a root. The link x->y goes up if level(y) < level(x), or the
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
	return computeRoutes(t, algo, explicit, false)
}

func computeRoutes(t *Topology, algo RoutingAlgo, explicit []ExplicitRoute, partial bool) (*Routes, []RouteLoop, error) {
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
	if err := b.checkExplicit(explicit); err != nil {
		return nil, nil, err
	}
	if err := b.groupHosts(); err != nil {
		return nil, nil, err
	}
	b.distances()
	var err error
	switch algo {
	case RoutingUpDown, RoutingUpDn, RoutingFtree:
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
	for x := 0; x < n; x++ {
		if best < 0 || (b.row[x] < 0 && far[x] == best) {
			roots = append(roots, simple.Node(x))
			if singleRoot {
				break
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
