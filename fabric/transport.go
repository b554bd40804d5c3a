package fabric

// Transport is how an Ethernet NIC frames RDMA: the InfiniBand transport
// (BTH and what follows) over UDP or Ethernet, or iWARP's over TCP. A
// file names it by hca.transport; the names, and what each transport
// needs of the rest of the simulator, are kind's table of transports
// (kind.Transport), whose rows name these values.
type Transport uint8

// Transports.
const (
	// RoCEv2 (the default): IPv4 and UDP (port 4791) before the BTH
	// (IBTA annex A17); routed, ECN-capable, hashed by ECMP.
	RoCEv2 Transport = iota
	// RoCEv1: EtherType 0x8915 and a GRH before the BTH (IBTA annex
	// A16); layer 2 only, forwarded by MAC along a spanning tree.
	RoCEv1
	// IWARP: RDMAP over DDP over MPA over TCP (RFC 5040, 5041, 5044),
	// IPv4 and Ethernet; routed, hashed by ECMP on TCP's ports. RC only.
	IWARP
	// UET: Ultra Ethernet's transport, PDS and SES headers over IPv4
	// and UDP port 4793 (uet.go); routed, ECN-capable, hashed by ECMP.
	UET
)

// EtherTypeRoCEv1 identifies a RoCEv1 frame (IBTA annex A16.4).
const EtherTypeRoCEv1 = 0x8915

// VLANTagBytes is an IEEE 802.1Q tag (TPID 0x8100 and the PCP, DEI and
// VID). A RoCEv1 frame carries one: on layer 2 alone the tag's priority
// code point is where PFC's priority is read (RoCEv2 has the IP DSCP).
const VLANTagBytes = 4

// RoCEv1Wire returns the wire size of a RoCEv1 packet with opcode op and
// payload bytes: preamble and gap, Ethernet with its 802.1Q tag, the GRH,
// BTH, the opcode's extended headers, the payload padded to 4 bytes,
// ICRC and FCS. For a 4096-byte WRITE Middle this is 4194 bytes, 16
// more than RoCEv2's (GRH 40 + tag 4 in place of IPv4 20 + UDP 8).
func RoCEv1Wire(op Opcode, payload int) int {
	padded := (payload + 3) &^ 3
	frame := EthernetHeaderBytes + VLANTagBytes + GRHBytes + BTHBytes + op.ExtHeaderBytes() + padded + ICRCBytes + FCSBytes
	return frameOnWire(frame)
}
