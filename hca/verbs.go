package hca

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// The verbs objects, as libibverbs has them: protection domains, memory
// regions, completion queues, shared receive queues, address handles and
// the work requests posted to queue pairs. They belong to one HCA and
// change only inside its events (DESIGN.md, locality).

// Access is a set of memory or QP access flags (ibv_access_flags).
type Access uint32

// Access flags.
const (
	AccessLocalWrite   Access = 1 << iota // IBV_ACCESS_LOCAL_WRITE
	AccessRemoteWrite                     // IBV_ACCESS_REMOTE_WRITE
	AccessRemoteRead                      // IBV_ACCESS_REMOTE_READ
	AccessRemoteAtomic                    // IBV_ACCESS_REMOTE_ATOMIC

	// AccessAll is every flag.
	AccessAll = AccessLocalWrite | AccessRemoteWrite | AccessRemoteRead | AccessRemoteAtomic
)

// PD is a protection domain: MRs and QPs of one PD go together; a remote
// access through a QP of another PD is a protection error.
type PD struct {
	Handle uint32
	hca    *HCA
}

// MR is a registered memory region. Addr is its virtual address on the
// host, Len its length. Buf, when not nil, holds its real bytes (Len of
// them) and data really moves into and out of it; otherwise only sizes
// move and atomics act on a sparse set of 8-byte words.
type MR struct {
	PD     *PD
	Addr   uint64
	Len    int64
	LKey   uint32
	RKey   uint32
	Access Access
	Buf    []byte

	words map[uint64]uint64 // atomics on a region without bytes
}

// contains reports whether [addr, addr+n) lies inside the region.
func (m *MR) contains(addr uint64, n int64) bool {
	return n >= 0 && addr >= m.Addr && addr-m.Addr <= uint64(m.Len) && uint64(n) <= uint64(m.Len)-(addr-m.Addr)
}

// Bytes returns the region's bytes at [addr, addr+n), or nil for a region
// without bytes.
func (m *MR) Bytes(addr uint64, n int64) []byte {
	if m.Buf == nil || !m.contains(addr, n) {
		return nil
	}
	off := addr - m.Addr
	return m.Buf[off : off+uint64(n)]
}

// Word returns the 8-byte word at addr (little endian in Buf, as on x86).
func (m *MR) Word(addr uint64) uint64 {
	if b := m.Bytes(addr, 8); b != nil {
		return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	}
	return m.words[addr]
}

func (m *MR) setWord(addr uint64, v uint64) {
	if b := m.Bytes(addr, 8); b != nil {
		for i := range 8 {
			b[i] = byte(v >> (8 * i))
		}
		return
	}
	if m.words == nil {
		m.words = map[uint64]uint64{}
	}
	m.words[addr] = v
}

// SGE is one scatter/gather element (ibv_sge).
type SGE struct {
	Addr uint64
	Len  int64
	LKey uint32
}

// WROpcode is a send work request's operation (ibv_wr_opcode).
type WROpcode uint8

// Send work request operations.
const (
	WRWrite    WROpcode = iota // IBV_WR_RDMA_WRITE
	WRWriteImm                 // IBV_WR_RDMA_WRITE_WITH_IMM
	WRSend                     // IBV_WR_SEND
	WRSendImm                  // IBV_WR_SEND_WITH_IMM
	WRRead                     // IBV_WR_RDMA_READ
	WRCompSwap                 // IBV_WR_ATOMIC_CMP_AND_SWP
	WRFetchAdd                 // IBV_WR_ATOMIC_FETCH_AND_ADD
)

func (o WROpcode) String() string {
	return [...]string{"write", "write_imm", "send", "send_imm", "read", "cmp_swap", "fetch_add"}[o]
}

func (o WROpcode) isRead() bool   { return o == WRRead }
func (o WROpcode) isAtomic() bool { return o == WRCompSwap || o == WRFetchAdd }
func (o WROpcode) isSend() bool   { return o == WRSend || o == WRSendImm }
func (o WROpcode) hasImm() bool   { return o == WRSendImm || o == WRWriteImm }

// SendWR is a send work request (ibv_send_wr).
type SendWR struct {
	ID uint64
	Op WROpcode
	// SGL is the local memory: gathered for SEND and WRITE, scattered into
	// for READ, the 8-byte result buffer of an atomic. A nil SGL with
	// Length set is a synthetic payload of Length bytes that touches no
	// local memory (traffic generators use it).
	SGL    []SGE
	Length int64
	// Signaled asks for a completion on success (IBV_SEND_SIGNALED); a QP
	// created with SigAll signals every WR. Errors always complete.
	Signaled bool
	// Inline copies the payload into the WQE at post time
	// (IBV_SEND_INLINE): no DMA read of the payload, at most
	// Profile.MaxInline bytes.
	Inline bool
	// Solicited sets the solicited-event bit on the message's last
	// packet (IBV_SEND_SOLICITED; SEND and WRITE with immediate): a
	// receiver whose CQ is armed for solicited completions only gets an
	// event for it.
	Solicited bool
	Imm       uint32
	// RemoteAddr and RKey name the remote memory of WRITE, READ and
	// atomics.
	RemoteAddr uint64
	RKey       uint32
	// CompareAdd is the value to add (fetch-and-add) or to compare
	// (compare-and-swap); Swap the value to store when equal.
	CompareAdd, Swap uint64
	// AH, RemoteQPN and RemoteQKey address a UD datagram.
	AH         *AH
	RemoteQPN  uint32
	RemoteQKey uint32
}

// RecvWR is a receive work request (ibv_recv_wr).
type RecvWR struct {
	ID  uint64
	SGL []SGE
	// Length, with a nil SGL, is a synthetic buffer of that many bytes.
	Length int64
}

// GRHBytes is the Global Route Header (struct ibv_grh, 40 bytes) a UD
// RECV's buffer starts with: a UD RECV must be this much longer than
// the datagrams it takes (the data lands after it, and a completion's
// ByteLen counts it), as ibv_ud_pingpong and perftest's UD tests size
// theirs.
const GRHBytes = 40

func sglLen(sgl []SGE, length int64) int64 {
	if sgl == nil {
		return length
	}
	var n int64
	for _, s := range sgl {
		n += s.Len
	}
	return n
}

// AH is an address handle for UD: where a datagram goes.
type AH struct {
	Dest   fabric.NodeID
	DestIP uint32
}

// WCOpcode is what a completion is for (ibv_wc_opcode).
type WCOpcode uint8

// Completion opcodes.
const (
	WCOpSend WCOpcode = iota
	WCOpWrite
	WCOpRead
	WCOpCompSwap
	WCOpFetchAdd
	WCOpRecv
	WCOpRecvImm // a WRITE with immediate consumed a RECV
)

func (o WCOpcode) String() string {
	return [...]string{"send", "rdma_write", "rdma_read", "comp_swap", "fetch_add", "recv", "recv_rdma_with_imm"}[o]
}

// WC is a work completion (ibv_wc).
type WC struct {
	WRID    uint64
	Status  WCStatus
	Opcode  WCOpcode
	QPN     uint32
	ByteLen int64 // received bytes (GRH included for UD)
	Imm     uint32
	HasImm  bool
	SrcQP   uint32 // UD: the sender's QP
	Src     fabric.NodeID
	At      sim.Time
	// Solicited: a RECV completion whose message had the solicited-event
	// bit (IBV_SEND_SOLICITED at the sender; BTH's SE). ibv_wc has no
	// such field; the completion channel reads it (CQ.ReqNotify).
	Solicited bool
}

func (w WC) String() string {
	s := fmt.Sprintf("wr %d %s %s", w.WRID, w.Opcode, w.Status)
	if w.Opcode == WCOpRecv || w.Opcode == WCOpRecvImm {
		s += fmt.Sprintf(" len=%d", w.ByteLen)
	}
	if w.HasImm {
		s += fmt.Sprintf(" imm=%d", w.Imm)
	}
	return s
}

// CQ is a completion queue of Depth entries. Poll takes entries; OnEvent,
// if set, is called after entries are added (the completion channel of
// libibverbs, without its arming). More than Depth unpolled entries is an
// overflow: the entry is lost, Overflows counts it and the HCA reports
// EventCQErr.
type CQ struct {
	Depth     int
	Overflows int64
	OnEvent   func(cq *CQ)
	// Channel, if set, is the completion channel's event handler
	// (ibv_get_cq_event): called once per ReqNotify, as cqevents.go says.
	Channel func(cq *CQ)

	hca     *HCA
	entries []WC
	head    int
	notify  cqNotify
}

// Poll removes and returns up to n completions, oldest first
// (ibv_poll_cq). It returns nil when the CQ is empty.
func (c *CQ) Poll(n int) []WC {
	avail := len(c.entries) - c.head
	if avail <= 0 || n <= 0 {
		return nil
	}
	out := make([]WC, min(n, avail))
	c.PollInto(out)
	return out
}

// PollInto moves up to len(wc) completions, oldest first, into wc and
// returns how many (ibv_poll_cq with the caller's array): Poll without
// allocating.
func (c *CQ) PollInto(wc []WC) int {
	n := copy(wc, c.entries[c.head:])
	c.head += n
	if c.head == len(c.entries) {
		c.entries, c.head = c.entries[:0], 0
	}
	return n
}

// Len is the number of entries waiting to be polled.
func (c *CQ) Len() int { return len(c.entries) - c.head }

func (c *CQ) push(wc WC) {
	if c.Len() >= c.Depth {
		c.Overflows++
		c.hca.asyncEvent(AsyncEvent{Type: EventCQErr, CQ: c})
		return
	}
	c.entries = append(c.entries, wc)
	if c.OnEvent != nil {
		c.OnEvent(c)
	}
	c.channel(wc)
}

// SRQ is a shared receive queue: QPs created with it take their RECVs
// from it.
type SRQ struct {
	PD  *PD
	Max int
	rq  []*recvWQE
}

// Len is the number of RECVs posted and not consumed.
func (s *SRQ) Len() int { return len(s.rq) }

// AsyncEventType is an asynchronous event, numbered as libibverbs'
// enum ibv_event_type numbers it (verbs.h), for the events the model
// raises.
type AsyncEventType uint8

// Asynchronous events.
const (
	EventCQErr       AsyncEventType = 0  // IBV_EVENT_CQ_ERR: a CQ overflowed
	EventQPFatal     AsyncEventType = 1  // IBV_EVENT_QP_FATAL: a QP's requester entered ERR (retries exhausted, a local protection error)
	EventQPReqErr    AsyncEventType = 2  // IBV_EVENT_QP_REQ_ERR: a responder got an invalid request and entered ERR
	EventQPAccessErr AsyncEventType = 3  // IBV_EVENT_QP_ACCESS_ERR: a responder refused a remote access and entered ERR
	EventSQDrained   AsyncEventType = 5  // IBV_EVENT_SQ_DRAINED: SQD reached with nothing outstanding
	EventPathMig     AsyncEventType = 6  // IBV_EVENT_PATH_MIG: a QP moved to its alternate path (APM)
	EventPortActive  AsyncEventType = 9  // IBV_EVENT_PORT_ACTIVE: the port's link came up
	EventPortErr     AsyncEventType = 10 // IBV_EVENT_PORT_ERR: the port's link went down
	EventQPLastWQE   AsyncEventType = 16 // IBV_EVENT_QP_LAST_WQE_REACHED: a QP on an SRQ entered ERR
)

// String is the event's name as libibverbs spells it (ibv_asyncwatch
// prints it), "IBV_EVENT_PORT_ERR".
func (t AsyncEventType) String() string {
	switch t {
	case EventCQErr:
		return "IBV_EVENT_CQ_ERR"
	case EventQPFatal:
		return "IBV_EVENT_QP_FATAL"
	case EventQPReqErr:
		return "IBV_EVENT_QP_REQ_ERR"
	case EventQPAccessErr:
		return "IBV_EVENT_QP_ACCESS_ERR"
	case EventSQDrained:
		return "IBV_EVENT_SQ_DRAINED"
	case EventPathMig:
		return "IBV_EVENT_PATH_MIG"
	case EventPortActive:
		return "IBV_EVENT_PORT_ACTIVE"
	case EventPortErr:
		return "IBV_EVENT_PORT_ERR"
	case EventQPLastWQE:
		return "IBV_EVENT_QP_LAST_WQE_REACHED"
	}
	return "IBV_EVENT_" + strconv.Itoa(int(t))
}

// AsyncEvent is one asynchronous event: on a QP, a CQ, or (neither) the
// HCA's port (Port).
type AsyncEvent struct {
	Type AsyncEventType
	QP   *QP
	CQ   *CQ
	// Port is the port of a port event: 1, or 2 on a dual-port HCA.
	Port int
}

// Errors that post and modify calls return, as ibv_post_send returns
// EINVAL or ENOMEM.
var (
	ErrInvalidState = errors.New("hca: QP state does not allow this")
	ErrInvalidWR    = errors.New("hca: invalid work request")
	ErrQueueFull    = errors.New("hca: queue full")
	ErrTransition   = errors.New("hca: invalid QP state transition")
	ErrAttrMask     = errors.New("hca: the attribute mask lacks an attribute the transition requires")
)
