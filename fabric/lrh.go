package fabric

// InfiniBand framing (IBTA vol. 1, ch. 5 and 7): a packet is the local
// route header, a global route header when the packet is routed between
// subnets or the scenario asks for one, the base transport header and
// the opcode's extended headers (as RoCEv2 carries them: bth.go and the
// files beside it), the payload padded to 4 bytes, the invariant CRC and
// the variant CRC. There is no Ethernet, IP or UDP, and no preamble or
// inter-frame gap: the link's start and end delimiters are symbols of
// its encoding, whose cost is in the data rate (ibrate.go).
const (
	// LRHBytes is the local route header: VL, LVer, SL, LNH, DLID, packet
	// length (in 4-byte words) and SLID.
	LRHBytes = 8
	// GRHBytes is the global route header (IPv6-like: SGID, DGID, flow
	// label, traffic class, hop limit).
	GRHBytes = 40
	// VCRCBytes is the variant CRC, recomputed at every hop.
	VCRCBytes = 2
	// IBMinMTU and IBMaxMTU bound an InfiniBand path MTU (256, 512, 1024,
	// 2048 or 4096 bytes of payload).
	IBMinMTU = 256
	IBMaxMTU = 4096
)

// LinkLayer is the link a network's packets cross: Ethernet (RoCEv2) or
// InfiniBand. It is one parameter of the same models.
type LinkLayer uint8

// Link layers.
const (
	Ethernet LinkLayer = iota
	InfiniBand
)

func (l LinkLayer) String() string { return [...]string{"ethernet", "infiniband"}[l] }

// IBWire returns the bytes an InfiniBand packet with opcode op and
// payload bytes occupies: LRH, GRH when grh, BTH, the opcode's extended
// headers, the payload padded to 4 bytes, ICRC and VCRC. For a
// 4096-byte WRITE Middle without GRH this is 4122 bytes.
func IBWire(op Opcode, payload int, grh bool) int {
	padded := (payload + 3) &^ 3
	n := LRHBytes + BTHBytes + op.ExtHeaderBytes() + padded + ICRCBytes + VCRCBytes
	if grh {
		n += GRHBytes
	}
	return n
}

// IBPacketBlocks returns the 64-byte credit blocks a packet of frame
// bytes takes in a receive buffer (IBTA vol. 1, 7.9.4: credits are
// counted in 64-byte blocks, a partial block counting whole).
func IBPacketBlocks(frame int64) int64 { return (frame + 63) >> 6 } // frame >= 0
