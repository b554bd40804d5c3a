package resolve

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/scenario"
)

// checkRouting counts what the routing engine will build on the
// topology (fabric.SizeRouting) before anything is built, and refuses,
// at the key that chose the engine, a topology past the engine's limits
// (lash's switches and paths, dfsssp's hosts and paths) or, on
// InfiniBand, past the unicast LIDs; then the tables are not computed
// (routes), while the rest of the scenario is still checked. It returns
// the count for the memory estimate.
func (b *builder) checkRouting() fabric.RoutingSize {
	algo := b.routingAlgo()
	z, err := fabric.SizeRouting(b.t, algo)
	if err != nil {
		at, path := b.routingKey()
		b.errorf(at, path, "%v", err)
		b.noRoutes = true
	}
	if s := b.s; s.LinkLayer == fabric.InfiniBand && b.topoOK {
		if top := (len(b.t.Nodes)+1)<<s.IB.LMC - 1; top > 0xBFFF {
			at, path := b.f.SubnetManager.LMC.Pos, "subnet_manager.lmc"
			if !b.f.SubnetManager.LMC.Set {
				at, path = b.f.Topology.SizeKey()
			}
			b.errorf(at, path, "with LMC %d the %d nodes need LIDs up to %d; unicast LIDs end at 49151 (0xBFFF): lower lmc", s.IB.LMC, len(b.t.Nodes), top)
			b.noRoutes = true
		}
	}
	return z
}

// routingAlgo is the engine routes will compute the tables with: the
// subnet manager's on InfiniBand, the spanning tree's under RoCEv1 (both
// set before the topology is read), topology.routing's otherwise.
func (b *builder) routingAlgo() fabric.RoutingAlgo {
	if b.s.LinkLayer == fabric.InfiniBand || b.s.Routing == fabric.RoutingSpanningTree {
		return b.s.Routing
	}
	if r := b.f.Topology.Route; r != nil && r.Routing.Set {
		return fabric.RoutingAlgo(r.Routing.V)
	}
	return b.s.Routing
}

// routingKey is the key that chose the engine (subnet_manager.routing,
// topology.routing), or where there is none the key that sets the
// topology's size.
func (b *builder) routingKey() (scenario.Pos, string) {
	if sm := &b.f.SubnetManager; b.s.LinkLayer == fabric.InfiniBand && sm.Routing.Set {
		return sm.Routing.Pos, "subnet_manager.routing"
	}
	if r := b.f.Topology.Route; r != nil && r.Routing.Set && b.s.LinkLayer != fabric.InfiniBand {
		return r.Routing.Pos, "topology.routing"
	}
	return b.f.Topology.SizeKey()
}
