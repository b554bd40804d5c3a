package hca

import (
	"fmt"
	"math/rand/v2"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// CM is a host's connection manager: the kernel's ib_cm and rdma_cm, and
// librdmacm above them, as one. It connects RC and UC QPs the way
// rdma_connect and rdma_accept do (UD QPs by SIDR, sidr.go; on
// InfiniBand after a path query to the SA, sa.go): the active side sends
// a REQ, the passive side's listener accepts with a REP, the active side
// answers with an RTU; DREQ and DREP tear a connection down; REJ
// refuses. The
// messages are real CM MADs (cmmad.go), sent as UD datagrams from QP1 to
// QP1 with the GSI Q_Key, so they take the fabric's queues, pauses and
// losses like any packet, and a lost one is sent again after the CM's
// timeout, up to its retries. The QPs move RESET→INIT→RTR→RTS as the
// exchange proceeds (the passive side reaches RTS before its REP, the
// active side after it, before its RTU, as librdmacm's rdma_accept and
// its handling of the REP do).
//
// Time goes where cmtime measures it (CMProfile): each QP command
// (create, and each modify) takes the HCA's command interface for
// QPCommand, one at a time; each received MAD takes the host's CM thread
// for MADProcessing, one at a time. Address and route resolution are
// local on RoCE (the neighbour's MAC is cached: ARP is not sent).
//
// A passive side answers a DREQ at once with its DREP (the kernel's CM
// sends it when the application calls rdma_disconnect on its
// DISCONNECTED event, as rping's server does; lfsim's programs all do).
//
// A CM exists once a host connects or listens (HCA.CM), or a MAD comes
// for its QP1; until then QP1 does not.
type CM struct {
	h    *HCA
	prof CMProfile
	qp   *QP
	cq   *CQ
	send *MR // sendSlots MADs
	recv *MR // prof.RecvQueue receive buffers, each a GRH and a MAD
	free []int
	wait [][madBytes]byte // MADs waiting for a send slot, with their destination in dest
	dest []cmDest
	rng  *rand.Rand

	cpuFree, cmdFree sim.Time
	nextID           uint32
	hiTID            uint32
	nextTID          uint32
	queries          map[uint64]*saQuery // path queries in flight, by TID (sa.go)
	listeners        map[uint16]*CMListener
	conns            map[uint32]*CMConn // by local communication ID (lookups only)
	byRemote         map[cmRemote]*CMConn

	// Sent and Received count MADs by message; Retransmitted the ones
	// sent again after a timeout; Dropped the ones received that match
	// no connection (stale, or duplicates after the end).
	Sent, Received         map[CMAttr]int64
	Retransmitted, Dropped int64
	// Active sums up the connections this host started (rdma_connect).
	Active CMActiveStats
}

// CMActiveStats are a host's connections as the active side: how many
// it started, made and lost (rejected, unreachable), the set-up times
// of those made (from rdma_connect to ESTABLISHED), the first start and
// the last ESTABLISHED.
type CMActiveStats struct {
	Requested, Established, Failed int
	SetupSum, SetupMax             sim.Time
	FirstStart, LastEstablished    sim.Time
}

type cmDest struct {
	node fabric.NodeID
	ip   uint32
}

type cmRemote struct {
	node fabric.NodeID
	id   uint32
}

// sendSlots is how many MADs a CM has on the wire at once; more wait.
const sendSlots = 64

// CMProfile is the connection manager's timing and its protocol
// constants.
type CMProfile struct {
	// QPCommand is what one QP command (create, or one modify) takes of
	// the HCA's command interface, which runs them one at a time.
	// Default 222 µs: with it, 1,000 connections between two hosts take
	// what librdmacm's cmtime measured for them in rdma-core pull request
	// 1448 (2024; the hardware is not stated): the last is made after
	// 888.6 ms (each side runs four commands per connection, 4,000 in
	// all), the first after 449.1 ms (the active side's 2,000 creates
	// and moves to INIT run before the first REP's two commands) — the
	// model gives 888.9 and 444.4 ms (TestCMThousandConnections). Only
	// that run's "full connect" row (first, last, total) was available:
	// one cost for every command (create, INIT, RTR, RTS) is the simplest
	// model that matches it, not a measured split between them.
	QPCommand sim.Time
	// MADProcessing is the host's CM work for one received MAD, up to
	// the application's callback, one MAD at a time. Default 10 µs, an
	// estimate (no published figure found): the kernel's MAD receive, the
	// CM's state machine and an event to user space through
	// /dev/infiniband/rdma_cm, each a few microseconds. Against the QP
	// commands it barely shows.
	MADProcessing sim.Time
	// ResponseTimeout is the CM response timeout a REQ states, as an
	// exponent: 4.096 µs × 2^n (librdmacm's CMA_CM_RESPONSE_TIMEOUT, 20:
	// 4.3 s). PacketLifetime is the path's packet lifetime, likewise
	// (CMA_IBOE_PACKET_LIFETIME, 16, on RoCE). A REQ or REP unanswered
	// for 2 × the lifetime + the response timeout (the kernel's
	// cm_convert_to_ms rounds each to a power of two milliseconds) is
	// sent again, at most MaxRetries times (CMA_MAX_CM_RETRIES, 15).
	ResponseTimeout, PacketLifetime uint8
	MaxRetries                      int
	// RecvQueue is how many receive buffers QP1 keeps posted (the
	// kernel's ib_mad mad_recvq_size, 512); a MAD that finds none is
	// dropped, and its sender's timeout resends it.
	RecvQueue int
}

// DefaultCMProfile is librdmacm's and the upstream kernel's constants,
// with QPCommand and MADProcessing as CMProfile's fields say.
func DefaultCMProfile() CMProfile {
	return CMProfile{QPCommand: 222 * sim.Microsecond, MADProcessing: 10 * sim.Microsecond,
		ResponseTimeout: 20, PacketLifetime: 16, MaxRetries: 15, RecvQueue: 512}
}

// cmMillis is the kernel's cm_convert_to_ms: an exponent n (4.096 µs ×
// 2^n) as 2^(n-8) ms, at least 1.
func cmMillis(n uint8) sim.Time { return sim.Millisecond << max(int(n)-8, 0) }

// reqTimeout is how long the active side waits for an answer to its REQ
// (and later its DREQ) before sending it again: ib_send_cm_req's 2 × the
// packet lifetime + the remote response timeout (4,608 ms with
// librdmacm's values). The passive side waits the REQ's local response
// timeout for the RTU (and a DREP): 4,096 ms.
func (p CMProfile) reqTimeout() sim.Time {
	return 2*cmMillis(p.PacketLifetime) + cmMillis(p.ResponseTimeout)
}

// CMEvent is an rdma_cm event (enum rdma_cm_event_type, numbered as
// librdmacm numbers it).
type CMEvent uint8

// The events lfsim raises.
const (
	CMAddrResolved    CMEvent = 0
	CMRouteResolved   CMEvent = 2
	CMRouteError      CMEvent = 3
	CMConnectRequest  CMEvent = 4
	CMConnectResponse CMEvent = 5
	CMConnectError    CMEvent = 6
	CMUnreachable     CMEvent = 7
	CMRejected        CMEvent = 8
	CMEstablished     CMEvent = 9
	CMDisconnected    CMEvent = 10
	CMTimewaitExit    CMEvent = 15
)

// String is the event's name as rdma_event_str spells it.
func (e CMEvent) String() string {
	names := map[CMEvent]string{CMAddrResolved: "ADDR_RESOLVED", CMRouteResolved: "ROUTE_RESOLVED", CMRouteError: "ROUTE_ERROR",
		CMConnectRequest: "CONNECT_REQUEST", CMConnectResponse: "CONNECT_RESPONSE", CMConnectError: "CONNECT_ERROR",
		CMUnreachable: "UNREACHABLE", CMRejected: "REJECTED", CMEstablished: "ESTABLISHED",
		CMDisconnected: "DISCONNECTED", CMTimewaitExit: "TIMEWAIT_EXIT"}
	if n, ok := names[e]; ok {
		return "RDMA_CM_EVENT_" + n
	}
	return "UNKNOWN EVENT"
}

// CMListener is a passive side listening on a port (rdma_listen).
// OnRequest is asked for each connection request: it returns the QP to
// accept it with (created, in RESET), or nil to reject it
// (rdma_reject: REJ with RejectConsumerRejection). It gets the request's
// private data after rdma_cm's header.
type CMListener struct {
	Port      uint16
	OnRequest func(c *CMConn, private []byte) *QP
	// OnEvent, when set, is told of every event of the connections it
	// accepted (ESTABLISHED, DISCONNECTED, ...).
	OnEvent func(c *CMConn, e CMEvent)
}

// cmState is where a connection is in the exchange.
type cmState uint8

const (
	cmIdle cmState = iota
	cmReqSent
	cmRepSent
	cmEstablished
	cmDreqSent
	cmClosed
)

// CMConn is one connection (an rdma_cm_id with its ib_cm_id).
type CMConn struct {
	QP        *QP
	Active    bool // the side that connected (rdma_connect)
	LocalID   uint32
	RemoteID  uint32
	Peer      fabric.NodeID
	PeerIP    uint32
	Port      uint16
	RemoteQPN uint32
	Private   []byte // the private data sent in the REQ (active) or received (passive)
	// RemoteQKey is a UD peer's Q_Key, from its SIDR_REP.
	RemoteQKey    uint32
	RespRes, Init uint8
	// Reason is the REJ's reason when the connection was rejected.
	Reason RejectReason
	// Times of the steps, as cmtime reports them: Start (rdma_connect
	// called, or the REQ arrived), the QP created and in INIT, the REQ
	// (or REP) sent, and established.
	Start, Created, Inited, Sent, Established, Disconnected sim.Time
	// MADs is how many MADs this side sent for the connection.
	MADs int

	OnEvent func(c *CMConn, e CMEvent)

	cm       *CM
	state    cmState
	tid      uint64
	psn      uint32 // this side's starting PSN
	retries  int
	wait     sim.Time // how long it waits for an answer before sending again
	timer    sim.Timer
	last     [madBytes]byte // the last MAD sent, for a resend
	listener *CMListener
}

// ConnectParams are rdma_connect's: where, the port, and the
// connection's parameters.
type ConnectParams struct {
	Dest    fabric.NodeID
	DestIP  uint32
	Port    uint16
	Private []byte // at most 56 bytes (92 less rdma_cm's header)
	// ResponderResources and InitiatorDepth: the READs and atomics each
	// side takes in flight (rdma_conn_param); 0: the profile's.
	ResponderResources, InitiatorDepth uint8
	// RetryCount and RNRRetry: the QP's (rdma_conn_param; 7 RNR retries
	// is infinite).
	RetryCount, RNRRetry uint8
	OnEvent              func(c *CMConn, e CMEvent)
	// At is when to call rdma_connect: now when earlier.
	At sim.Time
}

// CM returns the host's connection manager, making it (and QP1) the
// first time.
func (h *HCA) CM() *CM {
	if c := h.coldPart(); c.cm != nil {
		return c.cm
	}
	p := DefaultCMProfile()
	if h.Prof.CM != nil {
		p = *h.Prof.CM
	}
	cm := &CM{h: h, prof: p, listeners: map[uint16]*CMListener{}, conns: map[uint32]*CMConn{},
		byRemote: map[cmRemote]*CMConn{}, Sent: map[CMAttr]int64{}, Received: map[CMAttr]int64{},
		rng: sim.Stream(h.eng.Seed(), "cm/"+h.Name), nextID: 1}
	cm.hiTID = cm.rng.Uint32()
	pd := h.AllocPD()
	cm.cq = h.CreateCQ(p.RecvQueue + sendSlots)
	cm.cq.OnEvent = cm.completions
	cm.qp = h.newQP(gsiQPN, QPCaps{Type: UD, PD: pd, SendCQ: cm.cq, RecvCQ: cm.cq, SigAll: true,
		MaxSend: sendSlots, MaxRecv: p.RecvQueue})
	h.must(h.ModifyQP(cm.qp, QPAttr{State: QPInit, QKey: gsiQKey}))
	h.must(h.ModifyQP(cm.qp, QPAttr{State: QPRTR}))
	h.must(h.ModifyQP(cm.qp, QPAttr{State: QPRTS}))
	cm.send = h.RegMR(pd, sendSlots*madBytes, make([]byte, sendSlots*madBytes), AccessLocalWrite)
	cm.recv = h.RegMR(pd, int64(p.RecvQueue)*madRecvBytes, make([]byte, int64(p.RecvQueue)*madRecvBytes), AccessLocalWrite)
	for i := sendSlots - 1; i >= 0; i-- {
		cm.free = append(cm.free, i)
	}
	for i := 0; i < p.RecvQueue; i++ {
		cm.postRecv(i)
	}
	h.cold.cm = cm
	return cm
}

// ExistingCM is the host's connection manager, or nil when nothing has
// asked for it.
func (h *HCA) ExistingCM() *CM {
	if h.cold == nil {
		return nil
	}
	return h.cold.cm
}

func (cm *CM) postRecv(i int) {
	cm.h.must(cm.h.PostRecv(cm.qp, RecvWR{ID: uint64(i), SGL: []SGE{{Addr: cm.recv.Addr + uint64(i*madRecvBytes), Len: madRecvBytes, LKey: cm.recv.LKey}}}))
}

// Listen starts a listener on its port (rdma_bind_addr, rdma_listen).
func (cm *CM) Listen(l *CMListener) error {
	if cm.listeners[l.Port] != nil {
		return fmt.Errorf("%s: port %d already has a listener", cm.h.Name, l.Port)
	}
	cm.listeners[l.Port] = l
	return nil
}

// Connect starts connecting qp, created and in RESET, to a listener at
// p.Dest (rdma_resolve_addr, rdma_resolve_route, rdma_create_qp,
// rdma_connect), now. Its QP creation and move to INIT take the command
// interface, then the REQ goes; the connection is ESTABLISHED when the
// REP has come and the QP is in RTS (the RTU is on its way). Events go
// to p.OnEvent. With p.At later than now, all this starts then.
func (cm *CM) Connect(qp *QP, p ConnectParams) (*CMConn, error) {
	if qp.State != QPReset && qp.State != QPInit && (qp.Type != UD || qp.State != QPRTS) {
		return nil, fmt.Errorf("rdma_connect needs a new QP (RESET or INIT), not one in %s", qp.State)
	}
	if len(p.Private) > cmPrivateREQ-cmaHeaderBytes {
		return nil, fmt.Errorf("rdma_connect's private data is at most %d bytes, not %d", cmPrivateREQ-cmaHeaderBytes, len(p.Private))
	}
	c := cm.newConn(qp)
	c.Active, c.Peer, c.PeerIP, c.Port, c.OnEvent = true, p.Dest, p.DestIP, p.Port, p.OnEvent
	c.Private = append([]byte(nil), p.Private...)
	c.RespRes, c.Init = p.ResponderResources, p.InitiatorDepth
	if c.RespRes == 0 {
		c.RespRes = uint8(min(cm.h.Prof.MaxDestRdAtomic, 255))
	}
	if c.Init == 0 {
		c.Init = uint8(min(cm.h.Prof.MaxRdAtomic, 255))
	}
	var run func()
	if qp.Type == UD {
		c.wait = cmMillis(cm.prof.ResponseTimeout)
		src := cm.ephemeralPort()
		run = func() { cm.sidr(c, src) }
	} else {
		retry, rnr := p.RetryCount, p.RNRRetry
		if retry == 0 && rnr == 0 {
			retry, rnr = uint8(min(qp.retryCnt, 7)), uint8(min(qp.rnrRetry, 7))
		}
		c.tid = uint64(cm.hiTID)<<32 | uint64(c.LocalID)
		c.wait = cm.prof.reqTimeout()
		run = func() { cm.connect(c, retry, rnr) }
	}
	if p.At > cm.h.eng.Now() {
		c.Start = p.At
		cm.h.eng.Schedule(p.At, cm, cmRun, 0, run)
		return c, nil
	}
	run()
	return c, nil
}

// ephemeralPort is the active side's port rdma_cm's header names: an
// ephemeral one (Linux's ip_local_port_range, 32768-60999).
func (cm *CM) ephemeralPort() uint16 { return uint16(32768 + cm.rng.IntN(60999-32768+1)) }

// connect is rdma_connect's work from address resolution to the REQ.
func (cm *CM) connect(c *CMConn, retry, rnr uint8) {
	src := cm.ephemeralPort()
	c.event(CMAddrResolved)
	cm.resolveRoute(c, func() { cm.createAndRequest(c, retry, rnr, src) })
}

// createAndRequest is rdma_create_qp's commands and rdma_connect's REQ.
func (cm *CM) createAndRequest(c *CMConn, retry, rnr uint8, src uint16) {
	qp := c.QP
	cm.command(func() { c.Created = cm.h.eng.Now() })
	cm.command(func() {
		if c.gone() {
			return
		}
		cm.toInit(qp, c.RespRes)
		c.Inited = cm.h.eng.Now()
		c.state = cmReqSent
		c.Sent = c.Inited
		cm.sendTo(c, &cmMsg{Attr: AttrREQ, TID: c.tid, LocalID: c.LocalID, ServiceID: rdmaPSTCPService | uint64(c.Port),
			QPN: qp.QPN, StartPSN: c.psn, RespRes: c.RespRes, InitDepth: c.Init, QPType: qp.Type,
			RetryCount: retry, RNRRetry: rnr, LocalTimeout: cm.prof.ResponseTimeout, RemoteTimeout: cm.prof.ResponseTimeout,
			MaxRetries: uint8(cm.prof.MaxRetries), AckTimeout: cm.prof.PacketLifetime + 1, MTU: cm.h.Prof.MTU, SrcIP: cm.h.IP, DstIP: c.PeerIP, Port: src,
			Private: c.Private, IB: cm.h.cold.sa != nil, SL: qp.SL & 15, SLID: cm.lid(cm.h.ID), DLID: cm.lid(c.Peer), SrcNode: cm.h.ID, DstNode: c.Peer})
		c.arm()
	})
}

// lid is node n's LID on InfiniBand (from the SA's table), 0 on RoCE.
func (cm *CM) lid(n fabric.NodeID) uint16 {
	if sa := cm.h.cold.sa; sa != nil {
		return sa.LID(n)
	}
	return 0
}

// toInit moves a new QP to INIT with the access ib_cm gives it (a QP
// already in INIT, as CreateQP makes them, gets the access).
func (cm *CM) toInit(qp *QP, respRes uint8) {
	if qp.State == QPInit {
		qp.Access = cmAccess(respRes)
		return
	}
	cm.h.must(cm.h.ModifyQP(qp, QPAttr{State: QPInit, Access: cmAccess(respRes)}))
}

// cmAccess is the remote access ib_cm gives a connected QP: WRITE, and
// READ and atomics when it takes responder resources.
func cmAccess(respRes uint8) Access {
	a := AccessLocalWrite | AccessRemoteWrite
	if respRes > 0 {
		a |= AccessRemoteRead | AccessRemoteAtomic
	}
	return a
}

// Disconnect starts tearing c down (rdma_disconnect): its QP goes to ERR
// and a DREQ goes to the peer, which answers with a DREP; both sides see
// DISCONNECTED.
func (c *CMConn) Disconnect() {
	if c.QP.Type == UD {
		return // nothing to tear down on the wire for UD (SIDR)
	}
	switch c.state {
	case cmEstablished:
	case cmReqSent, cmIdle, cmRepSent:
		// Not yet established: the connection is abandoned, and the peer
		// told with a REJ (the kernel's cm_destroy_id), so that it stops
		// waiting; its QP goes to ERR.
		if !c.QP.destroyed && c.QP.State != QPReset {
			c.cm.h.must(c.cm.h.ModifyQP(c.QP, QPAttr{State: QPErr}))
		}
		var b [madBytes]byte
		(&cmMsg{Attr: AttrREJ, TID: c.tid, LocalID: c.LocalID, RemoteID: c.RemoteID, Reason: RejectConsumerRejection, Rejected: 2}).encode(b[:])
		c.cm.enqueue(b, cmDest{c.Peer, c.PeerIP})
		c.close()
		return
	default:
		return
	}
	cm := c.cm
	if !c.QP.destroyed {
		cm.h.must(cm.h.ModifyQP(c.QP, QPAttr{State: QPErr}))
	}
	c.state = cmDreqSent
	c.tid = uint64(cm.hiTID)<<32 | uint64(c.LocalID)
	c.retries = 0
	cm.sendTo(c, &cmMsg{Attr: AttrDREQ, TID: c.tid, LocalID: c.LocalID, RemoteID: c.RemoteID, QPN: c.RemoteQPN})
	c.arm()
}

func (cm *CM) newConn(qp *QP) *CMConn {
	c := &CMConn{QP: qp, cm: cm, LocalID: cm.nextID, Start: cm.h.eng.Now(), psn: cm.rng.Uint32() & 0xffffff}
	cm.nextID++
	cm.conns[c.LocalID] = c
	return c
}

func (c *CMConn) event(e CMEvent) {
	if c.Active {
		a := &c.cm.Active
		switch e {
		case CMAddrResolved:
			if a.Requested == 0 || c.Start < a.FirstStart {
				a.FirstStart = c.Start
			}
			a.Requested++
		case CMEstablished:
			a.Established++
			a.SetupSum += c.Established - c.Start
			a.SetupMax = max(a.SetupMax, c.Established-c.Start)
			a.LastEstablished = max(a.LastEstablished, c.Established)
		case CMRejected, CMUnreachable, CMConnectError, CMRouteError:
			a.Failed++
		}
	}
	if c.OnEvent != nil {
		c.OnEvent(c, e)
	}
}

// command runs fn when the command interface has done one more command.
func (cm *CM) command(fn func()) {
	start := max(cm.h.eng.Now(), cm.cmdFree)
	cm.cmdFree = start + cm.prof.QPCommand
	cm.h.eng.Schedule(cm.cmdFree, cm, cmRun, 0, fn)
}

// process runs fn when the CM thread has done one more MAD's work
// (MADProcessing, one at a time).
func (cm *CM) process(fn func()) {
	start := max(cm.h.eng.Now(), cm.cpuFree)
	cm.cpuFree = start + cm.prof.MADProcessing
	cm.h.eng.Schedule(cm.cpuFree, cm, cmRun, 0, fn)
}

// The CM's engine events.
const (
	cmRun = iota
	cmTimer
)

// HandleEvent runs a deferred step, or a connection's timeout.
func (cm *CM) HandleEvent(ev *sim.Event) {
	switch ev.Kind {
	case cmRun:
		ev.Data.(func())()
	case cmTimer:
		ev.Data.(*CMConn).timedOut()
	}
}

// arm starts c's wait for an answer to the MAD it just sent.
func (c *CMConn) arm() {
	c.cm.h.eng.Cancel(c.timer)
	c.timer = c.cm.h.eng.After(c.wait, c.cm, cmTimer, 0, c)
}

func (c *CMConn) disarm() {
	c.cm.h.eng.Cancel(c.timer)
	c.timer = sim.Timer{}
}

// timedOut sends the last MAD again, or gives up after MaxRetries.
func (c *CMConn) timedOut() {
	c.timer = sim.Timer{}
	cm := c.cm
	if c.retries < cm.prof.MaxRetries {
		c.retries++
		cm.Retransmitted++
		cm.enqueue(c.last, cmDest{c.Peer, c.PeerIP})
		c.MADs++
		c.arm()
		return
	}
	switch c.state {
	case cmReqSent:
		c.close()
		c.event(CMUnreachable)
	case cmRepSent:
		c.close()
		c.event(CMConnectError)
	case cmDreqSent:
		c.close()
		c.Disconnected = cm.h.eng.Now()
		c.event(CMDisconnected)
	}
}

// gone reports whether c was closed or its QP destroyed while a command
// for it waited.
func (c *CMConn) gone() bool { return c.state == cmClosed || c.QP == nil || c.QP.destroyed }

func (c *CMConn) close() {
	c.disarm()
	c.state = cmClosed
	delete(c.cm.conns, c.LocalID)
	if !c.Active {
		delete(c.cm.byRemote, cmRemote{c.Peer, c.RemoteID})
	}
}

// sendTo sends m to c's peer.
func (cm *CM) sendTo(c *CMConn, m *cmMsg) {
	m.encode(c.last[:])
	c.MADs++
	cm.enqueue(c.last, cmDest{c.Peer, c.PeerIP})
}

// enqueue posts a MAD from QP1 to the destination's QP1, or keeps it
// until a send slot is free.
func (cm *CM) enqueue(b [madBytes]byte, d cmDest) {
	if len(cm.free) == 0 {
		cm.wait = append(cm.wait, b)
		cm.dest = append(cm.dest, d)
		return
	}
	i := cm.free[len(cm.free)-1]
	cm.free = cm.free[:len(cm.free)-1]
	off := uint64(i * madBytes)
	copy(cm.send.Buf[off:], b[:])
	attr := CMAttr(uint16(b[16])<<8 | uint16(b[17]))
	cm.Sent[attr]++
	_, err := cm.h.PostSend(cm.qp, SendWR{ID: uint64(i), Op: WRSend, SGL: []SGE{{Addr: cm.send.Addr + off, Len: madBytes, LKey: cm.send.LKey}},
		Signaled: true, AH: &AH{Dest: d.node, DestIP: d.ip}, RemoteQPN: gsiQPN, RemoteQKey: gsiQKey})
	cm.h.must(err)
}

// completions handles QP1's completions: a sent MAD frees its slot; a
// received one is decoded, its buffer posted again, and it goes to the
// CM thread.
func (cm *CM) completions(cq *CQ) {
	for _, wc := range cq.Poll(cq.Len()) {
		if wc.Opcode != WCOpRecv {
			cm.free = append(cm.free, int(wc.WRID))
			if len(cm.wait) > 0 {
				b, d := cm.wait[0], cm.dest[0]
				cm.wait, cm.dest = cm.wait[1:], cm.dest[1:]
				cm.enqueue(b, d)
			}
			continue
		}
		i := int(wc.WRID)
		buf := cm.recv.Buf[i*madRecvBytes+GRHBytes : (i+1)*madRecvBytes]
		if wc.Status == WCSuccess && buf[1] == madClassSA {
			b := append([]byte(nil), buf...)
			cm.postRecv(i)
			cm.saReceived(b, cmDest{wc.Src, 0})
			continue
		}
		m, ok := decodeCM(buf)
		cm.postRecv(i)
		if wc.Status != WCSuccess || !ok {
			cm.Dropped++
			continue
		}
		cm.Received[m.Attr]++
		from := cmDest{wc.Src, 0}
		cm.process(func() { cm.handle(&m, from) })
	}
}

// handle is the CM thread's work for one MAD.
func (cm *CM) handle(m *cmMsg, from cmDest) {
	switch m.Attr {
	case AttrREQ:
		cm.request(m, from)
		return
	case AttrSIDRREQ:
		cm.sidrRequest(m, from)
		return
	case AttrSIDRREP:
		cm.sidrReply(m)
		return
	}
	c := cm.conns[m.RemoteID]
	if c == nil || (c.state != cmIdle && c.RemoteID != 0 && c.RemoteID != m.LocalID && m.Attr != AttrREP) {
		if m.Attr == AttrDREQ {
			// A DREQ for a connection already gone: answer, so that the
			// peer stops resending (cm_dreq_handler's DREP on a stale ID).
			var b [madBytes]byte
			(&cmMsg{Attr: AttrDREP, TID: m.TID, LocalID: m.RemoteID, RemoteID: m.LocalID}).encode(b[:])
			cm.enqueue(b, from)
			return
		}
		cm.Dropped++
		return
	}
	switch m.Attr {
	case AttrREP:
		cm.reply(c, m)
	case AttrRTU:
		if c.state == cmRepSent {
			c.disarm()
			c.state = cmEstablished
			c.Established = cm.h.eng.Now()
			c.event(CMEstablished)
		}
	case AttrREJ:
		if c.state == cmReqSent || c.state == cmRepSent {
			c.Reason = m.Reason
			c.close()
			c.event(CMRejected)
		}
	case AttrDREQ:
		// Also in REP-sent: the RTU was lost, yet the peer used the
		// connection and now ends it (the kernel's cm_dreq_handler).
		if c.state == cmEstablished || c.state == cmDreqSent || c.state == cmRepSent {
			if !c.QP.destroyed {
				cm.h.must(cm.h.ModifyQP(c.QP, QPAttr{State: QPErr}))
			}
			cm.sendTo(c, &cmMsg{Attr: AttrDREP, TID: m.TID, LocalID: c.LocalID, RemoteID: c.RemoteID})
			c.close()
			c.Disconnected = cm.h.eng.Now()
			c.event(CMDisconnected)
		}
	case AttrDREP:
		if c.state == cmDreqSent {
			c.close()
			c.Disconnected = cm.h.eng.Now()
			c.event(CMDisconnected)
		}
	}
}

// request is the passive side's handling of a REQ.
func (cm *CM) request(m *cmMsg, from cmDest) {
	from.ip = m.SrcIP
	if c := cm.byRemote[cmRemote{from.node, m.LocalID}]; c != nil {
		// A REQ sent again: the REP, if sent, was lost (cm_dup_req_handler
		// resends it); otherwise it is still being made.
		if c.state == cmRepSent || c.state == cmEstablished {
			cm.Retransmitted++
			c.MADs++
			cm.enqueue(c.last, from)
		}
		return
	}
	l := cm.listeners[uint16(m.ServiceID)]
	if l == nil || m.ServiceID&^0xffff != rdmaPSTCPService {
		cm.reject(m, from, RejectInvalidServiceID)
		return
	}
	c := &CMConn{cm: cm, LocalID: cm.nextID, Start: cm.h.eng.Now(), psn: cm.rng.Uint32() & 0xffffff,
		RemoteID: m.LocalID, Peer: from.node, PeerIP: m.SrcIP, Port: l.Port, RemoteQPN: m.QPN,
		Private: m.Private, tid: m.TID, listener: l, OnEvent: l.OnEvent, state: cmIdle, wait: cmMillis(m.LocalTimeout)}
	cm.nextID++
	// rdma_accept's responder resources and initiator depth: the
	// request's, within this side's limits.
	c.RespRes = min(m.InitDepth, uint8(min(cm.h.Prof.MaxDestRdAtomic, 255)))
	c.Init = min(m.RespRes, uint8(min(cm.h.Prof.MaxRdAtomic, 255)))
	c.event(CMConnectRequest)
	qp := l.OnRequest(c, m.Private)
	if qp == nil {
		cm.reject(m, from, RejectConsumerRejection)
		return
	}
	if qp.destroyed || (qp.State != QPReset && qp.State != QPInit) {
		// A REQ for a connection this side gave up on (its REP went
		// unanswered), whose QP is in use: the kernel's stale-connection
		// REJ.
		cm.reject(m, from, RejectStaleConn)
		return
	}
	c.QP = qp
	cm.conns[c.LocalID] = c
	cm.byRemote[cmRemote{c.Peer, c.RemoteID}] = c
	cm.command(func() { c.Created = cm.h.eng.Now() })
	cm.command(func() {
		if c.gone() {
			return
		}
		cm.toInit(qp, c.RespRes)
		c.Inited = cm.h.eng.Now()
	})
	cm.command(func() {
		if c.gone() {
			return
		}
		cm.h.must(cm.h.ModifyQP(qp, QPAttr{State: QPRTR, Dest: c.Peer, DestIP: c.PeerIP, DestQPN: m.QPN, RQPSN: m.StartPSN,
			MaxDestRdAtomic: max(int(c.RespRes), 1)}))
	})
	cm.command(func() {
		if c.gone() {
			return
		}
		cm.h.must(cm.h.ModifyQP(qp, QPAttr{State: QPRTS, SQPSN: c.psn, MaxRdAtomic: max(int(c.Init), 1),
			RetryCnt: int(m.RetryCount), RNRRetry: int(m.RNRRetry), SetRetries: true}))
		c.state = cmRepSent
		c.Sent = cm.h.eng.Now()
		cm.sendTo(c, &cmMsg{Attr: AttrREP, TID: c.tid, LocalID: c.LocalID, RemoteID: c.RemoteID, QPN: qp.QPN,
			StartPSN: c.psn, RespRes: c.RespRes, InitDepth: c.Init, RNRRetry: m.RNRRetry})
		c.arm()
	})
}

// reject answers a REQ with a REJ (the kernel's cm_issue_rej for a
// request no listener takes, or rdma_reject's).
func (cm *CM) reject(m *cmMsg, from cmDest, why RejectReason) {
	var b [madBytes]byte
	(&cmMsg{Attr: AttrREJ, TID: m.TID, RemoteID: m.LocalID, Reason: why, Rejected: 0}).encode(b[:])
	cm.enqueue(b, from)
}

// reply is the active side's handling of a REP: RTR, RTS, then the RTU
// and ESTABLISHED. A REP again after that (the RTU was lost) gets the
// RTU again.
func (cm *CM) reply(c *CMConn, m *cmMsg) {
	switch c.state {
	case cmEstablished:
		if c.Active {
			cm.Retransmitted++
			c.MADs++
			cm.enqueue(c.last, cmDest{c.Peer, c.PeerIP})
		}
		return
	case cmReqSent:
	default:
		return
	}
	c.disarm()
	c.RemoteID, c.RemoteQPN = m.LocalID, m.QPN
	c.state = cmIdle // between the REP and the RTU: a resent REP waits
	c.event(CMConnectResponse)
	cm.command(func() {
		if c.gone() {
			return
		}
		cm.h.must(cm.h.ModifyQP(c.QP, QPAttr{State: QPRTR, Dest: c.Peer, DestIP: c.PeerIP, DestQPN: m.QPN, RQPSN: m.StartPSN,
			MaxDestRdAtomic: max(int(m.InitDepth), 1)}))
	})
	cm.command(func() {
		if c.gone() {
			return
		}
		cm.h.must(cm.h.ModifyQP(c.QP, QPAttr{State: QPRTS, SQPSN: c.psn, MaxRdAtomic: max(int(m.RespRes), 1)}))
		cm.sendTo(c, &cmMsg{Attr: AttrRTU, TID: c.tid, LocalID: c.LocalID, RemoteID: c.RemoteID})
		c.state = cmEstablished
		c.Established = cm.h.eng.Now()
		c.event(CMEstablished)
	})
}
