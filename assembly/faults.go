package assembly

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// Faults run as control-plane actions (Network.at: at observation points
// of their own in a run with a lookahead, where every partition stands at
// their time; engine events otherwise) that change nodes' state through
// their own small methods (swtch.Switch.PortDown, hca.HCA.SetPFCStorm, ...).
// Rerouting after a link changes state is the control plane's work: the
// runner computes the new tables (fabric.ComputeRoutesDegraded on the
// topology without the cut links) and installs them switch by switch, the
// ends of the link at once and a switch d hops away d × convergence
// later, so that switches disagree for a while (transient loops and
// bounces); or on every switch at once (installAtOnce).

// faultState is what the runner keeps across faults.
type faultState struct {
	down      []int // cut links (indexes in Topology.Links), ascending
	routeGen  int
	installed []int // by NodeID: the generation of the routes in use
	warnings  []string
	// slowed holds, for each rate a fault slows now (a port's under
	// slow-link, keyed by the *fabric.Port; a NIC's receive drain under
	// slow-receiver, keyed by the *hca.HCA), its rate before any did and
	// the faults that slow it, in the order they started: the latest
	// one's rate holds, and when the last ends the rate is back to what
	// it was (overlapping faults on one link or one host). Looked up by
	// key only, never iterated.
	slowed map[any]*slowedRate
}

// slowedRate is one rate's slowing faults under way (faultState.slowed).
type slowedRate struct {
	base   fabric.Rate
	active []*faultEvent
}

// faultEvent applies a fault at its start (Kind 0) and undoes it at its
// end (Kind 1).
type faultEvent struct {
	n      *Network
	f      resolve.Fault
	linkIx int
	// a slow link's two directions: ports[0] sends from f.A to f.B,
	// ports[1] back.
	ports [2]*fabric.Port
}

// scheduleFault arranges for a fault to be applied at its time.
func (n *Network) scheduleFault(f resolve.Fault) {
	if f.Action == "loss" {
		n.scheduleLoss(f)
		return
	}
	if n.faults == nil {
		n.faults = &faultState{installed: make([]int, len(n.Scenario.Topology.Nodes))}
	}
	fe := &faultEvent{n: n, f: f}
	if f.Action == "down" || f.Action == "up" {
		port, _ := n.Scenario.Topology.PortTo(f.A, f.B)
		fe.linkIx = n.Scenario.Topology.Nodes[f.A].Ports[port].Link
	}
	if f.Action == "slow-link" {
		a, _ := n.Scenario.Topology.PortTo(f.A, f.B)
		b, _ := n.Scenario.Topology.PortTo(f.B, f.A)
		fe.ports = [2]*fabric.Port{n.Fabric.Ports[f.A][a], n.Fabric.Ports[f.B][b]}
	}
	n.at(f.At, fe, 0)
	if f.Until != sim.Never {
		n.at(f.Until, fe, 1)
	}
}

func (fe *faultEvent) HandleEvent(ev *sim.Event) {
	n, f := fe.n, fe.f
	start := ev.Kind == 0
	switch f.Action {
	case "down":
		n.setLink(fe.linkIx, !start, f.Convergence)
	case "up":
		n.setLink(fe.linkIx, true, f.Convergence)
	case "pfc-storm":
		n.HCAs[f.Host].SetPFCStorm(f.Priority, start)
	case "rx-hang":
		n.HCAs[f.Host].SetRxHang(start)
	case "slow-receiver":
		h := n.HCAs[f.Host]
		h.SetRxRate(n.faults.slow(h, h.Prof.RxRate, fe, start))
	case "missing-entry":
		n.Switches[f.Switch].SetMissing(f.Dst, start)
	case "slow-link":
		// The frame on the wire keeps the rate it started at; the next
		// is serialized at the new one.
		for i, p := range fe.ports {
			if i == 1 && f.OneWay {
				break
			}
			p.Rate = n.faults.slow(p, p.Rate, fe, start)
		}
	}
}

// setLink cuts or restores a link and starts the control plane's
// reaction.
func (n *Network) setLink(ix int, up bool, convergence sim.Time) {
	fs := n.faults
	t := n.Scenario.Topology
	l := t.Links[ix]
	i, found := slices.BinarySearch(fs.down, ix)
	switch {
	case !up && !found:
		fs.down = slices.Insert(fs.down, i, ix)
	case up && found:
		fs.down = slices.Delete(fs.down, i, i+1)
	default:
		return // already so
	}
	for _, end := range [][2]int{{int(l.A), l.APort}, {int(l.B), l.BPort}} {
		if sw := n.Switches[end[0]]; sw != nil {
			sw.PortDown(end[1], !up)
		} else {
			n.Fabric.Ports[end[0]][end[1]].SetDown(!up)
			if h := n.HCAs[end[0]]; h != nil {
				h.PortChanged(1, up)
			} else if h := n.HCAs[t.Owner(fabric.NodeID(end[0]))]; h != nil {
				h.PortChanged(2, up) // a dual-port HCA's second port
			}
		}
	}
	aSw, bSw := n.Switches[l.A], n.Switches[l.B]
	if aSw == nil || bSw == nil {
		// A host's link: its switch forgets the host once its forwarding
		// entry ages out (convergence later), and learns it again as soon
		// as the link is back.
		sw, host := aSw, l.B
		if sw == nil {
			sw, host = bSw, l.A
		}
		if sw == nil {
			return
		}
		if up {
			sw.SetMissing(host, false)
		} else {
			n.at(n.Eng.Now()+convergence, &entryAging{sw: sw, host: host, n: n, ix: ix}, 0)
		}
		return
	}
	r, _, err := fabric.ComputeRoutesDegradedLMC(t.Without(fs.down), n.Scenario.Routing, n.Scenario.ExplicitRoutes, n.Scenario.IB.LMC)
	rAt := func(*swtch.Switch) *fabric.Routes { return r }
	if s := n.Scenario; s.Mixed() && err == nil {
		// The InfiniBand switches take the subnet manager's (vpi.go).
		var ib *fabric.Routes
		ib, _, err = fabric.ComputeRoutesDegraded(t.Without(fs.down), fabric.RoutingMinHop, s.ExplicitRoutes)
		rAt = func(sw *swtch.Switch) *fabric.Routes {
			if s.LinkLayerOf(sw.ID) == fabric.InfiniBand {
				return ib
			}
			return r
		}
	}
	if err != nil {
		fs.warnings = append(fs.warnings, fmt.Sprintf("at %s: routes could not be recomputed after %s–%s changed state (%v); switches keep their tables",
			n.Eng.Now(), t.Nodes[l.A].Name, t.Nodes[l.B].Name, err))
		return
	}
	fs.routeGen++
	if at, once := n.installAtOnce(convergence); once {
		for _, sw := range n.Switches {
			if sw != nil {
				n.at(n.Eng.Now()+at, &routeInstall{fs: fs, sw: sw, r: rAt(sw), gen: fs.routeGen}, 0)
			}
		}
		return
	}
	dist := switchHops(t, l.A, l.B)
	for id, sw := range n.Switches {
		if sw == nil {
			continue
		}
		if s := n.Scenario; s.Mixed() && s.LinkLayerOf(sw.ID) == fabric.InfiniBand {
			// A mixed network's InfiniBand side has its subnet manager,
			// which sweeps and pushes every table at once, sweep_delay
			// after a change on its side, as on an InfiniBand network.
			if s.LinkLayerOf(l.A) != fabric.InfiniBand {
				continue
			}
			n.at(n.Eng.Now()+s.IB.SweepDelay, &routeInstall{fs: fs, sw: sw, r: rAt(sw), gen: fs.routeGen}, 0)
			continue
		}
		if dist[id] < 0 {
			continue
		}
		n.at(n.Eng.Now()+sim.Time(dist[id])*convergence, &routeInstall{fs: fs, sw: sw, r: rAt(sw), gen: fs.routeGen}, 0)
	}
}

// installAtOnce says whether every switch takes its new table at one
// time, and how long after the change: on InfiniBand the subnet manager
// sweeps and pushes them all, sweep_delay later; RoCEv1's bridges move
// to the new spanning tree together, convergence later, because RSTP's
// proposal and agreement (IEEE 802.1D-2004, 17.10) hold a port
// discarding until both its ends agree, so the tree never loops while it
// changes (a frame meanwhile is lost, not looped). Routed Ethernet
// installs hop by hop.
func (n *Network) installAtOnce(convergence sim.Time) (sim.Time, bool) {
	switch {
	case n.Scenario.LinkLayer == fabric.InfiniBand:
		return n.Scenario.IB.SweepDelay, true
	case n.Scenario.Routing == fabric.RoutingSpanningTree:
		return convergence, true
	}
	return 0, false
}

// entryAging removes a switch's entry for a host whose link is still cut.
type entryAging struct {
	n    *Network
	sw   *swtch.Switch
	host fabric.NodeID
	ix   int
}

func (e *entryAging) HandleEvent(*sim.Event) {
	if _, down := slices.BinarySearch(e.n.faults.down, e.ix); down {
		e.sw.SetMissing(e.host, true)
	}
}

// routeInstall installs recomputed tables at one switch, unless newer
// ones are there already.
type routeInstall struct {
	fs  *faultState
	sw  *swtch.Switch
	r   *fabric.Routes
	gen int
}

func (ri *routeInstall) HandleEvent(*sim.Event) {
	if ri.fs.installed[ri.sw.ID] < ri.gen {
		ri.fs.installed[ri.sw.ID] = ri.gen
		ri.sw.SetRoutes(ri.r)
	}
}

// switchHops returns, by NodeID, each switch's hop distance (over
// switches, every link counted) from the nearer of a and b; -1 for hosts
// and switches it cannot reach.
func switchHops(t *fabric.Topology, a, b fabric.NodeID) []int {
	isSwitch := func(id fabric.NodeID) bool { return t.Nodes[id].Kind == fabric.Switch }
	var from []fabric.NodeID
	for _, s := range []fabric.NodeID{a, b} {
		if isSwitch(s) {
			from = append(from, s)
		}
	}
	return hops(t, from, isSwitch)
}

// hops returns, by NodeID, each node's hop distance from the nearest of
// from, by breadth-first search through the nodes that through admits (from's
// own need not pass it); -1 where it cannot reach.
func hops(t *fabric.Topology, from []fabric.NodeID, through func(fabric.NodeID) bool) []int {
	dist := make([]int, len(t.Nodes))
	for i := range dist {
		dist[i] = -1
	}
	var queue []fabric.NodeID
	for _, s := range from {
		if dist[s] < 0 {
			dist[s] = 0
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, p := range t.Nodes[x].Ports {
			if y := p.Peer; y >= 0 && dist[y] < 0 && through(y) {
				dist[y] = dist[x] + 1
				queue = append(queue, y)
			}
		}
	}
	return dist
}

// prepareFaultModels gives Tagger switches the up*/down* order.
func (n *Network) prepareFaultModels() error {
	var ranks []int32
	for _, sw := range n.Switches {
		if sw == nil || !sw.Prof.Tagger {
			continue
		}
		if ranks == nil {
			r, err := fabric.UpDownRanks(n.Scenario.Topology)
			if err != nil {
				return err
			}
			ranks = r
		}
		sw.SetUpDownRanks(ranks)
	}
	return nil
}

// faultSummary adds what faults, watchdogs and the detectors found to
// the summary: drops to cut links and full NIC buffers, watchdog trips,
// flooding, the deadlock and the PFC storm analysis.
func (n *Network) faultSummary(sum *reports.Summary) {
	var flooded, misdelivered int64
	for _, h := range n.HCAs {
		if h != nil {
			sum.PFC.WatchdogTrips += h.Stats.WatchdogTrips
			misdelivered += h.Stats.Misdelivered
		}
	}
	for _, sw := range n.Switches {
		if sw != nil {
			sum.PFC.WatchdogTrips += sw.Stats.WatchdogTrips
			flooded += sw.Stats.Flooded
		}
	}
	if flooded > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("switches flooded %d copies of lossless packets that had no forwarding entry (%d reached hosts they were not for); switch.flood_lossless: false drops them instead", flooded, misdelivered))
	}
	if n.faults != nil {
		sum.Warnings = append(sum.Warnings, n.faults.warnings...)
	}
	if n.det != nil {
		n.det.Finish(sum)
	}
}

// lossFault turns a link direction's random loss on (at its start) and
// off (at its end).
type lossFault struct {
	link *fabric.Link
	rate float64
	rng  *rand.Rand
}

func (l *lossFault) HandleEvent(ev *sim.Event) {
	if ev.Kind == 0 {
		l.link.SetLoss(l.rate, l.rng)
	} else {
		l.link.SetLoss(0, nil)
	}
}

// scheduleLoss applies a loss fault to both directions of its link.
func (n *Network) scheduleLoss(f resolve.Fault) {
	t := n.Scenario.Topology
	for _, d := range [][2]fabric.NodeID{{f.A, f.B}, {f.B, f.A}} {
		port, _ := t.PortTo(d[0], d[1])
		name := fmt.Sprintf("fault/loss/%s-%s", t.Nodes[d[0]].Name, t.Nodes[d[1]].Name)
		l := &lossFault{link: n.Fabric.LinkFrom(d[0], port), rate: f.Rate, rng: sim.Stream(n.Scenario.Seed, name)}
		n.at(f.At, l, 0)
		if f.Until != sim.Never {
			n.at(f.Until, l, 1)
		}
	}
}

// slow starts (start) or ends fault fe, which slows the rate keyed by
// key (faultState.slowed) to fe.rate(), and returns the rate key is to have,
// cur being the one it has now. While faults overlap on key the one
// started last sets its rate; when none is left the rate is back to what
// it was before the first, whatever order they end in.
func (fs *faultState) slow(key any, cur fabric.Rate, fe *faultEvent, start bool) fabric.Rate {
	if fs.slowed == nil {
		fs.slowed = map[any]*slowedRate{}
	}
	sr := fs.slowed[key]
	if start {
		if sr == nil {
			sr = &slowedRate{base: cur}
			fs.slowed[key] = sr
		}
		sr.active = append(sr.active, fe)
		return fe.rate()
	}
	if sr == nil {
		return cur
	}
	if i := slices.Index(sr.active, fe); i >= 0 {
		sr.active = slices.Delete(sr.active, i, i+1)
	}
	if len(sr.active) == 0 {
		delete(fs.slowed, key)
		return sr.base
	}
	return sr.active[len(sr.active)-1].rate()
}

// rate is the rate a slow-receiver or slow-link fault slows to.
func (fe *faultEvent) rate() fabric.Rate {
	if fe.f.Action == "slow-receiver" {
		return fe.f.RxRate
	}
	return fe.f.LinkRate
}
