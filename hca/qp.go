package hca

import (
	"fmt"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// WCStatus is a work completion status, with libibverbs' names.
type WCStatus uint8

// Work completion statuses.
const (
	WCPending          WCStatus = iota // not completed yet
	WCSuccess                          // IBV_WC_SUCCESS
	WCRetryExceeded                    // IBV_WC_RETRY_EXC_ERR
	WCFlushed                          // IBV_WC_WR_FLUSH_ERR
	WCRemAccessError                   // IBV_WC_REM_ACCESS_ERR
	WCRNRRetryExceeded                 // IBV_WC_RNR_RETRY_EXC_ERR
	WCRemInvReqError                   // IBV_WC_REM_INV_REQ_ERR
	WCLocLenError                      // IBV_WC_LOC_LEN_ERR
	WCLocProtError                     // IBV_WC_LOC_PROT_ERR
	WCLocQPOpError                     // IBV_WC_LOC_QP_OP_ERR
	WCRemOpError                       // IBV_WC_REM_OP_ERR
)

func (s WCStatus) String() string {
	return [...]string{"incomplete", "success", "retry_exc_err", "wr_flush_err", "rem_access_err",
		"rnr_retry_exc_err", "rem_inv_req_err", "loc_len_err", "loc_prot_err", "loc_qp_op_err", "rem_op_err"}[s]
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

// QPType is the transport service.
type QPType uint8

// QP types.
const (
	RC QPType = iota // reliable connected
	UC               // unreliable connected
	UD               // unreliable datagram
)

func (t QPType) String() string { return [...]string{"rc", "uc", "ud"}[t] }

func (t QPType) transport() fabric.Opcode {
	return [...]fabric.Opcode{fabric.TransportRC, fabric.TransportUC, fabric.TransportUD}[t]
}

// psnMask keeps the 24 bits a BTH carries.
const psnMask = 1<<24 - 1

// WQE is a send work request as the HCA holds it. PSNs are kept as 64-bit
// counts inside the model and wrap to 24 bits on the wire.
type WQE struct {
	ID   uint64
	Op   WROpcode
	Size int64 // payload bytes
	// FirstPSN is the PSN of its first packet; it spans NPkts PSNs (a
	// READ spans its responses' PSNs, an atomic one).
	FirstPSN, NPkts int64
	Posted          sim.Time
	Completed       sim.Time
	Status          WCStatus
	// Retransmits counts packets of this WQE sent more than once.
	Retransmits int64
	// AtomicResult is the value an atomic found at the responder.
	AtomicResult uint64

	wr        SendWR
	signaled  bool
	ready     sim.Time // when the HCA may start sending it (doorbell, fetch, DMA)
	rung      sim.Time // when its doorbell was rung (ringDoorbell)
	data      []byte   // payload snapshot, when the local memory has bytes
	reqPkts   int64    // packets the requester sends: NPkts, or 1 for READ/atomic
	respPkts  int64    // READ response packets received in order
	respDone  bool     // READ/atomic: every response is in
	retryAt   int64    // the PSN a READ was last re-requested from
	requested bool     // READ/atomic: its request has been sent (counts in rdOut)
	done      bool
	fetched   bool // the NIC read the WQE from memory (not inline, or posted in a chain)
}

// recvWQE is a posted receive.
type recvWQE struct {
	wr   RecvWR
	size int64
	done bool
}

// QPCaps are a QP's creation parameters (ibv_qp_init_attr).
type QPCaps struct {
	Type    QPType
	PD      *PD
	SendCQ  *CQ
	RecvCQ  *CQ
	SRQ     *SRQ
	MaxSend int // send queue depth; 0: Profile.MaxSendWR
	MaxRecv int // receive queue depth; 0: Profile.MaxRecvWR
	SigAll  bool
}

// QPAttr are the attributes ModifyQP sets (ibv_qp_attr). Mask says which
// (ibv_modify_qp's attr_mask): an attribute whose bit is set is set even
// at its zero value (Access 0: no remote access). With Mask 0, a field at
// its zero value keeps the QP's current value (the profile's default at
// creation), as before masks were given. State is always the target.
type QPAttr struct {
	State QPState
	Mask  QPAttrMask
	// Access is the QP's remote access (qp_access_flags). A QP starts
	// with none, as in verbs, where RESET to INIT gives it.
	Access Access
	// QKey is a UD QP's Q_Key.
	QKey uint32
	// Dest, DestIP and DestQPN connect an RC or UC QP (its AH and
	// dest_qp_num); RQPSN is the first PSN expected, SQPSN the first sent.
	Dest         fabric.NodeID
	DestIP       uint32
	DestQPN      uint32
	RQPSN, SQPSN uint32
	// RC: timeout exponent, retry_cnt, rnr_retry (7: infinite),
	// min_rnr_timer (IBTA table 45 code), max_rd_atomic (outstanding
	// READ/ATOMIC as requester), max_dest_rd_atomic (as responder).
	Timeout, RetryCnt, RNRRetry, MinRNRTimer int
	MaxRdAtomic, MaxDestRdAtomic             int
	// SetRetries says RetryCnt and RNRRetry are given even when zero.
	SetRetries bool
	// PathMTU is an RC or UC QP's path MTU in bytes (path_mtu), at most
	// the port's; 0 takes the smaller of this port's MTU and the
	// destination's (HCA.SetPeerMTU), as the SA's path record gives it.
	PathMTU int
}

// QPAttrMask says which attributes of a QPAttr ModifyQP sets (the
// IBV_QP_* bits of ibv_modify_qp's attr_mask).
type QPAttrMask uint32

// The attributes, with their verbs names.
const (
	AttrAccessFlags     QPAttrMask = 1 << iota // IBV_QP_ACCESS_FLAGS: Access
	AttrQKey                                   // IBV_QP_QKEY: QKey
	AttrAV                                     // IBV_QP_AV: Dest, DestIP
	AttrDestQPN                                // IBV_QP_DEST_QPN: DestQPN
	AttrRQPSN                                  // IBV_QP_RQ_PSN: RQPSN
	AttrSQPSN                                  // IBV_QP_SQ_PSN: SQPSN
	AttrTimeout                                // IBV_QP_TIMEOUT: Timeout
	AttrRetryCnt                               // IBV_QP_RETRY_CNT: RetryCnt
	AttrRNRRetry                               // IBV_QP_RNR_RETRY: RNRRetry
	AttrMinRNRTimer                            // IBV_QP_MIN_RNR_TIMER: MinRNRTimer
	AttrMaxRdAtomic                            // IBV_QP_MAX_QP_RD_ATOMIC: MaxRdAtomic
	AttrMaxDestRdAtomic                        // IBV_QP_MAX_DEST_RD_ATOMIC: MaxDestRdAtomic
	AttrPathMTU                                // IBV_QP_PATH_MTU: PathMTU
)

// requiredAttrs are the attributes a masked ModifyQP must give for a
// transition, by QP type, as ibv_modify_qp(3) lists them (leaving out
// the ones lfsim does not model, the P_Key index and the port, and the
// path MTU, which defaults to the smaller port's: HCA.SetPeerMTU).
var requiredAttrs = map[[2]QPState]map[QPType]QPAttrMask{
	{QPReset, QPInit}: {RC: AttrAccessFlags, UC: AttrAccessFlags, UD: AttrQKey},
	{QPInit, QPRTR}: {
		RC: AttrAV | AttrDestQPN | AttrRQPSN | AttrMaxDestRdAtomic | AttrMinRNRTimer,
		UC: AttrAV | AttrDestQPN | AttrRQPSN,
	},
	{QPRTR, QPRTS}: {
		RC: AttrSQPSN | AttrTimeout | AttrRetryCnt | AttrRNRRetry | AttrMaxRdAtomic,
		UC: AttrSQPSN,
		UD: AttrSQPSN,
	},
}

// sets reports whether a sets the attribute bit, whose value is nonzero:
// by the mask when a has one, else when the value is not zero.
func (a *QPAttr) sets(bit QPAttrMask, nonzero bool) bool {
	if a.Mask != 0 {
		return a.Mask&bit != 0
	}
	return nonzero
}

// QP is a queue pair: its requester side sends the WQEs of its send queue;
// its responder side receives the peer's requests.
type QP struct {
	QPN  uint32
	Type QPType
	// DSCP, when DSCPSet, is the DSCP of the QP's packets; otherwise
	// they carry 8 × Priority (Profile.DSCP). (In Type's padding.)
	DSCP      uint8
	DSCPSet   bool
	RemoteQPN uint32
	Remote    fabric.NodeID
	RemoteIP  uint32
	State     QPState
	Priority  uint8
	SL        uint8 // InfiniBand service level its packets carry (the VL is Priority)
	PD        *PD
	SendCQ    *CQ
	RecvCQ    *CQ
	SRQ       *SRQ
	SigAll    bool
	Access    Access
	QKey      uint32

	// RemoteAddr and RemoteRKey are what the application learnt of the
	// peer's memory out of band (as ibv_rc_pingpong exchanges them); the
	// HCA only uses them in PostWrite.
	RemoteAddr uint64
	RemoteRKey uint32

	// Rate limits the QP's requests (0: line rate) and Window bounds its
	// bytes in flight (0: none), estimated as unacknowledged PSNs × MTU;
	// congestion control sets them.
	Rate   fabric.Rate
	Window int64
	// windowCap bounds Window whatever congestion control asks (0:
	// none): IRN's BDP-FC (SetWindowCap).
	windowCap int64

	// OnCNP, if set, is called when a CNP for this QP arrives (the
	// reaction point of congestion control).
	OnCNP func(qp *QP)
	// CC is the QP's congestion control (a reaction point), if any; it
	// answers through HCA.SetRate.
	CC CongestionControl
	// INT asks switches to stamp in-band telemetry on the QP's requests
	// (HPCC); ACKs echo it.
	INT bool
	// ECT marks the QP's requests (and READ responses) ECN-capable, as a
	// NIC does when its congestion control reacts to ECN (DCQCN);
	// otherwise they go Not-ECT and switches never mark them.
	ECT bool
	// Entropy, if set, chooses each request's entropy value, its UDP
	// source port, which the switches' ECMP hashes (UET's spraying,
	// hca.uet.spray); nil keeps the QP's one port.
	Entropy EntropySource
	// Credits, if set, holds the QP's requests to the credit its
	// receiver grants (UET's RCCC, hca.uet.receiver_credits: the
	// sender's side, rccc.go); CreditSink, if set, is the receiver's
	// side of the QP whose requests this QP takes.
	Credits    Credits
	CreditSink CreditSink
	// rts is the next RTS of a QP held without credit (rccc.go).
	rts sim.Timer
	// cw is its place in the HCA's count of RCCC QPs waiting to send
	// (creditwait.go).
	cw creditWait

	timeoutExp, retryCnt, rnrRetry, minRNRTimer int
	maxRdAtomic, maxDestRdAtomic                int
	maxSend, maxRecv                            int

	flow fabric.FlowKey

	// Requester.
	sq         []*WQE // posted WQEs not yet completed, in order
	sendIdx    int    // index in sq of the WQE being sent
	sendOff    int64  // its next packet
	nextPSN    int64  // PSN of the next packet to send
	endPSN     int64  // one past the last PSN posted
	readPSNs   int64  // the response PSNs of READs posted and not yet requested (rccc.go: creditBacklog)
	una        int64  // oldest unacknowledged PSN
	ackHigh    int64  // one past the highest PSN acknowledged
	acked      int64  // go-back-0: one past the highest PSN acknowledged since the last rewind, at most nextPSN (flightFrom, ackedBound)
	maxSent    int64  // one past the highest PSN ever sent
	retries    int    // consecutive timeouts without progress
	rnrRetries int    // consecutive RNR NAKs
	rdOut      int    // READ/atomic requests sent and not completed
	// The ACK timer is lazy: timerDue is when it expires (0 when it is
	// not armed: a timer always expires after time 0), and timer an event
	// at or before then. An ACK moves timerDue on and leaves the event be:
	// when it fires early it is scheduled again for timerDue, so the
	// engine sees one event per RTO rather than a cancellation and a new
	// event per ACK.
	timer      sim.Timer
	timerDue   sim.Time
	rnrWait    sim.Timer
	wake       sim.Timer
	nextTx     sim.Time // rate limiter: earliest next request
	lastTx     sim.Time // when the last request started, and its size,
	lastWire   int64    // to respace nextTx when the rate changes
	active     bool     // in the HCA's transmit list
	ring       uint8    // with VL arbitration, the VL whose ring it is in
	destroyed  bool     // DestroyQP: gone from the HCA's table
	parked     bool     // its ring's parking passes it by (parking.go)
	parkedPrio uint8    // the priority it is counted under there
	// pmtu is the path MTU, payload bytes: the smaller of the two ports'
	// MTUs, as ibv_qp_attr.path_mtu sets it at RTR (from the SA's path
	// record or rdma_cm's REQ); the port's own until then. Requests,
	// READ responses and their PSNs are cut by it on both sides.
	pmtu    uint16
	sr      *srState // selective repeat (Profile.Retransmit == Selective)
	rdHave  []int64  // READ responses placed ahead of a gap, by PSN % srWindow: the PSN + 1 (0: none)
	basePSN int64

	// Responder.
	rq      []*recvWQE
	ePSN    int64 // next PSN expected
	nakSent bool  // a sequence-error NAK is outstanding
	// lastPath is the path of the last data packet received, rx what was
	// measured of their order once not all came in order on one path
	// (reorder.go): beside ePSN, which every arrival reads.
	lastPath   uint16
	rx         *rxOrder
	msn        uint32
	msgStart   int64    // PSN of the first packet of the message in progress
	inMsg      bool     // UC/RC: inside a multi-packet message
	msgBytes   int64    // the payload of the message in progress so far, bytes
	ucDiscard  bool     // UC: the message in progress is already counted as dropped
	curGen     uint32   // HCA.mrGen when curMR was last found registered
	curRecv    *recvWQE // the RECV a SEND in progress fills
	curRecvOff int64
	curMR      *MR // the MR a WRITE in progress writes
	curVA      uint64
	curLeft    int64
	msgLen     int64
	rdJobs     []*readJob    // READ responses to send, in order
	atomics    []atomicSaved // recent atomic results, for duplicates
	queuedAck  *fabric.Packet
	lastCNP    sim.Time
	cnpSent    bool

	// Delivered counts payload bytes accepted in order; FirstDelivery and
	// LastDelivery are when the responder accepted its first and latest
	// in-order request packet (zero before the first).
	Delivered                   int64
	FirstDelivery, LastDelivery sim.Time
	// ReadDelivered counts READ response bytes the requester accepted.
	ReadDelivered int64
	// Terminated is when this QP, as responder, ended its connection with
	// an RDMAP Terminate (iWARP: a SEND that found no RECV posted,
	// responder.go's terminate), zero if it has not. The requester's
	// SEND may still complete with success (TCP took the segment), but
	// nothing past Delivered will be accepted any more.
	Terminated sim.Time
	// CNPs counts CNPs this QP received (as requester).
	CNPs int64
	// apm says the QP has an alternate path armed (Profile.APM);
	// Migrated that it has moved to it (APM).
	apm, Migrated bool
	// port2 says the QP sends from its HCA's second port (dualport.go).
	port2 bool
	// tcp is iWARP's TCP (tcp.go), nil on RoCE and InfiniBand: last, as
	// nothing a RoCE packet touches reads more than whether it is nil.
	tcp *tcpState
}

type readJob struct {
	psn   int64 // PSN of the next response packet
	start int64 // PSN of the first
	end   int64 // one past the last
	seq   int64 // iWARP: the first response's segment number (tcpread.go)
	mr    *MR
	va    uint64
	left  int64
	size  int64
	data  []byte // snapshot, when the MR has bytes
	gen   uint32 // HCA.mrGen when mr was last found registered
	path  uint16 // the request's source port (queueRead)
	// nak, when not 0, makes the job a NAK with this syndrome at psn,
	// held behind the READ responses queued before it (failAfterReads).
	nak uint8
}

type atomicSaved struct {
	psn  int64
	orig uint64
}

// hasWork reports whether the QP has packets to send: READ responses,
// requests, or requests to resend (selective repeat's, or TCP's after a
// timeout when every WQE has been sent).
func (q *QP) hasWork() bool {
	if len(q.rdJobs) > 0 && q.State != QPReset {
		return true
	}
	if q.tcp != nil && q.tcp.rsp != nil && q.tcp.rsp.snd.lost > 0 && (q.State == QPRTS || q.State == QPSQD) {
		return true // READ responses to resend (tcpread.go)
	}
	return q.State == QPRTS && (q.sendIdx < len(q.sq) || q.srPending() || q.tcpPending())
}

// wqeAt returns the WQE that holds absolute PSN psn, and its index.
func (q *QP) wqeAt(psn int64) (*WQE, int) {
	for i, w := range q.sq {
		if psn < w.FirstPSN+w.NPkts {
			if psn < w.FirstPSN {
				return nil, -1
			}
			return w, i
		}
	}
	return nil, -1
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

// Destroyed reports whether DestroyQP destroyed the QP.
func (q *QP) Destroyed() bool { return q.destroyed }

// RetryCounts returns the QP's retry_cnt and rnr_retry (ibv_query_qp's).
func (q *QP) RetryCounts() (retry, rnr int) { return q.retryCnt, q.rnrRetry }

// PathMTU is the QP's path MTU in bytes, which cuts its requests and READ
// responses: the smaller of the two ports' hca.mtu (or QPAttr.PathMTU)
// from RTR on (ModifyQP), the port's own before.
func (q *QP) PathMTU() int { return int(q.pmtu) }

// Outstanding is the number of send WRs posted and not completed.
func (q *QP) Outstanding() int { return len(q.sq) }

// RecvPosted is the number of RECVs posted on the QP's own receive queue.
func (q *QP) RecvPosted() int { return len(q.rq) }

func (q *QP) String() string { return fmt.Sprintf("qp%d(%s %s)", q.QPN, q.Type, q.State) }

// transitions lists the modify_qp transitions the IBTA allows (vol. 1,
// figure 132); any state may go to RESET or ERR.
var transitions = map[[2]QPState]bool{
	{QPReset, QPInit}: true, {QPInit, QPInit}: true, {QPInit, QPRTR}: true,
	{QPRTR, QPRTS}: true, {QPRTS, QPRTS}: true, {QPRTS, QPSQD}: true,
	{QPSQD, QPRTS}: true, {QPSQD, QPSQD}: true,
}

// dscp is the DSCP the QP's packets carry (QP.DSCP).
func (qp *QP) dscp() uint8 {
	if qp.DSCPSet {
		return qp.DSCP
	}
	return qp.Priority << 3
}
