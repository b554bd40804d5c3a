package resolve

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	swtch "github.com/lfsim/lfsim/switch"
)

// The link layer of each node. A network has one (switch.link_layer,
// Scenario.LinkLayer); an explicit topology may give a switch the other
// (vpi.go), and a host's port is on its switch's. The profiles of the
// nodes on InfiniBand are made from the network's by ibSwitch and ibHCA,
// the same conversions an InfiniBand network's profiles go through.

// LinkLayerOf returns node id's link layer: a switch's own, a host port's
// its switch's (a host's second port is a node of its own).
func (s *Scenario) LinkLayerOf(id fabric.NodeID) fabric.LinkLayer {
	if s.NodeLink == nil {
		return s.LinkLayer
	}
	return s.NodeLink[id]
}

// Mixed reports whether the network has nodes on both link layers.
func (s *Scenario) Mixed() bool { return s.NodeLink != nil }

// ibSwitch makes p an InfiniBand switch's profile: credits instead of
// PFC, no ECN marking (FECN is set apart), no flooding, and cut-through
// forwarding unless the file chose (forwardingSet): NVIDIA's Quantum
// datasheets quote port-to-port latency for cut-through.
func ibSwitch(p *swtch.Profile, lmc int, forwardingSet bool) {
	p.LinkLayer = "infiniband"
	p.LMC = lmc
	p.PFC.Priorities = []uint8{}
	p.ECN.Enabled = false
	p.FloodLossless = false
	if !forwardingSet {
		p.CutThrough = true
	}
}

// ibHCA makes p an InfiniBand port's profile: LRH framing and credits,
// data on SL 0's VL, and no congestion control until the file names an
// InfiniBand one (hca.cc: ibcc).
func ibHCA(p *hca.Profile) {
	p.LinkLayer = fabric.InfiniBand
	p.Priority = 0 // SL 0's VL
	p.CC = "none"
}
