package assembly

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/lfsim/lfsim/fabric"
)

// A partitionPlan cuts a topology for a parallel run (issue 31): part[i]
// is node i's partition. Hosts go with the switch they attach to. The
// switches farthest from every host (a fat tree's cores, a leaf-spine's
// spines) each go to the least-loaded partition, after the groups; taking them away leaves groups of
// switches that only meet through them (a fat tree's pods, a leaf and its
// hosts), and each group is kept whole and given to the partition with
// the least load so far, heaviest group first. A node's load is its
// ports: every frame a port sends or takes is about three events.
type partitionPlan struct {
	part  []int
	parts int
	load  []int // ports by partition
	cut   int   // links between partitions
}

// planPartitions cuts t into at most parts partitions; fewer when it has
// fewer groups and top switches to deal.
func planPartitions(t *fabric.Topology, parts int) partitionPlan {
	n := len(t.Nodes)
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
