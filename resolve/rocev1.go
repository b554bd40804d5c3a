package resolve

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
)

// rocev1 checks what a scenario with hca.transport: rocev1 may ask for,
// and makes its switches bridges: a RoCEv1 frame (EtherType 0x8915, a
// GRH, the BTH) has no IP header, so it is forwarded by MAC along one
// spanning tree (fabric.RoutingSpanningTree), nothing can mark ECN in it,
// and there is no UDP source port to hash: one path, none to balance.
func (b *builder) rocev1() {
	h := &b.f.HCA
	if b.s.HCA.Transport != fabric.RoCEv1 {
		return
	}
	if b.s.LinkLayer == fabric.InfiniBand {
		b.errorf(h.Transport.Pos, "hca.transport", "rocev1 frames RDMA for Ethernet; on InfiniBand links the transport is InfiniBand's own (drop hca.transport, or switch.link_layer)")
		return
	}
	b.rocev1Switch(&b.f.Switch, "switch")
	if row, ok := kind.LookupCC(b.s.HCA.CC); ok && (row.ECN || row.INT) {
		// RoCEv1's frames have no IP header for ECN, nor the UDP one INT
		// rides on: the controls that need neither are what it takes.
		v1 := ccList(func(r kind.CC) bool { return r.RDMA && r.Ethernet && !r.ECN && !r.INT }, func(r kind.CC) string { return r.Name + " (" + r.Basis + ")" })
		takes := orList(append(v1, "none"))
		if row.ECN {
			b.errorf(h.CC.Pos, "hca.cc", "%s reacts to ECN marks, which switches write in the IP header, and a RoCEv1 frame has none; on RoCEv1 hca.cc takes %s", row.Name, takes)
		} else {
			b.errorf(h.CC.Pos, "hca.cc", "%s reads the telemetry switches stamp on RoCEv2's UDP packets, and a RoCEv1 frame has no IP or UDP header; on RoCEv1 hca.cc takes %s", row.Name, takes)
		}
	}
	b.s.Routing = fabric.RoutingSpanningTree
}

// rocev1Switch refuses in a switch block (the top-level one, or one
// switch's, at path) what a bridge forwarding RoCEv1 cannot do.
func (b *builder) rocev1Switch(sw *scenario.SwitchS, path string) {
	if sw.Has("ecn") && !sw.ECN.Off {
		b.errorf(sw.KeyPos("ecn"), path+".ecn", "ECN is marked in the IP header, and a RoCEv1 frame has none (EtherType 0x8915, then a GRH): no switch can mark it (ecn: off, or hca.transport: rocev2)")
	}
	if lb := sw.LoadBalance; lb.Set && chooses(lb.V) {
		b.errorf(lb.Pos, path+".load_balance", "a RoCEv1 fabric forwards by MAC along one spanning tree, which has one path between any two hosts: there is nothing for %s to choose among", lb.V)
	}
}
