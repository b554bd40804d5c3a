package fabric

import (
	"fmt"

	"github.com/lfsim/lfsim/sim"
)

// NodeKind says whether a topology node is a host (an HCA) or a switch.
type NodeKind uint8

// Node kinds.
const (
	Host NodeKind = iota
	Switch
)

func (k NodeKind) String() string {
	if k == Host {
		return "host"
	}
	return "switch"
}

// NodeID is a node's index in Topology.Nodes.
type NodeID int32

// LinkSpec is a link's profile: its rate in each direction and its one-way
// propagation delay.
type LinkSpec struct {
	Rate  Rate
	Delay sim.Time
}

// PortRef says where a node's port leads.
type PortRef struct {
	Link     int    // index in Topology.Links
	Peer     NodeID // the node at the other end
	PeerPort int    // the port number at the other end
}

// TopoNode is one node of a topology.
type TopoNode struct {
	Name  string
	Kind  NodeKind
	Ports []PortRef // port N is Ports[N]
	// Second marks a host's second port (AddSecondPort): a node of kind
	// Host with its own LIDs and link, whose HCA is its host's.
	Second bool
	// RangeExtender marks a switch that is an InfiniBand range extender
	// (swtch.RangeExtender): the subnet manager does not see it, so the
	// LFT dump leaves it out (WriteLFTs).
	RangeExtender bool
}

// TopoLink is one full-duplex link between two ports.
type TopoLink struct {
	A, B         NodeID
	APort, BPort int
	LinkSpec
}

// Topology is the graph of a fabric: named nodes, their numbered ports and
// the links between them. Generators below build the standard shapes with
// stable names; an explicit topology is built with AddNode and Connect.
type Topology struct {
	Nodes []TopoNode
	Links []TopoLink
	hosts []NodeID
	index map[string]NodeID
	// ends is the hosts and the second ports, in id order (Endpoints);
	// second maps a host to its second port, owner a second port to its
	// host (looked up, never iterated).
	ends   []NodeID
	second map[NodeID]NodeID
	owner  map[NodeID]NodeID
	// linkLayers is each node's link layer on a network of two fabrics
	// (SetLinkLayers); nil on a network of one.
	linkLayers []LinkLayer
}

// SetLinkLayers gives each node its link layer (indexed by node id) on a
// network of two fabrics, an InfiniBand one and an Ethernet one that
// meet only in VPI hosts, whose two ports are on one each. A host does
// not forward, from one of its ports to the other no more than between
// two hosts, so Unreachable checks each fabric on its own.
func (t *Topology) SetLinkLayers(ll []LinkLayer) { t.linkLayers = ll }

// NewTopology returns an empty topology.
func NewTopology() *Topology { return &Topology{index: map[string]NodeID{}} }

// AddNode adds a node and returns its id. Names must be unique.
func (t *Topology) AddNode(name string, kind NodeKind) (NodeID, error) {
	if _, dup := t.index[name]; dup {
		return 0, fmt.Errorf("node %q is defined twice", name)
	}
	id := NodeID(len(t.Nodes))
	t.Nodes = append(t.Nodes, TopoNode{Name: name, Kind: kind})
	t.index[name] = id
	if kind == Host {
		t.hosts = append(t.hosts, id)
		t.ends = append(t.ends, id)
	}
	return id, nil
}

// AddSecondPort gives host h's HCA a second port, as a dual-port
// InfiniBand HCA has: a node of its own (named h's name and "/2", kind
// Host, Second set) that is linked with Connect, gets its own LIDs and
// routes, and is an endpoint (Endpoints) but not a host (Hosts): traffic
// names h, and its HCA sends and receives on either port.
func (t *Topology) AddSecondPort(h NodeID) (NodeID, error) {
	if t.Nodes[h].Kind != Host || t.Nodes[h].Second {
		return 0, fmt.Errorf("%q is not a host", t.Nodes[h].Name)
	}
	if _, dup := t.second[h]; dup {
		return 0, fmt.Errorf("host %q has two ports already", t.Nodes[h].Name)
	}
	name := t.Nodes[h].Name + "/2"
	if _, dup := t.index[name]; dup {
		return 0, fmt.Errorf("host %q's second port would be named %q, which another node is", t.Nodes[h].Name, name)
	}
	id := NodeID(len(t.Nodes))
	t.Nodes = append(t.Nodes, TopoNode{Name: name, Kind: Host, Second: true})
	t.index[name] = id
	t.ends = append(t.ends, id)
	if t.second == nil {
		t.second, t.owner = map[NodeID]NodeID{}, map[NodeID]NodeID{}
	}
	t.second[h], t.owner[id] = id, h
	return id, nil
}

// SecondPort returns host h's second port, if it has one.
func (t *Topology) SecondPort(h NodeID) (NodeID, bool) {
	id, ok := t.second[h]
	return id, ok
}

// Owner returns the host whose HCA endpoint n is: n itself, or for a
// second port its host.
func (t *Topology) Owner(n NodeID) NodeID {
	if h, ok := t.owner[n]; ok {
		return h
	}
	return n
}

// Endpoints returns the hosts and the hosts' second ports, in id order:
// what routes lead to and LIDs address.
func (t *Topology) Endpoints() []NodeID { return t.ends }

func (t *Topology) mustAdd(name string, kind NodeKind) NodeID {
	id, err := t.AddNode(name, kind)
	if err != nil {
		panic(err) // generators make unique names
	}
	return id
}

// Lookup returns the node with the given name.
func (t *Topology) Lookup(name string) (NodeID, bool) {
	id, ok := t.index[name]
	return id, ok
}

// Names returns every node name in id order.
func (t *Topology) Names() []string {
	out := make([]string, len(t.Nodes))
	for i, n := range t.Nodes {
		out[i] = n.Name
	}
	return out
}

// Hosts returns the host node ids in the order they were added. A host's
// position in this list is its host index.
func (t *Topology) Hosts() []NodeID { return t.hosts }

// Connect adds a link between a and b on the next free port of each and
// returns the link's index. A node's ports are numbered in the order of its
// links.
func (t *Topology) Connect(a, b NodeID, spec LinkSpec) int {
	return t.connectAt(a, len(t.Nodes[a].Ports), b, len(t.Nodes[b].Ports), spec)
}

// connectAt links port ap of a with port bp of b, growing the port lists as
// needed; generators use it to number ports independently of link order.
func (t *Topology) connectAt(a NodeID, ap int, b NodeID, bp int, spec LinkSpec) int {
	li := len(t.Links)
	t.Links = append(t.Links, TopoLink{A: a, B: b, APort: ap, BPort: bp, LinkSpec: spec})
	grow := func(n NodeID, p int) {
		for len(t.Nodes[n].Ports) <= p {
			t.Nodes[n].Ports = append(t.Nodes[n].Ports, PortRef{Link: -1, Peer: -1, PeerPort: -1})
		}
	}
	grow(a, ap)
	grow(b, bp)
	t.Nodes[a].Ports[ap] = PortRef{Link: li, Peer: b, PeerPort: bp}
	t.Nodes[b].Ports[bp] = PortRef{Link: li, Peer: a, PeerPort: ap}
	return li
}

// PortName is the output name of a port: "s0:p8".
func (t *Topology) PortName(n NodeID, port int) string {
	return fmt.Sprintf("%s:p%d", t.Nodes[n].Name, port)
}

// PortTo returns the lowest-numbered port of a that faces b.
func (t *Topology) PortTo(a, b NodeID) (int, bool) {
	for i, p := range t.Nodes[a].Ports {
		if p.Peer == b {
			return i, true
		}
	}
	return 0, false
}

// Check reports a topology that cannot run: a port left unconnected, a
// host with no link, a host linked to a host, or nodes that cannot reach
// each other. The error names what is wrong.
func (t *Topology) Check() error {
	if len(t.hosts) == 0 {
		return fmt.Errorf("the topology has no hosts")
	}
	for _, n := range t.Nodes {
		for i, p := range n.Ports {
			if p.Link < 0 {
				return fmt.Errorf("port %s:p%d is not connected", n.Name, i)
			}
		}
		if len(n.Ports) == 0 {
			return fmt.Errorf("%s %q has no links", n.Kind, n.Name)
		}
	}
	for _, l := range t.Links {
		if l.A == l.B {
			return fmt.Errorf("link from %q to itself", t.Nodes[l.A].Name)
		}
		if t.Nodes[l.A].Kind == Host && t.Nodes[l.B].Kind == Host {
			return fmt.Errorf("hosts %q and %q are linked directly; hosts connect through switches", t.Nodes[l.A].Name, t.Nodes[l.B].Name)
		}
		if l.Rate <= 0 {
			return fmt.Errorf("link %s-%s has no rate", t.Nodes[l.A].Name, t.Nodes[l.B].Name)
		}
	}
	from, unreached := t.Unreachable()
	var cut []string
	for _, id := range unreached {
		cut = append(cut, t.Nodes[id].Name)
	}
	if len(cut) > 0 {
		if len(cut) > 5 {
			cut = append(cut[:5], fmt.Sprintf("and %d more", len(cut)-5))
		}
		return fmt.Errorf("the topology is not connected: %s cannot be reached from %s%s", joinNames(cut), t.Nodes[from].Name, t.FabricOf(unreached[0]))
	}
	return nil
}

// FabricOf is what a message that node n cannot be reached adds on a
// network of two fabrics: " through Ethernet switches (...)", n's
// fabric; on a network of one, nothing.
func (t *Topology) FabricOf(n NodeID) string {
	if t.linkLayers == nil {
		return ""
	}
	name := "Ethernet"
	if t.linkLayers[n] == InfiniBand {
		name = "InfiniBand"
	}
	return " through " + name + " switches (a VPI host does not forward between its ports: each fabric must be connected on its own)"
}

// Unreachable lists, in id order, the nodes that cannot be reached
// through switches (a host does not forward) from the first host, and
// returns that host. On a network of two fabrics (SetLinkLayers) each
// fabric is searched from its first endpoint on its own, and it lists
// the unreached nodes of the first unreached node's fabric only, with
// that fabric's first endpoint (the first host where no endpoint is on
// it).
func (t *Topology) Unreachable() (NodeID, []NodeID) {
	if len(t.hosts) == 0 {
		return 0, nil
	}
	starts := []NodeID{t.hosts[0]}
	var start [2]NodeID // per link layer, its first endpoint
	if t.linkLayers != nil {
		starts = starts[:0]
		var has [2]bool
		for _, e := range t.ends {
			if l := t.linkLayers[e]; !has[l] {
				has[l], start[l] = true, e
				starts = append(starts, e)
			}
		}
		for l := range has {
			if !has[l] {
				start[l] = t.hosts[0]
			}
		}
	}
	seen := make([]bool, len(t.Nodes))
	for _, first := range starts {
		seen[first] = true
		stack := []NodeID{first}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if t.Nodes[n].Kind == Host && n != first {
				continue
			}
			for _, p := range t.Nodes[n].Ports {
				if p.Peer >= 0 && !seen[p.Peer] {
					seen[p.Peer] = true
					stack = append(stack, p.Peer)
				}
			}
		}
	}
	var out []NodeID
	for i, ok := range seen {
		if !ok && (t.linkLayers == nil || len(out) == 0 || t.linkLayers[i] == t.linkLayers[out[0]]) {
			out = append(out, NodeID(i))
		}
	}
	if t.linkLayers != nil && len(out) > 0 {
		return start[t.linkLayers[out[0]]], out
	}
	return t.hosts[0], out
}

func joinNames(s []string) string {
	out := ""
	for i, n := range s {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}
