package fabric

import "slices"

// Without returns a copy of t in which the links listed (indexes in
// t.Links) lead nowhere: their ports keep their numbers but have no peer,
// so routing computed on the copy avoids them while port numbers still
// match the running network. Names, hosts and second ports are shared
// with t.
func (t *Topology) Without(links []int) *Topology {
	c := &Topology{Nodes: make([]TopoNode, len(t.Nodes)), Links: t.Links, hosts: t.hosts, index: t.index, ends: t.ends, second: t.second, owner: t.owner, linkLayers: t.linkLayers}
	for i, n := range t.Nodes {
		c.Nodes[i] = TopoNode{Name: n.Name, Kind: n.Kind, Ports: slices.Clone(n.Ports), Second: n.Second}
		for p := range c.Nodes[i].Ports {
			if slices.Contains(links, c.Nodes[i].Ports[p].Link) {
				c.Nodes[i].Ports[p].Peer = -1
			}
		}
	}
	return c
}

// ComputeRoutesDegraded is ComputeRoutes for a fabric with failed links
// (see Topology.Without): a destination that a switch can no longer reach
// gets an empty next-hop list there instead of an error, and explicit
// routes whose neighbour is no longer linked are left out.
func ComputeRoutesDegraded(t *Topology, algo RoutingAlgo, explicit []ExplicitRoute) (*Routes, []RouteLoop, error) {
	var live []ExplicitRoute
	for _, e := range explicit {
		if _, ok := t.PortTo(e.At, e.Via); ok {
			live = append(live, e)
		}
	}
	return computeRoutes(t, algo, live, true, 0)
}

// ComputeRoutesDegradedLMC is ComputeRoutesDegraded with the hosts' LMC
// (ComputeRoutesLMC).
func ComputeRoutesDegradedLMC(t *Topology, algo RoutingAlgo, explicit []ExplicitRoute, lmc int) (*Routes, []RouteLoop, error) {
	var live []ExplicitRoute
	for _, e := range explicit {
		if _, ok := t.PortTo(e.At, e.Via); ok {
			live = append(live, e)
		}
	}
	return computeRoutes(t, algo, live, true, lmc)
}

// UpDownRanks returns, per NodeID, the switch's position in the up*/down*
// order that RoutingUpDown uses (a hop x->y goes up when rank(y) <
// rank(x)), and -1 for hosts. It is what a Tagger-style switch needs to
// tell a packet that bounces (a down hop followed by an up hop).
func UpDownRanks(t *Topology) ([]int32, error) {
	b := newRouteBuilder(t, RoutingUpDown)
	if err := b.groupHosts(); err != nil {
		return nil, err
	}
	b.findHostSwitches()
	rank := b.upDownRank(false)
	out := make([]int32, len(t.Nodes))
	for id := range out {
		out[id] = -1
		if si := b.r.swIndex[id]; si >= 0 {
			out[id] = rank[si]
		}
	}
	return out, nil
}
