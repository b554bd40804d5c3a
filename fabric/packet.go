package fabric

import "github.com/lfsim/lfsim/sim"

// PacketKind says what a packet is, for nodes that treat kinds differently.
type PacketKind uint8

// Packet kinds.
const (
	KindData    PacketKind = iota // a RoCEv2 request or READ response
	KindAck                       // ACK or NAK (AETH)
	KindCNP                       // congestion notification
	KindSetup                     // an iWARP connection's set-up or tear-down segment (tcpsetup.go)
	KindTrimmed                   // a data packet a switch cut to its header (Ultra Ethernet's trimming)
	KindPause                     // a PFC frame; never leaves the link it is sent on
	KindCredit                    // an InfiniBand flow-control packet (credit.go); never leaves its link
)

func (k PacketKind) String() string {
	return [...]string{"data", "ack", "cnp", "setup", "trimmed", "pause", "credit"}[k]
}

// LinkControl reports whether packets of kind k are the link's own (PFC
// frames, flow-control packets): made and consumed by the ports at its
// two ends, never forwarded, and not counted among a run's packets.
func (k PacketKind) LinkControl() bool { return k >= KindPause }

// Packet is one frame on the wire. Packets come from a Pool and go back to
// it when consumed, so a run allocates packets only while the number in
// flight grows.
//
// The fields every hop reads (queue link, sizes, ports, addresses, the
// 5-tuple, priority, ECN, the INT pointer) come first and fill the first
// 64-byte cache line; what only the end hosts read follows. A large run
// keeps tens of thousands of packets queued, so a hop that touches one
// line of a packet instead of six is most of the simulator's speed
// (TestPacketLayout holds this).
type Packet struct {
	next *Packet // Pool free list, and FIFOs

	// Wire is the bytes the packet occupies on the wire, preamble and
	// inter-frame gap included.
	Wire int32
	// InPort is the port it entered the node that now holds it.
	InPort int32
	// Src and Dst are the hosts that sent the packet and that it is for.
	Src, Dst NodeID
	// Flow is the 5-tuple switches hash for ECMP: the outer one while
	// an overlay's tunnel carries the packet (overlay.go).
	Flow FlowKey
	// Payload is the bytes of data the packet carries.
	Payload int32

	// BTH's destination QP.
	DestQP uint32
	// OutPort is, in a switch, the egress port its route chose, from its
	// arrival to its pipeline's exit (swtch); it means nothing elsewhere.
	OutPort int32

	Kind     PacketKind
	Opcode   Opcode
	Priority uint8 // 802.1p priority / traffic class, 0..7
	ECN      ECN
	// InPrio is the priority it arrived with at the switch that now holds
	// it, which its ingress buffer is charged to (a Tagger-style switch
	// may move it to another priority for its egress).
	InPrio uint8
	// DSCP is the IP header's differentiated services code point, 0..63
	// (RFC 2474; with ECN it makes the TOS byte), which a switch trusting
	// DSCP classifies by (swtch.Profile.TrustDSCP). The NIC writes its
	// QP's (hca.dscp, a flow's dscp; by default 8 × the priority, the
	// class selector CSn), CNPs cnp_dscp. Here, where AckReq was, because
	// a classifying switch reads it on every hop.
	DSCP uint8
	// PFC fields: which priorities the frame covers (PauseQuanta below
	// has their pause times).
	PauseEnable uint8
	// Link is the link layer the packet is framed for: Wire is the frame
	// plus Ethernet's preamble and gap, or the InfiniBand packet alone.
	Link LinkLayer

	// INT is the in-band telemetry (HPCC), nil when the packet carries
	// none: a request collects it, its ACK echoes it. Pool.AddINT gives a
	// packet one; Pool.Put takes it back.
	INT *INTStack

	// ---- end-host fields

	// SentAt is when the packet's first bit left its source host.
	SentAt sim.Time
	// Echo is, on an ACK, when the request it acknowledges was sent: the
	// requester's RTT sample (as NICs timestamp for TIMELY and HPCC).
	Echo sim.Time

	// SrcQP is the sender's QP number: in UD's DETH; for RC and UC the
	// responder knows it from the connection, and the model carries it here.
	SrcQP uint32

	// RETH fields.
	RKey   uint32
	DMALen uint32
	// PSN is BTH's packet sequence number (24 bits), here beside RETH's
	// 32-bit fields: a switch does not read it.
	PSN uint32
	VA  uint64

	// AETH fields.
	Syndrome uint8
	// SL is the InfiniBand service level (LRH), 0..15: the VL a packet
	// takes on each link is its SL through that port's SL-to-VL table
	// (the switch rewrites Priority where a port has its own). Here, in
	// the AETH's padding, because only such a port reads it.
	SL uint8
	// Path numbers the path a packet took where switches spread a flow
	// (load balancing other than ECMP): at each switch with a choice of n
	// ports, Path = Path × n + the index of the port taken, modulo 2^16
	// (exact up to 65,536 paths; a k=16 fat tree has 64 between pods).
	// The receiver counts a flow's distinct paths. In the AETH's padding.
	Path uint16
	MSN  uint32
	// DETH: the Q_Key of a UD datagram (SrcQP above is the DETH's
	// source QP).
	QKey uint32
	// ECE is, on an ACK, how many CE-marked requests it acknowledges:
	// the responder's ECN-Echo, which DCTCP reads (TCP's ECE flag, one
	// per ACK with delayed ACKs off; RoCE itself echoes with CNPs). Here,
	// in QKey's padding, because an ACK has no DETH.
	ECE uint16
	// SE is BTH's solicited-event bit, on the last packet of a SEND or
	// WRITE with immediate posted with IBV_SEND_SOLICITED.
	SE bool
	// AckReq is BTH's acknowledge-request bit (only the end hosts read
	// it; DSCP took its place in the first line).
	AckReq bool

	// Ext holds what few packets carry (PacketExt), nil on the others:
	// Pool.Ext gives a packet one, Pool.Put takes it back.
	Ext *PacketExt
}

// PacketExt is what few packets carry, apart from the packet so that
// every packet is two cache lines (128 bytes, where these fields made it
// three): the atomics' operands and result, real payload bytes,
// immediate data, a selective NAK's or SACK's PSN, a PFC frame's pause
// times. Read them through the Packet's methods, which give zeros for a
// packet without one.
type PacketExt struct {
	// AtomicETH: swap or add data (SwapAdd) and compare data (Compare);
	// AtomicAckETH: the original remote value (OrigData).
	SwapAdd, Compare, OrigData uint64
	// Data, when not nil, is the payload's bytes: a read-only view of a
	// snapshot the sender took, for memory regions backed by real bytes.
	// Traffic generators leave it nil; only sizes move then.
	Data []byte
	// Imm is ImmDt: the immediate data of SEND and RDMA WRITE with
	// immediate.
	Imm uint32
	// SackPSN is, on a selective-repeat NAK (IRN's NACK, which carries
	// the cumulative PSN in PSN), the PSN that arrived out of order; on
	// an iWARP ACK with SACK, the segment that arrived past a gap.
	SackPSN uint32
	// PauseQuanta are a PFC frame's pause times per priority.
	PauseQuanta [8]uint16
	// InnerSrcPort is, on a packet an overlay encapsulates (Overlay not
	// nil; overlay.go), the inner flow's source port, which the outer
	// one replaces in the Flow while the packet is on the underlay.
	InnerSrcPort uint16
	// SACK says a TCP ACK (iWARP) carries a SACK block: the segment at
	// SackPSN arrived past a gap. (Here, with SackPSN, since the packet's
	// byte went to its DSCP; only an ACK after a loss has it.)
	SACK bool
	// Trimmed: on a selective-repeat NAK, SackPSN reached the responder
	// trimmed (cut to its header by a switch): resend it.
	Trimmed bool
	// SackBits is, on a UET ACK (hca.uet.go), the SACK bitmap of the 64
	// PSNs from SackPSN (bit i: SackPSN+i received), and OOO the
	// receiver's count of packets received past its cumulative PSN, as
	// uet-htsim's UecAckPacket carries them (htsim/sim/uec.cpp,
	// UecSink::sack: set_bitmap, set_ooo).
	SackBits uint64
	OOO      uint32
	// Pull is UET's receiver credit (RCCC, hca.uet.receiver_credits;
	// congestion/rccc.go), bytes: on a request, its trimmed header or an
	// RTS the sender's pull target, the credit it wants in all; on a
	// credit packet the credit the receiver granted in all (uet-htsim's
	// UecDataPacket pull_target, UecPullPacket pullno). Credit says a
	// KindCNP packet is RCCC's control packet instead: CreditGrant or
	// CreditRTS.
	Pull   int64
	Credit CreditCP
	// LastHop says a trimmed packet, and the NACK its receiver sends for
	// it, was trimmed on the last link, into its destination (uet-htsim's
	// UecNackPacket last_hop, from the trim's hop count).
	LastHop bool
	// Probe says a KindCNP packet is UET's SLEEK probe, a header sent
	// by a sender whose ACKs stopped (its PSN the probe's number), and
	// an ACK that it answers the probe (uet-htsim's DATA_PROBE packet
	// and probe ACK, UecSrc::sendProbe, UecSink::processData;
	// hca/uet.go).
	Probe bool
	// Overlay is the encapsulation the packet is in, nil if none.
	Overlay *Overlay
}

// CreditCP is which of UET's RCCC control packets a packet is
// (PacketExt.Credit), none for any other.
type CreditCP uint8

const (
	// CreditGrant goes from the receiver to the sender: credit
	// (uet-htsim's UecPullPacket).
	CreditGrant CreditCP = 1 + iota
	// CreditRTS goes from a sender without credit to the receiver: its
	// pull target (uet-htsim's UecRtsPacket).
	CreditRTS
)

// noExt is what a packet without a PacketExt reads.
var noExt PacketExt

// ext is p's PacketExt to read: its own, or zeros.
func (p *Packet) ext() *PacketExt {
	if p.Ext != nil {
		return p.Ext
	}
	return &noExt
}

// Data is the payload's bytes (PacketExt.Data), nil when only sizes move.
func (p *Packet) Data() []byte { return p.ext().Data }

// Imm is the immediate data (PacketExt.Imm).
func (p *Packet) Imm() uint32 { return p.ext().Imm }

// SackPSN is a selective NAK's or SACK's PSN (PacketExt.SackPSN).
func (p *Packet) SackPSN() uint32 { return p.ext().SackPSN }

// SACK says a TCP ACK carries a SACK block (PacketExt.SACK).
func (p *Packet) SACK() bool { return p.ext().SACK }

// Atomic returns the AtomicETH's swap-or-add and compare data and the
// AtomicAckETH's original value (PacketExt).
func (p *Packet) Atomic() (swapAdd, compare, orig uint64) {
	x := p.ext()
	return x.SwapAdd, x.Compare, x.OrigData
}

// PauseQuanta are a PFC frame's pause times per priority
// (PacketExt.PauseQuanta).
func (p *Packet) PauseQuanta() [8]uint16 { return p.ext().PauseQuanta }

// Frame returns the bytes the frame occupies in a buffer: header to FCS
// (Ethernet), or LRH to VCRC (InfiniBand).
func (p *Packet) Frame() int64 {
	// Without a branch: Link is 0 (Ethernet) or 1 (InfiniBand).
	return int64(p.Wire) - PreambleIFGBytes + PreambleIFGBytes*int64(p.Link)
}

// RoCEv2Wire returns the wire size of a RoCEv2 packet with opcode op and
// payload bytes: preamble and gap, Ethernet, IPv4, UDP, BTH, the opcode's
// extended headers, the payload padded to 4 bytes (BTH PadCnt), ICRC and
// FCS. For a 4096-byte WRITE Middle this is 4178 bytes.
func RoCEv2Wire(op Opcode, payload int) int { return frameOnWire(RoCEv2Frame(op, payload)) }

// RoCEv2Frame is RoCEv2Wire's frame, header to FCS, before Ethernet's
// padding to 64 bytes: what an overlay wraps (Overlay.Wire).
func RoCEv2Frame(op Opcode, payload int) int {
	padded := (payload + 3) &^ 3
	return EthernetHeaderBytes + IPv4Bytes + UDPBytes + BTHBytes + op.ExtHeaderBytes() + padded + ICRCBytes + FCSBytes
}

// Pool is a free list of packets, and of the INT stacks some of them
// carry. It belongs to one run; the engine is single-threaded, so it needs
// no lock.
type Pool struct {
	free    *Packet
	freeINT []*INTStack
	freeExt []*PacketExt
	// Live is how many packets are out of the pool: the conservation
	// check compares it with a census of the packets the run holds.
	Live int

	// OnDrop, if set, is told of the payload bytes a node discards: a
	// data packet a switch or link drops, or a NIC refuses (reason is
	// the drop reason as summary.json names it), and for a UC message
	// abandoned midway the bytes of its earlier packets too (payload
	// then exceeds p.Payload). OnCopy, if set, is told of each extra copy
	// Clone makes. The run's byte ledger attributes both to flows. The
	// pool is the one object every node of a run shares, which is why
	// they live here; both are called only on those rare events.
	OnDrop func(p *Packet, reason string, payload int64)
	OnCopy func(p *Packet)
}

// Dropped tells OnDrop that payload bytes went with p (see OnDrop); it
// does not return p to the pool.
func (pl *Pool) Dropped(p *Packet, reason string, payload int64) {
	if pl.OnDrop != nil && payload > 0 {
		pl.OnDrop(p, reason, payload)
	}
}

// Clone returns a copy of p from the pool (a switch flooding it), with a
// copy of its telemetry.
func (pl *Pool) Clone(p *Packet) *Packet {
	c := pl.Get()
	*c = *p
	c.next = nil
	if p.INT != nil {
		c.INT = nil
		pl.AddINT(c)
		*c.INT = *p.INT
	}
	if p.Ext != nil {
		c.Ext = nil
		*pl.Ext(c) = *p.Ext
	}
	if pl.OnCopy != nil {
		pl.OnCopy(c)
	}
	return c
}

// AddINT gives p an empty telemetry stack, if it has none.
func (pl *Pool) AddINT(p *Packet) {
	if p.INT != nil {
		return
	}
	if n := len(pl.freeINT); n > 0 {
		p.INT = pl.freeINT[n-1]
		pl.freeINT = pl.freeINT[:n-1]
		*p.INT = INTStack{}
		return
	}
	p.INT = &INTStack{}
}

// Ext returns p's PacketExt to write, giving it an empty one if it has
// none.
func (pl *Pool) Ext(p *Packet) *PacketExt {
	if p.Ext != nil {
		return p.Ext
	}
	if n := len(pl.freeExt); n > 0 {
		p.Ext = pl.freeExt[n-1]
		pl.freeExt = pl.freeExt[:n-1]
		*p.Ext = PacketExt{}
		return p.Ext
	}
	p.Ext = &PacketExt{}
	return p.Ext
}

// Get returns a zeroed packet.
func (pl *Pool) Get() *Packet {
	pl.Live++
	if p := pl.free; p != nil {
		pl.free = p.next
		*p = Packet{}
		return p
	}
	return &Packet{}
}

// Put returns a packet (and its telemetry) to the pool; the caller must
// not use it again.
func (pl *Pool) Put(p *Packet) {
	pl.Live--
	if p.INT != nil {
		pl.freeINT = append(pl.freeINT, p.INT)
		p.INT = nil
	}
	if p.Ext != nil {
		pl.freeExt = append(pl.freeExt, p.Ext)
		p.Ext = nil
	}
	p.next = pl.free
	pl.free = p
}

// PacketQueue is a FIFO of packets that keeps its count and byte count
// (a PacketFIFO's Peek, Each and Any are its own). It links packets
// through their own next field, so queueing never allocates.
type PacketQueue struct {
	PacketFIFO
	// Len is the number of packets; Bytes the sum of their frames.
	Len   int
	Bytes int64
}

// Push adds p at the tail.
func (q *PacketQueue) Push(p *Packet) {
	q.PacketFIFO.Push(p)
	q.Len++
	q.Bytes += p.Frame()
}

// Pop removes and returns the head, or nil when empty.
func (q *PacketQueue) Pop() *Packet {
	p := q.head
	if p != nil {
		q.unlink(nil, p)
	}
	return p
}

// unlink takes p, which follows prev (nil: p is the head), out of the
// queue.
func (q *PacketQueue) unlink(prev, p *Packet) {
	if prev == nil {
		q.head = p.next
	} else {
		prev.next = p.next
	}
	if q.tail == p {
		q.tail = prev
	}
	p.next = nil
	q.Len--
	q.Bytes -= p.Frame()
}

// PacketFIFO is a FIFO of packets without counts, 16 bytes: a
// switch's per-ingress FIFOs at each egress queue, n² of them in an
// n-port switch (the egress queue counts packets and bytes for all its
// FIFOs), and PacketQueue's core. It links packets through their own
// next field, so queueing never allocates.
type PacketFIFO struct {
	head, tail *Packet
}

// Push adds p at the tail.
func (q *PacketFIFO) Push(p *Packet) {
	p.next = nil
	if q.tail == nil {
		q.head = p
	} else {
		q.tail.next = p
	}
	q.tail = p
}

// Peek returns the head without removing it, or nil when empty.
func (q *PacketFIFO) Peek() *Packet { return q.head }

// Pop removes and returns the head, or nil when empty.
func (q *PacketFIFO) Pop() *Packet {
	p := q.head
	if p != nil {
		q.head = p.next
		if q.tail == p {
			q.tail = nil
		}
		p.next = nil
	}
	return p
}

// Each calls f for every packet, head first.
func (q *PacketFIFO) Each(f func(*Packet)) {
	for p := q.head; p != nil; p = p.next {
		f(p)
	}
}

// Any reports whether some packet satisfies f, head first.
func (q *PacketFIFO) Any(f func(*Packet) bool) bool {
	for p := q.head; p != nil; p = p.next {
		if f(p) {
			return true
		}
	}
	return false
}

// MaxRoCEv2Frame is the largest RoCEv2 frame (header to FCS) a NIC with
// this MTU sends: an RDMA WRITE Only with Immediate, whose RETH and ImmDt
// make it the longest header in front of a full MTU of payload.
func MaxRoCEv2Frame(mtu int) int64 {
	return int64(RoCEv2Wire(TransportRC|OpWriteOnlyImm, mtu) - PreambleIFGBytes)
}

// PopUnpaused removes and returns the first packet, head first, whose
// priority's bit is clear in paused (a port's PausedMask), or nil when
// every packet's priority is paused.
func (q *PacketQueue) PopUnpaused(paused uint8) *Packet {
	var prev *Packet
	for p := q.head; p != nil; prev, p = p, p.next {
		if paused&(1<<(p.Priority&7)) != 0 {
			continue
		}
		q.unlink(prev, p)
		return p
	}
	return nil
}

// TSeq is iWARP's READ response stream (the responder's own TCP
// sequence, counted in segments from 1): on a READ response, its segment
// number; on an ACK of that stream, one past the last segment it
// acknowledges (its SACK block, if any, in SackPSN); 0 on every other
// packet. It is kept in QKey: iWARP has no UD, so its packets have no
// DETH, and an ACK never has one.
func (p *Packet) TSeq() uint32 { return p.QKey }

// SetTSeq sets TSeq.
func (p *Packet) SetTSeq(v uint32) { p.QKey = v }
