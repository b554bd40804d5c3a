package fabric

// An iWARP connection's set-up and tear-down segments (KindSetup): what
// the NIC's TCP and MPA send before the connection's first FPDU and after
// its last, as Linux's iWARP drivers (iw_cxgb4, irdma) make a connection
// for iw_cm:
//
//	active (Initiator)                      passive (Responder)
//	SYN (MSS, window scale)             →
//	                                    ←   SYN-ACK
//	ACK                                 →
//	MPA Request (rev 2, IRD/ORD)        →
//	                                    ←   MPA Reply (rev 2, IRD/ORD)
//	RTR: a zero-length RDMA READ        →
//	                                    ←   its zero-length READ Response
//	ACK                                 →
//
// (RFC 9293 §3.5's three-way handshake; RFC 5044 §7.1's MPA Request and
// Reply; RFC 6581 §5's enhanced Request and Reply, revision 2, whose
// first 4 bytes of private data carry the IRD and ORD and which
// ready-to-receive message the Initiator sends first: iw_cxgb4's
// defaults mpa_rev 2, peer2peer 1, p2p_type READ_REQ.) Closing, FIN from
// the side that disconnects, the peer's FIN with its ACK, and the last
// ACK; a segment for no connection (a SYN to a port nobody listens on,
// a FIN to a connection gone) is answered by RST, which also abandons a
// made connection whose QP is destroyed before its close.
//
// A setup segment is a packet of KindSetup that no QP takes (DestQP 0):
// the receiving NIC's table of connections does (hca's iwconn.go). Its
// fields say (through the methods below, which are all that read them):
// the step (Opcode), which end sent it (Syndrome), the connection's ids
// at the two ends (VA), the QPs at the two ends where known (SrcQP, and
// the receiver's in QKey), the TCP ports (RKey), and on an MPA Request
// or Reply what it negotiates (DMALen, MSN) and its private data
// (PacketExt.Data). Captures write the segments' bytes from them
// (reports' pcap_iwarp.go).

// SetupStep is a setup segment's place in the exchange above.
type SetupStep uint8

// The steps, in the order an exchange sends them.
const (
	StepSYN         SetupStep = iota + 1 // active: opens (MSS, window scale; SACK-permitted, timestamps when used)
	StepSYNACK                           // passive: the SYN's answer, its own SYN
	StepACK                              // active: the handshake's third segment
	StepMPARequest                       // active: MPA's Request frame
	StepMPAReply                         // passive: MPA's Reply frame (rejecting, with its R bit)
	StepRTR                              // active: RFC 6581's ready-to-receive, a zero-length RDMA READ Request
	StepRTRResponse                      // passive: the zero-length READ Response that answers it
	StepRTRAck                           // active: the pure ACK of that response
	StepFIN                              // either: closes its direction
	StepFINACK                           // the peer: its own FIN, acknowledging the first
	StepLastACK                          // the first closer: the last ACK
	StepRST                              // a reset: the answer to a segment for no connection, or an abandoned one
)

var stepNames = [...]string{"", "SYN", "SYN-ACK", "ACK", "MPA Request", "MPA Reply", "RTR", "RTR response", "ACK of the RTR response", "FIN", "FIN-ACK", "last ACK", "RST"}

func (s SetupStep) String() string {
	if int(s) < len(stepNames) {
		return stepNames[s]
	}
	return "step?"
}

// Active reports whether the active end (the Initiator) sends step s; FIN,
// FIN-ACK, the last ACK and RST may come from either, and say so in the
// segment (Packet.SetupFromActive).
func (s SetupStep) Active() bool {
	switch s {
	case StepSYN, StepACK, StepMPARequest, StepRTR, StepRTRAck:
		return true
	}
	return false
}

// MPA's Request and Reply frames (RFC 5044 §7.1): a 16-byte key, a byte
// of flags (M, C, R, and RFC 6581's S in what RFC 5044 reserved), the
// revision, the private data's length (2 bytes), then the private data,
// at most 512 bytes; revision 2's private data begins with the IRD and
// ORD word (RFC 6581 §5.1).
const (
	MPAReqRepBytes    = 20
	MPAMaxPrivate     = 512
	MPAv2ParamsBytes  = 4
	MPARevision1      = 1
	MPARevision2      = 2
	MPAIRDORDMax      = 1<<14 - 1
	mpaFlagMarkers    = 0x80
	mpaFlagCRC        = 0x40
	mpaFlagReject     = 0x20
	mpaFlagEnhanced   = 0x10
	mpaIRDPeerToPeer  = 1 << 31 // A: the peer-to-peer model (an RTR message is exchanged)
	mpaIRDRTRSend     = 1 << 30 // B: the RTR may be a zero-length SEND
	mpaORDRTRWrite    = 1 << 15 // C: ... a zero-length RDMA WRITE
	mpaORDRTRRead     = 1 << 14 // D: ... a zero-length RDMA READ Request
	mpaIRDORDValueBit = 16
)

// MPAStart is what an MPA Request or Reply says (RFC 5044 §7.1; RFC 6581
// §5.1 for revision 2).
type MPAStart struct {
	// Markers and CRC are the sender's M and C bits: it wants markers in
	// the FPDUs it receives, and CRCs on every FPDU. Reject is a Reply's
	// R bit (the connection is refused).
	Markers, CRC, Reject bool
	// Rev is the revision: 2, the enhanced mode, as iw_cxgb4 and irdma
	// send it (their mpa_rev 2), with the S bit set and the IRD and ORD
	// word.
	Rev uint8
	// IRD and ORD are the sender's inbound and outbound RDMA READ
	// queue depths (14 bits each): its responder resources and
	// initiator depth.
	IRD, ORD uint16
	// PeerToPeer (A) says an RTR message opens FPDU mode, and RTRRead
	// (D) that it is a zero-length RDMA READ (iw_cxgb4's p2p_type
	// READ_REQ, its default); RTRWrite (C) and RTRSend (B) offer the
	// other two kinds.
	PeerToPeer, RTRRead, RTRWrite, RTRSend bool
}

// Flags is the Request's or Reply's flag byte (M, C, R, S, and 0 in the
// four reserved bits).
func (m MPAStart) Flags() byte {
	var f byte
	if m.Markers {
		f |= mpaFlagMarkers
	}
	if m.CRC {
		f |= mpaFlagCRC
	}
	if m.Reject {
		f |= mpaFlagReject
	}
	if m.Rev >= MPARevision2 {
		f |= mpaFlagEnhanced
	}
	return f
}

// IRDORD is revision 2's first word of private data (RFC 6581 §5.1):
// A, B and the IRD in the high half, C, D and the ORD in the low.
func (m MPAStart) IRDORD() uint32 {
	w := uint32(min(m.IRD, MPAIRDORDMax))<<mpaIRDORDValueBit | uint32(min(m.ORD, MPAIRDORDMax))
	for _, b := range []struct {
		on  bool
		bit uint32
	}{{m.PeerToPeer, mpaIRDPeerToPeer}, {m.RTRSend, mpaIRDRTRSend}, {m.RTRWrite, mpaORDRTRWrite}, {m.RTRRead, mpaORDRTRRead}} {
		if b.on {
			w |= b.bit
		}
	}
	return w
}

// ParamsBytes is what the revision puts in front of the ULP's private
// data: the IRD and ORD word on revision 2, nothing on 1.
func (m MPAStart) ParamsBytes() int {
	if m.Rev >= MPARevision2 {
		return MPAv2ParamsBytes
	}
	return 0
}

// Step is a setup segment's step.
func (p *Packet) Step() SetupStep { return SetupStep(p.Opcode) }

// SetupFromActive reports whether the connection's active end sent the
// setup segment p.
func (p *Packet) SetupFromActive() bool { return p.Syndrome != 0 }

// SetupIDs are the connection's ids at the setup segment's sender and
// receiver (the receiver's 0 on a SYN, which a listener takes).
func (p *Packet) SetupIDs() (from, to uint32) { return uint32(p.VA >> 32), uint32(p.VA) }

// SetupQPs are the QP numbers at the setup segment's sender and receiver,
// 0 where the end has no QP yet (a listener before its application
// accepts).
func (p *Packet) SetupQPs() (from, to uint32) { return p.SrcQP, p.QKey }

// SetupPorts are the TCP ports of the setup segment's sender and
// receiver.
func (p *Packet) SetupPorts() (from, to uint16) { return uint16(p.RKey >> 16), uint16(p.RKey) }

// SetSetup fills a setup segment's fields: its step, which end sends it,
// the connection's ids, QPs and ports at the sender and the receiver.
// DestQP stays 0: no QP takes it.
func (p *Packet) SetSetup(step SetupStep, active bool, fromID, toID, fromQP, toQP uint32, fromPort, toPort uint16) {
	p.Kind, p.Opcode, p.DestQP = KindSetup, Opcode(step), 0
	p.Syndrome = 0
	if active {
		p.Syndrome = 1
	}
	p.VA = uint64(fromID)<<32 | uint64(toID)
	p.SrcQP, p.QKey = fromQP, toQP
	p.RKey = uint32(fromPort)<<16 | uint32(toPort)
}

// MPAStart is what an MPA Request or Reply segment negotiates.
func (p *Packet) MPAStart() MPAStart {
	f, w := byte(p.DMALen), p.MSN
	return MPAStart{Markers: f&mpaFlagMarkers != 0, CRC: f&mpaFlagCRC != 0, Reject: f&mpaFlagReject != 0, Rev: uint8(p.DMALen >> 8),
		IRD: uint16(w>>mpaIRDORDValueBit) & MPAIRDORDMax, ORD: uint16(w) & MPAIRDORDMax,
		PeerToPeer: w&mpaIRDPeerToPeer != 0, RTRSend: w&mpaIRDRTRSend != 0, RTRWrite: w&mpaORDRTRWrite != 0, RTRRead: w&mpaORDRTRRead != 0}
}

// SetMPAStart sets what an MPA Request or Reply segment negotiates.
func (p *Packet) SetMPAStart(m MPAStart) {
	p.DMALen = uint32(m.Rev)<<8 | uint32(m.Flags())
	p.MSN = m.IRDORD()
}

// TCPSynOptionBytes is the options of a SYN or SYN-ACK as Linux's TCP
// writes them (tcp_options_write): MSS (4), SACK-permitted and
// timestamps when used (SACK-permitted 2 and timestamps 10 together, or
// each after two NOPs), and the window scale (3) after a NOP: 8 bytes
// without SACK or timestamps, 12 with SACK, 20 with timestamps.
func TCPSynOptionBytes(sack, ts bool) int {
	n := 4 + 4 // MSS; NOP, window scale
	switch {
	case ts:
		n += 12 // [SACK-permitted or NOP NOP], timestamps
	case sack:
		n += 4 // NOP NOP SACK-permitted
	}
	return n
}

// SetupFrame is the frame of setup segment step (header to FCS, before
// Ethernet's padding): Ethernet, IPv4, TCP with the options it carries
// (a SYN's; timestamps on the others when used), and its payload: an MPA
// Request or Reply of private bytes of private data after what its
// revision puts first (params), or the RTR's zero-length READ Request or
// Response FPDU framed as mpa says.
func SetupFrame(step SetupStep, mpa MPA, sack, ts bool, params, private int) int {
	frame := EthernetHeaderBytes + IPv4Bytes + TCPBytes + FCSBytes
	switch step {
	case StepSYN, StepSYNACK:
		return frame + TCPSynOptionBytes(sack, ts)
	case StepRST:
		return frame // no options on a reset
	}
	if ts {
		frame += TCPTimestampBytes
	}
	switch step {
	case StepMPARequest, StepMPAReply:
		frame += MPAReqRepBytes + params + private
	case StepRTR:
		frame += mpa.FPDUBytes(DDPSegmentBytes(OpReadRequest, 0))
	case StepRTRResponse:
		frame += mpa.FPDUBytes(DDPSegmentBytes(OpReadResponseOnly, 0))
	}
	return frame
}

// SynOptions are what a SYN or SYN-ACK offers (RFC 9293 §3.7.1, RFC 7323
// §2, RFC 2018 §2): the largest segment payload it takes (MSS), its
// window scale (Shift) and receive window (bytes: the window field is
// Window >> Shift once both SYNs carried a scale), and whether it offers
// SACK and timestamps.
type SynOptions struct {
	MSS             uint16
	Shift           uint8
	Window          uint32
	SACK, Timestamp bool
}

// WindowShift is the least window scale with which win fits TCP's
// 16-bit window field, at most 14 (RFC 7323 §2.3).
func WindowShift(win int64) uint8 {
	s := uint8(0)
	for win>>s > 0xFFFF && s < 14 {
		s++
	}
	return s
}

// SynOptions is what a SYN or SYN-ACK segment offers.
func (p *Packet) SynOptions() SynOptions {
	return SynOptions{MSS: uint16(p.DMALen), Shift: uint8(p.DMALen >> 16), Window: p.MSN,
		SACK: p.DMALen>>24&1 != 0, Timestamp: p.DMALen>>25&1 != 0}
}

// SetSynOptions sets what a SYN or SYN-ACK segment offers.
func (p *Packet) SetSynOptions(o SynOptions) {
	p.DMALen = uint32(o.MSS) | uint32(o.Shift)<<16
	if o.SACK {
		p.DMALen |= 1 << 24
	}
	if o.Timestamp {
		p.DMALen |= 1 << 25
	}
	p.MSN = o.Window
}
