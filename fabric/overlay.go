package fabric

// An overlay (hca.overlay): the adapter is the tunnel endpoint of a
// virtual network, as Alibaba Cloud's eRDMA adapter is of its VPC. It
// puts outer Ethernet, IPv4, UDP and a VXLAN (vxlan.go) or Geneve
// (geneve.go) header in front of every frame it sends and takes them off
// every frame it receives, so that the underlay's switches forward, hash
// and queue the outer packet. lfsim gives each host one address, which
// stands for both its address in the virtual network and its tunnel
// endpoint's in the underlay.
//
// The outer headers are what a switch parses: a packet's Flow is the
// outer 5-tuple while it is on the underlay (Packet.Encapsulate), so
// ECMP hashes the outer UDP source port, which the endpoint derives from
// the inner flow (RFC 7348 §5, RFC 8926 §3.3), or a constant
// (Overlay.FixedPort) that puts every flow between two endpoints on one
// path. The inner source port travels in the packet's PacketExt.

// Encap is an overlay's encapsulation.
type Encap uint8

// Encapsulations.
const (
	NoEncap Encap = iota
	VXLAN         // RFC 7348, UDP port 4789
	Geneve        // RFC 8926, UDP port 6081
)

// encapNames are the encapsulations' names in a scenario file
// (hca.overlay.encap), by value: the one place they are written.
var encapNames = [...]string{NoEncap: "", VXLAN: "vxlan", Geneve: "geneve"}

func (e Encap) String() string { return encapNames[e] }

// Encaps are the encapsulations an overlay may use, in the order of
// their values.
func Encaps() []Encap { return []Encap{VXLAN, Geneve} }

// ParseEncap is the encapsulation named name.
func ParseEncap(name string) (Encap, bool) {
	for _, e := range Encaps() {
		if encapNames[e] == name {
			return e, true
		}
	}
	return NoEncap, false
}

// Port is the encapsulation's UDP destination port.
func (e Encap) Port() uint16 {
	if e == Geneve {
		return GenevePort
	}
	return VXLANPort
}

// OverlayPortMin and OverlayPorts are the range the outer UDP source port
// is hashed into: the dynamic/private ports 49152..65535, which RFC 7348
// §5 and RFC 8926 §3.3 recommend.
const (
	OverlayPortMin = 49152
	OverlayPorts   = 16384
)

// Overlay is an adapter's encapsulation (hca.overlay). A profile without
// one has a nil *Overlay.
type Overlay struct {
	Encap Encap
	// VNI is the virtual network's 24-bit identifier.
	VNI uint32
	// Options is the bytes of Geneve options after the base header, a
	// multiple of 4 up to 252 (RFC 8926 §3.4); 0 for VXLAN.
	Options int
	// FixedPort, when not 0, is the outer UDP source port of every
	// packet, in place of the inner flow's hash (source_port: N).
	FixedPort uint16
	// UnderlayMTU is the largest IP packet the underlay carries
	// (outer IPv4 header to the inner frame's end): the adapter's
	// frames must fit it, as VXLAN endpoints do not fragment (RFC 7348
	// §4.3).
	UnderlayMTU int
}

// Bytes is what the overlay adds to a frame: outer Ethernet, IPv4, UDP
// and the encapsulation's header with its options (50 bytes for VXLAN;
// 50 plus the options for Geneve). The outer FCS stands for the inner
// frame's.
func (o *Overlay) Bytes() int {
	if o == nil {
		return 0
	}
	return EthernetHeaderBytes + IPv4Bytes + UDPBytes + VXLANBytes + o.Options // GeneveBytes == VXLANBytes
}

// Wire is the wire size of an encapsulated frame whose bare frame
// (header to FCS, unpadded) is frame bytes: the outer headers added, then
// padded to Ethernet's minimum, preamble and gap. A nil overlay adds
// nothing: the bare frame's wire size.
func (o *Overlay) Wire(frame int) int32 { return int32(frameOnWire(frame + o.Bytes())) }

// SourcePort is the outer UDP source port for inner flow k: FixedPort,
// or a hash of the inner 5-tuple in 49152..65535, as a VTEP spreads its
// tunnels' flows for the underlay's ECMP (RFC 7348 §5).
func (o *Overlay) SourcePort(k FlowKey) uint16 {
	if o.FixedPort != 0 {
		return o.FixedPort
	}
	return uint16(OverlayPortMin + k.Hash(overlayHashSeed)%OverlayPorts)
}

// overlayHashSeed seeds the endpoints' hash of the inner flow: any
// constant ("VTEP" in ASCII); the switches hash with the scenario's
// seeds.
const overlayHashSeed = 0x56544550

// Outer is the 5-tuple of inner flow k's packets on the underlay: the
// endpoints' addresses, the source port from k, the encapsulation's
// port.
func (o *Overlay) Outer(k FlowKey) FlowKey {
	return FlowKey{SrcIP: k.SrcIP, DstIP: k.DstIP, SrcPort: o.SourcePort(k), DstPort: o.Encap.Port()}
}

// Encapsulate puts o's outer headers on p, as the sending adapter does:
// its Flow becomes the outer 5-tuple, and the inner source port and the
// overlay go in its PacketExt for the receiver (Decapsulate) and for
// captures. The caller sized p.Wire with o.Wire.
func (pl *Pool) Encapsulate(p *Packet, o *Overlay) {
	x := pl.Ext(p)
	x.Overlay, x.InnerSrcPort = o, p.Flow.SrcPort
	p.Flow = o.Outer(p.Flow)
}

// Decapsulate takes the outer headers off p, as the receiving adapter
// does: its Flow is the inner 5-tuple again. A packet that is not
// encapsulated is left as it is.
func (p *Packet) Decapsulate() {
	if p.Ext == nil || p.Ext.Overlay == nil {
		return
	}
	p.Flow.SrcPort, p.Flow.DstPort = p.Ext.InnerSrcPort, RoCEv2Port
	p.Ext.Overlay = nil
}

// Overlay is the overlay p is encapsulated in, nil if none; its inner
// source port is InnerSrcPort.
func (p *Packet) Overlay() *Overlay { return p.ext().Overlay }

// InnerSrcPort is an encapsulated packet's inner UDP (or TCP) source
// port.
func (p *Packet) InnerSrcPort() uint16 { return p.ext().InnerSrcPort }
