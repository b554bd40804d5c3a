package fabric

// VXLAN (RFC 7348): an Ethernet frame carried in UDP, so that a virtual
// layer-2 network (a cloud VPC) runs over a routed underlay. The tunnel
// endpoint (VTEP; for eRDMA, the adapter itself) puts in front of the
// inner frame, FCS left off (RFC 7348 §5: the inner frame has no FCS),
// the outer headers:
//
//	outer Ethernet  dst MAC, src MAC, EtherType 0x0800           14 bytes
//	outer IPv4      (RFC 791, no options; DF set, §4.3)           20 bytes
//	outer UDP       src port: a hash of the inner headers (§5),    8 bytes
//	                dst port 4789, checksum 0
//	VXLAN           flags (I = 0x08: VNI valid), 24 reserved bits,  8 bytes
//	                VNI (24 bits), 8 reserved bits
//	inner Ethernet frame, without its FCS
//	outer FCS                                                       4 bytes
//
// Against the frame sent bare (its own Ethernet header and FCS), the
// frame grows by 14 + 20 + 8 + 8 = 50 bytes: the outer FCS stands for
// the inner one, and the inner Ethernet header is the bare frame's.
const (
	// VXLANBytes is the VXLAN header (RFC 7348 §5).
	VXLANBytes = 8
	// VXLANPort is the IANA-assigned UDP destination port (RFC 7348 §5).
	VXLANPort = 4789
	// VXLANFlagVNI is the I flag: the VNI is valid (RFC 7348 §5).
	VXLANFlagVNI = 0x08
)
