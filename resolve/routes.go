package resolve

import (
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
)

func (b *builder) routes() {
	r := b.f.Topology.Route
	if r == nil || b.t == nil {
		return
	}
	switch {
	case r.Routing.Set && !b.transportRow().Routed:
		b.errorf(r.Routing.Pos, "topology.routing", "%s frames are bridged, not routed: switches forward them by MAC along one spanning tree, so there is no routing to choose (hca.transport: %s routes them)", b.transportRow().Title, kind.Transports()[0].Name)
	case r.Routing.Set:
		b.s.Routing = fabric.RoutingAlgo(r.Routing.V)
	}
	errs := b.d.ErrorCount()
	for _, it := range r.Routes.Items {
		path := strings.TrimSuffix(it.Path, "."+scenario.Show(it.Dst.V))
		at, ok := b.t.Lookup(it.At.V)
		switch {
		case !ok:
			sw := b.switchNames()
			b.errorf(it.At.Pos, "topology.routes", "unknown switch %s%s; switches are %s", scenario.Show(it.At.V), b.d.Suggest(it.At.V, sw), b.list(sw))
			continue
		case b.t.Nodes[at].Kind != fabric.Switch:
			b.errorf(it.At.Pos, "topology.routes", "%s is a host; routes are pinned at switches (switches are %s)", scenario.Show(it.At.V), b.list(b.switchNames()))
			continue
		}
		dst, ok := b.t.Lookup(it.Dst.V)
		switch {
		case !ok:
			b.errorf(it.Dst.Pos, path, "unknown host %s%s; hosts are %s", scenario.Show(it.Dst.V), b.d.Suggest(it.Dst.V, b.hostNms), b.list(b.hostNms))
			continue
		case b.t.Nodes[dst].Kind != fabric.Host:
			b.errorf(it.Dst.Pos, path, "%s is a switch; a route's destination is a host (hosts are %s)", scenario.Show(it.Dst.V), b.list(b.hostNms))
			continue
		}
		nb := b.neighbours(at)
		via, ok := b.t.Lookup(it.Via.V)
		if _, adj := b.t.PortTo(at, via); !ok || !adj {
			b.errorf(it.Via.Pos, it.Path, "%s is not a neighbour of %s%s; %s's neighbours are %s", scenario.Show(it.Via.V), scenario.Show(it.At.V), b.d.Suggest(it.Via.V, nb), scenario.Show(it.At.V), b.list(nb))
			continue
		}
		if b.t.Nodes[via].Kind == fabric.Host && via != dst {
			b.errorf(it.Via.Pos, it.Path, "%s is a host, and hosts do not forward; traffic for %s can go to a switch or to %s itself", scenario.Show(it.Via.V), scenario.Show(it.Dst.V), scenario.Show(it.Dst.V))
			continue
		}
		b.s.ExplicitRoutes = append(b.s.ExplicitRoutes, fabric.ExplicitRoute{At: at, Dst: dst, Via: via})
	}
	if !b.topoOK || b.d.ErrorCount() > errs {
		return
	}
	at, path := b.f.Topology.Pos, "topology"
	if r.Routes.Set {
		at, path = r.Routes.Pos, "topology.routes"
	} else if r.Routing.Set {
		at, path = r.Routing.Pos, "topology.routing"
	}
	if b.tooBig || b.noRoutes {
		return
	}
	// The LMC is the subnet manager's (0 on Ethernet): dfsssp routes each
	// of a host's LIDs in a round of its own.
	compute := fabric.ComputeRoutesLMC
	if b.s.Mixed() {
		// Each fabric's switches route to the hosts they reach (vpi.go).
		compute = fabric.ComputeRoutesDegradedLMC
	}
	routes, loops, err := compute(b.t, b.s.Routing, b.s.ExplicitRoutes, b.s.IB.LMC)
	if err != nil {
		b.errorf(at, path, "%v", err)
		return
	}
	b.s.Routes = routes
	if b.s.Mixed() {
		b.s.IBRoutes, _, err = fabric.ComputeRoutesDegraded(b.t, fabric.RoutingMinHop, b.s.ExplicitRoutes)
		if err != nil {
			b.errorf(at, path, "%v", err)
		}
	}
	for _, l := range loops {
		b.warnf(at, path, "the pinned routes make a loop: %s (allowed, e.g. to build a deadlock on purpose)", l.Describe(b.t))
	}
}
