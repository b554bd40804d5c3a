package hca

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"unsafe"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// Stats are an HCA's counters.
type Stats struct {
	TxPackets     int64 // every packet the HCA originated (PFC frames excepted)
	DataPackets   int64 // request packets sent, retransmissions included
	RxPackets     int64 // packets received from the wire (PFC frames excepted)
	AcksSent      int64
	ReadResponses int64 // READ response packets sent
	Retransmitted int64 // request packets sent more than once
	NaksSent      int64
	RNRNaksSent   int64
	Timeouts      int64
	Duplicates    int64 // request packets received twice
	OutOfOrder    int64 // request packets received ahead of a gap (dropped or held)
	// NoRecvDrops counts UD (and UC) messages dropped because no RECV was
	// posted; UCDroppedMsgs UC messages with a missing packet; QKeyDrops
	// UD datagrams with the wrong Q_Key; BadQPDrops packets for a QP that
	// does not exist or is not ready.
	NoRecvDrops, UCDroppedMsgs, QKeyDrops, BadQPDrops int64
	// ClosedQPDrops counts packets that arrived for a QP that has been
	// destroyed (DestroyQP): late duplicates, ACKs and CNPs of a finished
	// connection, which the NIC discards as it does any packet for a QP
	// number it no longer knows. They are counted in RxPackets too.
	ClosedQPDrops int64
	// ECNMarked counts CE-marked packets received; CNPsSent and
	// CNPsReceived the congestion notifications.
	ECNMarked, CNPsSent, CNPsReceived int64
	// PauseSent and ResumeSent count PFC frames the NIC sent because its
	// receive buffer filled.
	PauseSent, ResumeSent int64
	// Misdelivered counts packets for another host (flooded by a switch),
	// which the NIC's MAC filter discards; RxBufferDrops packets lost
	// because the receive buffer was full (a stalled pipeline whose PAUSE
	// the watchdog stopped); WatchdogTrips the NIC watchdog's trips.
	Misdelivered, RxBufferDrops, WatchdogTrips int64
	// The invariant: every posted WR completes exactly once.
	PostedSend, PostedRecv, CompletedSend, CompletedRecv, DoubleCompletions int64
	AsyncEvents                                                             int64
}

// HCA is one host's RDMA NIC with a single port. QPs with work share the
// port through a round-robin transmit arbiter, one packet at a time; ACKs,
// NAKs, atomic responses and CNPs go ahead of data.
type HCA struct {
	// What every packet touches comes first: the first three cache lines
	// (TestHCAHotFields), then the profile, whose first line holds the
	// MTU and the retransmission scheme. An HCA is 896 bytes, so each
	// starts on a line.
	eng    *sim.Engine
	pool   *fabric.Pool
	port   *fabric.Port
	rxLane *sim.Lane // the receive pipeline's latency (afterPipeline)
	lastQP *QP       // the QP that QP found last: a packet's QP is most often the one before's
	// qps holds the QPs that exist, by number; DestroyQP deletes them, so
	// the table holds the live QPs only (lookups, and EachPacket's walk
	// in QP-number order).
	// nextQPN is the number the next QP gets: numbers are never reused.
	qps     map[uint32]*QP
	cursor  int
	nextQPN uint32
	ID      fabric.NodeID

	active    []*QP // QPs with work, in round-robin order (without arb)
	ctrl      fabric.PacketQueue
	rxBusy    bool
	rxHung    bool
	rxPaused  bool
	wdTripped bool
	// mrGen counts DeregMR calls: a WRITE in progress whose count is
	// behind looks its region up again (DeregMR).
	mrGen uint32

	rxRate    fabric.Rate // Prof.RxRate (SetRxRate)
	rxLatency sim.Time    // Prof.RxPktLatency
	Stats     Stats       // its first four counters are per packet

	// Prof is the NIC's profile, fixed once New returns but for RxRate,
	// which SetRxRate changes.
	Prof Profile
	Name string
	IP   uint32
	// nextKey is the next memory region's key (beside IP, which leaves
	// it room on its word).
	nextKey uint32
	// Placed counts WRITE and READ response packets placed at their
	// address ahead of a gap (direct placement, reorder.go); ReorderHeld
	// the SEND (and other) request packets held until the gap fills, as
	// a SEND must land in order. (Not in Stats, whose size keeps Prof on
	// a line.)
	Placed, ReorderHeld int64

	// arb is the port's VL arbitration (Profile.VLArb), which keeps a
	// ring of QPs per VL in place of active; nil without one. park is
	// active's parking (parking.go), nil until it first holds parkMin
	// QPs.
	arb  *vlArbiter
	park *parking
	// ArbiterReads counts the QPs the transmit arbiter read choosing
	// packets (NextPacket): its work, which tests hold to the packets
	// sent rather than to the QPs waiting.
	ArbiterReads int64
	// heldTo is the wake time the QP sendFrom last read set (wakeAt),
	// 0 if none: fromRing parks it then (parking.go's hold).
	heldTo sim.Time

	mrs    map[uint32]*MR // by key (lkey == rkey)
	nextVA uint64

	// cold holds what a packet never touches: the default PD and CQ,
	// and the connection manager.
	cold *hcaCold

	rxq       fabric.PacketQueue // waiting for the receive drain (rxBusy)
	rxPauseAt sim.Time

	// Faults (faults.go): a hung receive pipeline (rxHung), a PFC storm,
	// and the NIC watchdog that ends both (wdTripped).
	storm     bool
	stormPrio uint8
	stallAt   sim.Time // when the current stall or storm began
	wdTimer   sim.Timer

	// OnComplete, if set, is called when a send WQE completes (any
	// status, signaled or not), when its completion becomes visible.
	OnComplete func(qp *QP, w *WQE)
	// OnRecv, if set, is called for every receive completion.
	OnRecv func(qp *QP, wc WC)
	// OnWrite, if set, is called when the data of an RDMA WRITE message
	// has landed in memory (what a program polling that memory sees).
	OnWrite func(qp *QP, mr *MR, addr uint64, n int64)
	// OnAsyncEvent, if set, receives asynchronous events.
	OnAsyncEvent func(ev AsyncEvent)
	// OnUCPacket, if set, is told after each UC request packet the QP
	// took in or discarded: a UC message's packets may land with no
	// completion to say so (the message lost one), and a runner that
	// waits for a flow's data to be delivered or lost hears of them here.
	OnUCPacket func(qp *QP)
}

// hcaCold is the HCA's state that no packet touches, made when first
// needed.
type hcaCold struct {
	pds   []*PD // AllocPD's, in order: a PD's handle is its place + 1
	defPD *PD
	defCQ *CQ
	cm    *CM // the connection manager, once asked for (CM)
	// mcast is, per multicast group, the QPs attached to it
	// (AttachMcast; looked up, never iterated).
	mcast map[fabric.NodeID][]*QP
	// sa is where the subnet administrator is (InfiniBand; SetSubnetAdmin).
	sa *SubnetAdmin
	// doorbellFree is when the posting thread is done with its last
	// doorbell (ringDoorbell).
	doorbellFree sim.Time
	// port2 is the HCA's second port, id2 its node, and ctrl2 the
	// control packets it sends; ports says which hosts have two
	// (dualport.go).
	port2 *fabric.Port
	id2   fabric.NodeID
	ctrl2 fabric.PacketQueue
	ports PortMap
	// lidPaths: every host has a second LID (SetPortMap).
	lidPaths bool
}

func (h *HCA) coldPart() *hcaCold {
	if h.cold == nil {
		h.cold = &hcaCold{}
	}
	return h.cold
}

// firstQPN is the first QP number handed out: QP0 and QP1 are the special
// management QPs of InfiniBand.
const firstQPN = 2

// HCA event kinds.
const (
	evPost int32 = iota
	evTimeout
	evWake
	evRNR
	evRx
	evRxDrain
	evComplete
	evWrite
	evStorm
	evNICWatchdog
	evPostRecv
	evCQPeriod
	evDelAck
	evRspTimeout
)

var _ fabric.Owner = (*HCA)(nil)

// rxKind is a packet's end of the receive pipeline (sim.LaneKind). It has
// no Warm: the packet's processing starts from the HCA's first lines and
// the packet, which the engine asks for itself.
var rxKind = &sim.LaneKind{
	Fire: func(t, d unsafe.Pointer) { (*HCA)(t).process((*fabric.Packet)(d)) },
}

// New attaches an HCA to its port.
func New(eng *sim.Engine, pool *fabric.Pool, id fabric.NodeID, name string, ip uint32, prof Profile, port *fabric.Port) *HCA {
	h := &HCA{ID: id, Name: name, IP: ip, Prof: prof, eng: eng, pool: pool, port: port,
		rxRate: prof.RxRate, rxLatency: prof.RxPktLatency,
		qps: map[uint32]*QP{}, nextQPN: firstQPN, mrs: map[uint32]*MR{}, nextKey: 0x100, nextVA: 0x10000}
	if prof.VLArb != nil {
		h.arb = newVLArbiter(*prof.VLArb, int64(fabric.IBWire(fabric.OpWriteOnlyImm, prof.MTU, prof.GRH)))
	}
	port.SetOwner(h)
	// Choosing a frame and taking one start from the HCA's first two
	// lines: the port asks for them an event ahead.
	fabric.SetWarmAt(port, h)
	return h
}

// Port returns the HCA's port.
func (h *HCA) Port() *fabric.Port { return h.port }

// Engine returns the engine the HCA runs on.
func (h *HCA) Engine() *sim.Engine { return h.eng }

// AllocPD makes a protection domain (ibv_alloc_pd).
func (h *HCA) AllocPD() *PD {
	c := h.coldPart()
	pd := &PD{Handle: uint32(len(c.pds) + 1), hca: h}
	c.pds = append(c.pds, pd)
	return pd
}

// RegMR registers length bytes of memory in pd (ibv_reg_mr). With buf not
// nil the region is those bytes (length is len(buf)) and data really
// moves; with buf nil it only has a size. The HCA gives the region a
// virtual address of its own, 4 KiB aligned, and one key used as both
// lkey and rkey.
func (h *HCA) RegMR(pd *PD, length int64, buf []byte, access Access) *MR {
	if buf != nil {
		length = int64(len(buf))
	}
	addr, key := h.ReserveMR(length)
	mr := &MR{PD: pd, Addr: addr, Len: length, LKey: key, RKey: key, Access: access, Buf: buf}
	h.mrs[key] = mr
	return mr
}

// ReserveMR takes the address and key the next region of length bytes
// would get (RegMR), for a region registered later with them
// (RegReservedMR): a run that must tell a flow's requester its
// responder's region before the responder's host registers it.
func (h *HCA) ReserveMR(length int64) (addr uint64, key uint32) {
	addr, key = h.nextVA, h.nextKey
	h.nextKey += 0x100 // keys differ in more than their low bits, as real ones do
	h.nextVA += (uint64(length) + 0xFFF) &^ 0xFFF
	h.nextVA += 0x1000 // a guard page between regions
	return addr, key
}

// RegReservedMR registers length bytes, without bytes of their own, at
// the address and key ReserveMR gave.
func (h *HCA) RegReservedMR(pd *PD, addr uint64, key uint32, length int64, access Access) *MR {
	mr := &MR{PD: pd, Addr: addr, Len: length, LKey: key, RKey: key, Access: access}
	h.mrs[key] = mr
	return mr
}

// DeregMR removes a region (ibv_dereg_mr); later accesses with its keys
// fail, and so does the rest of a WRITE into it already in progress: a
// real HCA translates every packet's address through the region, so once
// it is gone the next packet is an R_Key violation, answered with a
// Remote Access Error NAK (the requester completes with rem_access_err),
// not a write through a stale mapping.
func (h *HCA) DeregMR(mr *MR) {
	delete(h.mrs, mr.LKey)
	h.mrGen++
}

// NumMRs is the number of registered memory regions.
func (h *HCA) NumMRs() int { return len(h.mrs) }

// CreateCQ makes a completion queue of depth entries (ibv_create_cq).
func (h *HCA) CreateCQ(depth int) *CQ { return &CQ{Depth: depth, hca: h} }

// CreateSRQ makes a shared receive queue of at most max RECVs.
func (h *HCA) CreateSRQ(pd *PD, max int) *SRQ { return &SRQ{PD: pd, Max: max} }

// CreateQPWith makes a QP in the RESET state (ibv_create_qp).
func (h *HCA) CreateQPWith(c QPCaps) *QP {
	qp := h.newQP(h.nextQPN, c)
	h.nextQPN++
	return qp
}

// newQP makes QP number qpn (QP1, the GSI QP, is the CM's).
func (h *HCA) newQP(qpn uint32, c QPCaps) *QP {
	p := h.Prof
	qp := &QP{QPN: qpn, Type: c.Type, State: QPReset, Priority: p.Priority,
		PD: c.PD, SendCQ: c.SendCQ, RecvCQ: c.RecvCQ, SRQ: c.SRQ, SigAll: c.SigAll,
		QKey: p.QKey, timeoutExp: p.AckTimeout, retryCnt: p.RetryCount, rnrRetry: p.RNRRetry,
		minRNRTimer: p.MinRNRTimer, maxRdAtomic: p.MaxRdAtomic, maxDestRdAtomic: p.MaxDestRdAtomic,
		maxSend: c.MaxSend, maxRecv: c.MaxRecv}
	if qp.maxSend == 0 {
		qp.maxSend = p.MaxSendWR
	}
	if qp.maxRecv == 0 {
		qp.maxRecv = p.MaxRecvWR
	}
	qp.apm = p.APM && c.Type == RC
	h.qps[qp.QPN] = qp
	return qp
}

// DestroyQP destroys qp (ibv_destroy_qp) and frees what the HCA holds for
// it. Work requests still posted complete first with wr_flush_err, as on
// a move to ERR, so that every posted WR completes exactly once (an
// application that wants their completions drains them before); its
// timers stop, it leaves the transmit arbiter and the QP table. A control
// packet it already queued (an ACK) still goes out. Its number is never
// handed out again, so a packet that arrives for it later cannot reach
// another QP: the HCA drops it and counts it in Stats.ClosedQPDrops, as a
// NIC drops packets for a QP number it does not know. A QP destroyed
// already, or of another HCA, is ErrInvalidState.
func (h *HCA) DestroyQP(qp *QP) error {
	if qp.destroyed || h.qps[qp.QPN] != qp {
		return ErrInvalidState
	}
	h.toErr(qp) // unparks it
	h.abandonUC(qp)
	qp.destroyed = true
	delete(h.qps, qp.QPN)
	if h.lastQP == qp {
		h.lastQP = nil
	}
	if qp.active {
		ring, cursor, pk := &h.active, &h.cursor, h.park
		if h.arb != nil {
			ring, cursor, pk = &h.arb.rings[qp.ring], &h.arb.cursors[qp.ring], h.arb.parks[qp.ring]
		}
		for i, x := range *ring {
			if x == qp {
				// As NextPacket would drop it when its turn came: the
				// QPs after it keep their order and the cursor its QP.
				h.deactivate(ring, pk, i)
				if i < *cursor {
					*cursor--
				}
				break
			}
		}
	}
	qp.queuedAck = nil
	h.srFree(qp)
	qp.sr = nil
	qp.atomics = nil
	qp.curMR = nil
	qp.CC, qp.OnCNP = nil, nil
	return nil
}

// NumQPs is the number of QPs that exist (created and not destroyed).
func (h *HCA) NumQPs() int { return len(h.qps) }

// defaults returns the PD and CQ of the simple API, made on first use.
func (h *HCA) defaults() (*PD, *CQ) {
	c := h.coldPart()
	if c.defPD == nil {
		c.defPD = h.AllocPD()
		c.defCQ = h.CreateCQ(1 << 30)
	}
	return c.defPD, c.defCQ
}

// DefaultPD is the protection domain of QPs made by CreateQP.
func (h *HCA) DefaultPD() *PD { pd, _ := h.defaults(); return pd }

// DefaultCQ is the (practically unbounded) CQ of QPs made by CreateQP.
func (h *HCA) DefaultCQ() *CQ { _, cq := h.defaults(); return cq }

// CreateQP makes an RC QP on the default PD and CQ, signaling every WR,
// in the INIT state; Connect moves it to RTS.
func (h *HCA) CreateQP() *QP { return h.CreateTypedQP(RC) }

// CreateTypedQP is CreateQP for any type, with every remote access (the
// scenario's flows WRITE, READ and do atomics); a UD QP goes straight to
// RTS.
func (h *HCA) CreateTypedQP(t QPType) *QP { return h.CreateTypedQPNumbered(t, h.ReserveQPN()) }

// ReserveQPN takes the number the next QP would get, for a QP made later
// with it (CreateTypedQPNumbered): a run that must tell a flow's
// requester its responder's QP before the responder's host makes it.
// Numbers are never reused.
func (h *HCA) ReserveQPN() uint32 {
	q := h.nextQPN
	h.nextQPN++
	return q
}

// CreateTypedQPNumbered is CreateTypedQP for qpn, a number ReserveQPN
// gave and no QP has.
func (h *HCA) CreateTypedQPNumbered(t QPType, qpn uint32) *QP {
	if _, taken := h.qps[qpn]; taken || qpn < firstQPN || qpn >= h.nextQPN {
		panic(fmt.Sprintf("hca: QP number %d was not reserved, or is taken", qpn))
	}
	pd, cq := h.defaults()
	qp := h.newQP(qpn, QPCaps{Type: t, PD: pd, SendCQ: cq, RecvCQ: cq, SigAll: true, MaxSend: 1 << 30, MaxRecv: 1 << 30})
	h.must(h.ModifyQP(qp, QPAttr{State: QPInit, Access: AccessAll}))
	if t == UD {
		h.must(h.ModifyQP(qp, QPAttr{State: QPRTR}))
		h.must(h.ModifyQP(qp, QPAttr{State: QPRTS}))
	}
	return qp
}

func (h *HCA) must(err error) {
	if err != nil {
		panic(err)
	}
}

// Connect ties an RC or UC qp to the remote QP and moves it through RTR
// to RTS, as ibv_modify_qp does after the connection parameters are
// exchanged. Both sides start at PSN 0. A QP still in RESET goes to INIT
// first, with no remote access (as ibv_rc_pingpong's, which only SENDs).
func (h *HCA) Connect(qp *QP, remote fabric.NodeID, remoteIP uint32, remoteQPN uint32) {
	if qp.State == QPReset {
		h.must(h.ModifyQP(qp, QPAttr{State: QPInit}))
	}
	h.must(h.ModifyQP(qp, QPAttr{State: QPRTR, Dest: remote, DestIP: remoteIP, DestQPN: remoteQPN}))
	h.must(h.ModifyQP(qp, QPAttr{State: QPRTS}))
}

// Accept is Connect for the passive side of a connection (the server:
// rdma_accept's, a flow's responder). On iWARP that side is MPA's
// Responder, which sends no FPDU until it has received the Initiator's
// first (RFC 5044's connection startup rules, rule 4; RFC 6581's
// ready-to-receive message, which lifts this, is not modelled): its
// requests and READ responses wait, its TCP acknowledgements do not. On
// RoCE and InfiniBand it is Connect.
func (h *HCA) Accept(qp *QP, remote fabric.NodeID, remoteIP uint32, remoteQPN uint32) {
	h.Connect(qp, remote, remoteIP, remoteQPN)
	if qp.tcp != nil {
		qp.tcp.await = true
	}
}

// ModifyQP moves qp to a.State, taking the attributes that transition
// needs (ibv_modify_qp): RESET→INIT (access, Q_Key), INIT→RTR (the remote
// QP and the receive PSN, min_rnr_timer, max_dest_rd_atomic), RTR→RTS (the
// send PSN, timeout, retry counts, max_rd_atomic), RTS↔SQD, and any state
// to ERR or RESET. Another transition is ErrTransition; any on a destroyed
// QP is ErrInvalidState. With a mask (a.Mask), the transition's required
// attributes must be in it (ErrAttrMask otherwise), as in verbs.
func (h *HCA) ModifyQP(qp *QP, a QPAttr) error {
	h.unpark(qp) // before RESET forgets it
	from, to := qp.State, a.State
	switch {
	case qp.destroyed:
		return ErrInvalidState
	case to == QPErr:
		h.toErr(qp)
		return nil
	case to == QPReset:
		h.toErr(qp) // flush what is posted, then forget it
		h.srFree(qp)
		*qp = QP{QPN: qp.QPN, Type: qp.Type, PD: qp.PD, SendCQ: qp.SendCQ, RecvCQ: qp.RecvCQ, SRQ: qp.SRQ,
			SigAll: qp.SigAll, Priority: qp.Priority, SL: qp.SL, Access: qp.Access, QKey: qp.QKey,
			timeoutExp: qp.timeoutExp, retryCnt: qp.retryCnt, rnrRetry: qp.rnrRetry, minRNRTimer: qp.minRNRTimer,
			maxRdAtomic: qp.maxRdAtomic, maxDestRdAtomic: qp.maxDestRdAtomic, maxSend: qp.maxSend, maxRecv: qp.maxRecv}
		return nil
	case !transitions[[2]QPState{from, to}]:
		return ErrTransition
	case a.Mask != 0 && a.Mask&requiredAttrs[[2]QPState{from, to}][qp.Type] != requiredAttrs[[2]QPState{from, to}][qp.Type]:
		return ErrAttrMask
	}
	if a.sets(AttrAccessFlags, a.Access != 0) {
		qp.Access = a.Access
	}
	if a.sets(AttrQKey, a.QKey != 0) {
		qp.QKey = a.QKey
	}
	switch {
	case from == QPInit && to == QPRTR:
		if qp.Type != UD {
			qp.Remote, qp.RemoteIP, qp.RemoteQPN = a.Dest, a.DestIP, a.DestQPN
			qp.flow = fabric.FlowKey{SrcIP: h.IP, DstIP: a.DestIP, SrcPort: fabric.RoCEv2SourcePort(qp.QPN), DstPort: fabric.RoCEv2Port}
		}
		qp.ePSN = int64(a.RQPSN)
		if a.sets(AttrMinRNRTimer, a.MinRNRTimer != 0) {
			qp.minRNRTimer = a.MinRNRTimer
		}
		if a.sets(AttrMaxDestRdAtomic, a.MaxDestRdAtomic != 0) {
			qp.maxDestRdAtomic = a.MaxDestRdAtomic
		}
	case from == QPRTR && to == QPRTS:
		qp.basePSN = int64(a.SQPSN)
		qp.nextPSN, qp.endPSN, qp.una, qp.ackHigh, qp.maxSent = qp.basePSN, qp.basePSN, qp.basePSN, qp.basePSN, qp.basePSN
		if a.sets(AttrTimeout, a.Timeout != 0) {
			qp.timeoutExp = a.Timeout
		}
		if a.sets(AttrRetryCnt, a.RetryCnt != 0 || a.SetRetries) {
			qp.retryCnt = a.RetryCnt
		}
		if a.sets(AttrRNRRetry, a.RNRRetry != 0 || a.SetRetries) {
			qp.rnrRetry = a.RNRRetry
		}
		if a.sets(AttrMaxRdAtomic, a.MaxRdAtomic != 0) {
			qp.maxRdAtomic = a.MaxRdAtomic
		}
	case to == QPSQD:
		qp.State = QPSQD
		if qp.una >= qp.nextPSN {
			h.asyncEvent(AsyncEvent{Type: EventSQDrained, QP: qp})
		}
		return nil
	}
	qp.State = to
	if to == QPRTS {
		if qp.tcp == nil && qp.Type == RC && h.iwarp() {
			h.tcpStart(qp)
		}
		h.activate(qp)
	}
	return nil
}

// QP returns the QP with number qpn, or nil when there is none (never
// made, or destroyed).
func (h *HCA) QP(qpn uint32) *QP {
	if qp := h.lastQP; qp != nil && qp.QPN == qpn {
		return qp
	}
	qp := h.qps[qpn]
	if qp != nil {
		h.lastQP = qp
	}
	return qp
}

// QPs returns every QP of the HCA that exists, by number.
func (h *HCA) QPs() []*QP {
	out := make([]*QP, 0, len(h.qps))
	for _, qp := range h.qps {
		out = append(out, qp)
	}
	slices.SortFunc(out, func(a, b *QP) int { return cmp.Compare(a.QPN, b.QPN) })
	return out
}

// PortChanged tells the HCA the link of its port num (1, or 2 on a
// dual-port HCA) went down (up false) or came back: it raises
// IBV_EVENT_PORT_ERR or IBV_EVENT_PORT_ACTIVE ("Link became unavailable
// / active on a port", ibv_get_async_event(3)). A port going down moves
// the QPs on it whose alternate path is armed to the other port
// (migrateOff).
func (h *HCA) PortChanged(num int, up bool) {
	t := EventPortErr
	if up {
		t = EventPortActive
	}
	h.asyncEvent(AsyncEvent{Type: t, Port: num})
	if !up {
		h.migrateOff(num == 2)
	}
}

// asyncEvent raises ev: counted, and given to OnAsyncEvent.
func (h *HCA) asyncEvent(ev AsyncEvent) {
	h.Stats.AsyncEvents++
	if h.OnAsyncEvent != nil {
		h.OnAsyncEvent(ev)
	}
}

// ---- posting

// PostSend posts a send work request now (ibv_post_send). A WR the QP
// cannot take returns an error and is not posted: a QP not yet in RTS (or
// destroyed), a full send queue, a message longer than Prof.MaxMsgSize,
// READ or ATOMIC on UC, anything but SEND on UD or a UD message longer
// than the MTU, an atomic that is not 8 bytes, an inline payload over
// MaxInline. On a QP in ERR the WR is posted and flushed. A local
// protection error (an lkey that is not the QP's PD's, or out of bounds)
// completes the WR with loc_prot_err and moves the QP to ERR.
func (h *HCA) PostSend(qp *QP, wr SendWR) (*WQE, error) {
	w := newWQE(wr)
	if _, err := h.postChain(qp, []*WQE{w}); err != nil {
		return nil, err
	}
	return w, nil
}

// newWQE is wr's WQE, not yet posted.
func newWQE(wr SendWR) *WQE {
	return &WQE{ID: wr.ID, Op: wr.Op, wr: wr, Size: sglLen(wr.SGL, wr.Length)}
}

// postChain is one ibv_post_send of wqes: each is checked and posted in
// turn, the doorbell rung once, with the first; it stops at the first the
// QP refuses and returns how many it posted, and the error.
func (h *HCA) postChain(qp *QP, wqes []*WQE) (int, error) {
	var ring sim.Time
	for i, w := range wqes {
		if err := h.checkSend(qp, w); err != nil {
			return i, err
		}
		if i == 0 {
			ring = h.ringDoorbell()
		}
		h.post(qp, w, ring, len(wqes) > 1)
	}
	return len(wqes), nil
}

// PostSendList posts a chain of work requests with one ibv_post_send
// call, as a linked list of ibv_send_wr does: one doorbell for them all
// (Profile.DoorbellCost is paid once), and the NIC reads the WQEs from
// the send queue (WQEFetchLatency, even for inline WRs: BlueFlame carries
// a WQE with its doorbell only when a call posts one; rdma-core's mlx5
// provider, providers/mlx5/qp.c, post_send_db: a BlueFlame copy when
// nreq == 1, one doorbell write otherwise). As ibv_post_send,
// it stops at the first WR it refuses and returns the error with the
// WQEs posted before it (bad_wr is the next one).
func (h *HCA) PostSendList(qp *QP, wrs []SendWR) ([]*WQE, error) {
	wqes := make([]*WQE, len(wrs))
	for i, wr := range wrs {
		wqes[i] = newWQE(wr)
	}
	n, err := h.postChain(qp, wqes)
	return wqes[:n], err
}

// PostSendAt posts wr at time at (now or later), for programs scheduled
// ahead (traffic generators). A WR that PostSend would refuse then
// completes with loc_qp_op_err.
func (h *HCA) PostSendAt(qp *QP, wr SendWR, at sim.Time) *WQE {
	w := newWQE(wr)
	h.eng.Schedule(at, h, evPost, 0, &post{qp: qp, one: w})
	return w
}

// PostSendListAt posts wrs as one chain (PostSendList) at time at. A WR
// that PostSendList would refuse completes with loc_qp_op_err, and so do
// those after it, which ibv_post_send would not have posted.
func (h *HCA) PostSendListAt(qp *QP, wrs []SendWR, at sim.Time) []*WQE {
	out := make([]*WQE, len(wrs))
	for i, wr := range wrs {
		out[i] = newWQE(wr)
	}
	h.eng.Schedule(at, h, evPost, 0, &post{qp: qp, wqes: out})
	return out
}

// ringDoorbell returns when the posting thread rings the doorbell of an
// ibv_post_send called now: at once, unless it is still busy with the
// doorbell of an earlier call (Profile.DoorbellCost), whose end it
// waits for.
func (h *HCA) ringDoorbell() sim.Time {
	now := h.eng.Now()
	cost := h.Prof.DoorbellCost
	if cost <= 0 {
		return now
	}
	c := h.coldPart()
	ring := max(now, c.doorbellFree)
	c.doorbellFree = ring + cost
	return ring
}

// PostWrite posts an RDMA WRITE of size bytes (a synthetic payload) to
// qp.RemoteAddr with qp.RemoteRKey at time at, as the simple API's
// ibv_post_send. It returns the WQE, which records the completion.
func (h *HCA) PostWrite(qp *QP, id int, size int64, at sim.Time) *WQE {
	return h.PostSendAt(qp, SendWR{ID: uint64(id), Op: WRWrite, Length: size, Signaled: true,
		RemoteAddr: qp.RemoteAddr, RKey: qp.RemoteRKey}, at)
}

// post is a scheduled ibv_post_send: one WQE (one), or a chain (wqes).
type post struct {
	qp   *QP
	one  *WQE
	wqes []*WQE
}

func (h *HCA) checkSend(qp *QP, w *WQE) error {
	if qp.destroyed {
		return ErrInvalidState
	}
	switch qp.State {
	case QPRTS, QPSQD, QPErr:
	default:
		return ErrInvalidState
	}
	wr := &w.wr
	switch {
	case qp.Type == UC && (wr.Op.isRead() || wr.Op.isAtomic()):
		return ErrInvalidWR
	case qp.Type == UD && (!wr.Op.isSend() || w.Size > int64(h.Prof.MTU) || wr.AH == nil):
		return ErrInvalidWR
	case wr.Op.isAtomic() && (w.Size != 8 || wr.RemoteAddr%8 != 0):
		return ErrInvalidWR
	case wr.Inline && (w.Size > int64(h.Prof.MaxInline) || wr.Op.isRead() || wr.Op.isAtomic()):
		return ErrInvalidWR
	case w.Size < 0 || w.Size > h.Prof.MaxMsgSize:
		return ErrInvalidWR
	case len(qp.sq) >= qp.maxSend && qp.State != QPErr:
		return ErrQueueFull
	}
	return nil
}

// sinkWritable reports whether an iWARP READ's sink buffer takes remote
// writes: the responses are tagged writes into it (RFC 5040 §4.4; an
// iWARP application registers it with IBV_ACCESS_REMOTE_WRITE).
func sinkWritable(h *HCA, sgl []SGE) bool {
	for _, s := range sgl {
		if h.mrs[s.LKey].Access&AccessRemoteWrite == 0 {
			return false
		}
	}
	return true
}

// checkLocal validates the SGL against the QP's PD (lkey, bounds, local
// write for what the HCA writes into).
func (h *HCA) checkLocal(qp *QP, sgl []SGE, write bool) bool {
	for _, s := range sgl {
		mr := h.mrs[s.LKey]
		if mr == nil || mr.PD != qp.PD || !mr.contains(s.Addr, s.Len) {
			return false
		}
		if write && mr.Access&AccessLocalWrite == 0 {
			return false
		}
	}
	return true
}

// gather copies the SGL's bytes, or returns nil when any part has none.
func (h *HCA) gather(sgl []SGE, size int64) []byte {
	if len(sgl) == 0 || size == 0 {
		return nil
	}
	out := make([]byte, 0, size)
	for _, s := range sgl {
		b := h.mrs[s.LKey].Bytes(s.Addr, s.Len)
		if b == nil {
			return nil
		}
		out = append(out, b...)
	}
	return out
}

// scatter writes data at offset off of the SGL's concatenation.
func (h *HCA) scatter(sgl []SGE, off int64, data []byte) {
	for _, s := range sgl {
		if len(data) == 0 {
			return
		}
		if off >= s.Len {
			off -= s.Len
			continue
		}
		n := min(int64(len(data)), s.Len-off)
		if b := h.mrs[s.LKey].Bytes(s.Addr+uint64(off), n); b != nil {
			copy(b, data[:n])
		}
		data = data[n:]
		off = 0
	}
}

// post puts w on qp's send queue. ring is when its doorbell was rung
// (ringDoorbell), and chained says that the call posted more than one WR,
// so the NIC reads the WQE from memory even if it is inline.
func (h *HCA) post(qp *QP, w *WQE, ring sim.Time, chained bool) {
	now := h.eng.Now()
	w.Posted = now
	w.signaled = w.wr.Signaled || qp.SigAll
	mtu := int64(h.Prof.MTU)
	switch {
	case w.Op.isAtomic():
		w.NPkts, w.reqPkts = 1, 1
	case w.Op.isRead():
		w.NPkts, w.reqPkts = max(1, (w.Size+mtu-1)/mtu), 1
	default:
		w.NPkts = max(1, (w.Size+mtu-1)/mtu)
		w.reqPkts = w.NPkts
	}
	p := &h.Prof
	w.ready = ring + p.DoorbellLatency + p.TxPktLatency
	if !w.wr.Inline || chained {
		w.ready += p.WQEFetchLatency
	}
	if !w.wr.Inline && w.Size > 0 && !w.Op.isRead() && !w.Op.isAtomic() {
		w.ready += p.DMALatency
	}
	h.Stats.PostedSend++
	if qp.State == QPErr {
		h.complete(qp, w, WCFlushed)
		return
	}
	writes := w.Op.isRead() || w.Op.isAtomic()
	if !h.checkLocal(qp, w.wr.SGL, writes) || w.Op.isRead() && h.iwarp() && !sinkWritable(h, w.wr.SGL) {
		// The HCA finds the bad lkey when it processes the WQE: the WR
		// completes with loc_prot_err and the QP goes to ERR.
		h.complete(qp, w, WCLocProtError)
		h.toErr(qp)
		h.asyncEvent(AsyncEvent{Type: EventQPFatal, QP: qp})
		return
	}
	w.FirstPSN = qp.endPSN
	qp.endPSN += w.NPkts
	qp.sq = append(qp.sq, w)
	if !writes {
		w.data = h.gather(w.wr.SGL, w.Size)
	}
	h.activate(qp)
}

// PostRecv posts a receive (ibv_post_recv). It fails on a QP in RESET,
// a destroyed one, one with an SRQ, or a full queue; on a QP in ERR the
// RECV is flushed.
func (h *HCA) PostRecv(qp *QP, wr RecvWR) error {
	if qp.State == QPReset || qp.SRQ != nil || qp.destroyed {
		return ErrInvalidState
	}
	if len(qp.rq) >= qp.maxRecv {
		return ErrQueueFull
	}
	if !h.checkLocal(qp, wr.SGL, true) {
		return ErrInvalidWR
	}
	r := &recvWQE{wr: wr, size: sglLen(wr.SGL, wr.Length)}
	h.Stats.PostedRecv++
	if qp.State == QPErr {
		h.completeRecv(qp, r, WC{Status: WCFlushed, Opcode: WCOpRecv})
		return nil
	}
	qp.rq = append(qp.rq, r)
	return nil
}

// PostRecvAt posts wr at time at (now or later), for programs scheduled
// ahead (a traffic generator whose receiver posts its RECVs late). A
// RECV that PostRecv would refuse then (the QP destroyed, its queue
// full) is not posted, as an application's failed ibv_post_recv posts
// nothing.
func (h *HCA) PostRecvAt(qp *QP, wr RecvWR, at sim.Time) {
	h.eng.Schedule(at, h, evPostRecv, 0, &postRecv{qp: qp, wr: wr})
}

type postRecv struct {
	qp *QP
	wr RecvWR
}

// PostSRQRecv posts a receive on a shared receive queue.
func (h *HCA) PostSRQRecv(s *SRQ, wr RecvWR) error {
	if len(s.rq) >= s.Max {
		return ErrQueueFull
	}
	for _, g := range wr.SGL {
		mr := h.mrs[g.LKey]
		if mr == nil || mr.PD != s.PD || !mr.contains(g.Addr, g.Len) || mr.Access&AccessLocalWrite == 0 {
			return ErrInvalidWR
		}
	}
	h.Stats.PostedRecv++
	s.rq = append(s.rq, &recvWQE{wr: wr, size: sglLen(wr.SGL, wr.Length)})
	return nil
}

// takeRecv removes the next RECV of qp (from its SRQ if it has one).
func (h *HCA) takeRecv(qp *QP) *recvWQE {
	q := &qp.rq
	if qp.SRQ != nil {
		q = &qp.SRQ.rq
	}
	if len(*q) == 0 {
		return nil
	}
	r := (*q)[0]
	(*q)[0] = nil
	*q = (*q)[1:]
	return r
}

// ---- events

// HandleEvent runs the HCA's own events.
func (h *HCA) HandleEvent(ev *sim.Event) {
	switch ev.Kind {
	case evPost:
		p := ev.Data.(*post)
		wqes := p.wqes
		if p.one != nil {
			wqes = []*WQE{p.one}
		}
		if n, err := h.postChain(p.qp, wqes); err != nil {
			for _, w := range wqes[n:] { // refused: it and what follows it
				h.Stats.PostedSend++
				h.complete(p.qp, w, WCLocQPOpError)
			}
		}
	case evCQPeriod:
		ev.Data.(*CQ).periodOver()
	case evPostRecv:
		p := ev.Data.(*postRecv)
		_ = h.PostRecv(p.qp, p.wr) // refused: not posted (PostRecvAt)
	case evTimeout:
		h.timerFired(ev.Data.(*QP))
	case evDelAck:
		h.delayedAck(ev.Data.(*QP))
	case evRspTimeout:
		h.rspTimerFired(ev.Data.(*QP))
	case evWake:
		if qp, ok := ev.Data.(*QP); ok {
			qp.wake = sim.Timer{}
		}
		h.kick()
	case evRNR:
		qp := ev.Data.(*QP)
		qp.rnrWait = sim.Timer{} // this event is the timer: no longer waiting
		h.activate(qp)
	case evRx:
		h.process(ev.Data.(*fabric.Packet))
	case evRxDrain:
		h.rxDrained()
	case evStorm:
		h.stormRefresh()
	case evNICWatchdog:
		h.watchdogTrip()
	case evComplete:
		h.deliverCompletion(ev.Data.(*pendingWC))
	case evWrite:
		wv := ev.Data.(*writeVisible)
		if h.OnWrite != nil {
			h.OnWrite(wv.qp, wv.mr, wv.addr, wv.n)
		}
	}
}

// ---- completions

type pendingWC struct {
	qp   *QP
	w    *WQE // a send completion, or nil
	wc   WC
	cqe  bool // write a CQE
	recv bool
}

type writeVisible struct {
	qp   *QP
	mr   *MR
	addr uint64
	n    int64
}

// complete finishes a send WQE with status; its CQE (if signaled or an
// error) becomes visible DMALatency later.
func (h *HCA) complete(qp *QP, w *WQE, status WCStatus) {
	if w.done {
		h.Stats.DoubleCompletions++
		return
	}
	w.done = true
	w.Status = status
	h.Stats.CompletedSend++
	op := [...]WCOpcode{WCOpWrite, WCOpWrite, WCOpSend, WCOpSend, WCOpRead, WCOpCompSwap, WCOpFetchAdd}[w.Op]
	pw := &pendingWC{qp: qp, w: w, wc: WC{WRID: w.ID, Status: status, Opcode: op, QPN: qp.QPN, ByteLen: w.Size},
		cqe: w.signaled || status != WCSuccess}
	h.eng.After(h.Prof.DMALatency, h, evComplete, 0, pw)
}

func (w *WQE) reqSent() bool { return w.requested }

func (h *HCA) completeRecv(qp *QP, r *recvWQE, wc WC) {
	if r.done {
		h.Stats.DoubleCompletions++
		return
	}
	r.done = true
	h.Stats.CompletedRecv++
	wc.WRID, wc.QPN = r.wr.ID, qp.QPN
	h.eng.After(h.Prof.DMALatency, h, evComplete, 0, &pendingWC{qp: qp, wc: wc, cqe: true, recv: true})
}

func (h *HCA) deliverCompletion(pw *pendingWC) {
	now := h.eng.Now()
	pw.wc.At = now
	if pw.w != nil {
		pw.w.Completed = now
		if h.OnComplete != nil {
			h.OnComplete(pw.qp, pw.w)
		}
	}
	if pw.recv && h.OnRecv != nil {
		h.OnRecv(pw.qp, pw.wc)
	}
	if !pw.cqe {
		return
	}
	cq := pw.qp.SendCQ
	if pw.recv {
		cq = pw.qp.RecvCQ
	}
	if cq != nil {
		cq.push(pw.wc)
	}
}

// ---- the transmit arbiter

func (h *HCA) activate(qp *QP) {
	h.unpark(qp)
	if !qp.active && qp.hasWork() {
		qp.active = true
		if h.arb != nil {
			qp.ring = qp.Priority & 15
			h.arb.rings[qp.ring] = append(h.arb.rings[qp.ring], qp)
		} else {
			h.active = append(h.active, qp)
		}
	}
	h.kick()
}

// nextControl takes the oldest control packet whose priority port may
// send now, or nil.
func (h *HCA) nextControl(port *fabric.Port) *fabric.Packet {
	ctrl := &h.ctrl
	if port != h.port {
		ctrl = &h.cold.ctrl2 // the second port's (dualport.go)
	}
	p := ctrl.Peek()
	if p == nil {
		return nil
	}
	if !port.Paused(p.Priority) {
		return ctrl.Pop()
	}
	if port.Credits() {
		// ACKs, NAKs and CNPs fit the blocks of the largest of them, a
		// CNP (42 bytes; 82 with a GRH: two blocks).
		return ctrl.PopUnpaused(port.ShortOf(fabric.IBPacketBlocks(int64(fabric.IBWire(fabric.OpCNP, 0, h.Prof.GRH)))))
	}
	return ctrl.PopUnpaused(port.PausedMask())
}

// deactivate takes the i-th QP out of its transmit ring, whose parking
// is pk (nil: none); the QP is not parked.
func (h *HCA) deactivate(ring *[]*QP, pk *parking, i int) {
	r := *ring
	r[i].active = false
	copy(r[i:], r[i+1:])
	r[len(r)-1] = nil
	*ring = r[:len(r)-1]
	if pk != nil {
		pk.remove(i)
	}
}

// NextPacket is the transmit arbiter: control packets (ACK, NAK, atomic
// responses, CNPs) first, the oldest whose priority is not paused (a CNP
// on its own priority passes ACKs held by a PAUSE of theirs, as a NIC
// queues per traffic class), then one packet from the next QP in round-robin
// order whose priority is not paused and that may send now: its READ
// responses before its requests, and requests only when the WQE's
// doorbell and fetch are done, the QP's rate limiter and window allow,
// and (for READ and atomics) fewer than max_rd_atomic are outstanding.
// A QP held back by time sets a wake timer.
func (h *HCA) NextPacket(port *fabric.Port) *fabric.Packet {
	if p := h.nextControl(port); p != nil {
		h.Stats.TxPackets++
		if p.Kind == fabric.KindAck {
			if qp := h.QP(p.SrcQP); qp != nil && qp.queuedAck == p {
				qp.queuedAck = nil
			}
		}
		p.SentAt = h.eng.Now()
		return p
	}
	now := h.eng.Now()
	if h.arb != nil {
		return h.arb.next(h, port, now)
	}
	return h.fromRing(&h.active, &h.cursor, &h.park, port, now)
}

// fromRing takes one packet from the next QP of ring in round-robin
// order (from *cursor) that may send now, dropping the QPs that have no
// work left; nil if none may. *park is the ring's parking (parking.go):
// the QPs the port refused, which a round passes by unread while the
// port still refuses them all.
func (h *HCA) fromRing(ring *[]*QP, cursor *int, park **parking, port *fabric.Port, now sim.Time) *fabric.Packet {
	pk := h.parkingFor(park, len(*ring))
	if pk != nil && len(pk.wakes) > 0 && pk.wakes[0].at <= now {
		h.releaseHeld(pk, *ring, now)
	}
	all := pk != nil && pk.n > 0 && pk.refusesAll(port)
	skip := all || pk != nil && pk.nHeld > 0
	for n := len(*ring); n > 0; {
		if *cursor >= len(*ring) {
			*cursor = 0
		}
		if skip {
			if k := pk.run(*cursor, min(n, len(*ring)-*cursor), all); k > 0 {
				if parkCheck {
					h.checkParked((*ring)[*cursor:*cursor+k], port)
				}
				*cursor += k // as reading each would: each is refused
				n -= k
				continue
			}
		}
		n--
		qp := (*ring)[*cursor]
		h.ArbiterReads++
		if qp.parked {
			pk.unpark(*cursor, qp)
		}
		if !qp.hasWork() {
			h.deactivate(ring, pk, *cursor)
			continue
		}
		if blocks, no := h.refuses(qp, port); no {
			if pk != nil && qp.tcp == nil {
				pk.park(*cursor, qp, blocks)
			}
			*cursor++
			continue
		}
		*cursor++
		h.heldTo = 0
		if p := h.sendFrom(qp, port, now); p != nil {
			return p
		}
		if pk != nil && h.heldTo > now && qp.tcp == nil && !qp.srPending() {
			pk.hold(*cursor-1, qp) // time holds it: passed by until its wake
		}
	}
	return nil
}

// refuses reports whether port cannot take qp's next packet now: the QP
// sends from the HCA's other port (dualport.go), or its priority is
// paused and, on InfiniBand, its VL's credit does not cover the packet,
// which needs blocks (0 on Ethernet, where a pause refuses any).
func (h *HCA) refuses(qp *QP, port *fabric.Port) (blocks int64, no bool) {
	if qp.port2 != (port != h.port) {
		return 0, true
	}
	if !port.Paused(qp.Priority) {
		return 0, false
	}
	if !port.Credits() {
		return 0, true
	}
	frame := h.nextFrame(qp)
	return fabric.IBPacketBlocks(frame), !port.HasCredit(qp.Priority, frame)
}

// sendFrom takes qp's next packet if it may send one now, port having
// taken it (refuses); nil if not (and a wake timer if time holds it
// back).
func (h *HCA) sendFrom(qp *QP, port *fabric.Port, now sim.Time) *fabric.Packet {
	if t := qp.tcp; t != nil {
		if t.await {
			return nil // MPA's Responder waits for the Initiator's first FPDU
		}
		if r := t.rsp; r != nil && qp.State != QPErr {
			// iWARP: the READ responses' own TCP stream resends what it
			// lost first, and holds new responses to its window (while
			// requests, on their stream, may go).
			if r.snd.lost > 0 {
				if p := h.rspResend(qp); p != nil {
					return p
				}
			}
			if len(qp.rdJobs) > 0 && qp.rdJobs[0].nak == 0 && h.rspHold(qp) {
				if qp.sendIdx < len(qp.sq) || t.snd.lost > 0 {
					return h.sendRequest(qp, now)
				}
				return nil
			}
		}
	}
	if len(qp.rdJobs) > 0 {
		// READ responses are the responder's data: its rate limiter
		// (congestion control's reaction point) paces them as it paces
		// requests.
		if j := qp.rdJobs[0]; j.nak != 0 {
			// The responses owed before a failed request are sent: its
			// NAK goes next (failAfterReads).
			qp.rdJobs = nil
			h.sendAck(qp, h.standIn(qp), j.nak, j.psn)
			return h.NextPacket(port)
		}
		if qp.Rate > 0 && qp.nextTx > now {
			h.wakeAt(qp, qp.nextTx)
			return nil
		}
		if j := qp.rdJobs[0]; j.gen != h.mrGen {
			// A region was deregistered since the READ's was
			// last found: if it was this one, the NAK this queues
			// goes next.
			if h.mrs[j.mr.RKey] != j.mr {
				h.readAccessLost(qp)
				return h.NextPacket(port)
			}
			j.gen = h.mrGen
		}
		return h.nextReadResponse(qp)
	}
	return h.sendRequest(qp, now)
}

// sendRequest takes qp's next request (a resend first) if it may send
// one now; nil if not.
func (h *HCA) sendRequest(qp *QP, now sim.Time) *fabric.Packet {
	if qp.State != QPRTS {
		return nil
	}
	if qp.tcpPending() {
		if p := h.tcpResend(qp); p != nil {
			return p
		}
		if qp.sendIdx >= len(qp.sq) {
			return nil
		}
	}
	if qp.srPending() {
		if p := h.srRetransmit(qp, now); p != nil {
			return p
		}
		if qp.sendIdx >= len(qp.sq) {
			return nil
		}
	}
	if t := h.holdUntil(qp); t > now {
		if t != sim.Never {
			h.wakeAt(qp, t)
		}
		return nil
	}
	return h.nextRequest(qp)
}

// wakeAt has the transmit arbiter look at qp again at t, when its rate
// limiter lets it send.
func (h *HCA) wakeAt(qp *QP, t sim.Time) {
	h.heldTo = t
	if qp.wake.At() != t {
		h.eng.Cancel(qp.wake)
		qp.wake = h.eng.Schedule(t, h, evWake, 0, qp)
	}
}

// holdUntil is when qp's next request may go: now or earlier when it may
// go now, Never while it waits for an ACK, a response or an RNR timer.
func (h *HCA) holdUntil(qp *QP) sim.Time {
	if qp.rnrWait.Pending() {
		return sim.Never
	}
	w := qp.sq[qp.sendIdx]
	if qp.Type == RC {
		if qp.tcp != nil {
			if h.tcpHold(qp) {
				return sim.Never
			}
		} else if qp.Window > 0 && (qp.nextPSN-qp.una)*int64(h.Prof.MTU) >= qp.Window {
			return sim.Never
		}
		if (w.Op.isRead() || w.Op.isAtomic()) && !w.reqSent() && qp.rdOut >= qp.maxRdAtomic {
			return sim.Never
		}
	}
	return max(w.ready, qp.nextTx)
}

// ---- the receive pipeline

// Receive takes a packet from the wire. With a receive drain rate below
// line rate the packet waits in the NIC's receive buffer, which sends PFC
// PAUSE on the packet's priority above RxXoff and RESUME below RxXon;
// then the per-packet pipeline (RxPktLatency) runs before the transport
// logic sees it.
func (h *HCA) Receive(p *fabric.Packet, _ *fabric.Port) {
	if p.Dst != h.ID && !h.isPort2(p.Dst) && !h.member(p.Dst) {
		h.Stats.Misdelivered++
		h.discard(p, "misdelivered")
		h.release(p)
		h.pool.Put(p)
		return
	}
	h.Stats.RxPackets++
	if (h.rxRate > 0 || h.rxHung || h.rxBusy) && p.Link == fabric.InfiniBand {
		// InfiniBand: the receive buffer is the port's per VL, and the
		// credits it holds back stop the sender; no PAUSE.
		h.rxq.Push(p)
		if !h.rxBusy && !h.rxHung {
			h.startDrain()
		}
		return
	}
	if h.rxRate > 0 || h.rxHung || h.rxBusy {
		if h.wdTripped && h.rxq.Bytes+p.Frame() > h.Prof.RxBuffer {
			h.Stats.RxBufferDrops++
			h.discard(p, "nic_buffer")
			h.release(p)
			h.pool.Put(p)
			return
		}
		h.rxq.Push(p)
		if !h.rxPaused && h.rxq.Bytes > h.Prof.RxXoff {
			h.rxPaused = true
			h.sendPause(p.Priority, fabric.MaxQuanta)
		} else if h.rxPaused && h.rxq.Bytes > h.Prof.RxXoff {
			// refresh a pause that is half over
			if h.eng.Now()-h.rxPauseAt > fabric.PauseDuration(fabric.MaxQuanta, h.port.Rate)/2 {
				h.sendPause(p.Priority, fabric.MaxQuanta)
			}
		}
		if !h.rxBusy && !h.rxHung {
			h.startDrain()
		}
		return
	}
	h.afterPipeline(p)
}

func (h *HCA) sendPause(prio uint8, quanta uint16) {
	if quanta > 0 && h.wdTripped {
		return // the watchdog stopped this NIC's PAUSE
	}
	if quanta == 0 {
		h.Stats.ResumeSent++
	} else {
		h.Stats.PauseSent++
		h.rxPauseAt = h.eng.Now()
	}
	h.port.SendPause(prio, quanta)
}

func (h *HCA) startDrain() {
	p := h.rxq.Peek()
	h.rxBusy = true
	rate := h.rxRate
	if rate == 0 {
		rate = h.port.Rate
	}
	h.eng.After(fabric.SerializationTime(int64(p.Wire), rate), h, evRxDrain, 0, nil)
}

func (h *HCA) rxDrained() {
	p := h.rxq.Pop()
	h.rxBusy = false
	if h.rxPaused && h.rxq.Bytes <= h.Prof.RxXon {
		h.rxPaused = false
		h.sendPause(h.Prof.Priority, 0)
	}
	if h.rxq.Len > 0 && !h.rxHung {
		h.startDrain()
	}
	h.afterPipeline(p)
}

func (h *HCA) afterPipeline(p *fabric.Packet) {
	if d := h.rxLatency; d > 0 {
		// Every packet waits the same latency: the engine's lane for it
		// (sim.Lane) keeps them in order without the heap.
		if h.rxLane == nil || h.rxLane.Delay() != d {
			h.rxLane = h.eng.Lane(d, rxKind)
		}
		if h.rxLane != nil {
			h.eng.PostLane(h.rxLane, unsafe.Pointer(h), unsafe.Pointer(p))
		} else {
			h.eng.After(d, h, evRx, 0, p)
		}
		return
	}
	h.process(p)
}

// process is the transport logic for one arrived packet.
func (h *HCA) process(p *fabric.Packet) {
	h.release(p)
	qp := h.QP(p.DestQP)
	if qp == nil && p.DestQP == gsiQPN && p.Kind == fabric.KindData {
		// The host's CM is always there (the kernel's): QP1 is made when
		// the first MAD comes, so that a REQ to a port nobody listens on
		// is refused with a REJ.
		qp = h.CM().qp
	}
	if qp == nil && fabric.IsMulticast(p.Dst) && p.DestQP == fabric.MulticastQPN {
		h.receiveMulticast(p)
		h.pool.Put(p)
		return
	}
	if qp == nil {
		if p.DestQP >= firstQPN && p.DestQP < h.nextQPN {
			h.Stats.ClosedQPDrops++
			h.discard(p, "closed_qp")
		} else {
			h.Stats.BadQPDrops++
			h.discard(p, "bad_qp")
		}
		h.pool.Put(p)
		return
	}
	if p.ECN == fabric.CE && p.Kind == fabric.KindData {
		h.Stats.ECNMarked++
		if !h.Prof.EchoECN && !h.iwarp() {
			h.maybeCNP(qp, p)
		}
	}
	switch p.Kind {
	case fabric.KindData:
		if t := qp.tcp; t != nil && t.await {
			t.await = false // the Initiator's first FPDU: the Responder may send
			h.activate(qp)
		}
		switch op := p.Opcode.Operation(); {
		case op >= fabric.OpReadResponseFirst && op <= fabric.OpReadResponseOnly:
			h.readResponse(qp, p)
		case qp.Type == UD:
			h.receiveUD(qp, p)
		default:
			h.respond(qp, p)
		}
	case fabric.KindAck:
		if p.TSeq() != 0 {
			h.rspAcked(qp, p) // iWARP: an ACK of this QP's READ responses
			break
		}
		h.acknowledged(qp, p)
		if qp.CC != nil {
			qp.CC.OnAck(h.eng.Now(), p)
		}
	case fabric.KindCNP:
		h.Stats.CNPsReceived++
		qp.CNPs++
		if qp.OnCNP != nil {
			qp.OnCNP(qp)
		}
		if qp.CC != nil {
			qp.CC.OnCNP(h.eng.Now())
		}
	}
	if qp.sr != nil && qp.sr.held == p {
		qp.sr.held = nil // kept ahead of a gap (srKeep): its replay frees it
		return
	}
	h.pool.Put(p)
}

// release gives an arrived packet's credit back to the link's sender
// (InfiniBand): the packet has left the receive buffer.
func (h *HCA) release(p *fabric.Packet) {
	if p.Link == fabric.InfiniBand {
		port := h.port
		if h.isPort2(p.Dst) {
			port = h.cold.port2
		}
		port.Release(p.Priority, p.Frame())
	}
}

// wire returns the bytes a packet with opcode op and payload bytes
// occupies on the HCA's link, and the link's layer.
func (h *HCA) wire(op fabric.Opcode, payload int) (int32, fabric.LinkLayer) {
	if h.Prof.LinkLayer == fabric.InfiniBand {
		return int32(fabric.IBWire(op, payload, h.Prof.GRH)), fabric.InfiniBand
	}
	switch h.Prof.Transport {
	case fabric.RoCEv1:
		return int32(fabric.RoCEv1Wire(op, payload)), fabric.Ethernet
	case fabric.IWARP:
		if op.Operation() == fabric.OpAcknowledge {
			return int32(fabric.TCPAckWire(h.Prof.TCP.Timestamps, false)), fabric.Ethernet
		}
		return int32(fabric.IWARPWire(op, payload, h.Prof.TCP.MPA, h.Prof.TCP.Timestamps)), fabric.Ethernet
	}
	return int32(fabric.RoCEv2Wire(op, payload)), fabric.Ethernet
}

// wireTo is wire for a packet to dst: on InfiniBand a multicast packet
// has a GRH whatever Profile.GRH says (its DGID is the group's MGID;
// IBTA vol. 1, 8.3.1).
func (h *HCA) wireTo(op fabric.Opcode, payload int, dst fabric.NodeID) (int32, fabric.LinkLayer) {
	if h.Prof.LinkLayer == fabric.InfiniBand && !h.Prof.GRH && fabric.IsMulticast(dst) {
		return int32(fabric.IBWire(op, payload, true)), fabric.InfiniBand
	}
	return h.wire(op, payload)
}

// nextFrame returns the frame of the next packet qp would send: a READ
// response, or its next request (as nextRequest builds it), for the
// credit it needs on InfiniBand.
func (h *HCA) nextFrame(qp *QP) int64 {
	mtu := int64(h.Prof.MTU)
	var op fabric.Opcode
	var payload int64
	dst := qp.Remote
	if len(qp.rdJobs) > 0 {
		j := qp.rdJobs[0]
		payload = min(mtu, j.left)
		op = fabric.OpReadResponseMiddle
		if i := j.size - j.left; i == 0 || j.psn == j.end-1 {
			op = fabric.OpReadResponseOnly // an AETH: First, Last and Only have one
		}
	} else {
		if qp.sendIdx >= len(qp.sq) {
			return 0
		}
		w := qp.sq[qp.sendIdx]
		op = opcodeFor(w.Op, qp.sendOff, w.reqPkts)
		if !w.Op.isRead() && !w.Op.isAtomic() {
			payload = min(mtu, w.Size-qp.sendOff*mtu)
		}
		if qp.Type == UD && w.wr.AH != nil {
			dst = w.wr.AH.Dest
		}
	}
	wire, link := h.wireTo(qp.Type.transport()|op, int(payload), dst)
	if link == fabric.InfiniBand {
		return int64(wire)
	}
	return int64(wire) - fabric.PreambleIFGBytes
}

// discard tells the run's byte ledger (fabric.Pool.OnDrop) that p's
// payload goes no further: the NIC refused it for reason.
func (h *HCA) discard(p *fabric.Packet, reason string) {
	h.pool.Dropped(p, reason, int64(p.Payload))
}

// EachPacket calls unsent for each packet the HCA has made but not yet
// handed to its port (ACKs, NAKs and CNPs waiting their turn), received
// for each arrival waiting in its receive buffer (those in the receive
// pipeline the engine holds: LaneKinds), and kept for each request
// received ahead of a gap and kept for its replay (selective repeat,
// direct placement).
func (h *HCA) EachPacket(unsent, received, kept func(*fabric.Packet)) {
	h.ctrl.Each(unsent)
	if h.cold != nil {
		h.cold.ctrl2.Each(unsent)
	}
	h.rxq.Each(received)
	qpns := slices.Sorted(maps.Keys(h.qps)) // a destroyed QP kept none (srFree)
	for _, n := range qpns {
		qp := h.qps[n]
		if qp.sr == nil {
			continue
		}
		for _, p := range qp.sr.buf {
			if p != nil {
				kept(p)
			}
		}
	}
}

// UnsentBytes returns the payload of qp's posted SENDs and WRITEs that
// has not yet gone out once (a retransmission is not counted: its bytes
// went out before).
func (h *HCA) UnsentBytes(qp *QP) int64 {
	mtu := int64(h.Prof.MTU)
	var n int64
	for i := qp.sendIdx; i < len(qp.sq); i++ {
		w := qp.sq[i]
		if w.Op.isRead() || w.Op.isAtomic() {
			continue
		}
		n += w.Size
		if i == qp.sendIdx {
			n -= min(w.Size, qp.sendOff*mtu)
		}
	}
	return n
}

// maybeCNP sends a CNP to the sender of a CE-marked packet: at most one
// per QP per CNPInterval, or one per window of CNPInterval when
// Prof.CNPWindowed. qp.lastCNP is the time of the last CNP, or the start
// of the window it was sent in.
func (h *HCA) maybeCNP(qp *QP, req *fabric.Packet) {
	now := h.eng.Now()
	if qp.cnpSent && now-qp.lastCNP < h.Prof.CNPInterval {
		return
	}
	if iv := h.Prof.CNPInterval; qp.cnpSent && h.Prof.CNPWindowed && iv > 0 {
		qp.lastCNP += (now - qp.lastCNP) / iv * iv
	} else {
		qp.lastCNP = now
	}
	qp.cnpSent = true
	c := h.pool.Get()
	c.Kind = fabric.KindCNP
	c.Opcode = fabric.OpCNP
	c.Priority = h.Prof.CNPPriority
	if h.Prof.LinkLayer == fabric.InfiniBand {
		c.Priority, c.SL = qp.Priority, req.SL // the BECN goes back on the data's SL and VL: there may be no other
	}
	c.Src, c.Dst = h.local(req), req.Src
	c.Flow = fabric.FlowKey{SrcIP: req.Flow.DstIP, DstIP: req.Flow.SrcIP, SrcPort: req.Flow.SrcPort, DstPort: fabric.RoCEv2Port}
	c.DestQP, c.SrcQP = req.SrcQP, qp.QPN
	c.Wire, c.Link = h.wire(fabric.OpCNP, 0)
	c.InPort = -1
	h.Stats.CNPsSent++
	h.pushCtrl(c)
}

// LaneKinds are the HCA's lane kinds, whose events' data are packets
// that have arrived and wait in its receive pipeline (fabric.LaneKinds
// says why this is asked).
func LaneKinds() []*sim.LaneKind { return []*sim.LaneKind{rxKind} }
