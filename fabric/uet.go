package fabric

// Ultra Ethernet Transport's framing (UEC 1.0.1, 2025): over IPv4 and
// UDP port 4793, a Packet Delivery Sublayer (PDS) header and, on a
// request, a Semantic Sublayer (SES) header before the payload; no ICRC
// (UET's integrity is its optional TSS, not modelled) and no padding of
// the payload. The sizes are the specification's as Wireshark's UET
// dissector (epan/dissectors/packet-uet.c, written to UE-Specification
// 1.0.1) takes them: UET_PDS_RUD_ROD_MIN_HDR_LEN 12,
// UET_SES_STD_MIN_HDR_LEN 44, UET_SES_RESP_HDR_LEN 12; a PDS ACK is 12
// bytes (prologue 2, CACK PSN offset 2, ACK PSN 4, SPDCID 2, DPDCID 2,
// the dissector's fields) before its optional CC extension, not sent
// here.
const (
	// UDPPortUET is UET's UDP destination port (IANA, 4793).
	UDPPortUET = 4793
	// PDSRequestBytes is a RUD or ROD request's PDS header.
	PDSRequestBytes = 12
	// PDSAckBytes is a PDS ACK (or NACK) header without extension.
	PDSAckBytes = 12
	// SESStandardBytes is the SES standard request header, which every
	// packet of a message carries (RUD places each by its offset).
	SESStandardBytes = 44
	// SESResponseBytes is the SES response header (of an ACK, or of a
	// READ's response with data).
	SESResponseBytes = 12
)

// UETFrame is a UET packet's frame, header to FCS, for the RDMA opcode
// op the HCA sends it as: an ACK, NAK or CNP a PDS ACK with its SES
// response (70 bytes), a READ response the PDS header, an SES response
// and the data, any other request the PDS header, the SES standard header
// and the payload (a 4096-byte WRITE: 4198 bytes).
func UETFrame(op Opcode, payload int) int {
	hdr := PDSRequestBytes + SESStandardBytes
	switch o := op.Operation(); {
	case o == OpAcknowledge || o == OpAtomicAcknowledge || op == OpCNP:
		hdr, payload = PDSAckBytes+SESResponseBytes, 0
	case o >= OpReadResponseFirst && o <= OpReadResponseOnly:
		hdr = PDSRequestBytes + SESResponseBytes
	}
	return EthernetHeaderBytes + IPv4Bytes + UDPBytes + hdr + payload + FCSBytes
}

// UETWire is UETFrame on the wire (preamble and gap, Ethernet's minimum
// frame): a 4096-byte WRITE takes 4218 bytes, 40 more than RoCEv2's.
func UETWire(op Opcode, payload int) int { return frameOnWire(UETFrame(op, payload)) }
