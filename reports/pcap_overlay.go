package reports

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/lfsim/lfsim/fabric"
)

// encapsulate wraps inner, a frame from its destination MAC to its end
// without the FCS, in overlay o's outer headers as the sending adapter
// put them (fabric's vxlan.go, geneve.go): outer Ethernet between the
// link's two ports, IPv4 between the endpoints with the packet's DSCP
// and ECN (the underlay marks the outer header), UDP from the packet's
// Flow (the outer source port) to the encapsulation's port with
// checksum 0 (RFC 7348 §5 over IPv4; RFC 8926 §3.3), the VXLAN or
// Geneve header with the VNI, and the outer FCS.
func (fb *frameBuilder) encapsulate(f *CapturedFrame, o *fabric.Overlay, inner []byte) ([]byte, error) {
	if fb.outer == nil {
		fb.outer = gopacket.NewSerializeBuffer()
	}
	if err := fb.outer.Clear(); err != nil {
		return nil, err
	}
	p := &f.Pkt
	var tunnel gopacket.SerializableLayer = &layers.VXLAN{ValidIDFlag: true, VNI: o.VNI}
	if o.Encap == fabric.Geneve {
		tunnel = &layers.Geneve{Protocol: layers.EthernetType(fabric.GeneveProtoEthernet), VNI: o.VNI, Options: geneveOptions(o.Options)}
	}
	udp := &layers.UDP{SrcPort: layers.UDPPort(p.Flow.SrcPort), DstPort: layers.UDPPort(p.Flow.DstPort)}
	ip := &layers.IPv4{
		Version: 4, IHL: 5, TOS: ipDSCP(p)<<2 | uint8(p.ECN&3), // the inner DSCP copied out, as VTEPs do (RFC 2983's uniform model): what underlay switches trusting DSCP classify by
		Flags: layers.IPv4DontFragment, TTL: 64, Protocol: layers.IPProtocolUDP,
		SrcIP: ipv4(p.Flow.SrcIP), DstIP: ipv4(p.Flow.DstIP),
	}
	eth := &layers.Ethernet{SrcMAC: PortMAC(f.TxNode, f.TxPort), DstMAC: PortMAC(f.RxNode, f.RxPort), EthernetType: layers.EthernetTypeIPv4}
	if err := gopacket.SerializeLayers(fb.outer, fixLengths, gopacket.Payload(inner)); err != nil {
		return nil, err
	}
	for _, l := range []gopacket.SerializableLayer{tunnel, udp} {
		if err := l.SerializeTo(fb.outer, fixLengths); err != nil {
			return nil, err
		}
	}
	if err := ip.SerializeTo(fb.outer, fixAll); err != nil {
		return nil, err
	}
	if err := eth.SerializeTo(fb.outer, fixLengths); err != nil {
		return nil, err
	}
	return appendFCS(fb.outer.Bytes()), nil
}

// geneveOptions are n bytes of Geneve options (a multiple of 4): TLVs
// of the experimental class 0xFFFF (RFC 8926 §7.2's registry keeps
// 0xFFF0..0xFFFF for experiments), each at most 128 bytes (a 4-byte
// header and up to 31 words of zeros), as lfsim models only their size.
func geneveOptions(n int) []*layers.GeneveOption {
	var out []*layers.GeneveOption
	for n > 0 {
		size := min(n, 128)
		out = append(out, &layers.GeneveOption{Class: 0xFFFF, Data: make([]byte, size-4)})
		n -= size
	}
	return out
}
