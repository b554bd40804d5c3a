package fabric

import (
	"fmt"
	"math"
)

// RoutingSpanningTree forwards by MAC address along one spanning tree of
// the switches, as Ethernet bridges do once the spanning tree protocol
// has converged (IEEE 802.1D-2004 clause 17, RSTP): what a RoCEv1 fabric,
// which has no IP header to route on, forwards along.
//
//   - The root bridge is the switch with the lowest bridge identifier:
//     every switch keeps the default bridge priority (32768), so the
//     lowest MAC address decides, and lfsim's MACs rise with the node
//     id (reports.PortMAC): the first switch in node order. A partition
//     of the fabric elects its own root the same way.
//   - A port's path cost is 802.1D-2004 table 17-3's recommendation,
//     20,000,000,000,000 / the link's rate in b/s (200 at 100 Gb/s).
//   - Every other switch's root port is the one with the best priority
//     vector (clause 17.6): least root path cost, then the lowest bridge
//     identifier of the neighbour, then the neighbour's lowest port
//     number, then its own lowest port number. Links that are nobody's
//     root port are blocked (alternate or backup ports): no frame
//     crosses them.
//   - A host is reached through the switch on its first port linked to a
//     switch (its MAC is learned there), on the lowest-numbered port that
//     faces it; every other switch sends toward that switch along the
//     tree.
//
// A tree has one path between any two switches, so every table entry has
// one port, no load is balanced, and a tree cannot hold a cyclic buffer
// dependency.
const RoutingSpanningTree RoutingAlgo = "spanning-tree"

// STPPortCost is 802.1D-2004 table 17-3's recommended port path cost
// for a link of rate r: 2 × 10^13 / r in b/s, at least 1.
func STPPortCost(r Rate) int64 {
	if r <= 0 {
		return 200_000_000 // the table's cost for 100 kb/s, its slowest
	}
	return max(1, int64(math.Round(2e13/float64(r))))
}

// treeLink is one end of a link the spanning tree keeps: at a switch,
// its port and the switch index at the other end.
type treeLink struct{ port, peer int32 }

// spanningTree fills the tables along the tree (RoutingSpanningTree).
func (b *routeBuilder) spanningTree() error {
	n := len(b.sw)
	tree := b.stpTree()
	hosts := b.t.Endpoints()
	// toward[s] is, per switch, the port toward switch s along the tree
	// (-1: s itself, or not in its partition), for each switch s that a
	// host is reached through.
	toward := map[int32][]int32{} // looked up, never iterated
	for hi, h := range hosts {
		at := int32(-1)
		for _, ref := range b.t.Nodes[h].Ports {
			if ref.Peer >= 0 && int(ref.Peer) < len(b.t.Nodes) && b.t.Nodes[ref.Peer].Kind == Switch {
				at = b.r.swIndex[ref.Peer]
				break
			}
		}
		if at < 0 {
			return fmt.Errorf("host %s is not linked to any switch, so no switch can reach it", b.name(h))
		}
		via, ok := toward[at]
		if !ok {
			via = treeToward(tree, at, n)
			toward[at] = via
		}
		for x := int32(0); int(x) < n; x++ {
			var list []int32
			switch {
			case x == at:
				list = b.portsFacing(b.sw[x], h)[:1]
			case via[x] >= 0:
				list = []int32{via[x]}
			case !b.partial:
				return fmt.Errorf("%s and host %s are in separate layer-2 domains: no chain of switches joins them, and a spanning tree cannot cross that gap", b.name(b.sw[x]), b.name(h))
			}
			b.setSpan(x, int32(hi), b.emit(x, list))
		}
	}
	return nil
}

// stpTree returns the spanning tree's links per switch index
// (RoutingSpanningTree's rules).
func (b *routeBuilder) stpTree() [][]treeLink {
	n := len(b.sw)
	const none = math.MaxInt64
	cost := make([]int64, n)
	done := make([]bool, n)
	for i := range cost {
		cost[i] = none
	}
	portCost := func(x int32, a adjacency) int64 {
		ref := b.t.Nodes[b.sw[x]].Ports[a.port]
		return STPPortCost(b.t.Links[ref.Link].Rate)
	}
	// Dijkstra from each partition's root, the lowest switch index not
	// yet reached; O(n^2), a few milliseconds for thousands of switches.
	for {
		root := -1
		for x := range cost {
			if cost[x] == none {
				root = x
				break
			}
		}
		if root < 0 {
			break
		}
		cost[root] = 0
		for {
			x := -1
			for y := range cost {
				if !done[y] && cost[y] != none && (x < 0 || cost[y] < cost[x]) {
					x = y
				}
			}
			if x < 0 {
				break
			}
			done[x] = true
			for _, a := range b.adj[x] {
				if c := cost[x] + portCost(int32(x), a); c < cost[a.peer] {
					cost[a.peer] = c
				}
			}
		}
	}
	tree := make([][]treeLink, n)
	for x := int32(0); int(x) < n; x++ {
		if cost[x] == 0 {
			continue // a root
		}
		best := -1
		var bestV [4]int64
		for i, a := range b.adj[x] {
			if int(a.peer) == int(x) {
				continue
			}
			ref := b.t.Nodes[b.sw[x]].Ports[a.port]
			v := [4]int64{cost[a.peer] + portCost(x, a), int64(b.sw[a.peer]), int64(ref.PeerPort), int64(a.port)}
			if best < 0 || less4(v, bestV) {
				best, bestV = i, v
			}
		}
		a := b.adj[x][best]
		ref := b.t.Nodes[b.sw[x]].Ports[a.port]
		tree[x] = append(tree[x], treeLink(a))
		tree[a.peer] = append(tree[a.peer], treeLink{port: int32(ref.PeerPort), peer: x})
	}
	return tree
}

func less4(a, b [4]int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// treeToward returns, per switch index, the port of its tree link toward
// switch s, or -1 for s itself and for switches in another partition.
func treeToward(tree [][]treeLink, s int32, n int) []int32 {
	via := make([]int32, n)
	for i := range via {
		via[i] = -1
	}
	seen := make([]bool, n)
	seen[s] = true
	queue := []int32{s}
	for len(queue) > 0 {
		y := queue[0]
		queue = queue[1:]
		for _, l := range tree[y] {
			if !seen[l.peer] {
				seen[l.peer] = true
				// l.peer reaches y over the same link: find its port.
				for _, back := range tree[l.peer] {
					if back.peer == y {
						via[l.peer] = back.port
						break
					}
				}
				queue = append(queue, l.peer)
			}
		}
	}
	return via
}
