package cm

import (
	"fmt"
	"math/rand/v2"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
)

// Manager is a host's connection manager: the kernel's ib_cm and
// rdma_cm, and librdmacm above them, as one. It connects RC and UC QPs
// the way rdma_connect and rdma_accept do (UD QPs by SIDR, sidr.go; on
// InfiniBand after a path query to the SA, sa.go): the active side sends
// a REQ, the passive side's listener accepts with a REP, the active side
// answers with an RTU; DREQ and DREP tear a connection down; REJ
// refuses. The messages are real CM MADs (cmmad.go), sent as UD
// datagrams from QP1 to QP1 with the GSI Q_Key, so they take the
// fabric's queues, pauses and losses like any packet, and a lost one is
// sent again after the CM's timeout, up to its retries. The QPs move
// RESET→INIT→RTR→RTS as the exchange proceeds (the passive side reaches
// RTS before its REP, the active side after it, before its RTU, as
// librdmacm's rdma_accept and its handling of the REP do).
//
// Time goes where cmtime measures it (Profile): each QP command
// (create, and each modify) takes the HCA's command interface for
// QPCommand, one at a time; each received MAD takes the host's CM thread
// for MADProcessing, one at a time. Address and route resolution are
// local on RoCE (the neighbour's MAC is cached: ARP is not sent).
//
// A passive side answers a DREQ at once with its DREP (the kernel's CM
// sends it when the application calls rdma_disconnect on its
// DISCONNECTED event, as rping's server does; lfsim's programs all do).
//
// A CM is made and opens once a host connects or listens (Of), or a MAD
// comes for its QP1 (the HCA makes its owner with Agent's function);
// until then neither it nor QP1 exists.
type Manager struct {
	h    *hca.HCA
	eng  *sim.Engine
	prof Profile
	sa   *SubnetAdmin // where the subnet administrator is (InfiniBand), nil on Ethernet (Agent)
	qp   *hca.QP
	cq   *hca.CQ
	send *hca.MR // sendSlots MADs
	recv *hca.MR // prof.RecvQueue receive buffers, each a GRH and a MAD
	free []int
	wait [][madBytes]byte // MADs waiting for a send slot, with their destination in dest
	dest []cmDest
	rng  *rand.Rand

	cpuFree, cmdFree sim.Time
	nextID           uint32
	hiTID            uint32
	nextTID          uint32
	queries          map[uint64]*saQuery // path queries in flight, by TID (sa.go)
	listeners        map[uint16]*Listener
	conns            map[uint32]*Conn // by local communication ID (lookups only)
	byRemote         map[cmRemote]*Conn

	// Sent and Received count MADs by message; Retransmitted the ones
	// sent again after a timeout; Dropped the ones received that match
	// no connection (stale, or duplicates after the end).
	Sent, Received         map[Attr]int64
	Retransmitted, Dropped int64
	// Active sums up the connections this host started (rdma_connect).
	Active ActiveStats

	// iw: the NIC is iWARP's, which has no QP1: rdma_cm goes over
	// iw_cm to the NIC's own connections (iwarp.go). opened: open has
	// run.
	iw, opened bool
}

// ActiveStats are a host's connections as the active side: how many
// it started, made and lost (rejected, unreachable), the set-up times
// of those made (from rdma_connect to ESTABLISHED), the first start and
// the last ESTABLISHED.
type ActiveStats struct {
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

// Event is an rdma_cm event (enum rdma_cm_event_type, numbered as
// librdmacm numbers it).
type Event uint8

// The events lfsim raises.
const (
	EventAddrResolved    Event = 0
	EventRouteResolved   Event = 2
	EventRouteError      Event = 3
	EventConnectRequest  Event = 4
	EventConnectResponse Event = 5
	EventConnectError    Event = 6
	EventUnreachable     Event = 7
	EventRejected        Event = 8
	EventEstablished     Event = 9
	EventDisconnected    Event = 10
	EventTimewaitExit    Event = 15
)

// String is the event's name as rdma_event_str spells it.
func (e Event) String() string {
	names := map[Event]string{EventAddrResolved: "ADDR_RESOLVED", EventRouteResolved: "ROUTE_RESOLVED", EventRouteError: "ROUTE_ERROR",
		EventConnectRequest: "CONNECT_REQUEST", EventConnectResponse: "CONNECT_RESPONSE", EventConnectError: "CONNECT_ERROR",
		EventUnreachable: "UNREACHABLE", EventRejected: "REJECTED", EventEstablished: "ESTABLISHED",
		EventDisconnected: "DISCONNECTED", EventTimewaitExit: "TIMEWAIT_EXIT"}
	if n, ok := names[e]; ok {
		return "RDMA_CM_EVENT_" + n
	}
	return "UNKNOWN EVENT"
}

// Listener is a passive side listening on a port (rdma_listen).
// OnRequest is asked for each connection request: it returns the QP to
// accept it with (created, in RESET), or nil to reject it
// (rdma_reject: REJ with RejectConsumerRejection). It gets the request's
// private data after rdma_cm's header.
type Listener struct {
	Port      uint16
	OnRequest func(c *Conn, private []byte) *hca.QP
	// OnEvent, when set, is told of every event of the connections it
	// accepted (ESTABLISHED, DISCONNECTED, ...).
	OnEvent func(c *Conn, e Event)
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

// Conn is one connection (an rdma_cm_id with its ib_cm_id).
type Conn struct {
	QP        *hca.QP
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

	OnEvent func(c *Conn, e Event)

	cm       *Manager
	state    cmState
	tid      uint64
	psn      uint32 // this side's starting PSN
	retries  int
	wait     sim.Time // how long it waits for an answer before sending again
	timer    sim.Timer
	last     [madBytes]byte // the last MAD sent, for a resend
	listener *Listener
	// iw is, on iWARP, the NIC's end of the connection (iwarp.go).
	iw *hca.IWConn
	// prepared: the application made the QP and moved it to INIT
	// (ConnectParams.Prepared).
	prepared bool
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
	OnEvent              func(c *Conn, e Event)
	// At is when to call rdma_connect: now when earlier.
	At sim.Time
	// Prepared says the application created the QP and moved it to INIT
	// itself before rdma_connect (Manager.Prepare), as librdmacm's cmtime
	// does for all its QPs before it connects any: the REQ then goes
	// without QP commands. False (the default): rdma_create_qp's two
	// commands run first, as rping and the flows' connections do.
	Prepared bool
}

// Agent is what hca.Profile.NewGSIAgent takes: it makes a host's
// connection manager, with profile p and the subnet administrator sa
// (nil on Ethernet), when the host first needs it. sa may be filled in
// after Agent returns, before the run.
func Agent(p Profile, sa *SubnetAdmin) func(h *hca.HCA) hca.GSIAgent {
	return func(h *hca.HCA) hca.GSIAgent { return &Manager{h: h, eng: h.Engine(), prof: p, sa: sa} }
}

// Of returns the host's connection manager, opening it (and QP1) the
// first time: made with the HCA's profile's NewGSIAgent, or with
// DefaultProfile and no SA when the profile has none.
func Of(h *hca.HCA) *Manager {
	a := h.GSIAgent()
	if a == nil {
		newAgent := h.Prof.NewGSIAgent
		if newAgent == nil {
			newAgent = Agent(DefaultProfile(), nil)
		}
		a = newAgent(h)
		h.SetGSIAgent(a)
	}
	cm := a.(*Manager)
	cm.open()
	return cm
}

// Existing is the host's connection manager, or nil when nothing has
// asked for it (Of) and no MAD has come for its QP1.
func Existing(h *hca.HCA) *Manager {
	if cm, ok := h.GSIAgent().(*Manager); ok && cm.opened {
		return cm
	}
	return nil
}

// QP1 is the CM's QP1, opening the CM the first time (hca.GSIAgent).
func (cm *Manager) QP1() *hca.QP {
	cm.open()
	return cm.qp
}

// open makes the CM's state, QP1 in RTS with its CQ, send slots and
// posted receive buffers, the first time.
func (cm *Manager) open() {
	if cm.opened {
		return
	}
	cm.opened = true
	h, p := cm.h, cm.prof
	cm.listeners, cm.conns, cm.byRemote = map[uint16]*Listener{}, map[uint32]*Conn{}, map[cmRemote]*Conn{}
	cm.Sent, cm.Received = map[Attr]int64{}, map[Attr]int64{}
	cm.rng, cm.nextID = sim.Stream(cm.eng.Seed(), "cm/"+h.Name), 1
	cm.hiTID = cm.rng.Uint32()
	if cm.iw = h.Prof.Transport == fabric.IWARP; cm.iw {
		return // no QP1 (iwarp.go)
	}
	pd := h.AllocPD()
	cm.cq = h.CreateCQ(p.RecvQueue + sendSlots)
	cm.cq.OnEvent = cm.completions
	cm.qp = h.CreateQP1(hca.QPCaps{Type: hca.UD, PD: pd, SendCQ: cm.cq, RecvCQ: cm.cq, SigAll: true,
		MaxSend: sendSlots, MaxRecv: p.RecvQueue})
	must(h.ModifyQP(cm.qp, hca.QPAttr{State: hca.QPInit, QKey: hca.GSIQKey}))
	must(h.ModifyQP(cm.qp, hca.QPAttr{State: hca.QPRTR}))
	must(h.ModifyQP(cm.qp, hca.QPAttr{State: hca.QPRTS}))
	cm.send = h.RegMR(pd, sendSlots*madBytes, make([]byte, sendSlots*madBytes), hca.AccessLocalWrite)
	cm.recv = h.RegMR(pd, int64(p.RecvQueue)*madRecvBytes, make([]byte, int64(p.RecvQueue)*madRecvBytes), hca.AccessLocalWrite)
	for i := sendSlots - 1; i >= 0; i-- {
		cm.free = append(cm.free, i)
	}
	for i := 0; i < p.RecvQueue; i++ {
		cm.postRecv(i)
	}
}

// must panics on an error the CM's own use of the verbs cannot have.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

func (cm *Manager) postRecv(i int) {
	must(cm.h.PostRecv(cm.qp, hca.RecvWR{ID: uint64(i), SGL: []hca.SGE{{Addr: cm.recv.Addr + uint64(i*madRecvBytes), Len: madRecvBytes, LKey: cm.recv.LKey}}}))
}

// Listen starts a listener on its port (rdma_bind_addr, rdma_listen).
func (cm *Manager) Listen(l *Listener) error {
	if cm.listeners[l.Port] != nil {
		return fmt.Errorf("%s: port %d already has a listener", cm.h.Name, l.Port)
	}
	cm.listeners[l.Port] = l
	if cm.iw {
		return cm.listenIW(l)
	}
	return nil
}

// Connect starts connecting qp, created and in RESET, to a listener at
// p.Dest (rdma_resolve_addr, rdma_resolve_route, rdma_create_qp,
// rdma_connect), now. Its QP creation and move to INIT take the command
// interface, then the REQ goes; the connection is ESTABLISHED when the
// REP has come and the QP is in RTS (the RTU is on its way). Events go
// to p.OnEvent. With p.At later than now, all this starts then.
func (cm *Manager) Connect(qp *hca.QP, p ConnectParams) (*Conn, error) {
	if qp.State != hca.QPReset && qp.State != hca.QPInit && (qp.Type != hca.UD || qp.State != hca.QPRTS) {
		return nil, fmt.Errorf("rdma_connect needs a new QP (RESET or INIT), not one in %s", qp.State)
	}
	if len(p.Private) > cmPrivateREQ-cmaHeaderBytes {
		return nil, fmt.Errorf("rdma_connect's private data is at most %d bytes, not %d", cmPrivateREQ-cmaHeaderBytes, len(p.Private))
	}
	if p.Prepared && (qp.Type == hca.UD || cm.iw) {
		return nil, fmt.Errorf("a prepared QP connects over the CM's REQ only, not by SIDR or iWARP")
	}
	c := cm.newConn(qp)
	c.prepared = p.Prepared
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
	if qp.Type == hca.UD {
		c.wait = cmMillis(cm.prof.ResponseTimeout)
		src := cm.ephemeralPort()
		run = func() { cm.sidr(c, src) }
	} else {
		retry, rnr := p.RetryCount, p.RNRRetry
		if retry == 0 && rnr == 0 {
			cnt, rnrCnt := qp.RetryCounts()
			retry, rnr = uint8(min(cnt, 7)), uint8(min(rnrCnt, 7))
		}
		c.tid = uint64(cm.hiTID)<<32 | uint64(c.LocalID)
		c.wait = cm.prof.reqTimeout()
		run = func() { cm.connect(c, retry, rnr) }
		if cm.iw {
			run = func() { cm.connectIW(c) }
		}
	}
	if p.At > cm.eng.Now() {
		c.Start = p.At
		cm.eng.Schedule(p.At, cm, cmRun, 0, run)
		return c, nil
	}
	run()
	return c, nil
}

// ephemeralPort is the active side's port rdma_cm's header names: an
// ephemeral one (Linux's ip_local_port_range, 32768-60999).
func (cm *Manager) ephemeralPort() uint16 { return uint16(32768 + cm.rng.IntN(60999-32768+1)) }

// connect is rdma_connect's work from address resolution to the REQ.
func (cm *Manager) connect(c *Conn, retry, rnr uint8) {
	src := cm.ephemeralPort()
	c.event(EventAddrResolved)
	cm.resolveRoute(c, func() { cm.createAndRequest(c, retry, rnr, src) })
}

// createAndRequest is rdma_create_qp's commands and rdma_connect's REQ.
func (cm *Manager) createAndRequest(c *Conn, retry, rnr uint8, src uint16) {
	qp := c.QP
	create := func(then func()) { cm.createAndInit(c, qp, then) }
	if c.prepared {
		create = func(then func()) {
			cm.toInit(qp, c.RespRes)
			c.Created, c.Inited = cm.eng.Now(), cm.eng.Now()
			then()
		}
	}
	create(func() {
		c.state = cmReqSent
		c.Sent = c.Inited
		cm.sendTo(c, &cmMsg{Attr: AttrREQ, TID: c.tid, LocalID: c.LocalID, ServiceID: rdmaPSTCPService | uint64(c.Port),
			QPN: qp.QPN, StartPSN: c.psn, RespRes: c.RespRes, InitDepth: c.Init, QPType: qp.Type,
			RetryCount: retry, RNRRetry: rnr, LocalTimeout: cm.prof.ResponseTimeout, RemoteTimeout: cm.prof.ResponseTimeout,
			MaxRetries: uint8(cm.prof.MaxRetries), AckTimeout: cm.prof.PacketLifetime + 1, MTU: cm.h.Prof.MTU, SrcIP: cm.h.IP, DstIP: c.PeerIP, Port: src,
			Private: c.Private, IB: cm.sa != nil, SL: qp.SL & 15, SLID: cm.lid(cm.h.ID), DLID: cm.lid(c.Peer), SrcNode: cm.h.ID, DstNode: c.Peer})
		c.arm()
	})
}

// createAndInit is rdma_create_qp's two commands for connection c's QP,
// on either side: the create (c.Created), then the move to INIT
// (c.Inited), after which then runs in the same command (nil: nothing
// more). Neither runs for a connection already gone.
func (cm *Manager) createAndInit(c *Conn, qp *hca.QP, then func()) {
	cm.command(func() { c.Created = cm.eng.Now() })
	cm.command(func() {
		if c.gone() {
			return
		}
		cm.toInit(qp, c.RespRes)
		c.Inited = cm.eng.Now()
		if then != nil {
			then()
		}
	})
}

// Prepare is an application's own ibv_create_qp and ibv_modify_qp to
// INIT for qp, before it calls rdma_connect with ConnectParams.Prepared
// (librdmacm's cmtime: its "Creating QPs" and "Modify QPs to INIT"
// steps, each over all its QPs, before "Connecting"): two commands on the
// command interface, after which done runs with the time the QP reached
// INIT.
func (cm *Manager) Prepare(qp *hca.QP, done func(at sim.Time)) {
	cm.open()
	respRes := uint8(min(cm.h.Prof.MaxDestRdAtomic, 255))
	cm.command(func() {})
	cm.command(func() {
		cm.toInit(qp, respRes)
		if done != nil {
			done(cm.eng.Now())
		}
	})
}

// lid is node n's LID on InfiniBand (from the SA's table), 0 on RoCE.
func (cm *Manager) lid(n fabric.NodeID) uint16 {
	if sa := cm.sa; sa != nil {
		return sa.LID(n)
	}
	return 0
}

// toInit moves a new QP to INIT with the access ib_cm gives it (a QP
// already in INIT, as CreateQP makes them, gets the access).
func (cm *Manager) toInit(qp *hca.QP, respRes uint8) {
	if qp.State == hca.QPInit {
		qp.Access = cmAccess(respRes)
		return
	}
	must(cm.h.ModifyQP(qp, hca.QPAttr{State: hca.QPInit, Access: cmAccess(respRes)}))
}

// cmAccess is the remote access ib_cm gives a connected QP: WRITE, and
// READ and atomics when it takes responder resources.
func cmAccess(respRes uint8) hca.Access {
	a := hca.AccessLocalWrite | hca.AccessRemoteWrite
	if respRes > 0 {
		a |= hca.AccessRemoteRead | hca.AccessRemoteAtomic
	}
	return a
}

// Disconnect starts tearing c down (rdma_disconnect): its QP goes to ERR
// and a DREQ goes to the peer, which answers with a DREP; both sides see
// DISCONNECTED.
func (c *Conn) Disconnect() {
	if c.QP.Type == hca.UD {
		return // nothing to tear down on the wire for UD (SIDR)
	}
	if c.cm.iw {
		c.disconnectIW()
		return
	}
	switch c.state {
	case cmEstablished:
	case cmReqSent, cmIdle, cmRepSent:
		// Not yet established: the connection is abandoned, and the peer
		// told with a REJ (the kernel's cm_destroy_id), so that it stops
		// waiting; its QP goes to ERR.
		if !c.QP.Destroyed() && c.QP.State != hca.QPReset {
			must(c.cm.h.ModifyQP(c.QP, hca.QPAttr{State: hca.QPErr}))
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
	if !c.QP.Destroyed() {
		must(cm.h.ModifyQP(c.QP, hca.QPAttr{State: hca.QPErr}))
	}
	c.state = cmDreqSent
	c.tid = uint64(cm.hiTID)<<32 | uint64(c.LocalID)
	c.retries = 0
	cm.sendTo(c, &cmMsg{Attr: AttrDREQ, TID: c.tid, LocalID: c.LocalID, RemoteID: c.RemoteID, QPN: c.RemoteQPN})
	c.arm()
}

func (cm *Manager) newConn(qp *hca.QP) *Conn {
	c := &Conn{QP: qp, cm: cm, LocalID: cm.nextID, Start: cm.eng.Now(), psn: cm.rng.Uint32() & 0xffffff}
	cm.nextID++
	cm.conns[c.LocalID] = c
	return c
}

func (c *Conn) event(e Event) {
	if c.Active {
		a := &c.cm.Active
		switch e {
		case EventAddrResolved:
			if a.Requested == 0 || c.Start < a.FirstStart {
				a.FirstStart = c.Start
			}
			a.Requested++
		case EventEstablished:
			a.Established++
			a.SetupSum += c.Established - c.Start
			a.SetupMax = max(a.SetupMax, c.Established-c.Start)
			a.LastEstablished = max(a.LastEstablished, c.Established)
		case EventRejected, EventUnreachable, EventConnectError, EventRouteError:
			a.Failed++
		}
	}
	if c.OnEvent != nil {
		c.OnEvent(c, e)
	}
}

// command runs fn when the command interface has done one more command.
func (cm *Manager) command(fn func()) { cm.commandFor(cm.prof.QPCommand, fn) }

// modify runs fn when the command interface has done one more move to
// RTR or RTS (Profile.ConnectModify).
func (cm *Manager) modify(fn func()) { cm.commandFor(cm.prof.connectModify(), fn) }

// commandFor runs fn when the command interface has done one more
// command, of cost d.
func (cm *Manager) commandFor(d sim.Time, fn func()) {
	start := max(cm.eng.Now(), cm.cmdFree)
	cm.cmdFree = start + d
	cm.eng.Schedule(cm.cmdFree, cm, cmRun, 0, fn)
}

// process runs fn when the CM thread has done one more MAD's work
// (MADProcessing, one at a time).
func (cm *Manager) process(fn func()) {
	start := max(cm.eng.Now(), cm.cpuFree)
	cm.cpuFree = start + cm.prof.MADProcessing
	cm.eng.Schedule(cm.cpuFree, cm, cmRun, 0, fn)
}

// The CM's engine events.
const (
	cmRun = iota
	cmTimer
)

// HandleEvent runs a deferred step, or a connection's timeout.
func (cm *Manager) HandleEvent(ev *sim.Event) {
	switch ev.Kind {
	case cmRun:
		ev.Data.(func())()
	case cmTimer:
		ev.Data.(*Conn).timedOut()
	}
}

// arm starts c's wait for an answer to the MAD it just sent.
func (c *Conn) arm() {
	c.cm.eng.Cancel(c.timer)
	c.timer = c.cm.eng.After(c.wait, c.cm, cmTimer, 0, c)
}

func (c *Conn) disarm() {
	c.cm.eng.Cancel(c.timer)
	c.timer = sim.Timer{}
}

// timedOut sends the last MAD again, or gives up after MaxRetries.
func (c *Conn) timedOut() {
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
		c.event(EventUnreachable)
	case cmRepSent:
		c.close()
		c.event(EventConnectError)
	case cmDreqSent:
		c.close()
		c.Disconnected = cm.eng.Now()
		c.event(EventDisconnected)
	}
}

// gone reports whether c was closed or its QP destroyed while a command
// for it waited.
func (c *Conn) gone() bool { return c.state == cmClosed || c.QP == nil || c.QP.Destroyed() }

func (c *Conn) close() {
	c.disarm()
	c.state = cmClosed
	delete(c.cm.conns, c.LocalID)
	if !c.Active {
		delete(c.cm.byRemote, cmRemote{c.Peer, c.RemoteID})
	}
}

// sendTo sends m to c's peer.
func (cm *Manager) sendTo(c *Conn, m *cmMsg) {
	m.encode(c.last[:])
	c.MADs++
	cm.enqueue(c.last, cmDest{c.Peer, c.PeerIP})
}

// enqueue posts a MAD from QP1 to the destination's QP1, or keeps it
// until a send slot is free.
func (cm *Manager) enqueue(b [madBytes]byte, d cmDest) {
	if len(cm.free) == 0 {
		cm.wait = append(cm.wait, b)
		cm.dest = append(cm.dest, d)
		return
	}
	i := cm.free[len(cm.free)-1]
	cm.free = cm.free[:len(cm.free)-1]
	off := uint64(i * madBytes)
	copy(cm.send.Buf[off:], b[:])
	attr := Attr(uint16(b[16])<<8 | uint16(b[17]))
	cm.Sent[attr]++
	_, err := cm.h.PostSend(cm.qp, hca.SendWR{ID: uint64(i), Op: hca.WRSend, SGL: []hca.SGE{{Addr: cm.send.Addr + off, Len: madBytes, LKey: cm.send.LKey}},
		Signaled: true, AH: &hca.AH{Dest: d.node, DestIP: d.ip}, RemoteQPN: hca.GSIQPN, RemoteQKey: hca.GSIQKey})
	must(err)
}

// completions handles QP1's completions: a sent MAD frees its slot; a
// received one is decoded, its buffer posted again, and it goes to the
// CM thread.
func (cm *Manager) completions(cq *hca.CQ) {
	for _, wc := range cq.Poll(cq.Len()) {
		if wc.Opcode != hca.WCOpRecv {
			cm.free = append(cm.free, int(wc.WRID))
			if len(cm.wait) > 0 {
				b, d := cm.wait[0], cm.dest[0]
				cm.wait, cm.dest = cm.wait[1:], cm.dest[1:]
				cm.enqueue(b, d)
			}
			continue
		}
		i := int(wc.WRID)
		buf := cm.recv.Buf[i*madRecvBytes+hca.GRHBytes : (i+1)*madRecvBytes]
		if wc.Status == hca.WCSuccess && buf[1] == madClassSA {
			b := append([]byte(nil), buf...)
			cm.postRecv(i)
			cm.saReceived(b, cmDest{wc.Src, 0})
			continue
		}
		m, ok := decodeCM(buf)
		cm.postRecv(i)
		if wc.Status != hca.WCSuccess || !ok {
			cm.Dropped++
			continue
		}
		cm.Received[m.Attr]++
		from := cmDest{wc.Src, 0}
		cm.process(func() { cm.handle(&m, from) })
	}
}
