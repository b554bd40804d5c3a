package resolve

import (
	"fmt"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
)

// VPI (Virtual Protocol Interconnect): an adapter with an InfiniBand
// port and an Ethernet port at once. In an explicit topology a switch
// may give its own link_layer (topology.switches[i].switch.link_layer);
// its links, and the host ports linked to it, are on that link layer. A
// host linked to an InfiniBand switch and an Ethernet switch has a port
// on each, in the order of its links (a host's first link is port 1,
// its second port 2), and each port runs its own fabric's framing (LRH
// or Ethernet, IPv4 and UDP), flow control (credits per VL or PFC) and
// congestion control. Each port of such a host is one PCI function of
// the adapter with its own HCA model (as mlx5 gives each port of a
// ConnectX its own function), sharing the adapter's host interface
// (hca.host_bandwidth).
//
// What the model takes, and why:
//   - The network's link layer (switch.link_layer) stays the default,
//     and only an Ethernet network may have InfiniBand switches: the top
//     level switch: and hca: blocks are the Ethernet side's; switch.ib
//     gives the InfiniBand side its vl_buffer, data_vls, sl2vl and
//     hoq_lifetime (mixedIB refuses the rest), and it runs without
//     congestion control (IB CC needs FECN marking, the InfiniBand
//     network's switch.ib.fecn). hca.cc is the Ethernet ports'.
//   - An InfiniBand switch and an Ethernet switch are never linked (no
//     gateway is modelled): the fabrics meet only in VPI hosts. A host
//     does not forward, so each fabric must be connected on its own
//     (fabric.Topology.SetLinkLayers): two ports on one link layer are
//     then always connected, which flowPorts relies on.
//   - A host's two links may be on one InfiniBand fabric (a dual-port
//     HCA, APM's alternate path), or one on each fabric (VPI); two
//     Ethernet links are refused, as on an Ethernet network.
//   - A flow leaves its source's port (flow.port, 1 by default) and
//     goes to the destination's port on the same fabric; a flow whose
//     ports share no fabric is refused.
//   - Routes are computed for the whole topology, each fabric's switches
//     for the hosts they reach: the Ethernet switches' with
//     topology.routing, the InfiniBand switches' by the subnet manager
//     (minhop, IBRoutes), which gives LIDs to the InfiniBand side only
//     (LIDs) and writes its switches' tables to lfts.txt. subnet_manager
//     settings are refused on a mixed network (not modelled yet).

// ibSwitchDecl reads a declared switch's own link_layer (sw, at path): it
// returns whether the switch is on InfiniBand in a network whose link
// layer is the other.
func (b *builder) ibSwitchDecl(sw *scenario.SwitchS, path string) bool {
	ll := sw.LinkLayer
	if !ll.Set || ll.V == b.s.LinkLayer.String() {
		return false
	}
	if b.s.LinkLayer == fabric.InfiniBand {
		b.errorf(ll.Pos, path+".link_layer", "a network with InfiniBand and Ethernet switches has Ethernet as its link layer: leave switch.link_layer out (ethernet) and give link_layer: infiniband to the InfiniBand switches")
		return false
	}
	if t := b.s.HCA.Transport; t != fabric.RoCEv2 {
		b.errorf(ll.Pos, path+".link_layer", "a VPI adapter's Ethernet ports run RoCEv2 here; hca.transport %s beside InfiniBand switches is not modelled", kind.TransportOf(t).Name)
		return false
	}
	return true
}

// linkLayerAt is node id's link layer while the links are being made:
// a switch's own, a host port's its first link's switch's.
func (b *builder) linkLayerAt(t *fabric.Topology, id fabric.NodeID) fabric.LinkLayer {
	if t.Nodes[id].Kind == fabric.Host && len(t.Nodes[id].Ports) > 0 {
		id = t.Nodes[id].Ports[0].Peer
	}
	if b.ibSwitches[id] {
		return fabric.InfiniBand
	}
	return b.s.LinkLayer
}

// sameFabric refuses a link between an InfiniBand switch and an
// Ethernet switch.
func (b *builder) sameFabric(t *fabric.Topology, x, y fabric.NodeID, l *scenario.LinkItemV) bool {
	if t.Nodes[x].Kind != fabric.Switch || t.Nodes[y].Kind != fabric.Switch {
		return true
	}
	lx, ly := b.linkLayerAt(t, x), b.linkLayerAt(t, y)
	if lx == ly {
		return true
	}
	b.errorf(l.Pos, l.Path, "a link between %s (%s) and %s (%s): an InfiniBand switch and an Ethernet switch cannot be linked (no gateway is modelled); a host with a port on each (VPI) joins the two fabrics",
		scenario.Show(t.Nodes[x].Name), lx, scenario.Show(t.Nodes[y].Name), ly)
	return false
}

// nodeLinks sets Scenario.NodeLink once an explicit topology's links are
// made, where some switch is on InfiniBand in an Ethernet network, and
// gives the InfiniBand side its parameters (switch.ib's defaults).
func (b *builder) nodeLinks(t *fabric.Topology) {
	if len(b.ibSwitches) == 0 {
		return
	}
	s := b.s
	s.NodeLink = make([]fabric.LinkLayer, len(t.Nodes))
	for id := range t.Nodes {
		s.NodeLink[id] = b.linkLayerAt(t, fabric.NodeID(id))
	}
	s.IB = defaultIB
	b.ibLanes(&b.f.Switch.IB)
	s.IB.Served, s.IB.HCAServed = 0xFF, 0xFF
	t.SetLinkLayers(s.NodeLink)
}

// PortIP is endpoint n's IPv4 address: its host's (fabric.HostIP of
// its index among the hosts), or for a VPI host's port on its other
// fabric, a PCI function of its own, HostIP of its node id (above every
// host index).
func (s *Scenario) PortIP(n fabric.NodeID) uint32 {
	if h := s.Topology.Owner(n); h != n && s.VPI(h) {
		return fabric.HostIP(int(n))
	}
	for i, x := range s.Topology.Hosts() {
		if x == n {
			return fabric.HostIP(i)
		}
	}
	return fabric.HostIP(0)
}

// RoutesAt returns switch id's forwarding tables: on a mixed network an
// InfiniBand switch's are the subnet manager's (IBRoutes).
func (s *Scenario) RoutesAt(id fabric.NodeID) *fabric.Routes {
	if s.IBRoutes != nil && s.NodeLink[id] == fabric.InfiniBand {
		return s.IBRoutes
	}
	return s.Routes
}

// LIDs are the LIDs the subnet manager gives: every node's on an
// InfiniBand network, the InfiniBand side's on a mixed one (none for the
// Ethernet side's nodes).
func (s *Scenario) LIDs() *fabric.LIDs {
	if s.Mixed() {
		return fabric.AssignLIDsOn(s.Topology, s.IB.LMC, func(n fabric.NodeID) bool { return s.NodeLink[n] == fabric.InfiniBand })
	}
	return fabric.AssignLIDsLMC(s.Topology, s.IB.LMC)
}

// VPI reports whether host h has ports on both link layers.
func (s *Scenario) VPI(h fabric.NodeID) bool {
	if s.NodeLink == nil {
		return false
	}
	p2, ok := s.Topology.SecondPort(h)
	return ok && s.NodeLink[p2] != s.NodeLink[h]
}

// portName is how messages name endpoint n: "h0's port 2 (on
// InfiniBand)".
func (b *builder) portName(n fabric.NodeID) string {
	t := b.t
	h := t.Owner(n)
	port := 1
	if n != h {
		port = 2
	}
	return fmt.Sprintf("%s's port %d (on %s)", scenario.Show(t.Nodes[h].Name), port, linkLayerTitle(b.s.LinkLayerOf(n)))
}

// linkLayerTitle is a link layer as ibv_devinfo prints it.
func linkLayerTitle(l fabric.LinkLayer) string {
	if l == fabric.InfiniBand {
		return "InfiniBand"
	}
	return "Ethernet"
}

// flowPorts moves each flow to the ports it runs between: its source's
// port flow.port (1 by default) and its destination's port on the same
// fabric; it refuses a port a host does not have, and, on a mixed
// network, a flow whose hosts share no fabric, a priority on an
// InfiniBand port and an sl on an Ethernet one. A flow on an InfiniBand
// port of a mixed network takes its SL's VL.
func (b *builder) flowPorts() {
	if b.t == nil || !b.flowsOK {
		return
	}
	s, t := b.s, b.t
	lossless, warned := b.losslessPriorities(), map[int]bool{}
	for i := range s.Flows {
		f := &s.Flows[i]
		tr := &b.f.Traffic[f.Generator]
		path := tr.Path + "." + tr.Kind
		var port scenario.IntV
		if fl, ok := tr.Gen.(*scenario.FlowS); ok {
			port = fl.Port
		}
		if port.Set && port.V == 2 {
			p2, ok := t.SecondPort(f.Src)
			switch {
			case !ok:
				b.errorf(port.Pos, path+".port", "host %s has one port, port 1 (a host's second link is its port 2)", scenario.Show(t.Nodes[f.Src].Name))
				continue
			case !s.VPI(f.Src):
				b.errorf(port.Pos, path+".port", "host %s's port 2 is on its port 1's fabric: a dual-port InfiniBand HCA's second port is APM's alternate path, and a QP starts on port 1 (port: 2 picks a VPI host's other fabric)", scenario.Show(t.Nodes[f.Src].Name))
				continue
			}
			f.Src = p2
		}
		if !s.Mixed() {
			continue
		}
		ll := s.LinkLayerOf(f.Src)
		dst, ok := f.Dst, s.LinkLayerOf(f.Dst) == ll
		if p2, two := t.SecondPort(f.Dst); !ok && two && s.LinkLayerOf(p2) == ll {
			dst, ok = p2, true
		}
		at := f.Pos
		if port.Set {
			at = port.Pos
		}
		if !ok {
			b.errorf(at, path, "%s and host %s share no fabric: %s has no port on %s (port: picks the source's port)", b.portName(f.Src), scenario.Show(t.Nodes[f.Dst].Name), scenario.Show(t.Nodes[f.Dst].Name), linkLayerTitle(ll))
			continue
		}
		f.Dst = dst
		com := genCommon(tr.Gen)
		switch {
		case f.CM:
			b.errorf(com.Connect.Pos, path+".connect", "rdma_cm on a network with InfiniBand and Ethernet switches is not modelled yet (connect: instant)")
		case ll == fabric.InfiniBand && com.Priority.Set:
			b.errorf(com.Priority.Pos, path+".priority", "an 802.1p priority is Ethernet's, and this flow leaves %s: give sl (a service level, 0..15)", b.portName(f.Src))
		case ll == fabric.Ethernet && com.SL.Set:
			b.errorf(com.SL.Pos, path+".sl", "sl is an InfiniBand service level, and this flow leaves %s: give priority (0..7)", b.portName(f.Src))
		case ll == fabric.InfiniBand:
			f.Priority = s.vlOf(int64(f.SL))
		case lossless != nil && !lossless[f.Priority] && !warned[f.Generator]:
			// On a mixed network only a flow leaving an Ethernet port
			// meets PFC (addFlows leaves the warning to here).
			warned[f.Generator] = true
			b.warnLossy(com, tr, path, f.Priority)
		}
	}
	if !s.Mixed() {
		return
	}
	for _, ts := range s.Tests {
		if s.LinkLayerOf(ts.Src) != s.LinkLayerOf(ts.Dst) {
			b.errorf(ts.Pos, "traffic", "%s and %s are on different fabrics: a program runs on each host's port 1", b.portName(ts.Src), b.portName(ts.Dst))
		}
		if ts.Kind == "mckey" || ts.Kind == "rdma_server" || ts.Kind == "rdma_client" {
			b.errorf(ts.Pos, "traffic", "%s on a network with InfiniBand and Ethernet switches is not modelled yet", ts.Kind)
		}
	}
	for i := range s.Poisson {
		g := &s.Poisson[i]
		mixed := false
		for _, h := range g.Hosts {
			if s.LinkLayerOf(h) != s.LinkLayerOf(g.Hosts[0]) {
				b.errorf(g.Pos, "traffic", "poisson's hosts are on different fabrics (%s, %s): a generator's flows leave port 1, whose fabric must be one", b.portName(g.Hosts[0]), b.portName(h))
				mixed = true
				break
			}
		}
		if mixed || !g.HasTo || len(g.Hosts) == 0 {
			continue
		}
		// Its to: takes the flows on its port on the hosts' fabric, as
		// a flow's destination does.
		ll := s.LinkLayerOf(g.Hosts[0])
		if s.LinkLayerOf(g.To) == ll {
			continue
		}
		if p2, two := t.SecondPort(g.To); two && s.LinkLayerOf(p2) == ll {
			g.To = p2
			continue
		}
		at, path := g.Pos, "traffic"
		if tr := &b.f.Traffic[g.Generator]; tr.Kind == "poisson" {
			if ps, ok := tr.Gen.(*scenario.PoissonS); ok {
				at, path = ps.To.Pos, tr.Path+".poisson.to"
			}
		}
		name := scenario.Show(t.Nodes[g.To].Name)
		b.errorf(at, path, "%s has no port on %s, where this generator's hosts have their port 1 (%s): a flow goes to its destination's port on its source's fabric", name, linkLayerTitle(ll), b.portName(g.Hosts[0]))
	}
}

// portPriority is priorityOf for a program's or a poisson generator's
// QPs, which leave port src (port 1 of their host): on a mixed network by
// src's link layer, as flowPorts checks a flow's. On an InfiniBand port
// sl takes its VL and priority is refused; on an Ethernet port sl is
// refused. (priorityOf reads the network's link layer, Ethernet on a
// mixed network: a priority on an InfiniBand port was taken as its VL,
// past data_vls a VL without credits, and an sl was left out.)
func (b *builder) portPriority(com *scenario.GenCommon, src fabric.NodeID, def uint8, path string) uint8 {
	if !b.s.Mixed() {
		return b.priorityOf(com, def, path)
	}
	switch ll := b.s.LinkLayerOf(src); {
	case ll == fabric.InfiniBand && com.Priority.Set:
		b.errorf(com.Priority.Pos, path+".priority", "an 802.1p priority is Ethernet's, and this item's QPs leave %s: give sl (a service level, 0..15)", b.portName(src))
	case ll == fabric.InfiniBand && com.SL.Set:
		return b.s.vlOf(com.SL.V)
	case ll == fabric.Ethernet && com.SL.Set:
		b.errorf(com.SL.Pos, path+".sl", "sl is an InfiniBand service level, and this item's QPs leave %s: give priority (0..7)", b.portName(src))
	case com.Priority.Set:
		return uint8(com.Priority.V)
	}
	return def
}

// declaresIBSwitch reports whether the file's explicit topology gives a
// switch link_layer: infiniband in an Ethernet network (before the
// topology is built: infiniband() reads it).
func (b *builder) declaresIBSwitch() bool {
	ex, ok := b.f.Topology.Spec.(*scenario.ExplicitS)
	if !ok {
		return false
	}
	for i := range ex.Switches {
		if ll := ex.Switches[i].Switch.LinkLayer; ll.Set && ll.V == "infiniband" {
			return true
		}
	}
	return false
}

// mixedIB refuses the switch.ib keys a mixed network's InfiniBand side
// does not take yet; vl_buffer, data_vls and sl2vl it takes (nodeLinks,
// ibLanes), and hoq_lifetime (ibSwitchDecl's caller).
func (b *builder) mixedIB(ib *scenario.IBS) {
	for _, k := range []string{"sl2vl_ports", "vlarb", "fecn"} {
		if ib.Has(k) {
			b.errorf(ib.KeyPos(k), "switch.ib."+k, "switch.ib.%s is not modelled yet on a network with InfiniBand and Ethernet switches (its InfiniBand side takes vl_buffer, data_vls, sl2vl and hoq_lifetime)", k)
		}
	}
}

// ibOwnBlock refuses, in an InfiniBand switch's own block (path), what
// has no InfiniBand meaning.
func (b *builder) ibOwnBlock(sw *scenario.SwitchS, path string) {
	for _, k := range []string{"pfc", "ecn", "buffer", "ingress_threshold", "egress_threshold", "reserved", "tagger", "flood_lossless"} {
		if sw.Has(k) {
			b.errorf(sw.KeyPos(k), path+"."+k, "%s is Ethernet's; this switch's link_layer is infiniband (credits per VL keep its links lossless, with switch.ib's buffer per input port and VL)", k)
		}
	}
}

// SMNode is the host the subnet manager runs on (subnet_manager.host,
// default the first host), whose LID ibv_devinfo's sm_lid gives and
// whose SA answers rdma_cm's path queries.
func (s *Scenario) SMNode() fabric.NodeID {
	if s.IB.SMHostSet {
		return s.IB.SMHost
	}
	return s.Topology.Hosts()[0]
}
