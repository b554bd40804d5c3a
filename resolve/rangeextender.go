package resolve

import (
	"cmp"
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/scenario"
	swtch "github.com/lfsim/lfsim/switch"
)

// InfiniBand range extenders (switch.range_extender, swtch.RangeExtender):
// a switch of an explicit topology with {range_extender: {buffer}} is a
// two-port device, its local port an ordinary InfiniBand link partner
// (credits of switch.ib.vl_buffer, 12-bit counters) and its long-haul
// port linked to another extender, whose receive buffer its own flow
// control grants whole (fabric.Port.EnableLongHaulCredits), split evenly
// among the data VLs. What is refused, each at its key: an extender on
// Ethernet, at the top-level switch block, with other than two links,
// with a link to an Ethernet switch, whose far side is not an extender
// (an extender's long-haul flow control needs its peer: a lone extender
// would be a plain link of extra hops, which is not what the products
// are), with both links to extenders, a buffer that gives a VL less than
// 128 KiB (what a plain link's credits already reach), and switch keys
// the device has no use for.

// extenderKeys are the switch keys a range extender takes beside
// range_extender: its port-to-port latency and forwarding mode.
var extenderKeys = map[string]bool{"range_extender": true, "latency": true, "forwarding": true}

// applyRangeExtender reads switch.range_extender into the profile of an
// explicit topology's switch; in the top-level block it is an error (one
// device, not every switch).
func (b *builder) applyRangeExtender(p *swtch.Profile, s *scenario.SwitchS, path string) {
	re := &s.RangeExtender
	if !re.Set {
		return
	}
	if path == "switch" {
		b.errorf(s.KeyPos("range_extender"), "switch.range_extender", "a range extender is one device: give it to a switch of an explicit topology (topology.switches: [{name: x0, switch: {range_extender: {buffer: 16MiB}}}])")
		return
	}
	var other []string
	for k := range s.Keys {
		if !extenderKeys[k] {
			other = append(other, k)
		}
	}
	slices.SortFunc(other, func(x, y string) int {
		return cmp.Or(cmp.Compare(s.Keys[x].Line, s.Keys[y].Line), cmp.Compare(s.Keys[x].Col, s.Keys[y].Col))
	})
	for _, k := range other {
		b.errorf(s.KeyPos(k), path+"."+k, "a range extender forwards between its two ports only: of the switch keys it takes latency and forwarding beside range_extender")
	}
	if re.Buffer.Set {
		p.RangeExtender.Buffer = int64(re.Buffer.V)
	}
	// The subnet manager does not see the device (it answers no MAD:
	// NVIDIA's MetroX deployment guidelines), so nothing configures the
	// InfiniBand switch features it would: no HOQ lifetime, no FECN.
	p.HOQLifetime = 0
	p.ECN.Enabled = false
}

// rangeExtenders checks the extenders of an explicit topology once it is
// built: InfiniBand, two links, one to a switch or host of InfiniBand
// and one to another extender, and a buffer deep enough for every data
// VL; and marks them in the topology (fabric.TopoNode.RangeExtender).
func (b *builder) rangeExtenders() {
	s, ok := b.f.Topology.Spec.(*scenario.ExplicitS)
	if !ok || b.t == nil || !b.topoOK {
		return
	}
	for i := range s.Switches {
		sw := &s.Switches[i]
		if !sw.Switch.RangeExtender.Set {
			continue
		}
		id, ok := b.t.Lookup(sw.Name.V)
		if !ok {
			continue
		}
		b.t.Nodes[id].RangeExtender = true
	}
	for i := range s.Switches {
		sw := &s.Switches[i]
		re := &sw.Switch.RangeExtender
		id, ok := b.t.Lookup(sw.Name.V)
		if !re.Set || !ok {
			continue
		}
		at, path := sw.Switch.KeyPos("range_extender"), sw.Path+".switch.range_extender"
		name := scenario.Show(sw.Name.V)
		if !b.linkIB(id) {
			b.errorf(at, path, "a range extender carries InfiniBand; this scenario's links are Ethernet (switch.link_layer: infiniband)")
			continue
		}
		n := &b.t.Nodes[id]
		if len(n.Ports) != 2 {
			b.errorf(at, path, "range extender %s has %d links; it has two: a local port to an InfiniBand switch or host and a long-haul port to the other extender", name, len(n.Ports))
			continue
		}
		far := 0
		for _, p := range n.Ports {
			peer := b.t.Nodes[p.Peer]
			switch {
			case peer.RangeExtender:
				far++
			case !b.linkIB(p.Peer):
				b.errorf(at, path, "range extender %s links to %s, which is not InfiniBand; its local port is an InfiniBand link", name, scenario.Show(peer.Name))
			}
		}
		switch far {
		case 0:
			b.errorf(at, path, "range extender %s has no extender at the far side of its links; a long haul runs between two extenders (link it to another switch with range_extender, or link its two neighbours directly)", name)
		case 2:
			b.errorf(at, path, "both links of range extender %s lead to extenders; one is its local port, to an InfiniBand switch or host", name)
		}
		if re.Buffer.Set && b.s.IB.DataVLs > 0 {
			if share := int64(re.Buffer.V) / int64(b.s.IB.DataVLs); share < fabric.MaxVLBuffer {
				b.errorf(re.Buffer.Pos, path+".buffer", "the buffer (%s) gives each of the %d data VLs %s; at least %s each is needed to go past a plain link's credits (128 KiB, 12-bit counters): raise it to %s or more, or lower switch.ib.data_vls",
					fabric.Size(re.Buffer.V), b.s.IB.DataVLs, fabric.Size(share), fabric.Size(fabric.MaxVLBuffer), fabric.Size(fabric.MaxVLBuffer*int64(b.s.IB.DataVLs)))
			}
		}
	}
}

// linkIB reports whether node id's links are InfiniBand's: its own
// link layer (the network's, or on a mixed network its switch's).
func (b *builder) linkIB(id fabric.NodeID) bool { return b.s.LinkLayerOf(id) == fabric.InfiniBand }

// mixedExtender refuses range extender id (its switch block sw, at path)
// on a network with InfiniBand and Ethernet switches, which does not take
// one yet (SCENARIO.md's VPI section): the extender's block takes no
// link_layer, so it would be on the network's Ethernet and each of its
// links to an InfiniBand switch refused as a gateway. It is counted
// with the InfiniBand switches so that this is the one error given.
func (b *builder) mixedExtender(id fabric.NodeID, sw *scenario.SwitchS, path string) {
	b.errorf(sw.KeyPos("range_extender"), path, "a range extender where switches give their own link_layer: infiniband (a network with InfiniBand and Ethernet switches) is not modelled yet; on an InfiniBand network it is: give switch.link_layer: infiniband at the top level")
	if b.ibSwitches == nil {
		b.ibSwitches = map[fabric.NodeID]bool{}
	}
	b.ibSwitches[id] = true
}

// LongHaul returns, for port of node id, the receive buffer per data VL
// its long-haul flow control grants, when the port is a range extender's
// link to the other extender.
func (s *Scenario) LongHaul(id fabric.NodeID, port int) (perVL int64, ok bool) {
	t := s.Topology
	if t == nil || !t.Nodes[id].RangeExtender || !t.Nodes[t.Nodes[id].Ports[port].Peer].RangeExtender {
		return 0, false
	}
	return s.SwitchProfile(id).RangeExtender.Buffer / int64(max(s.IB.DataVLs, 1)), true
}
