package fabric

// Geneve (RFC 8926): like VXLAN (vxlan.go) an Ethernet frame in UDP, with
// a base header of the same 8 bytes followed by variable-length options
// (TLVs, each a 4-byte header and data in 4-byte words):
//
//	outer Ethernet, IPv4 (no options), UDP (dst port 6081)    14 + 20 + 8 bytes
//	Geneve base header                                                 8 bytes
//	    Ver (2 bits, 0), Opt Len (6 bits: the options' length in
//	    4-byte words), O (control), C (critical options), 6 reserved
//	    bits, Protocol Type (16 bits: 0x6558, Transparent Ethernet
//	    Bridging, for an Ethernet payload), VNI (24 bits), 8 reserved
//	options                                          Opt Len × 4 bytes (0..252)
//	inner Ethernet frame, without its FCS
//	outer FCS                                                          4 bytes
//
// So 50 bytes more than the bare frame, plus the options. The UDP source
// port carries the inner flow's entropy, as in VXLAN (RFC 8926 §3.3).
const (
	// GeneveBytes is Geneve's base header (RFC 8926 §3.4).
	GeneveBytes = 8
	// GenevePort is the IANA-assigned UDP destination port (RFC 8926 §3.3).
	GenevePort = 6081
	// GeneveMaxOptions is the most option bytes Opt Len can say: 63
	// four-byte words (RFC 8926 §3.4).
	GeneveMaxOptions = 63 * 4
	// GeneveProtoEthernet is the Protocol Type of an Ethernet payload
	// (Transparent Ethernet Bridging, RFC 8926 §3.4).
	GeneveProtoEthernet = 0x6558
)
