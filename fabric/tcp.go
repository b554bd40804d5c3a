package fabric

// TCP's header sizes (RFC 9293 §3.1), as iWARP carries them.
const (
	// TCPBytes is the TCP header without options.
	TCPBytes = 20
	// TCPTimestampBytes is the timestamps option (RFC 7323 §3: kind,
	// length, TSval, TSecr: 10 bytes) with the two NOPs that align it,
	// on every segment of a connection that negotiated it.
	TCPTimestampBytes = 12
	// TCPSACKBytes is a SACK option carrying one block (RFC 2018 §3:
	// kind and length, then the block's two 32-bit edges) with two NOPs
	// in front, as stacks align it.
	TCPSACKBytes = 12
)

// TCPAckWire returns the wire size of a pure TCP ACK (no data) over IPv4
// and Ethernet: with the timestamps option when ts, and a one-block SACK
// option when sack, preamble and gap included: 84 bytes without options
// (58 bytes of frame padded to Ethernet's 64), 90 with one, 102 with
// both.
func TCPAckWire(ts, sack bool) int { return frameOnWire(TCPAckFrame(ts, sack)) }

// TCPAckFrame is TCPAckWire's frame, header to FCS, before Ethernet's
// padding to 64 bytes: what an overlay wraps (Overlay.Wire).
func TCPAckFrame(ts, sack bool) int {
	frame := EthernetHeaderBytes + IPv4Bytes + TCPBytes + FCSBytes
	if ts {
		frame += TCPTimestampBytes
	}
	if sack {
		frame += TCPSACKBytes
	}
	return frame
}
