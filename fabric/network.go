package fabric

import "github.com/lfsim/lfsim/sim"

// Network is a topology made runnable: one Port per topology port and one
// Link per direction of each topology link, sharing an engine and a packet
// pool, or, cut into partitions (NewPartitioned), each partition's nodes
// sharing its engine and pool. Nodes (switches, HCAs) are attached
// afterwards with SetOwner.
type Network struct {
	Eng   *sim.Engine // partition 0's engine, when partitioned
	Pool  *Pool       // partition 0's pool, when partitioned
	Topo  *Topology
	Ports [][]*Port // Ports[node][port]
	Links []*Link   // both directions of every topology link
	// Pools are every partition's pool (one, Pool, unless partitioned).
	Pools []*Pool
	// partOf is each node's partition; nil when not partitioned.
	partOf []int
	group  *sim.Group
}

// NewNetwork creates the ports and links of t on one engine, which it
// gives its lookahead (sim.Engine.SetLookahead).
func NewNetwork(eng *sim.Engine, t *Topology) *Network {
	pool := &Pool{}
	n := build(t, func(NodeID) *sim.Engine { return eng }, func(NodeID) *Pool { return pool })
	n.Eng, n.Pool, n.Pools = eng, pool, []*Pool{pool}
	eng.SetLookahead(n.Lookahead())
	return n
}

// NewPartitioned creates the ports and links of t with node i in partition
// partOf[i] of g: its ports schedule on that partition's engine and take
// packets from its pool, and a link's arrivals go to the lane of its far
// end's engine (handed over at the group's barrier when the ends are in
// different partitions). g's lookahead must not exceed the network's
// (Lookahead, which must not be 0).
func NewPartitioned(g *sim.Group, t *Topology, partOf []int) *Network {
	pools := make([]*Pool, g.Partitions())
	for i := range pools {
		pools[i] = &Pool{}
	}
	n := build(t, func(id NodeID) *sim.Engine { return g.Engine(partOf[id]) }, func(id NodeID) *Pool { return pools[partOf[id]] })
	n.Eng, n.Pool, n.Pools, n.partOf, n.group = g.Engine(0), pools[0], pools, partOf, g
	if look := n.Lookahead(); look == 0 || look < g.Engine(0).Lookahead() {
		panic("fabric: a partitioned network needs its links' delay as the group's lookahead")
	}
	return n
}

// Partition returns node id's partition (0 when not partitioned).
func (n *Network) Partition(id NodeID) int {
	if n.partOf == nil {
		return 0
	}
	return n.partOf[id]
}

// EngineOf returns the engine node id's events run on.
func (n *Network) EngineOf(id NodeID) *sim.Engine {
	if n.group == nil {
		return n.Eng
	}
	return n.group.Engine(n.partOf[id])
}

// PoolOf returns the packet pool of node id's partition.
func (n *Network) PoolOf(id NodeID) *Pool { return n.Pools[n.Partition(id)] }

// PoolsLive is how many packets are out of the pools (Pool.Live summed:
// a packet taken from one partition's pool may return to another's).
func (n *Network) PoolsLive() int {
	live := 0
	for _, p := range n.Pools {
		live += p.Live
	}
	return live
}

// build makes the ports and links of t, node id's on engineOf(id) with
// poolOf(id).
func build(t *Topology, engineOf func(NodeID) *sim.Engine, poolOf func(NodeID) *Pool) *Network {
	n := &Network{Topo: t, Ports: make([][]*Port, len(t.Nodes))}
	number := uint32(0)
	for id, node := range t.Nodes {
		ports := make([]*Port, len(node.Ports))
		eng, pool := engineOf(NodeID(id)), poolOf(NodeID(id))
		for i := range ports {
			l := t.Links[node.Ports[i].Link]
			ports[i] = &Port{
				Node: NodeID(id), Index: i, Name: t.PortName(NodeID(id), i),
				Rate: l.Rate, eng: eng, pool: pool, number: number,
			}
			number++
		}
		n.Ports[id] = ports
	}
	// Each end's engine makes the lane one engine would give the link's
	// arrivals first (Lane): the lanes made after for another
	// partition's arrivals (LaneFrom, up to half an engine's) then never
	// take those its own links need, so a network whose links all get a
	// lane on one engine gets them cut too (TestPartitionedLanesEnough).
	// On one engine this makes the same lanes in the same order as the
	// loop below did alone.
	for _, l := range t.Links {
		if l.Delay > 0 {
			n.Ports[l.B][l.BPort].eng.Lane(l.Delay, arriveKind)
			n.Ports[l.A][l.APort].eng.Lane(l.Delay, arriveKind)
		}
	}
	for _, l := range t.Links {
		a, b := n.Ports[l.A][l.APort], n.Ports[l.B][l.BPort]
		// A direction's link schedules on its sender's engine, into a
		// lane of its receiver's.
		ab := &Link{Delay: l.Delay, eng: a.eng, from: a, to: b}
		ba := &Link{Delay: l.Delay, eng: b.eng, from: b, to: a}
		if l.Delay > 0 {
			ab.lane, ba.lane = b.eng.LaneFrom(l.Delay, arriveKind, a.eng), a.eng.LaneFrom(l.Delay, arriveKind, b.eng)
		}
		a.out, b.out = ab, ba
		a.peer, b.peer = b, a
		ab.updateFastCarry()
		ba.updateFastCarry()
		n.Links = append(n.Links, ab, ba)
	}
	return n
}

// Lookahead is the smallest delay of the links, the engine's window for
// handing arrivals over (sim.Engine.HandOver): the time within which
// nothing a node does can reach another. It is 0, and arrivals are not
// handed over, when a link has no delay or no lane (more distinct delays
// than sim.MaxLanes): such a run cannot be cut into partitions.
func (n *Network) Lookahead() sim.Time {
	look := sim.Never
	for _, l := range n.Links {
		if l.Delay <= 0 || l.lane == nil {
			return 0
		}
		look = min(look, l.Delay)
	}
	if look == sim.Never {
		return 0
	}
	return look
}

// sumLinks adds up one count of every link.
func (n *Network) sumLinks(count func(l *Link) int64) int64 {
	var c int64
	for _, l := range n.Links {
		c += count(l)
	}
	return c
}

// PacketHops is the number of frames that have crossed a link so far.
func (n *Network) PacketHops() int64 { return n.sumLinks((*Link).Packets) }

// InFlightOnLinks counts frames on the wire now.
func (n *Network) InFlightOnLinks() int {
	c := 0
	for _, l := range n.Links {
		c += l.InFlight()
	}
	return c
}

// LinkFrom returns the link that port p of node n transmits on.
func (n *Network) LinkFrom(node NodeID, port int) *Link { return n.Ports[node][port].out }

// Lost is the number of frames links dropped at random.
func (n *Network) Lost() int64 { return n.sumLinks(func(l *Link) int64 { return l.Lost }) }

// PausesCut is the number of PFC frames lost to cut links.
func (n *Network) PausesCut() int64 { return n.sumLinks(func(l *Link) int64 { return l.PausesCut }) }

// CreditsCut is the number of InfiniBand flow-control packets lost to
// cut links.
func (n *Network) CreditsCut() int64 { return n.sumLinks(func(l *Link) int64 { return l.CreditsCut }) }

// DownDrops is the number of packets (PFC frames apart) lost to cut links.
func (n *Network) DownDrops() int64 { return n.sumLinks(func(l *Link) int64 { return l.DownDrops }) }
