package hca

import (
	"maps"
	"slices"

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

	mrs map[uint32]*MR // by key (lkey == rkey)

	// cold holds what a packet never touches: the default PD and CQ,
	// and QP1's owner (gsi.go).
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
	// peerMTU, if set, gives the MTU of a destination's port
	// (SetPeerMTU).
	peerMTU func(fabric.NodeID) int
	// vaUsed is the address space ReserveMR has handed out, from
	// firstVA.
	vaUsed uint64
	pds    []*PD // AllocPD's, in order: a PD's handle is its place + 1
	defPD  *PD
	defCQ  *CQ
	gsi    GSIAgent // QP1's owner (gsi.go), nil without one
	// mcast is, per multicast group, the QPs attached to it
	// (AttachMcast; looked up, never iterated).
	mcast map[fabric.NodeID][]*QP
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
	// iw is the iWARP connections in the making and the listeners
	// (iwconn.go), nil until the first.
	iw *iwTable
	// trimmed counts the trimmed packets that reached the HCA
	// (trimmed.go).
	trimmed int64
	// sleek counts UET's SLEEK loss recoveries entered (uet.go), probes
	// the probes its QPs sent.
	sleek, probes int64
	// creditCPs counts the RCCC control packets sent (rccc.go).
	creditCPs int64
	// newCreditSink makes the receiver's side of UET's RCCC for a
	// responder QP (SetCreditSinks).
	newCreditSink func(qp *QP) CreditSink
	// waits counts the RCCC QPs waiting to send (creditwait.go).
	waits *creditWaits
}

// TrimmedReceived returns the trimmed packets that reached the HCA
// (trimmed.go).
func (h *HCA) TrimmedReceived() int64 {
	if h.cold == nil {
		return 0
	}
	return h.cold.trimmed
}

func (h *HCA) coldPart() *hcaCold {
	if h.cold == nil {
		h.cold = &hcaCold{}
	}
	return h.cold
}

// firstVA is the virtual address of the first memory region.
const firstVA = 0x10000

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
	evIWTimer
	evIWOpen
	evRTS
	evSleekProbe
)

var _ fabric.Owner = (*HCA)(nil)

// New attaches an HCA to its port.
func New(eng *sim.Engine, pool *fabric.Pool, id fabric.NodeID, name string, ip uint32, prof Profile, port *fabric.Port) *HCA {
	h := &HCA{ID: id, Name: name, IP: ip, Prof: prof, eng: eng, pool: pool, port: port,
		rxRate: prof.RxRate, rxLatency: prof.RxPktLatency,
		qps: map[uint32]*QP{}, nextQPN: firstQPN, mrs: map[uint32]*MR{}, nextKey: 0x100}
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

// HandleEvent runs the HCA's own events.
func (h *HCA) HandleEvent(ev *sim.Event) {
	switch ev.Kind {
	case evPost:
		p := ev.Data.(*post)
		wqes := p.wqes
		if p.one != nil {
			wqes = []*WQE{p.one}
		}
		if n, err := h.postChain(h.touched(p.qp), wqes); err != nil {
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
		h.timerFired(h.touched(ev.Data.(*QP)))
	case evDelAck:
		h.delayedAck(h.touched(ev.Data.(*QP)))
	case evRspTimeout:
		h.rspTimerFired(h.touched(ev.Data.(*QP)))
	case evIWTimer:
		h.iwTimeout(ev.Data.(*IWConn))
	case evIWOpen:
		h.iwOpen(ev.Data.(*IWConn))
	case evRTS:
		h.askCredit(h.touched(ev.Data.(*QP)))
	case evSleekProbe:
		h.sleekProbe(h.touched(ev.Data.(*QP)))
	case evWake:
		if qp, ok := ev.Data.(*QP); ok {
			qp.wake = sim.Timer{}
		}
		h.kick()
	case evRNR:
		qp := h.touched(ev.Data.(*QP))
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
	mtu := int64(qp.pmtu)
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
