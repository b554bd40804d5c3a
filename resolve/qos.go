package resolve

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
	swtch "github.com/lfsim/lfsim/switch"
)

// QoS as a switch is configured (switch.trust, dscp2prio, prio2tc,
// scheduler: {ets, strict}) and the DSCP the NICs write (hca.dscp, a
// flow's dscp): read into the profiles, with the checks that name what
// is allowed.

// applyQoS lays switch block s's classification and ETS over p.
func (b *builder) applyQoS(p *swtch.Profile, s *scenario.SwitchS, path string) {
	if s.Trust.Set && s.Trust.V == "dscp" {
		switch {
		case b.f.Switch.LinkLayer.V == "infiniband" || s.LinkLayer.V == "infiniband":
			b.errorf(s.Trust.Pos, path+".trust", "trust: dscp classifies by the IP header's DSCP, and InfiniBand's packets have none: their SL picks the VL (switch.ib.sl2vl)")
		case b.f.HCA.Transport.V == "rocev1":
			b.errorf(s.Trust.Pos, path+".trust", "trust: dscp classifies by the IP header's DSCP, and RoCEv1's frames have no IP header (EtherType 0x8915): use trust: pcp")
		}
	}
	if b.f.Switch.LinkLayer.V == "infiniband" || s.LinkLayer.V == "infiniband" {
		if s.Prio2TC.Pos.Line > 0 {
			b.errorf(s.Prio2TC.Pos, path+".prio2tc", "prio2tc and ETS are Ethernet's (IEEE 802.1Qaz); InfiniBand maps SLs to VLs (switch.ib.sl2vl) and arbitrates VLs by switch.ib.vlarb")
		}
		if len(s.Scheduler.ETS) > 0 {
			b.errorf(s.Scheduler.ETSPos, path+".scheduler.ets", "ETS is Ethernet's (IEEE 802.1Qaz); InfiniBand arbitrates VLs by switch.ib.vlarb")
		}
	}
	if s.Trust.Set {
		p.TrustDSCP = s.Trust.V == "dscp"
	}
	if m := &s.DSCP2Prio; len(m.Keys) > 0 {
		t := swtch.DefaultDSCP2Prio()
		p.DSCP2Prio = &t
		for i, d := range m.Keys {
			p.DSCP2Prio[d] = uint8(m.To[i])
		}
		if !p.TrustDSCP {
			// A warning, not an error: a sweep may turn trust between
			// pcp and dscp over the same map.
			b.warnf(m.Pos, path+".dscp2prio", "dscp2prio applies with trust: dscp, and this switch trusts pcp: the map has no effect")
		}
	}
	if m := &s.Prio2TC; len(m.Keys) > 0 {
		t := [8]uint8{0, 1, 2, 3, 4, 5, 6, 7}
		if p.Prio2TC != nil {
			t = *p.Prio2TC
		}
		for i, prio := range m.Keys {
			t[prio] = uint8(m.To[i])
		}
		p.Prio2TC = &t
	}
	sch := &s.Scheduler
	if s.Has("scheduler") {
		p.ETS = false
	}
	if len(sch.ETS) == 0 {
		return
	}
	// ETS's shares as DWRR weights: the percentages over their greatest
	// common divisor (70/30 is 7:3), each a quantum of that many largest
	// frames a round.
	g := int64(0)
	for _, pct := range sch.ETS {
		g = gcd(g, pct)
	}
	p.DWRR, p.ETS = map[uint8]int{}, true
	for tc, pct := range sch.ETS {
		p.DWRR[uint8(tc)] = int(pct / g)
	}
	if m := &s.Prio2TC; len(m.Keys) > 0 {
		known := map[int64]bool{}
		for tc := range sch.ETS {
			known[tc] = true
		}
		for _, tc := range sch.StrictTCs {
			known[tc.V] = true
		}
		for i, tc := range m.To {
			if !known[tc] {
				b.errorf(m.ToPos[i], path+".prio2tc", "priority %d goes to traffic class %d, which switch.scheduler does not name; its classes are %s", m.Keys[i], tc, classList(sch))
			}
		}
	}
}

// classList names a scheduler's ETS and strict classes, for messages.
func classList(sch *scenario.SchedulerV) string {
	var ets, strict []string
	for tc := range sch.ETS {
		ets = append(ets, fmt.Sprint(tc))
	}
	sort.Strings(ets)
	for _, tc := range sch.StrictTCs {
		strict = append(strict, fmt.Sprint(tc.V))
	}
	out := "ets " + strings.Join(ets, ", ")
	if len(strict) > 0 {
		out += "; strict " + strings.Join(strict, ", ")
	}
	return out
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// applyHCAQoS lays hca block h's dscp over p. With the switches trusting
// DSCP, a NIC given a DSCP and no priority sends on the DSCP's priority
// (as a NIC trusting DSCP with the switches' map does): its PAUSE then
// stops the priority the switches account the packets to.
func (b *builder) applyHCAQoS(p *hca.Profile, h *scenario.HCAS) {
	if !h.DSCP.Set {
		return
	}
	if b.f.Switch.LinkLayer.V == "infiniband" {
		b.errorf(h.DSCP.Pos, "hca.dscp", "dscp is the IP header's, and InfiniBand's packets have none: a QP's SL and VL class them (a flow's sl)")
	} else if t := kind.TransportOf(p.Transport); !t.IP {
		b.errorf(h.DSCP.Pos, "hca.dscp", "dscp is the IP header's, and a %s frame has none (EtherType 0x%04x): its VLAN tag's PCP classes it (hca.priority)", t.Title, t.EtherType)
	}
	p.DSCP, p.DSCPSet = uint8(h.DSCP.V), true
	if sw := &b.s.Switch; sw.TrustDSCP && !h.Priority.Set {
		p.Priority = sw.DSCPPriority(p.DSCP)
	}
}

// warnDSCPLossy warns, once for flow item g (its flows from index
// first), when its dscp under trust: dscp puts it on a priority that is
// not lossless on every switch: the lossless check of addFlowsSized saw
// the priority before the DSCP's.
func (b *builder) warnDSCPLossy(g *scenario.FlowS, path string, first int, lossless map[uint8]bool) {
	if !g.DSCP.Set || g.Priority.Set || !b.s.Switch.TrustDSCP || lossless == nil || first >= len(b.s.Flows) {
		return
	}
	if prio := b.s.Flows[first].Priority; !lossless[prio] {
		b.warnf(g.DSCP.Pos, path+".dscp", "dscp %d is priority %d under trust: dscp, which is not lossless on every switch (switch.pfc.priorities); its packets can be dropped", g.DSCP.V, prio)
	}
}

// flowDSCP gives flow f the dscp its flow: item gives, and under DSCP
// trust the DSCP's priority where the item gives none.
func (b *builder) flowDSCP(g *scenario.FlowS, path string, f *Flow) {
	if !g.DSCP.Set {
		return
	}
	if t := b.transportRow(); b.s.LinkLayer == fabric.InfiniBand && !b.s.Mixed() {
		b.errorf(g.DSCP.Pos, path+".dscp", "dscp is the IP header's, and InfiniBand's packets have none: a QP's SL and VL class them (give sl)")
		return
	} else if !t.IP && b.s.LinkLayer != fabric.InfiniBand {
		b.errorf(g.DSCP.Pos, path+".dscp", "dscp is the IP header's, and a %s frame has none (EtherType 0x%04x): its VLAN tag's PCP classes it (give priority)", t.Title, t.EtherType)
		return
	}
	f.DSCP, f.DSCPSet = uint8(g.DSCP.V), true
	if sw := &b.s.Switch; sw.TrustDSCP && !g.Priority.Set && !g.SL.Set {
		f.Priority = sw.DSCPPriority(f.DSCP)
	}
}
