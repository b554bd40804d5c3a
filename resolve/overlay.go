package resolve

import (
	"fmt"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
)

// DefaultUnderlayMTU is hca.overlay.underlay_mtu's default, the largest
// IP packet the underlay carries: 9000 bytes, the jumbo MTU data-centre
// fabrics run (an assumption: Alibaba Cloud does not publish its VPC
// underlay's MTU; it has the instances' interfaces at 1500, or 8500 with
// jumbo frames, below it, and the encapsulation fits in the gap).
const DefaultUnderlayMTU = 9000

// applyOverlay overrides p with hca.overlay (o), at path.
func (b *builder) applyOverlay(p *hca.Profile, o *scenario.OverlayS, path string) {
	if !o.Set {
		return
	}
	e, _ := fabric.ParseEncap(o.Encap.V) // the schema checked the name
	ov := &fabric.Overlay{Encap: e, VNI: uint32(o.VNI.V), UnderlayMTU: DefaultUnderlayMTU}
	if o.Options.Set {
		switch {
		case e != fabric.Geneve:
			b.errorf(o.Options.Pos, path+".options", "options are Geneve's TLVs (RFC 8926 §3.5); %s's header has none: drop options, or set encap: geneve", e)
		case o.Options.V%4 != 0:
			b.errorf(o.Options.Pos, path+".options", "Geneve's options are whole 4-byte words (RFC 8926 §3.4: Opt Len counts them): %d is not a multiple of 4", o.Options.V)
		default:
			ov.Options = int(o.Options.V)
		}
	}
	if o.SourcePort.Port.Set {
		ov.FixedPort = uint16(o.SourcePort.Port.V)
	}
	overrideNum(&ov.UnderlayMTU, o.UnderlayMTU)
	p.Overlay = ov
}

// checkOverlay refuses an overlay where lfsim's adapters cannot put one
// (p is the profile hca.overlay, o, at path, made; only the top-level
// hca block may give one): on InfiniBand and on
// RoCEv1, whose frames have no IP header to tunnel, and with an MTU whose
// largest frame would not fit the underlay once encapsulated, as VXLAN's
// endpoints do not fragment (RFC 7348 §4.3) and an eRDMA adapter takes
// its RDMA MTU from its interface's (the Linux erdma driver's
// erdma_query_port: active_mtu = ib_mtu_int_to_enum(netdev->mtu)).
func (b *builder) checkOverlay(p *hca.Profile, o *scenario.OverlayS, path string) {
	if !o.Set || p.Overlay == nil {
		return
	}
	allowed := "an overlay tunnels IP: it goes with hca.transport: iwarp (eRDMA's) or rocev2"
	switch {
	case b.s.LinkLayer == fabric.InfiniBand:
		b.errorf(o.Pos, path, "%s over Ethernet; these links are InfiniBand, whose packets are routed by LID, not tunnelled (drop hca.overlay, or switch.link_layer)", allowed)
		return
	case !kind.TransportOf(p.Transport).IP:
		t := kind.TransportOf(p.Transport)
		b.errorf(o.Pos, path, "%s; a %s frame (EtherType 0x%04x) has no IP header (drop hca.overlay, or set hca.transport)", allowed, t.Title, t.EtherType)
		return
	case p.Transport == fabric.UET:
		b.errorf(o.Pos, path, "%s; UET in an overlay is not modelled yet (drop hca.overlay, or set hca.transport)", allowed)
		return
	}
	ov := p.Overlay
	if need := OverlayIPPacket(p, p.MTU); need > ov.UnderlayMTU {
		fit := overlayFit(p)
		at, key := o.Pos, path
		if o.UnderlayMTU.Set {
			at, key = o.UnderlayMTU.Pos, path+".underlay_mtu"
		}
		lower := "no hca.mtu fits"
		if fit > 0 {
			lower = fmt.Sprintf("lower hca.mtu to %d", fit)
		}
		b.errorf(at, key, "a full %d-byte packet in %s is a %d-byte IP packet on the underlay, and underlay_mtu is %d: tunnel endpoints do not fragment (RFC 7348 §4.3); raise underlay_mtu to %d or %s",
			p.MTU, ov.Encap, need, ov.UnderlayMTU, need, lower)
	}
}

// checkOverlayHost refuses a host's own hca block (o, at path, made
// profile p) whose mtu (or TCP options) make its largest packet too big
// for the overlay's underlay, as checkOverlay refuses the top-level
// block's: the overlay is the top level's, and each host's own frame
// must fit it. A packet the top-level block's check refused already is
// not refused twice.
func (b *builder) checkOverlayHost(p *hca.Profile, o *scenario.HCAS, path string) {
	ov := p.Overlay
	if ov == nil || !kind.TransportOf(p.Transport).IP {
		return
	}
	need := OverlayIPPacket(p, p.MTU)
	if need <= ov.UnderlayMTU || need <= OverlayIPPacket(&b.s.HCA, b.s.HCA.MTU) {
		return
	}
	at, key := o.Pos, path
	if o.MTU.Set {
		at, key = o.MTU.Pos, path+".mtu"
	}
	lower := "no mtu fits"
	if fit := overlayFit(p); fit > 0 {
		lower = fmt.Sprintf("lower this host's mtu to %d", fit)
	}
	b.errorf(at, key, "a full %d-byte packet in %s is a %d-byte IP packet on the underlay, and hca.overlay.underlay_mtu is %d: tunnel endpoints do not fragment (RFC 7348 §4.3); raise underlay_mtu to %d or %s",
		p.MTU, ov.Encap, need, ov.UnderlayMTU, need, lower)
}

// overlayFit is the largest RDMA MTU whose packets, with profile p, fit
// p's overlay's underlay; 0 if none does.
func overlayFit(p *hca.Profile) int {
	fit := 0
	for _, m := range []int{256, 512, 1024, 2048, 4096} {
		if OverlayIPPacket(p, m) <= p.Overlay.UnderlayMTU {
			fit = m
		}
	}
	return fit
}

// OverlayIPPacket is the largest IP packet an adapter with profile p puts
// on the underlay with an MTU of mtu: its largest frame (an MTU of
// payload behind its transport's longest headers), without the FCS,
// behind the outer IPv4, UDP and VXLAN or Geneve headers.
func OverlayIPPacket(p *hca.Profile, mtu int) int {
	frame := fabric.RoCEv2Frame(fabric.TransportRC|fabric.OpWriteOnlyImm, mtu)
	if kind.TransportOf(p.Transport).TCP {
		frame = fabric.IWARPFrame(fabric.TransportRC|fabric.OpSendOnly, mtu, p.TCP.MPA, p.TCP.Timestamps)
	}
	return p.Overlay.Bytes() - fabric.EthernetHeaderBytes + frame - fabric.FCSBytes
}
