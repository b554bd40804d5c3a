package resolve

import (
	"fmt"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// InfiniBand: switch.link_layer: infiniband makes every link of the
// network an InfiniBand link (fabric/credit.go), hosts included. It is a
// parameter of the same models: the HCAs frame packets with LRH instead
// of Ethernet, IPv4 and UDP, and hold back for credit instead of PFC
// PAUSE; the switches admit what arrives on credit and return the credit
// as packets leave. What has no InfiniBand meaning (PFC, ECN thresholds,
// Ethernet's congestion controls, selective repeat, 802.1p priorities) is an
// error on an InfiniBand scenario, naming the counterpart where there is
// one.

// IBConfig is switch.ib as the model uses it.
type IBConfig struct {
	// VLBuffer is the receive buffer per input port and data VL, bytes:
	// its 64-byte blocks are the credits a link's sender gets. Default
	// 64 KiB, SCENARIO.md's example: NVIDIA publishes no per-VL figure
	// for its Quantum switches; 64 KiB is more than the credit round
	// trip of a 100 m link at 200 Gb/s (2 × 0.5 µs of fibre plus a
	// packet's serialization: about 38 KB), so such links run at line
	// rate on one VL. Where a link's round trip is more than its buffer
	// holds, the scenario's check warns (credits.go).
	VLBuffer int64
	// DataVLs is the number of data VLs: 1, 2, 4 or 8. Default 8.
	DataVLs int
	// SL2VL is the VL of each service level, the same at every port
	// (switch.ib.sl2vl). Default: SL s uses VL s mod 8 mod DataVLs, the
	// contract's [0..7, 0..7] folded onto fewer VLs.
	SL2VL [16]uint8
	// PortSL2VL are the switch ports' own SL-to-VL tables
	// (switch.ib.sl2vl_ports), in file order (a later entry for the same
	// ports wins).
	PortSL2VL []PortSL2VL
	// HCAServed is the VLs every HCA's tables serve (hca.vlarb, a host's
	// hca.vlarb), 0xFF where none has its own.
	HCAServed uint8
	// Served is the VLs the VL arbitration tables serve (switch.ib.vlarb:
	// a high entry, or a low one with a weight); all when none is given.
	Served uint8
	// LMC is subnet_manager.lmc: each host has 2^LMC LIDs, each on its
	// own path where there are several; a QP uses the one its number
	// picks. Default 0.
	LMC int
	// SMHost is subnet_manager.host, where the SA answers path queries
	// (hca.SubnetAdmin); the first host by default.
	SMHost    fabric.NodeID
	SMHostSet bool
	// PairVL is, with subnet_manager.routing dfsssp or lash, the VL the subnet
	// manager gives each source-destination pair (fabric.AssignVLs,
	// fabric.AssignLASHLanes); nil otherwise.
	PairVL *fabric.PairLanes
	// SweepDelay is how long after a link changes state the subnet
	// manager has new forwarding tables in every switch (at once, as it
	// pushes them). Default 1 ms, SCENARIO.md's example: OpenSM sweeps on
	// the port-state-change trap at once, and a heavy sweep of a small
	// fabric takes milliseconds.
	SweepDelay sim.Time
}

// defaultIB is IBConfig's defaults.
var defaultIB = IBConfig{VLBuffer: 64 << 10, DataVLs: 8, SweepDelay: sim.Millisecond}

// infiniband reads switch.link_layer and switch.ib, and on InfiniBand
// refuses, each at its key, what has no InfiniBand meaning, and makes the
// switch and HCA profiles InfiniBand's.
func (b *builder) infiniband() {
	sw := &b.f.Switch
	sm := &b.f.SubnetManager
	if !sw.LinkLayer.Set || sw.LinkLayer.V != "infiniband" {
		if sw.IB.Set && b.declaresIBSwitch() {
			b.mixedIB(&sw.IB) // read with the topology (vpi.go)
		} else if sw.IB.Set {
			b.errorf(sw.KeyPos("ib"), "switch.ib", "switch.ib is InfiniBand's; this scenario's links are Ethernet (switch.link_layer: infiniband makes them InfiniBand)")
		}
		if h := &b.f.HCA; h.CC.Set {
			if row, ok := kind.LookupCC(h.CC.V); ok && !row.Ethernet {
				eth := ccList(func(r kind.CC) bool { return r.RDMA && r.Ethernet }, ccName)
				b.errorf(h.CC.Pos, "hca.cc", "%s is InfiniBand's congestion control; on Ethernet hca.cc takes %s", h.CC.V, orList(append(eth, "none")))
			}
		}
		if h := &b.f.HCA; h.GRH.Set {
			b.errorf(h.GRH.Pos, "hca.grh", "a global route header is InfiniBand's; a RoCEv2 packet has its IPv4 header in that place always")
		}
		for _, row := range kind.CCs() {
			if h := &b.f.HCA; !row.Ethernet && len(row.Params) > 0 && h.Has(row.Name) {
				b.errorf(h.KeyPos(row.Name), "hca."+row.Name, "hca.%s is InfiniBand's congestion control's; this scenario's links are Ethernet", row.Name)
			}
		}
		if h := &b.f.HCA; h.Has("vlarb") {
			b.errorf(h.KeyPos("vlarb"), "hca.vlarb", "VL arbitration is InfiniBand's; on Ethernet a NIC sends its QPs in round robin (switch.scheduler weighs priorities at the switches)")
		}
		if sm.Set && b.declaresIBSwitch() {
			b.errorf(b.f.KeyPos("subnet_manager"), "subnet_manager", "subnet_manager's settings are not modelled yet on a network with InfiniBand and Ethernet switches: its subnet manager runs minhop with LMC 0 on the InfiniBand side")
		} else if sm.Set {
			b.errorf(b.f.KeyPos("subnet_manager"), "subnet_manager", "a subnet manager is InfiniBand's; this scenario's links are Ethernet (switch.link_layer: infiniband makes them InfiniBand; topology.routing routes Ethernet)")
		}
		return
	}
	s := b.s
	s.LinkLayer = fabric.InfiniBand
	s.IB = defaultIB
	// OpenSM's default engine is minhop.
	s.Routing = fabric.RoutingMinHop
	if a := fabric.RoutingAlgo(sm.Routing.V); sm.Routing.Set && a.IsLFT() {
		s.Routing = a
	}
	overrideNum(&s.IB.LMC, sm.LMC)
	override(&s.IB.SweepDelay, sm.SweepDelay)
	if r := b.f.Topology.Route; r != nil && r.Routing.Set {
		b.errorf(r.Routing.Pos, "topology.routing", "topology.routing routes Ethernet; on InfiniBand the subnet manager's engine does (subnet_manager.routing: minhop, updn, ftree, dfsssp or lash)")
	}
	b.ibLanes(&sw.IB)
	notIB := func(has bool, at scenario.Pos, path, why string) {
		if has {
			b.errorf(at, path, "%s", why)
		}
	}
	notIB(sw.Has("pfc"), sw.KeyPos("pfc"), "switch.pfc", "PFC is Ethernet's; on InfiniBand credits per VL keep every link lossless (switch.ib.vl_buffer sets the buffer they grant)")
	notIB(sw.Has("ecn"), sw.KeyPos("ecn"), "switch.ecn", "ECN marking is Ethernet's; InfiniBand's congestion control marks FECN (switch.ib.fecn)")
	notIB(sw.Has("ingress_threshold"), sw.KeyPos("ingress_threshold"), "switch.ingress_threshold", "an InfiniBand switch drops nothing for want of buffer: each input port and VL has its own (switch.ib.vl_buffer)")
	notIB(sw.Has("egress_threshold"), sw.KeyPos("egress_threshold"), "switch.egress_threshold", "an InfiniBand switch drops nothing for want of buffer: each input port and VL has its own (switch.ib.vl_buffer)")
	notIB(sw.Has("reserved"), sw.KeyPos("reserved"), "switch.reserved", "an InfiniBand switch has no shared pool to reserve from: each input port and VL has its buffer (switch.ib.vl_buffer)")
	notIB(sw.Has("buffer"), sw.KeyPos("buffer"), "switch.buffer", "an InfiniBand switch's buffer is per input port and VL (switch.ib.vl_buffer)")
	notIB(sw.Tagger.Set, sw.KeyPos("tagger"), "switch.tagger", "Tagger moves packets between lossless Ethernet priorities; on InfiniBand a routing engine that uses VLs breaks credit loops (subnet_manager.routing: dfsssp or lash)")
	notIB(sw.FloodLossless.Set, sw.KeyPos("flood_lossless"), "switch.flood_lossless", "an InfiniBand switch never floods: a packet without a forwarding entry is dropped")
	b.ibLoadBalance(sw, "switch")
	h := &b.f.HCA
	onIB := func(r kind.CC) bool { return r.RDMA && r.InfiniBand }
	if row, ok := kind.LookupCC(h.CC.V); h.CC.Set && ok && !row.InfiniBand {
		ib := ccList(onIB, func(r kind.CC) string { return r.Name + " (" + r.Title + ")" })
		b.errorf(h.CC.Pos, "hca.cc", "%s is Ethernet's (ECN or RTT based); on InfiniBand hca.cc takes %s", h.CC.V, orList(append(ib, "none")))
	}
	ibParams := orList(append(ccList(onIB, func(r kind.CC) string { return r.Name + " (hca." + r.Name + ")" }), "none"))
	for _, row := range kind.CCs() {
		if k := row.Name; !row.InfiniBand && len(row.Params) > 0 {
			notIB(h.Has(k), h.KeyPos(k), "hca."+k, k+"'s parameters are Ethernet congestion control's; on InfiniBand hca.cc takes "+ibParams)
		}
	}
	notIB(h.Priority.Set, h.Priority.Pos, "hca.priority", "an 802.1p priority is Ethernet's; on InfiniBand a traffic item's sl: picks its service level (and so its VL)")
	notIB(h.PFCWatchdog.Set, h.KeyPos("pfc_watchdog"), "hca.pfc_watchdog", "PFC is Ethernet's; an InfiniBand NIC holds back for credit and sends no PAUSE")
	if h.Retransmit.Set && h.Retransmit.V == "selective" {
		b.errorf(h.Retransmit.Pos, "hca.retransmit", "selective repeat (IRN) is for lossy Ethernet; InfiniBand's RC resends with go-back-N (go-back-n or go-back-0)")
	}

	p := &s.Switch
	ibSwitch(p, s.IB.LMC, sw.Forwarding.Set)
	if h := sw.IB.HOQLifetime; h.Time.Set {
		p.HOQLifetime = h.Time.V
	}
	s.IB.Served, s.IB.HCAServed = 0xFF, 0xFF
	if sw.IB.Has("vlarb") {
		b.vlArb(&sw.IB.VLArb)
	}
	if h.Has("vlarb") {
		b.hcaVLArb(&s.HCA, &h.VLArb, "hca.vlarb")
	}
	ibHCA(&s.HCA)
	override(&s.HCA.GRH, h.GRH)
	row, ok := kind.LookupCC(h.CC.V)
	if h.CC.Set && ok && row.InfiniBand {
		s.HCA.CC = h.CC.V
	}
	if f := &sw.IB.FECN; f.Set {
		// FECN marking as a constant-probability mark above the
		// threshold, at enqueue (the port's congestion state).
		p.ECN = swtch.ECN{Enabled: true, Kmin: f.Threshold.V, Kmax: f.Threshold.V, Pmax: 1 / float64(f.MarkingRate.V+1), AtEnqueue: true, Constant: true}
	}
	if s.HCA.CC != "none" && row.ECN && !sw.IB.FECN.Set {
		b.warnf(h.CC.Pos, "hca.cc", "hca.cc is %s but no switch marks FECN (switch.ib.fecn), so nothing will slow the senders", s.HCA.CC)
	}
	// InfiniBand's own controls' parameters (ccConfig read Ethernet's).
	for _, row := range kind.CCs() {
		if row.InfiniBand && !row.Ethernet {
			b.ccParams(s.CC, row.Name, h)
		}
	}
}

// ibLanes reads switch.ib's buffer per VL, data VLs and SL-to-VL table
// (ib) into the scenario's IBConfig, over its defaults.
func (b *builder) ibLanes(ib *scenario.IBS) {
	s := b.s
	overrideNum(&s.IB.VLBuffer, ib.VLBuffer)
	overrideNum(&s.IB.DataVLs, ib.DataVLs)
	for sl := range s.IB.SL2VL {
		s.IB.SL2VL[sl] = uint8(sl % 8 % s.IB.DataVLs)
	}
	if ib.Has("sl2vl") {
		if len(ib.SL2VL) != 16 {
			b.errorf(ib.KeyPos("sl2vl"), "switch.ib.sl2vl", "expected the VL of each of the 16 SLs, not %d values", len(ib.SL2VL))
		}
		for sl, v := range ib.SL2VL {
			switch {
			case !v.Set || sl >= 16:
			case int(v.V) >= s.IB.DataVLs:
				b.errorf(v.Pos, "switch.ib.sl2vl", "SL %d's VL %d is not a data VL: the links have %d (VL 0..%d; switch.ib.data_vls)", sl, v.V, s.IB.DataVLs, s.IB.DataVLs-1)
			default:
				s.IB.SL2VL[sl] = uint8(v.V)
			}
		}
	}
}

// layeredVLs gives every flow and program the VL of its
// source-destination pair, which the layering of dfsssp
// (fabric.AssignVLs) or lash (fabric.AssignLASHLanes) chose, once the
// routes are known; a traffic item that gives its own sl is refused.
func (b *builder) layeredVLs() {
	s := b.s
	if s.LinkLayer != fabric.InfiniBand || s.Routes == nil || b.t == nil {
		return
	}
	var vls *fabric.PairLanes
	var err error
	switch s.Routing {
	case fabric.RoutingDFSSSP:
		vls, err = fabric.AssignVLsLMC(b.t, s.Routes, s.IB.DataVLs, s.IB.LMC)
	case fabric.RoutingLASH:
		vls, err = fabric.AssignLASHLanes(b.t, s.IB.DataVLs)
	default:
		return
	}
	if err != nil {
		b.errorf(b.f.SubnetManager.Routing.Pos, "subnet_manager.routing", "%v", err)
		return
	}
	s.IB.PairVL = vls
	for i := range b.f.Traffic {
		if com := genCommon(b.f.Traffic[i].Gen); com != nil && com.SL.Set {
			b.errorf(com.SL.Pos, b.f.Traffic[i].Path+"."+b.f.Traffic[i].Kind+".sl", "with subnet_manager.routing %s the subnet manager gives each source-destination pair its SL (and VL); remove sl", s.Routing)
		}
	}
	for i := range s.Flows {
		f := &s.Flows[i]
		f.Priority, _ = vls.Lane(f.Src, f.Dst)
		f.SL = f.Priority // OpenSM gives the pair its lane as SL; SL2VL maps it to that VL
	}
	for i := range s.Tests {
		t := &s.Tests[i]
		vl, _ := vls.Lane(t.Src, t.Dst)
		t.Perftest.Priority, t.Pingpong.Priority = vl, vl
		t.Perftest.SL, t.Pingpong.SL = vl, vl
	}
}

// vlTables is a VL arbitration table pair as a file gives it
// (switch.ib.vlarb, hca.vlarb).
type vlTables struct {
	high   uint16    // VLs of the high-priority table
	weight [16]int64 // low table: weight in 64-byte units, 0 for none
	served uint8     // VLs either table serves
	limit  int64     // high_limit in bytes (4 KiB units); 0 unlimited, 1 one packet
}

// parseVLArb checks a table pair: VLs that are data VLs, one entry each.
// A VL in neither table, or only with weight 0, is never sent. An entry
// whose vl or weight the file's decoder refused (out of range, missing:
// it said so at the value) makes the tables' VLs unknown: they then
// count as serving every VL, so that the refusal is the only error, not
// followed by "VL 0 ... never served" for a VL the entry was about.
func (b *builder) parseVLArb(va *scenario.VLArbS, path string) vlTables {
	s := b.s
	var t vlTables
	seen := map[int64]bool{}
	refused := false
	entry := func(e scenario.VLArbEntry, table string) bool {
		switch {
		case !e.VL.Set || !e.Weight.Set:
			refused = true
			return false
		case int(e.VL.V) >= s.IB.DataVLs:
			b.errorf(e.VL.Pos, path+"."+table, "VL %d is not a data VL: the links have %d (VL 0..%d; switch.ib.data_vls)", e.VL.V, s.IB.DataVLs, s.IB.DataVLs-1)
			return false
		case seen[e.VL.V]:
			b.errorf(e.VL.Pos, path+"."+table, "VL %d has an entry already; the model takes one entry per VL", e.VL.V)
			return false
		}
		seen[e.VL.V] = true
		return true
	}
	for _, e := range va.High {
		if entry(e, "high") {
			t.high |= 1 << e.VL.V
			t.served |= 1 << e.VL.V
		}
	}
	for _, e := range va.Low {
		if entry(e, "low") && e.Weight.V > 0 {
			t.weight[e.VL.V] = e.Weight.V
			t.served |= 1 << e.VL.V
		}
	}
	if refused {
		t.served = 0xFF
	}
	switch l := va.HighLimit; {
	case !l.Set || l.V == 255:
	case l.V == 0:
		t.limit = 1 // one packet
	default:
		t.limit = l.V * 4096
	}
	return t
}

// vlArb makes switch.ib.vlarb the switches' egress scheduling: the VLs of
// the high-priority table go first, by VL number (the model does not
// weigh them against each other), and those of the low-priority table
// share what is left by deficit round robin with their weights in
// 64-byte units; high_limit (4 KiB units; 255 unlimited, 0 one packet)
// bounds what the high table sends while the low one waits. Unless
// hca.vlarb gives their own, the HCAs arbitrate with the same tables.
func (b *builder) vlArb(va *scenario.VLArbS) {
	s := b.s
	t := b.parseVLArb(va, "switch.ib.vlarb")
	p := &s.Switch
	p.DWRR, p.DWRRUnit = map[uint8]int{}, fabric.BlockBytes
	for vl, w := range t.weight {
		if w > 0 {
			p.DWRR[uint8(vl)] = int(w)
		}
	}
	p.HighLimit = t.limit
	s.IB.Served = t.served
	s.HCA.VLArb = t.hca()
}

// hca is the tables as an HCA's profile takes them.
func (t vlTables) hca() *hca.VLArb {
	a := &hca.VLArb{High: t.high, HighLimit: t.limit}
	for vl, w := range t.weight {
		a.Weight[vl] = w * fabric.BlockBytes
	}
	return a
}

// hcaVLArb applies an hca.vlarb block (the top-level one or a host's) to
// p, and narrows the VLs served to those its tables serve too.
func (b *builder) hcaVLArb(p *hca.Profile, va *scenario.VLArbS, path string) {
	t := b.parseVLArb(va, path)
	p.VLArb = t.hca()
	if b.s.IB.HCAServed&^t.served != 0 {
		b.s.IB.HCAServed &= t.served
		b.hcaArbPos, b.hcaArbPath = va.Pos, path
	}
}

// Wire is the bytes a packet with opcode op and payload bytes takes on
// the scenario's links: InfiniBand's framing, an overlay's around a
// RoCEv2 frame (as the ideal counts iWARP's too), or the transport's
// (kind.Transport's Wire).
func (s *Scenario) Wire(op fabric.Opcode, payload int) int64 {
	if s.LinkLayer == fabric.InfiniBand {
		return int64(fabric.IBWire(op, payload, s.HCA.GRH))
	}
	if o := s.HCA.Overlay; o != nil {
		return int64(o.Wire(fabric.RoCEv2Frame(op, payload)))
	}
	return int64(kind.TransportOf(s.HCA.Transport).Wire(op, payload))
}

// PortSL2VL is a switch output port's SL-to-VL table for the packets
// from input port In (-1: from every input port).
type PortSL2VL struct {
	Switch  fabric.NodeID
	Out, In int
	Table   [16]uint8
}

// sl2vlPorts reads switch.ib.sl2vl_ports once the topology is known.
func (b *builder) sl2vlPorts() {
	ib := &b.f.Switch.IB
	if len(ib.SL2VLPorts) == 0 || b.t == nil {
		return
	}
	if b.s.LinkLayer != fabric.InfiniBand {
		return // switch.ib itself is refused
	}
	for i := range ib.SL2VLPorts {
		e := &ib.SL2VLPorts[i]
		path := fmt.Sprintf("switch.ib.sl2vl_ports[%d]", i)
		refs := b.ports(e.Port, path+".port", false, false)
		if len(refs) != 1 {
			continue
		}
		out := refs[0]
		if b.t.Nodes[out.Node].Kind != fabric.Switch {
			b.errorf(e.Port.Pos, path+".port", "%s is a host's port; every HCA port maps SLs with switch.ib.sl2vl", scenario.Show(e.Port.V))
			continue
		}
		t := PortSL2VL{Switch: out.Node, Out: out.Port, In: -1}
		if e.In.Set {
			in := b.ports(e.In, path+".in", false, false)
			if len(in) != 1 {
				continue
			}
			if in[0].Node != out.Node {
				b.errorf(e.In.Pos, path+".in", "%s is not a port of %s: a table maps the packets that cross one switch from in to port", scenario.Show(e.In.V), b.t.Nodes[out.Node].Name)
				continue
			}
			t.In = in[0].Port
		}
		if len(e.SL2VL) != 16 {
			b.errorf(e.KeyPos("sl2vl"), path+".sl2vl", "expected the VL of each of the 16 SLs, not %d values", len(e.SL2VL))
			continue
		}
		ok := true
		for sl, v := range e.SL2VL {
			if int(v.V) >= b.s.IB.DataVLs {
				b.errorf(v.Pos, path+".sl2vl", "SL %d's VL %d is not a data VL: the links have %d (VL 0..%d; switch.ib.data_vls)", sl, v.V, b.s.IB.DataVLs, b.s.IB.DataVLs-1)
				ok = false
			}
			t.Table[sl] = uint8(v.V)
		}
		if ok {
			b.s.IB.PortSL2VL = append(b.s.IB.PortSL2VL, t)
		}
	}
}

// vlOf returns the VL of service level sl (switch.ib.sl2vl).
func (s *Scenario) vlOf(sl int64) uint8 { return s.IB.SL2VL[sl] }

// priorityOf is a traffic item's priority (its VL on InfiniBand): from
// priority: on Ethernet, sl: on InfiniBand, each refused on the other
// link layer; def otherwise.
func (b *builder) priorityOf(com *scenario.GenCommon, def uint8, path string) uint8 {
	ib := b.s.LinkLayer == fabric.InfiniBand
	switch {
	case com.SL.Set && !ib && !b.s.Mixed():
		b.errorf(com.SL.Pos, path+".sl", "sl is an InfiniBand service level; on Ethernet give priority (0..7)")
	case com.Priority.Set && ib:
		b.errorf(com.Priority.Pos, path+".priority", "an 802.1p priority is Ethernet's; on InfiniBand give sl (a service level, 0..15)")
	case com.SL.Set && ib:
		return b.s.vlOf(com.SL.V)
	case com.Priority.Set:
		return uint8(com.Priority.V)
	}
	return def
}

// slOf is a traffic item's InfiniBand service level: sl:, or 0.
func slOf(com *scenario.GenCommon) uint8 {
	if com.SL.Set {
		return uint8(com.SL.V)
	}
	return 0
}

// genCommon returns a traffic generator's common keys (qp, op, priority,
// sl, start), or nil for one without them.
func genCommon(g any) *scenario.GenCommon {
	switch g := g.(type) {
	case *scenario.FlowS:
		return &g.GenCommon
	case *scenario.IncastS:
		return &g.GenCommon
	case *scenario.PermutationS:
		return &g.GenCommon
	case *scenario.AllToAllS:
		return &g.GenCommon
	case *scenario.RingAllreduceS:
		return &g.GenCommon
	case *scenario.PoissonS:
		return &g.GenCommon
	case *scenario.PingpongS:
		return &g.GenCommon
	case *scenario.PerftestS:
		return &g.GenCommon
	case *scenario.RpingS:
		return &g.GenCommon
	}
	return nil
}

// ibLoadBalance refuses, on InfiniBand, a switch block (path) whose
// load_balance its routing cannot have. Adaptive routing chooses among
// the subnet manager's port groups (swtch.Switch.groups): the engines
// whose VLs break credit loops path by path cannot have it, nor LMC's
// LIDs.
func (b *builder) ibLoadBalance(sw *scenario.SwitchS, path string) {
	lb, s := sw.LoadBalance, b.s
	if !lb.Set || !chooses(lb.V) {
		return
	}
	switch {
	case s.Routing == fabric.RoutingDFSSSP || s.Routing == fabric.RoutingLASH:
		b.errorf(sw.KeyPos("load_balance"), path+".load_balance", "%s gives each destination one path and the virtual lanes that keep those paths free of credit loops; a packet that takes another port of the group may close one (load_balance %s goes with subnet_manager.routing: minhop, updn or ftree)", s.Routing, lb.V)
	case s.IB.LMC > 0:
		b.errorf(sw.KeyPos("load_balance"), path+".load_balance", "with load_balance %s a switch chooses among its group's ports itself, and subnet_manager.lmc's extra LIDs would choose nothing: use one or the other", lb.V)
	}
}

// smHost reads subnet_manager.host: a host, on InfiniBand only.
func (b *builder) smHost() {
	h := b.f.SubnetManager.Host
	if !h.Set {
		return
	}
	if b.s.LinkLayer != fabric.InfiniBand {
		b.errorf(h.Pos, "subnet_manager.host", "the subnet manager runs on InfiniBand; this fabric is Ethernet (switch.link_layer: infiniband)")
		return
	}
	if id, ok := b.host(h, "subnet_manager.host"); ok {
		b.s.IB.SMHost, b.s.IB.SMHostSet = id, true
	}
}

// checkAPM refuses hca.apm (the top-level key, or a host's own) where
// there is no alternate path: APM's is a second LID, so InfiniBand with
// subnet_manager.lmc at least 1.
func (b *builder) checkAPM() {
	at, path, on := b.f.HCA.APM.Pos, "hca.apm", b.f.HCA.APM.Set && b.f.HCA.APM.V
	if !on && b.t != nil {
		for _, h := range b.t.Hosts() {
			if b.s.HCAProfile(h).APM {
				on, at, path = true, b.declPos[h], b.declPath[h]+".hca.apm"
				break
			}
		}
	}
	if !on {
		return
	}
	switch {
	case b.s.LinkLayer != fabric.InfiniBand:
		b.errorf(at, path, "automatic path migration is InfiniBand's (its alternate path is a second LID); this fabric is Ethernet")
	case b.s.IB.LMC == 0 && (b.t == nil || len(b.t.Endpoints()) == len(b.t.Hosts())):
		b.errorf(at, path, "APM's alternate path is a host's second LID or second port: set subnet_manager.lmc to 1 or more, or link hosts twice (a dual-port HCA)")
	}
}
