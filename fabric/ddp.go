package fabric

// DDP (RFC 5041) and RDMAP (RFC 5040) headers, as iWARP carries them in
// each FPDU. The DDP control byte is followed by RDMAP's control byte
// (RDMAP uses DDP's reserved-for-ULP field), so the sizes below include
// both.
const (
	// DDPTaggedBytes is a tagged segment's header (RDMA WRITE and RDMA
	// READ Response): controls (2), STag (4), tagged offset (8).
	DDPTaggedBytes = 14
	// DDPUntaggedBytes is an untagged segment's header (SEND, RDMA READ
	// Request, Terminate): controls (2), reserved for the ULP (4: the
	// STag of a Send with Invalidate), queue number (4), message
	// sequence number (4), message offset (4).
	DDPUntaggedBytes = 18
	// RDMAPReadRequestBytes is the RDMA READ Request's header, sent as
	// an untagged message's payload (RFC 5040 §4.4): data sink STag (4)
	// and tagged offset (8), RDMA READ message size (4), data source
	// STag (4) and tagged offset (8).
	RDMAPReadRequestBytes = 28
)

// DDPSegmentBytes returns the ULPDU (the DDP segment, RDMAP inside) that
// carries packet opcode op (lfsim keeps the InfiniBand opcode a QP's
// state machine runs on; iWARP frames it as the RDMAP message that does
// the same) with payload bytes of data.
func DDPSegmentBytes(op Opcode, payload int) int {
	switch o := op.Operation(); {
	case o >= OpWriteFirst && o <= OpWriteOnlyImm, o >= OpReadResponseFirst && o <= OpReadResponseOnly:
		return DDPTaggedBytes + payload
	case o == OpReadRequest:
		return DDPUntaggedBytes + RDMAPReadRequestBytes
	}
	return DDPUntaggedBytes + payload
}

// IWARPTerminatePayload is what an RDMAP Terminate message carries in
// its untagged FPDU (RFC 5040 §4.8, §7.3.2): the 4-byte Terminate
// control, the 2-byte DDP segment length of the message in error and its
// DDP header (18 bytes, untagged). (With the FPDU's pad it takes the 44
// bytes of FPDU it always took, when the length was left out.)
const IWARPTerminatePayload = 4 + 2 + 18

// IWARPWire returns the wire size of an iWARP segment: preamble and gap,
// Ethernet, IPv4, TCP (with the timestamps option when ts), one FPDU
// framed as mpa says, and the FCS. An RDMA WRITE segment of 4096 bytes
// with CRCs and no timestamps is 4194 bytes, 16 more than RoCEv2's WRITE
// Middle: TCP 20, DDP/RDMAP 14, MPA 2 and its CRC 4 (40) in place of UDP
// 8, BTH 12 and ICRC 4 (24).
func IWARPWire(op Opcode, payload int, mpa MPA, ts bool) int {
	return frameOnWire(IWARPFrame(op, payload, mpa, ts))
}

// IWARPFrame is IWARPWire's frame, header to FCS, before Ethernet's
// padding to 64 bytes: what an overlay wraps (Overlay.Wire).
func IWARPFrame(op Opcode, payload int, mpa MPA, ts bool) int {
	frame := EthernetHeaderBytes + IPv4Bytes + TCPBytes + mpa.FPDUBytes(DDPSegmentBytes(op, payload)) + FCSBytes
	if ts {
		frame += TCPTimestampBytes
	}
	return frame
}
