package fabric

import "fmt"

// Multicast groups. A packet for a group carries the group's NodeID as
// its destination: MulticastBase and above, past any node, so that no
// unicast table has an entry for it and a switch looks it up in its
// multicast table instead (switch.SetMulticast). The group's IPv4
// address (239.x.y.z) is the packet's destination IP; its UD destination
// QP is MulticastQPN.

// MulticastBase is the NodeID of the first multicast group.
const MulticastBase NodeID = 1 << 30

// MulticastQPN is the destination QP of a multicast datagram (IBTA vol.
// 1, 10.5.2.2: QP 0xFFFFFF, delivered to every QP attached to the
// group).
const MulticastQPN = 0xFFFFFF

// MulticastGroup is the NodeID of group number i.
func MulticastGroup(i int) NodeID { return MulticastBase + NodeID(i) }

// IsMulticast reports whether id names a multicast group.
func IsMulticast(id NodeID) bool { return id >= MulticastBase }

// MLID is an InfiniBand multicast group's LID: the SM gives groups LIDs
// from 0xC000 up (IBTA vol. 1, 4.1.1; OpenSM starts at 0xC000), group
// number i the i-th.
func MLID(g NodeID) uint16 { return 0xC000 + uint16(g-MulticastBase) }

// MGID is the multicast GID rdma_cm gives an IPv4 group on InfiniBand
// (librdmacm's cma_set_mgid): ff12:401b:ffff::, the address in its last
// four bytes.
func MGID(ip uint32) [16]byte {
	return [16]byte{0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 12: byte(ip >> 24), 13: byte(ip >> 16), 14: byte(ip >> 8), 15: byte(ip)}
}

// IsMulticastIP reports whether ip is an IPv4 multicast address
// (224.0.0.0/4).
func IsMulticastIP(ip uint32) bool { return ip>>28 == 0xE }

// MulticastTree is the tree a group's packets follow: the shortest-path
// tree from root (a host: the group's sender) over the whole fabric,
// built breadth first in node and port order, pruned to the branches
// that lead to a member. For each switch on it, the ports of its tree
// links: a packet that arrives on one is copied to all the others, so a
// member gets each packet once and each link carries it once. OpenSM
// programs InfiniBand multicast forwarding tables with a spanning tree
// per group the same way; on Ethernet, IGMP snooping builds the tree
// from the members' joins. Links that are down are not avoided (the
// tree is made once, when the group is joined).
func MulticastTree(t *Topology, root NodeID, members []NodeID) (map[NodeID][]int32, error) {
	if int(root) >= len(t.Nodes) || t.Nodes[root].Kind != Host {
		return nil, fmt.Errorf("the multicast tree's root must be a host")
	}
	n := len(t.Nodes)
	parent := make([]NodeID, n)   // the node toward the root (-1: the root, or not reached)
	upPort := make([]int32, n)    // the port toward the parent
	downPort := make([]int32, n)  // the parent's port toward the node
	order := make([]NodeID, 0, n) // breadth-first
	seen := make([]bool, n)
	for i := range parent {
		parent[i] = -1
	}
	seen[root] = true
	order = append(order, root)
	for i := 0; i < len(order); i++ {
		x := order[i]
		if t.Nodes[x].Kind == Host && x != root {
			continue // hosts do not forward
		}
		for p, ref := range t.Nodes[x].Ports {
			y := ref.Peer
			if y < 0 || int(y) >= n || seen[y] {
				continue
			}
			seen[y] = true
			parent[y], upPort[y], downPort[y] = x, int32(ref.PeerPort), int32(p)
			order = append(order, y)
		}
	}
	below := make([]int, n) // members in each node's subtree
	for _, m := range members {
		if int(m) >= n || t.Nodes[m].Kind != Host {
			return nil, fmt.Errorf("a multicast member must be a host")
		}
		if !seen[m] {
			return nil, fmt.Errorf("%s cannot be reached from %s", t.Nodes[m].Name, t.Nodes[root].Name)
		}
		if m != root {
			below[m]++
		}
	}
	for i := len(order) - 1; i > 0; i-- {
		x := order[i]
		below[parent[x]] += below[x]
	}
	ports := map[NodeID][]int32{}
	for _, x := range order[1:] {
		if below[x] == 0 {
			continue
		}
		// The link between x and its parent carries the group.
		if p := parent[x]; t.Nodes[p].Kind == Switch {
			ports[p] = append(ports[p], downPort[x])
		}
		if t.Nodes[x].Kind == Switch {
			ports[x] = append(ports[x], upPort[x])
		}
	}
	return ports, nil
}
