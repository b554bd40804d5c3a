package resolve

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
)

// transport checks what the scenario's transport (hca.transport, its row
// of kind's table) may ask for, by the row's facts, and sets what they
// imply: the link layers it runs on; on one that is not routed
// (RoCEv1), its switches are bridges; one whose frames carry
// no ECN field or no INT refuses the controls that need them; one over
// TCP (iWARP) runs TCP's congestion control and recovery (iwarp.go).
func (b *builder) transport() {
	row, h := b.transportRow(), &b.f.HCA
	if ib := b.s.LinkLayer == fabric.InfiniBand; ib && !row.InfiniBand && row.Framing != kind.Transports()[0].Framing {
		b.errorf(h.Transport.Pos, "hca.transport", "%s %s; on InfiniBand links the transport is InfiniBand's own (drop hca.transport, or switch.link_layer)", row.Name, row.Does)
		return
	} else if ib {
		return
	} else if !row.Ethernet {
		b.errorf(h.Transport.Pos, "hca.transport", "%s %s; this scenario's links are Ethernet (switch.link_layer: infiniband)", row.Name, row.Does)
		return
	}
	b.transportSwitch(&b.f.Switch, "switch")
	if !row.TCP {
		b.rdmaCC(row)
	}
	if !row.Routed {
		b.s.Routing = fabric.RoutingSpanningTree
	}
	if row.TCP {
		b.tcpRules(row)
	}
	if row.RDMAP {
		b.rdmapRules(row)
	}
	if pc := b.f.Observe.Pcap; len(pc) > 0 && !row.Capture {
		b.errorf(pc[0].Pos, "observe.pcap", "captures do not write %s's frames yet (drop observe.pcap, or use hca.transport: %s)", row.Title, kind.Transports()[0].Name)
	}
	if row.TCP {
		b.tcpCC()
	}
}

// transportRow is the scenario's transport's row.
func (b *builder) transportRow() kind.Transport { return kind.TransportOf(b.s.HCA.Transport) }

// rdmaCC refuses an RDMA congestion control (hca.cc) that needs what the
// transport's frames lack: a control that reacts to ECN marks where no
// IP header carries them (RoCEv1: EtherType 0x8915, a GRH, the BTH), one
// that reads INT where no UDP header carries it.
func (b *builder) rdmaCC(t kind.Transport) {
	h := &b.f.HCA
	row, ok := kind.LookupCC(b.s.HCA.CC)
	if !ok || !(row.ECN && !t.IP || row.INT && !t.INT) {
		return
	}
	// The controls that need nothing the frames lack are what it takes.
	fits := ccList(func(r kind.CC) bool { return r.RDMA && r.Ethernet && (t.IP || !r.ECN) && (t.INT || !r.INT) }, func(r kind.CC) string { return r.Name + " (" + r.Basis + ")" })
	takes := orList(append(fits, "none"))
	if row.ECN && !t.IP {
		b.errorf(h.CC.Pos, "hca.cc", "%s reacts to ECN marks, which switches write in the IP header, and a %s frame has none; on %s hca.cc takes %s", row.Name, t.Title, t.Title, takes)
	} else {
		b.errorf(h.CC.Pos, "hca.cc", "%s reads the telemetry switches stamp on %s's UDP packets, and a %s frame has no IP or UDP header; on %s hca.cc takes %s", row.Name, kind.Transports()[0].Title, t.Title, t.Title, takes)
	}
}

// transportSwitch refuses in a switch block (the top-level one, or one
// switch's, at path) what the transport's frames cannot be given: ECN
// marks where they carry no ECN field, and a load balancing mode that
// chooses among paths where they are bridged along one spanning tree
// (RoCEv1: forwarded by MAC, with no UDP source port to hash).
func (b *builder) transportSwitch(sw *scenario.SwitchS, path string) {
	t := b.transportRow()
	if !t.IP && sw.Has("ecn") && !sw.ECN.Off {
		b.errorf(sw.KeyPos("ecn"), path+".ecn", "ECN is marked in the IP header, and a %s frame has none (EtherType 0x%04x, then %s): no switch can mark it (ecn: off, or hca.transport: %s)", t.Title, t.EtherType, t.Header, kind.Transports()[0].Name)
	}
	if lb := sw.LoadBalance; !t.Routed && lb.Set && chooses(lb.V) {
		b.errorf(lb.Pos, path+".load_balance", "a %s fabric forwards by MAC along one spanning tree, which has one path between any two hosts: there is nothing for %s to choose among", t.Title, lb.V)
	}
}
