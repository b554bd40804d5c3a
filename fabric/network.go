package fabric

import "github.com/lfsim/lfsim/sim"

// Network is a topology made runnable: one Port per topology port and one
// Link per direction of each topology link, sharing an engine and a packet
// pool. Nodes (switches, HCAs) are attached afterwards with SetOwner.
type Network struct {
	Eng   *sim.Engine
	Pool  *Pool
	Topo  *Topology
	Ports [][]*Port // Ports[node][port]
	Links []*Link   // both directions of every topology link
}

// NewNetwork creates the ports and links of t.
func NewNetwork(eng *sim.Engine, t *Topology) *Network {
	n := &Network{Eng: eng, Pool: &Pool{}, Topo: t, Ports: make([][]*Port, len(t.Nodes))}
	for id, node := range t.Nodes {
		ports := make([]*Port, len(node.Ports))
		for i := range ports {
			l := t.Links[node.Ports[i].Link]
			ports[i] = &Port{
				Node: NodeID(id), Index: i, Name: t.PortName(NodeID(id), i),
				Rate: l.Rate, eng: eng, pool: n.Pool,
			}
		}
		n.Ports[id] = ports
	}
	for _, l := range t.Links {
		a, b := n.Ports[l.A][l.APort], n.Ports[l.B][l.BPort]
		ab := &Link{Delay: l.Delay, eng: eng, from: a, to: b}
		ba := &Link{Delay: l.Delay, eng: eng, from: b, to: a}
		if l.Delay > 0 {
			ab.lane, ba.lane = eng.Lane(l.Delay, arriveKind), eng.Lane(l.Delay, arriveKind)
		}
		a.out, b.out = ab, ba
		a.peer, b.peer = b, a
		ab.updateFastCarry()
		ba.updateFastCarry()
		n.Links = append(n.Links, ab, ba)
	}
	return n
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
