package assembly

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/resolve"
)

// A partitionPlan cuts a topology for a parallel run (issue 31): part[i]
// is node i's partition. Hosts go with the switch they attach to. The
// switches farthest from every host (a fat tree's cores, a leaf-spine's
// spines) each go to the least-loaded partition, after the groups; taking them away leaves groups of
// switches that only meet through them (a fat tree's pods, a leaf and its
// hosts), and each group is kept whole and given to the partition with
// the least load so far, heaviest group first. A node's load is its
// ports: every frame a port sends or takes is about three events.
//
// A GPU server's GPUs (issue 48) share a partition: the scale-up
// domain's transfers between them cross no link, so no lookahead
// covers them. A rail-optimized fabric's scalable units are then its
// groups; where its servers join every rail into one group that cannot
// be dealt evenly (one unit), each server is a group and each switch
// another (serverGroups), and the GPUs' links are cut.
type partitionPlan struct {
	part  []int
	parts int
	load  []int // ports by partition
	cut   int   // links between partitions
}

// planPartitions cuts t into at most parts partitions; fewer when it has
// fewer groups and top switches to deal. servers are the hosts that
// must share a partition, each a GPU server's GPUs.
func planPartitions(t *fabric.Topology, parts int, servers [][]fabric.NodeID) partitionPlan {
	n := len(t.Nodes)
	server := make([]int, n) // node's index in servers, -1 for none
	for i := range server {
		server[i] = -1
	}
	for i, gpus := range servers {
		for _, h := range gpus {
			server[h] = i
		}
	}
	level := hops(t, t.Endpoints(), func(fabric.NodeID) bool { return true }) // from the nearest host
	top := 0
	for id, node := range t.Nodes {
		if node.Kind == fabric.Switch {
			top = max(top, level[id])
		}
	}
	// Groups: connected components without the top switches (a switch
	// alone when every switch is at the top, as in a star).
	group := make([]int, n)
	for i := range group {
		group[i] = -1
	}
	var weights []int
	var tops []fabric.NodeID
	for id, node := range t.Nodes {
		if node.Kind == fabric.Switch && level[id] == top && top > 1 {
			tops = append(tops, fabric.NodeID(id))
			continue
		}
		if group[id] >= 0 {
			continue
		}
		g := len(weights)
		weights = append(weights, 0)
		stack := []fabric.NodeID{fabric.NodeID(id)}
		group[id] = g
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			weights[g] += len(t.Nodes[x].Ports)
			near := make([]fabric.NodeID, 0, len(t.Nodes[x].Ports)+1)
			for _, pr := range t.Nodes[x].Ports {
				near = append(near, pr.Peer)
			}
			// A host's second port is its HCA's: the same partition.
			if p2, ok := t.SecondPort(x); ok {
				near = append(near, p2)
			} else if t.Nodes[x].Second {
				near = append(near, t.Owner(x))
			}
			if i := server[x]; i >= 0 {
				near = append(near, servers[i]...)
			}
			for _, o := range near {
				if group[o] >= 0 || t.Nodes[o].Kind == fabric.Switch && level[o] == top && top > 1 {
					continue
				}
				group[o] = g
				stack = append(stack, o)
			}
		}
	}
	if len(weights)+len(tops) < 2 && parts > 1 {
		// One group (a ring, a dumbbell, a star): each switch is a
		// group with its hosts, or, with one switch, each host alone.
		group, weights = unitGroups(t)
	} else if len(servers) > 0 && parts > 1 && !dealable(weights, parts) {
		group, weights = serverGroups(t, group, server)
	}
	parts = max(1, min(parts, len(weights)+len(tops)))
	plan := partitionPlan{part: make([]int, n), parts: parts, load: make([]int, parts)}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(weights[b], weights[a]) })
	where := make([]int, len(weights))
	for _, g := range order {
		p := slices.Index(plan.load, slices.Min(plan.load))
		where[g] = p
		plan.load[p] += weights[g]
	}
	for id := range t.Nodes {
		if group[id] >= 0 {
			plan.part[id] = where[group[id]]
		}
	}
	for _, id := range tops {
		p := slices.Index(plan.load, slices.Min(plan.load))
		plan.part[id] = p
		plan.load[p] += len(t.Nodes[id].Ports)
	}
	for _, l := range t.Links {
		if plan.part[l.A] != plan.part[l.B] {
			plan.cut++
		}
	}
	return plan
}

// unitGroups gives each switch a group with its hosts (a host's second
// port with it), or, when there is one switch, each host a group of its
// own beside the switch's; and each group's weight (its ports).
func unitGroups(t *fabric.Topology) (group []int, weights []int) {
	group = make([]int, len(t.Nodes))
	switches := 0
	for _, node := range t.Nodes {
		if node.Kind == fabric.Switch {
			switches++
		}
	}
	for id, node := range t.Nodes {
		if node.Kind == fabric.Switch || switches == 1 && !node.Second {
			group[id] = len(weights)
			weights = append(weights, 0)
		}
	}
	for id, node := range t.Nodes {
		if node.Kind != fabric.Switch && (switches != 1 || node.Second) {
			owner := fabric.NodeID(id)
			if node.Second {
				owner = t.Owner(owner)
			}
			if switches == 1 {
				group[id] = group[owner]
			} else {
				group[id] = group[t.Nodes[owner].Ports[0].Peer]
			}
		}
	}
	for id, node := range t.Nodes {
		weights[group[id]] += len(node.Ports)
	}
	return group, weights
}

// dealable reports whether groups of weights can be dealt to parts
// partitions with none over its even share: as many groups as
// partitions, none heavier than the share.
func dealable(weights []int, parts int) bool {
	total := 0
	for _, w := range weights {
		total += w
	}
	return len(weights) >= parts && slices.Max(weights)*parts <= total
}

// serverGroups regroups a topology whose servers join its groups
// together: each server's GPUs (a second port with its host) a group,
// each switch in a group (group[id] >= 0, not a top switch) one of its
// own, and a host of no server with the switch it attaches to; and
// each group's weight (its ports).
func serverGroups(t *fabric.Topology, old []int, server []int) (group []int, weights []int) {
	group = make([]int, len(t.Nodes))
	byServer := map[int]int{}
	for id, node := range t.Nodes {
		group[id] = -1
		if old[id] < 0 {
			continue // a top switch, dealt after the groups
		}
		switch {
		case node.Kind == fabric.Switch:
			group[id] = len(weights)
			weights = append(weights, 0)
		case server[id] >= 0:
			g, ok := byServer[server[id]]
			if !ok {
				g = len(weights)
				byServer[server[id]] = g
				weights = append(weights, 0)
			}
			group[id] = g
		}
	}
	for id, node := range t.Nodes {
		if group[id] >= 0 || old[id] < 0 || node.Kind == fabric.Switch {
			continue
		}
		owner := t.Owner(fabric.NodeID(id))
		if g := group[owner]; g >= 0 {
			group[id] = g // a second port of a server's GPU
		} else {
			group[id] = group[t.Nodes[owner].Ports[0].Peer]
		}
	}
	for id, node := range t.Nodes {
		if group[id] >= 0 {
			weights[group[id]] += len(node.Ports)
		}
	}
	return group, weights
}

// imbalance is the busiest partition's load over the mean: 1 is even.
func (p partitionPlan) imbalance() float64 {
	total, most := 0, 0
	for _, l := range p.load {
		total += l
		most = max(most, l)
	}
	if total == 0 {
		return 1
	}
	return float64(most) * float64(p.parts) / float64(total)
}

func (p partitionPlan) String() string {
	return fmt.Sprintf("%d partitions, ports %v (imbalance %.2f), %d links cut", p.parts, p.load, p.imbalance(), p.cut)
}

// serverGPUs are s's GPU servers' hosts, server by server, which a cut
// keeps together.
func serverGPUs(s *resolve.Scenario) [][]fabric.NodeID {
	out := make([][]fabric.NodeID, len(s.Servers))
	for i, sv := range s.Servers {
		out[i] = sv.GPUs
	}
	return out
}
