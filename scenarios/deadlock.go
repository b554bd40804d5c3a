package scenarios

import (
	"slices"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// The deadlock detector and the storm analysis watch the run from outside
// (like the sampler): they read the nodes' state and change none of it.
//
// The buffer dependency graph has a node per switch egress queue (switch,
// port, priority) that holds packets and is paused by its link partner
// (and not released by a PFC watchdog). Queue A at switch X waits on
// queue B at switch Y when A's port leads to Y's ingress port i, Y is
// pausing i on A's priority (i is above XOFF), and B holds packets that
// came in on i: B must drain before i drops to XON and A may send. A
// cycle in this graph cannot drain by itself. The graph is built and
// searched (gonum's topo.TarjanSCC; a cycle is looked for only inside a
// strongly connected component) only when a switch egress becomes paused
// or a packet joins an empty paused queue: the only moments a new cycle
// can close. Its size is the number of paused, non-empty queues, so the
// cost follows pausing, not traffic. A cycle found becomes a candidate;
// if it still holds observe.deadlock.after later it is reported, with
// the time it formed.

// stormAfter is how long a port must stay paused, continuously, by a
// switch (a pause that has travelled at least one switch from where it
// began) for the run to report a PFC storm (pfc.storm_detected). Pauses
// from congestion come and go within the time a queue takes to drain from
// XOFF to XON (microseconds); 100 µs of unbroken pause is a port stuck.
const stormAfter = 100 * sim.Microsecond

// maxSpread bounds summary.json's pfc.spread.
const maxSpread = 64

type qnode struct {
	sw   *swtch.Switch
	port int
	prio uint8
}

func (a qnode) less(b qnode) int {
	if a.sw.ID != b.sw.ID {
		return int(a.sw.ID) - int(b.sw.ID)
	}
	if a.port != b.port {
		return a.port - b.port
	}
	return int(a.prio) - int(b.prio)
}

type detector struct {
	n     *Network
	after sim.Time

	paused []qnode       // switch egress queues whose priority is paused
	where  map[int]int   // key(q) -> index in paused; lookups only
	base   []int         // by NodeID: the first global port number
	since  [][8]sim.Time // by global port: when the pause began
	first  []sim.Time    // by global port: first pause, -1 if never

	cand      []qnode
	candSince sim.Time
	candGen   int64

	Found  bool
	At     sim.Time
	Cycle  []string
	Storm  bool
	Checks int64 // graph searches run, for the benchmark and tests

	nodes    []qnode
	out      [][]int64
	checkDue bool // a coalesced search is scheduled
}

// Detector event kinds.
const (
	evConfirm int32 = iota // a candidate cycle has held for observe.deadlock.after
	evCheck                // the coalesced search after pause changes
)

// trigger asks for a search. Pause changes come in bursts (a fat-tree under
// heavy PFC pauses thousands of times a millisecond), so searches are
// coalesced: at most one per after/8 of simulated time, which bounds the
// detector's cost and dates a cycle's formation to within after/8.
func (d *detector) trigger() {
	if d.Found || d.checkDue {
		return
	}
	d.checkDue = true
	d.n.Eng.After(max(d.after/8, sim.Nanosecond), d, evCheck, 0, nil)
}

func (n *Network) startDetector() *detector {
	d := &detector{n: n, after: n.Scenario.Observe.DeadlockAfter, where: map[int]int{}}
	d.base = make([]int, len(n.Fabric.Ports))
	total := 0
	for id, ports := range n.Fabric.Ports {
		d.base[id] = total
		total += len(ports)
	}
	d.since = make([][8]sim.Time, total)
	d.first = make([]sim.Time, total)
	for i := range d.first {
		d.first[i] = -1
	}
	for _, ports := range n.Fabric.Ports {
		for _, p := range ports {
			p.OnPauseState = d.pauseChanged
		}
	}
	for _, sw := range n.Switches {
		if sw != nil {
			sw.OnBlocked = d.blocked
		}
	}
	return d
}

func (d *detector) gid(p *fabric.Port) int { return d.base[p.Node] + p.Index }

func (d *detector) pauseChanged(p *fabric.Port, prio uint8, paused bool) {
	now := d.n.Eng.Now()
	g := d.gid(p)
	if !paused {
		d.pauseEnded(p, g, prio, now)
	} else {
		d.since[g][prio] = now
		if d.first[g] < 0 {
			d.first[g] = now
		}
	}
	sw := d.n.Switches[p.Node]
	if sw == nil {
		return
	}
	key := g*8 + int(prio)
	if paused {
		d.where[key] = len(d.paused)
		d.paused = append(d.paused, qnode{sw: sw, port: p.Index, prio: prio})
		d.trigger()
		return
	}
	i := d.where[key]
	delete(d.where, key)
	last := len(d.paused) - 1
	if i != last {
		d.paused[i] = d.paused[last]
		q := d.paused[i]
		d.where[d.gid(q.sw.Ports()[q.port])*8+int(q.prio)] = i
	}
	d.paused = d.paused[:last]
}

// pauseEnded checks a finished pause for a storm.
func (d *detector) pauseEnded(p *fabric.Port, g int, prio uint8, now sim.Time) {
	if d.Storm || now-d.since[g][prio] < stormAfter {
		return
	}
	if d.n.Switches[p.Peer().Node] != nil {
		d.Storm = true
	}
}

func (d *detector) blocked(*swtch.Switch, int, uint8) { d.trigger() }

// waitsOn reports whether queue a waits on queue b.
func waitsOn(a, b qnode) bool {
	peer := a.sw.Ports()[a.port].Peer()
	if peer.Node != b.sw.ID {
		return false
	}
	return b.sw.IngressPaused(peer.Index, a.prio) && b.sw.QueueHolds(b.port, b.prio, peer.Index, a.prio)
}

// holds reports whether every queue of a cycle still waits on the next.
func holds(cycle []qnode) bool {
	for i, a := range cycle {
		b := cycle[(i+1)%len(cycle)]
		if !a.sw.Waiting(a.port, a.prio) || !waitsOn(a, b) {
			return false
		}
	}
	return true
}

func (d *detector) check() {
	if d.Found || (d.cand != nil && holds(d.cand)) {
		return
	}
	d.cand = nil
	d.nodes = d.nodes[:0]
	for _, q := range d.paused {
		if q.sw.Waiting(q.port, q.prio) {
			d.nodes = append(d.nodes, q)
		}
	}
	if len(d.nodes) < 2 {
		return
	}
	d.Checks++
	slices.SortFunc(d.nodes, qnode.less)
	for len(d.out) < len(d.nodes) {
		d.out = append(d.out, nil)
	}
	edges := 0
	for i, a := range d.nodes {
		d.out[i] = d.out[i][:0]
		peer := a.sw.Ports()[a.port].Peer()
		if d.n.Switches[peer.Node] == nil {
			continue
		}
		// The nodes are sorted by switch: scan the peer switch's run.
		j, _ := slices.BinarySearchFunc(d.nodes, peer.Node, func(q qnode, id fabric.NodeID) int { return int(q.sw.ID) - int(id) })
		for ; j < len(d.nodes) && d.nodes[j].sw.ID == peer.Node; j++ {
			if waitsOn(a, d.nodes[j]) {
				d.out[i] = append(d.out[i], int64(j))
				edges++
			}
		}
	}
	if edges < 2 {
		return
	}
	g := depGraph{n: len(d.nodes), out: d.out[:len(d.nodes)]}
	var best []qnode
	for _, scc := range topo.TarjanSCC(g) {
		if len(scc) < 2 {
			continue
		}
		v := scc[0].ID()
		for _, x := range scc {
			v = min(v, x.ID())
		}
		if best != nil && best[0].less(d.nodes[v]) < 0 {
			continue
		}
		best = d.cycleThrough(g, v, scc)
	}
	if best == nil {
		return
	}
	d.cand, d.candSince = best, d.n.Eng.Now()
	d.candGen++
	d.n.Eng.After(d.after, d, evConfirm, d.candGen, nil)
}

// cycleThrough is the shortest cycle from v back to v inside its
// component, by breadth-first search in node order.
func (d *detector) cycleThrough(g depGraph, v int64, scc []graph.Node) []qnode {
	in := make([]bool, g.n)
	for _, x := range scc {
		in[x.ID()] = true
	}
	parent := make([]int64, g.n)
	for i := range parent {
		parent[i] = -1
	}
	parent[v] = v
	queue := []int64{v}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, w := range g.out[u] {
			if w == v {
				var c []qnode
				for x := u; x != v; x = parent[x] {
					c = append(c, d.nodes[x])
				}
				c = append(c, d.nodes[v])
				slices.Reverse(c)
				return c
			}
			if in[w] && parent[w] < 0 {
				parent[w] = u
				queue = append(queue, w)
			}
		}
	}
	return nil
}

// HandleEvent runs a coalesced search, or confirms a candidate cycle
// after observe.deadlock.after.
func (d *detector) HandleEvent(ev *sim.Event) {
	if ev.Kind == evCheck {
		d.checkDue = false
		d.check()
		return
	}
	if d.Found || ev.N != d.candGen || d.cand == nil {
		return
	}
	if !holds(d.cand) {
		d.cand = nil
		d.check()
		return
	}
	d.Found, d.At = true, d.candSince
	d.n.poll()
	t := d.n.Scenario.Topology
	for _, q := range d.cand {
		d.Cycle = append(d.Cycle, t.PortName(q.sw.ID, q.port))
	}
}

// finish closes the storm analysis at the end of the run and fills the
// summary's deadlock and PFC fields.
func (d *detector) finish(sum *reports.Summary) {
	now := d.n.Eng.Now()
	type row struct {
		g    int
		port *fabric.Port
	}
	var rows []row
	for _, ports := range d.n.Fabric.Ports {
		for _, p := range ports {
			g := d.gid(p)
			for prio := uint8(0); prio < 8; prio++ {
				if p.Paused(prio) {
					d.pauseEnded(p, g, prio, now)
				}
			}
			if d.first[g] >= 0 {
				rows = append(rows, row{g, p})
			}
		}
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		if d.first[a.g] != d.first[b.g] {
			return int(d.first[a.g] - d.first[b.g])
		}
		return a.g - b.g
	})
	sum.PFC.StormDetected = d.Storm
	sum.PFC.Spread = []reports.PFCSpread{}
	for _, r := range rows {
		if len(sum.PFC.Spread) == maxSpread {
			break
		}
		var worst sim.Time
		for prio := uint8(0); prio < 8; prio++ {
			worst = max(worst, r.port.PausedTime(prio))
		}
		frac := 0.0
		if now > 0 {
			frac = reports.Round(float64(worst)/float64(now), 4)
		}
		sum.PFC.Spread = append(sum.PFC.Spread, reports.PFCSpread{
			Port: r.port.Name, By: r.port.Peer().Name, FirstNs: d.first[r.g].Nanoseconds(), PausedFraction: frac})
	}
	if d.Found {
		sum.Deadlock = reports.Deadlock{Detected: true, AtNs: d.At.Nanoseconds(), Cycle: d.Cycle}
	}
}

// depGraph is the dependency graph in slices, for gonum: node ids are
// indexes into the sorted node list, so that the search does not depend
// on map order.
type depGraph struct {
	n   int
	out [][]int64
}

func (g depGraph) Node(id int64) graph.Node {
	if id < 0 || id >= int64(g.n) {
		return nil
	}
	return simple.Node(id)
}

func (g depGraph) Nodes() graph.Nodes {
	ns := make([]graph.Node, g.n)
	for i := range ns {
		ns[i] = simple.Node(i)
	}
	return iterator.NewOrderedNodes(ns)
}

func (g depGraph) From(id int64) graph.Nodes {
	ns := make([]graph.Node, len(g.out[id]))
	for i, w := range g.out[id] {
		ns[i] = simple.Node(w)
	}
	return iterator.NewOrderedNodes(ns)
}

func (g depGraph) To(id int64) graph.Nodes {
	var ns []graph.Node
	for u := range g.out {
		if slices.Contains(g.out[u], id) {
			ns = append(ns, simple.Node(u))
		}
	}
	return iterator.NewOrderedNodes(ns)
}

func (g depGraph) HasEdgeBetween(x, y int64) bool {
	return g.HasEdgeFromTo(x, y) || g.HasEdgeFromTo(y, x)
}

func (g depGraph) HasEdgeFromTo(u, v int64) bool { return slices.Contains(g.out[u], v) }

func (g depGraph) Edge(u, v int64) graph.Edge {
	if !g.HasEdgeFromTo(u, v) {
		return nil
	}
	return simple.Edge{F: simple.Node(u), T: simple.Node(v)}
}
