package observe

import (
	"slices"

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
// searched (Tarjan's strongly connected components, scc.go; a cycle is
// looked for only inside a component) only when a switch egress becomes
// paused or a packet joins an empty paused queue: the only moments a new
// cycle can close. Its size is the number of paused, non-empty queues, so
// the cost follows pausing, not traffic, and a search allocates nothing
// once its buffers have grown to the largest graph so far. A cycle found
// becomes a candidate; if it still holds observe.deadlock.after later it
// is reported, with the time it formed.

// stormAfter: a run reports a PFC storm (pfc.storm_detected) when a port
// is held paused by a switch while that switch's ingress for the port and
// priority, whose occupancy keeps the pause on, drains nothing for
// stormAfter: the paused traffic is stuck, not slowed (Guo et al.,
// SIGCOMM 2016: a pause that persists without the queue draining). A
// congestion pause, however long (an incast's crosses a spine for over
// 100 µs), drains all along, at the share of the congested port its
// ingress gets. The pausing ingresses of the ports paused are looked at
// together every stormStep while any is (one event, however many).
const (
	stormAfter = 100 * sim.Microsecond
	stormStep  = stormAfter / 2
)

// stormProbe follows one pause for the storm rule: the pausing ingress's
// occupancy at the last look, and when it last fell.
type stormProbe struct {
	sw      *swtch.Switch // the switch that pauses
	in      int           // its ingress port (the paused port's peer)
	prio    uint8
	key     int32 // the paused port's key (global port × 8 + priority)
	occ     int64
	drained sim.Time
}

// maxSpread bounds summary.json's pfc.spread.
const maxSpread = 64

// qnode is a switch egress queue. key orders queues by switch (NodeID),
// port and priority: the port's global number times 8 plus the priority.
type qnode struct {
	sw   *swtch.Switch
	port int
	prio uint8
	key  int32
}

func (a qnode) less(b qnode) int { return int(a.key - b.key) }

// Detector is the deadlock detector and the PFC storm analysis of one run.
type Detector struct {
	v     *View
	after sim.Time

	paused []qnode       // switch egress queues whose priority is paused
	where  []int32       // by key: the queue's index in paused, while it is there
	base   []int         // by NodeID: the first global port number; one more at the end, the total
	since  [][8]sim.Time // by global port: when the pause began
	first  []sim.Time    // by global port: first pause, -1 if never

	cand      []qnode
	candSince sim.Time
	candGen   int64

	Found bool
	At    sim.Time
	Cycle []string
	Storm bool
	// StormCause says why the first storm found drained nothing
	// (stormCause).
	StormCause string
	Checks     int64 // graph searches run, for the benchmark and tests
	// LongestPause is the longest a switch held a port paused without a
	// break (ended pauses, and those under way when the run ended).
	LongestPause sim.Time

	// probes are the pauses the storm rule follows, in no order; probeAt
	// is, by the paused port's key, one past its probe's index (0: none).
	// lookDue: the next look is scheduled.
	probes  []stormProbe
	probeAt []int32
	lookDue bool

	// A search's graph and buffers, kept from one search to the next.
	nodes    []qnode
	graph    depGraph
	scc      sccFinder
	parent   []int32
	queue    []int32
	checkDue bool // a coalesced search is scheduled

	now sim.Time // the time of what the detector is handling
	// windowed: the run can be cut (issue 31), and the detector acts at
	// the run's observation points (window.go) rather than in events.
	windowed bool
	win      windowState
}

// Detector event kinds.
const (
	evConfirm int32 = iota // a candidate cycle has held for observe.deadlock.after
	evCheck                // the coalesced search after pause changes
	evStorm                // a look at the pausing ingresses of the ports paused
)

// trigger asks for a search. Pause changes come in bursts (a fat-tree under
// heavy PFC pauses thousands of times a millisecond), so searches are
// coalesced: at most one per after/8 of simulated time, which bounds the
// detector's cost and dates a cycle's formation to within after/8.
func (d *Detector) trigger() {
	if d.Found || d.checkDue {
		return
	}
	d.checkDue = true
	d.after_(max(d.after/8, sim.Nanosecond), evCheck, 0)
}

// StartDetector hooks a detector onto every port and switch of v. A
// cycle must hold for after (observe.deadlock.after) to be reported.
func StartDetector(v *View, after sim.Time) *Detector {
	d := newDetector(v, after)
	changed := d.pauseChanged // one method value for every port, not one each
	for _, ports := range v.Ports {
		for _, p := range ports {
			p.OnPauseState = changed
		}
	}
	for _, sw := range v.Switches {
		if sw != nil {
			sw.OnBlocked = d.blocked
		}
	}
	return d
}

// newDetector makes a detector of v's ports, hooked to nothing yet.
func newDetector(v *View, after sim.Time) *Detector {
	d := &Detector{v: v, after: after}
	d.base = make([]int, len(v.Ports)+1)
	total := 0
	for id, ports := range v.Ports {
		d.base[id] = total
		total += len(ports)
	}
	d.base[len(v.Ports)] = total
	d.where = make([]int32, total*8)
	d.probeAt = make([]int32, total*8)
	d.since = make([][8]sim.Time, total)
	d.first = make([]sim.Time, total)
	for i := range d.first {
		d.first[i] = -1
	}
	return d
}

func (d *Detector) gid(p *fabric.Port) int { return d.base[p.Node] + p.Index }

func (d *Detector) pauseChanged(p *fabric.Port, prio uint8, paused bool) {
	d.applyPause(p, prio, paused, d.v.Eng.Now())
}

// applyPause is a pause of p's priority prio beginning (paused) or
// ending at now.
func (d *Detector) applyPause(p *fabric.Port, prio uint8, paused bool, now sim.Time) {
	d.now = now
	g := d.gid(p)
	if !paused {
		d.pauseEnded(p, g, prio, now)
	} else {
		d.since[g][prio] = now
		if d.first[g] < 0 {
			d.first[g] = now
		}
		d.follow(p, g, prio, now)
	}
	sw := d.v.Switches[p.Node]
	if sw == nil {
		return
	}
	key := int32(g*8 + int(prio))
	if paused {
		d.where[key] = int32(len(d.paused))
		d.paused = append(d.paused, qnode{sw: sw, port: p.Index, prio: prio, key: key})
		d.trigger()
		return
	}
	i := d.where[key]
	if int(i) >= len(d.paused) || d.paused[i].key != key {
		return // a pause that began before the detector started watching
	}
	last := int32(len(d.paused) - 1)
	if i != last {
		d.paused[i] = d.paused[last]
		d.where[d.paused[i].key] = i
	}
	d.paused = d.paused[:last]
}

// follow starts the storm rule's looks at a pause that a switch holds on
// port p. An InfiniBand port's "pause" is a wait for credit, which a
// receiver that drains slowly (an incast's) holds for as long as it is
// busy: there is no PAUSE to storm, and a credit loop is the deadlock
// detector's.
func (d *Detector) follow(p *fabric.Port, g int, prio uint8, now sim.Time) {
	peer := p.Peer()
	sw := d.v.Switches[peer.Node]
	if d.Storm || sw == nil || p.CreditState() != nil {
		return
	}
	key := int32(g*8 + int(prio))
	if d.probeAt[key] != 0 {
		return // followed already
	}
	d.probes = append(d.probes, stormProbe{sw: sw, in: peer.Index, prio: prio, key: key, occ: sw.IngressBytes(peer.Index, prio), drained: now})
	d.probeAt[key] = int32(len(d.probes))
	if !d.lookDue {
		d.lookDue = true
		d.after_(stormStep, evStorm, 0)
	}
}

// look applies the storm rule to pr's pause now: a fall of the pausing
// ingress's occupancy is a drain; none for stormAfter is a storm.
func (d *Detector) look(pr *stormProbe, now sim.Time) {
	if occ := pr.sw.IngressBytes(pr.in, pr.prio); occ < pr.occ {
		pr.drained = now
		pr.occ = occ
	} else {
		pr.occ = occ
		if now-pr.drained >= stormAfter {
			d.Storm = true
			d.StormCause = d.stormCause(pr)
		}
	}
}

// pauseEnded closes a pause's storm probe, looking once more: the pause
// may end at the run's end without having drained.
func (d *Detector) pauseEnded(_ *fabric.Port, g int, prio uint8, now sim.Time) {
	key := int32(g*8 + int(prio))
	d.LongestPause = max(d.LongestPause, now-d.since[g][prio])
	i := d.probeAt[key] - 1
	if i < 0 {
		return
	}
	if !d.Storm {
		d.look(&d.probes[i], now)
	}
	last := int32(len(d.probes) - 1)
	if i != last {
		d.probes[i] = d.probes[last]
		d.probeAt[d.probes[i].key] = i + 1
	}
	d.probes = d.probes[:last]
	d.probeAt[key] = 0
}

func (d *Detector) blocked(*swtch.Switch, int, uint8) {
	d.now = d.v.Eng.Now()
	d.trigger()
}

// filling reports whether queue q waits for credit (InfiniBand) that its
// peer switch's input buffer does not yet refuse: the packets the peer
// granted credit for are still on the wire, or leave as others come. No
// pause changes when that buffer fills, so the detector looks again
// rather than wait for an event that a frozen credit loop never makes.
func (d *Detector) filling(q qnode) bool {
	p := q.sw.Ports()[q.port]
	if p.CreditState() == nil {
		return false // Ethernet: the peer's XOFF and this port's pause change together
	}
	peer := p.Peer()
	sw := d.v.Switches[peer.Node]
	return sw != nil && !sw.IngressPaused(peer.Index, q.prio)
}

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

func (d *Detector) check() {
	if d.Found || (d.cand != nil && holds(d.cand)) {
		return
	}
	d.cand = nil
	d.nodes = d.nodes[:0]
	filling := false
	for _, q := range d.paused {
		if q.sw.Waiting(q.port, q.prio) {
			d.nodes = append(d.nodes, q)
			filling = filling || d.filling(q)
		}
	}
	if filling {
		// Defer a search that could find this state's cycle only once
		// buffers filled, should it find none now (cand stays nil).
		defer func() {
			if d.cand == nil {
				d.trigger()
			}
		}()
	}
	if len(d.nodes) < 2 {
		return
	}
	d.Checks++
	slices.SortFunc(d.nodes, qnode.less)
	g := &d.graph
	g.reset()
	for _, a := range d.nodes {
		g.startNode()
		peer := a.sw.Ports()[a.port].Peer()
		if d.v.Switches[peer.Node] == nil {
			continue
		}
		// The nodes are sorted by key, so by switch: scan the peer
		// switch's run of them.
		lo := int32(d.base[peer.Node] * 8)
		hi := int32(d.base[peer.Node+1] * 8)
		j, _ := slices.BinarySearchFunc(d.nodes, lo, func(q qnode, k int32) int { return int(q.key - k) })
		for ; j < len(d.nodes) && d.nodes[j].key < hi; j++ {
			if waitsOn(a, d.nodes[j]) {
				g.addEdge(int32(j))
			}
		}
	}
	if g.edges() < 2 {
		return
	}
	// The cycle reported lies in the component whose least node is least
	// of all components of two or more, a choice independent of the order
	// in which the search finds them.
	v, comp := d.scc.least(g)
	if v < 0 {
		return
	}
	best := d.cycleThrough(v, comp)
	if best == nil {
		return
	}
	d.cand, d.candSince = best, d.now
	d.candGen++
	d.after_(d.after, evConfirm, d.candGen)
}

// cycleThrough is the shortest cycle from v back to v inside its
// component (comp), by breadth-first search in node order.
func (d *Detector) cycleThrough(v, comp int32) []qnode {
	g := &d.graph
	d.parent = fill(d.parent, g.nodes(), -1)
	d.parent[v] = v
	d.queue = append(d.queue[:0], v)
	for h := 0; h < len(d.queue); h++ {
		u := d.queue[h]
		for _, w := range g.from(u) {
			if w == v {
				var c []qnode
				for x := u; x != v; x = d.parent[x] {
					c = append(c, d.nodes[x])
				}
				c = append(c, d.nodes[v])
				slices.Reverse(c)
				return c
			}
			if d.scc.comp[w] == comp && d.parent[w] < 0 {
				d.parent[w] = u
				d.queue = append(d.queue, w)
			}
		}
	}
	return nil
}

// HandleEvent runs a coalesced search, or confirms a candidate cycle
// after observe.deadlock.after.
func (d *Detector) HandleEvent(ev *sim.Event) {
	d.now = d.v.Eng.Now()
	d.fire(ev.Kind, ev.N)
}

// fire runs a search (evCheck), the storm rule's look (evStorm), or
// confirms a candidate cycle (evConfirm, of candidate gen), at d.now.
func (d *Detector) fire(kind int32, gen int64) {
	if kind == evStorm {
		d.lookDue = false
		now := d.now
		for i := range d.probes {
			if d.Storm {
				break
			}
			d.look(&d.probes[i], now)
		}
		if len(d.probes) > 0 && !d.Storm {
			d.lookDue = true
			d.after_(stormStep, evStorm, 0)
		}
		return
	}
	if kind == evCheck {
		d.checkDue = false
		d.check()
		return
	}
	if d.Found || gen != d.candGen || d.cand == nil {
		return
	}
	if !holds(d.cand) {
		d.cand = nil
		d.check()
		return
	}
	d.Found, d.At = true, d.candSince
	d.v.Poll()
	t := d.v.Topology
	for _, q := range d.cand {
		d.Cycle = append(d.Cycle, t.PortName(q.sw.ID, q.port))
	}
}

// Finish closes the storm analysis at the end of the run and fills the
// summary's deadlock and PFC fields.
func (d *Detector) Finish(sum *reports.Summary) {
	now := d.v.Eng.Now()
	d.now = now
	type row struct {
		g    int
		port *fabric.Port
	}
	var rows []row
	for _, ports := range d.v.Ports {
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
	sum.PFC.StormCause = d.StormCause
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
		ll := ""
		if d.v.Mixed {
			ll = fabric.Ethernet.String()
			if r.port.Credits() {
				ll = fabric.InfiniBand.String()
			}
		}
		sum.PFC.Spread = append(sum.PFC.Spread, reports.PFCSpread{
			Port: r.port.Name, By: r.port.Peer().Name, FirstNs: d.first[r.g].Nanoseconds(), PausedFraction: frac, LinkLayer: ll})
	}
	if d.Found {
		sum.Deadlock = reports.Deadlock{Detected: true, AtNs: d.At.Nanoseconds(), Cycle: d.Cycle}
	}
}
