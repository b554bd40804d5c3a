package hca

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// WCStatus is a work completion status, with libibverbs' names.
type WCStatus uint8

// Work completion statuses.
const (
	WCPending        WCStatus = iota // not completed yet
	WCSuccess                        // IBV_WC_SUCCESS
	WCRetryExceeded                  // IBV_WC_RETRY_EXC_ERR
	WCFlushed                        // IBV_WC_WR_FLUSH_ERR
	WCRemAccessError                 // IBV_WC_REM_ACCESS_ERR
)

func (s WCStatus) String() string {
	return [...]string{"incomplete", "success", "retry_exc_err", "wr_flush_err", "rem_access_err"}[s]
}

// QPState is the verbs QP state machine (IBTA vol. 1, 10.3.1).
type QPState uint8

// QP states.
const (
	QPReset QPState = iota
	QPInit
	QPRTR
	QPRTS
	QPSQD
	QPErr
)

func (s QPState) String() string { return [...]string{"RESET", "INIT", "RTR", "RTS", "SQD", "ERR"}[s] }

// psnMask keeps the 24 bits a BTH carries.
const psnMask = 1<<24 - 1

// WQE is a work request on a send queue: one RDMA WRITE of Size bytes.
// PSNs are kept as 64-bit counts inside the model and wrap to 24 bits on
// the wire.
type WQE struct {
	ID   int   // the caller's work request id (wr_id)
	Size int64 // bytes
	// FirstPSN is the PSN of its first packet; it spans NPkts packets.
	FirstPSN, NPkts int64
	Posted          sim.Time
	Completed       sim.Time
	Status          WCStatus
	// Retransmits counts packets of this WQE sent more than once.
	Retransmits int64
}

// QP is a reliable-connected queue pair: its requester side sends the
// WQEs of its send queue; its responder side receives the peer's requests.
type QP struct {
	QPN       uint32
	RemoteQPN uint32
	Remote    fabric.NodeID
	State     QPState
	Priority  uint8

	flow fabric.FlowKey

	// Requester.
	sq      []*WQE // posted WQEs not yet completed, in order
	nextPSN int64  // PSN of the next packet to send
	endPSN  int64  // one past the last PSN posted
	una     int64  // oldest unacknowledged PSN
	maxSent int64  // one past the highest PSN ever sent
	retries int    // consecutive timeouts without progress
	timer   sim.Timer
	active  bool // in the HCA's transmit list

	// Responder.
	ePSN      int64 // next PSN expected
	nakSent   bool  // a sequence-error NAK is outstanding
	msn       uint32
	Delivered int64 // payload bytes accepted in order
	// FirstDelivery and LastDelivery are when the responder accepted its
	// first and latest in-order request packet (zero before the first).
	FirstDelivery, LastDelivery sim.Time
}

// hasWork reports whether the requester has packets to send now.
func (q *QP) hasWork() bool { return q.State == QPRTS && q.nextPSN < q.endPSN }

// wqeAt returns the WQE that holds absolute PSN psn.
func (q *QP) wqeAt(psn int64) *WQE {
	for _, w := range q.sq {
		if psn < w.FirstPSN+w.NPkts {
			return w
		}
	}
	return nil
}

// expand turns a 24-bit PSN from the wire into the absolute PSN nearest
// ref, so that comparisons survive the wrap.
func expand(wire uint32, ref int64) int64 {
	d := (int64(wire) - ref) & psnMask
	if d >= 1<<23 {
		d -= 1 << 24
	}
	return ref + d
}
