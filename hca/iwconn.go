package hca

import (
	"errors"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// iWARP's connection, as the NIC makes it before the first FPDU and ends
// it after the last (fabric's tcpsetup.go draws the exchange): TCP's
// three-way handshake, MPA's Request and Reply (revision 2, RFC 6581's
// enhanced mode, with the IRD and ORD), and the Initiator's
// ready-to-receive message (a zero-length RDMA READ, iw_cxgb4's default
// p2p_type), each a real segment on the fabric, queued, paused, lost
// and resent like any other. rdma_cm over iw_cm (package cm) drives it:
// IWListen on the passive host, IWConnect on the active one; the
// passive application answers the Request (IWListener.OnRequest,
// IWConn.Accept or Reject) with its QP in RTS, the active one hears of
// the Reply (OnReply) and moves its QP to RTS; the commands and host
// work between are the caller's. The QPs send no FPDU before: the active
// end's until the Reply is in and its QP in RTS (then its RTR goes
// first), the passive end's until the Initiator's RTR (or first FPDU,
// RFC 5044 §7.1.2) has come (tcpState.await). The exchange itself costs
// two round trips from the SYN to the active end's FPDU mode (SYN and
// SYN-ACK; Request and Reply), and the serialization of its segments.
// Connect and Accept skip it: QPs connected out of band, as a
// scenario's connect: instant connects them on every transport.
//
// Each segment the exchange waits on an answer to is sent again after
// the retransmission timeout, from TCP's initial one (RFC 6298 2.1: 1 s)
// and doubled each time (RFC 6298 5.5), at most SynRetries times (Linux's
// tcp_syn_retries, 6: sent at 0, 1, 3, 7, 15, 31 and 63 s); a timeout
// after the last (127 s) fails the connection. A SYN to a port no one
// listens on is answered with RST (refused), as is any segment for a
// connection not (or no longer) here. A close outlives the QP: its
// FIN, FIN-ACK and last ACK go on after the QP is destroyed
// (iwDestroyed).
//
// Not modelled: the handshake's round-trip sample for the data stream's
// RTO (the stream starts from RTOInitial); MPA revision 1, and the
// negotiation of CRCs and markers (each NIC frames its FPDUs as its own
// profile says); a reject's teardown (the Reply with its R bit ends both
// ends at once); TIME_WAIT. lfsim's NICs find a packet's QP by its QP
// number rather than by its TCP 4-tuple, so the SYN and the Reply carry
// their ends' QP numbers (fabric's SetupQPs), which no wire field holds.

// IWConn is one end of an iWARP connection while the NIC makes it or
// ends it.
type IWConn struct {
	// QP is the connection's QP: the active end's from the start, the
	// passive end's once it accepts (nil before).
	QP     *QP
	Active bool
	Peer   fabric.NodeID
	PeerIP uint32
	// LocalPort and PeerPort are the TCP connection's ports (the active
	// end's ephemeral one and the listener's).
	LocalPort, PeerPort uint16
	// PeerQPN is the peer's QP number (SetupQPs), 0 until known.
	PeerQPN uint32
	// PeerMPA is what the peer's MPA Request (passive) or Reply (active)
	// said, PeerPrivate its private data after the IRD and ORD.
	PeerMPA     fabric.MPAStart
	PeerPrivate []byte
	// Start is when this end began (its SYN went, or the peer's came);
	// Established when it reached FPDU mode (the active end with the Reply
	// in and its QP in RTS, the passive end with its Reply sent); Closed
	// when its close ended.
	Start, Established, Closed sim.Time
	// Segments counts the setup segments this end sent; Resent those
	// sent again after a timeout.
	Segments, Resent int

	// OnReply (active end) hears that the peer's Reply accepted the
	// connection: once the QP is in RTS, FPDU mode begins and the RTR
	// goes (at once if it is in RTS already).
	OnReply func(c *IWConn)
	// OnFail hears that the connection failed before FPDU mode.
	OnFail func(c *IWConn, why IWFailure)
	// OnClosed hears that the connection is closed: its FIN and the
	// peer's are exchanged (this end's Close, or the peer's).
	OnClosed func(c *IWConn)

	h        *HCA
	id       uint32
	peerID   uint32
	state    iwState
	private  []byte // this end's private data, after the IRD and ORD
	listener *IWListener
	timer    sim.Timer
	rto      sim.Time
	tries    int
	resend   fabric.SetupStep // what a timeout sends again; 0: nothing awaited
	// rejecting: this end's Reply refuses (Reject).
	rejecting bool
}

// IWFailure is why a connection failed.
type IWFailure uint8

// Failures.
const (
	IWRefused  IWFailure = iota + 1 // RST: no one listens on the port (ECONNREFUSED)
	IWRejected                      // the Reply's R bit: the peer's application refused
	IWTimedOut                      // a segment unanswered after SynRetries resends (ETIMEDOUT)
)

func (f IWFailure) String() string {
	return [...]string{"", "refused", "rejected", "timed out"}[f]
}

// IWListener is a passive end's listening port (rdma_listen over iw_cm):
// the NIC answers a SYN to it and, when the MPA Request has come, asks
// OnRequest, whose application accepts (IWConn.Accept) or rejects
// (IWConn.Reject), then or later.
type IWListener struct {
	Port      uint16
	OnRequest func(c *IWConn)
}

// iwState is where an end is in the exchange.
type iwState uint8

const (
	iwIdle    iwState = iota // active: its SYN not yet sent (IWConnectParams.At)
	iwSynSent                // active: waiting for the SYN-ACK
	iwSynRcvd                // passive: SYN-ACK sent, waiting for the ACK or the Request
	iwReqSent                // active: waiting for the Reply
	iwReqRcvd                // passive: the Request is the application's to answer
	iwReplied                // active: the Reply is in, the QP not yet in RTS
	iwRepSent                // passive: waiting for the RTR
	iwFPDU                   // FPDU mode (the active end's RTR, the passive end's response, may still wait an answer)
	iwFinSent                // this end closed: waiting for the peer's FIN
	iwLastAck                // the peer closed and this end answered: waiting for the last ACK
	iwGone                   // closed, failed, or its QP destroyed
)

// SynRetries is how many times a set-up segment is sent again before
// the connection fails: Linux's tcp_syn_retries.
const SynRetries = 6

// mpaParams is what this NIC's Request or Reply says: revision 2 with
// its profile's CRC and markers, qp's IRD and ORD, the peer-to-peer model
// with a zero-length READ as the RTR (iw_cxgb4's mpa_rev 2, peer2peer 1,
// p2p_type READ_REQ).
func (h *HCA) mpaParams(qp *QP) fabric.MPAStart {
	m := fabric.MPAStart{Markers: h.Prof.TCP.MPA.Markers, CRC: h.Prof.TCP.MPA.CRC, Rev: fabric.MPARevision2,
		IRD: uint16(min(h.Prof.MaxDestRdAtomic, fabric.MPAIRDORDMax)), ORD: uint16(min(h.Prof.MaxRdAtomic, fabric.MPAIRDORDMax)),
		PeerToPeer: true, RTRRead: true}
	if qp != nil {
		m.IRD, m.ORD = uint16(min(max(qp.maxDestRdAtomic, 1), fabric.MPAIRDORDMax)), uint16(min(max(qp.maxRdAtomic, 1), fabric.MPAIRDORDMax))
	}
	return m
}

// iwTable is an HCA's connections in the making, by id, QP and peer, and
// its listeners.
type iwTable struct {
	nextID    uint32
	byID      map[uint32]*IWConn
	byQP      map[uint32]*IWConn
	byPeer    map[iwPeer]*IWConn // passive ends, by the active end's IP and id (a SYN sent again)
	listeners map[uint16]*IWListener
}

type iwPeer struct{ ip, n uint32 }

func (h *HCA) iw() *iwTable {
	c := h.coldPart()
	if c.iw == nil {
		c.iw = &iwTable{nextID: 1, byID: map[uint32]*IWConn{}, byQP: map[uint32]*IWConn{}, byPeer: map[iwPeer]*IWConn{},
			listeners: map[uint16]*IWListener{}}
	}
	return c.iw
}

func (h *HCA) newIWConn(qp *QP, active bool) *IWConn {
	t := h.iw()
	c := &IWConn{h: h, QP: qp, Active: active, id: t.nextID, rto: h.Prof.TCP.RTOInitial}
	t.nextID++
	t.byID[c.id] = c
	if qp != nil {
		t.byQP[qp.QPN] = c
	}
	return c
}

// IWConnOf is qp's connection, nil if it has none (not iWARP, or its
// connection's setup ended).
func (h *HCA) IWConnOf(qp *QP) *IWConn {
	if h.cold == nil || h.cold.iw == nil {
		return nil
	}
	return h.cold.iw.byQP[qp.QPN]
}

// Ready reports whether the end's QP sends FPDUs: the active end's once
// the Reply is in and the QP in RTS, the passive end's once the
// Initiator's RTR (or first FPDU) has come.
func (c *IWConn) Ready() bool {
	return c.QP != nil && c.QP.tcp != nil && !c.QP.tcp.await && c.state != iwGone
}

// ErrPortInUse: IWListen's port has a listener already.
var ErrPortInUse = errors.New("hca: the port has a listener already")

// IWListen starts l on its port.
func (h *HCA) IWListen(l *IWListener) error {
	t := h.iw()
	if t.listeners[l.Port] != nil {
		return ErrPortInUse
	}
	t.listeners[l.Port] = l
	return nil
}

// IWConnectParams are an active open's: where to (the host, its IP and
// the listener's port), from which port, and the private data of the
// MPA Request (after the IRD and ORD; at most 508 bytes).
type IWConnectParams struct {
	Dest            fabric.NodeID
	DestIP          uint32
	LocalPort, Port uint16
	Private         []byte
	OnReply         func(c *IWConn)
	OnFail          func(c *IWConn, why IWFailure)
	OnClosed        func(c *IWConn)
	// At is when the SYN goes: now when earlier.
	At sim.Time
}

// ErrPrivateTooLong: an MPA frame's private data exceeds 512 bytes.
var ErrPrivateTooLong = errors.New("hca: MPA private data is at most 512 bytes, the IRD and ORD included")

// IWConnect opens an iWARP connection for qp (RC, on an iWARP NIC), now:
// the SYN goes to p.Dest's listener on p.Port. The QP may be in any
// state up to RTS: it sends no FPDU before the Reply has come and it is
// in RTS, and its peer's QP number is the Reply's (IWConn.PeerQPN), for
// the caller's move to RTR.
func (h *HCA) IWConnect(qp *QP, p IWConnectParams) (*IWConn, error) {
	if len(p.Private)+fabric.MPAv2ParamsBytes > fabric.MPAMaxPrivate {
		return nil, ErrPrivateTooLong
	}
	c := h.newIWConn(qp, true)
	c.Peer, c.PeerIP, c.LocalPort, c.PeerPort = p.Dest, p.DestIP, p.LocalPort, p.Port
	c.private = append([]byte(nil), p.Private...)
	c.OnReply, c.OnFail, c.OnClosed = p.OnReply, p.OnFail, p.OnClosed
	if qp.tcp != nil {
		qp.tcp.await = true
	}
	if p.At > h.eng.Now() {
		h.eng.Schedule(p.At, h, evIWOpen, 0, c)
		return c, nil
	}
	h.iwOpen(c)
	return c, nil
}

// iwOpen sends the active end's SYN.
func (h *HCA) iwOpen(c *IWConn) {
	if c.state != iwIdle || c.QP == nil || c.QP.destroyed {
		return // gone before its time
	}
	c.Start = h.eng.Now()
	c.state = iwSynSent
	h.iwSend(c, fabric.StepSYN)
	h.iwAwait(c, fabric.StepSYN)
}

// Accept answers the Request (passive end, from OnRequest or after it)
// with qp, which is in RTS: the Reply goes with private after the IRD and
// ORD, and qp sends no FPDU before the Initiator's RTR (or first FPDU).
func (c *IWConn) Accept(qp *QP, private []byte) error {
	h := c.h
	if c.state != iwReqRcvd {
		return ErrInvalidState
	}
	if len(private)+fabric.MPAv2ParamsBytes > fabric.MPAMaxPrivate {
		return ErrPrivateTooLong
	}
	c.QP = qp
	h.iw().byQP[qp.QPN] = c
	c.private = append([]byte(nil), private...)
	if qp.tcp != nil {
		qp.tcp.await = true
	}
	h.iwPorts(c)
	c.state = iwRepSent
	c.Established = h.eng.Now()
	h.iwSend(c, fabric.StepMPAReply)
	h.iwAwait(c, fabric.StepMPAReply)
	return nil
}

// Reject answers the Request with a Reply whose R bit is set, carrying
// private, and forgets the connection.
func (c *IWConn) Reject(private []byte) {
	if c.state != iwReqRcvd {
		return
	}
	c.private, c.rejecting = append([]byte(nil), private...), true
	c.h.iwSend(c, fabric.StepMPAReply)
	c.h.iwForget(c)
}

// Close ends the connection (rdma_disconnect over iw_cm): once made (in
// FPDU mode, or the passive end's Reply sent), a FIN, which the peer
// answers with its own; OnClosed hears of the end. Before, the
// connection is abandoned with an RST.
func (c *IWConn) Close() {
	h := c.h
	switch c.state {
	case iwFPDU, iwRepSent:
		c.state = iwFinSent
		h.iwSend(c, fabric.StepFIN)
		h.iwAwait(c, fabric.StepFIN)
	case iwGone, iwFinSent, iwLastAck:
	default:
		if c.state != iwIdle {
			h.iwSend(c, fabric.StepRST)
		}
		h.iwForget(c)
	}
}

// iwPorts gives the connection's QP its TCP ports on its requests (the
// 5-tuple the fabric hashes): the active end's ephemeral port and the
// listener's, as its SYN had them.
func (h *HCA) iwPorts(c *IWConn) {
	if qp := c.QP; qp != nil {
		qp.flow.SrcPort, qp.flow.DstPort = c.LocalPort, c.PeerPort
	}
}

// iwStarted is told that qp reached RTS with its TCP (tcpStart): an
// active end whose Reply is in begins FPDU mode; one still in the
// exchange waits for it.
func (h *HCA) iwStarted(qp *QP) {
	c := h.IWConnOf(qp)
	if c == nil || c.state == iwGone {
		return
	}
	switch {
	case c.Active && c.state == iwReplied:
		h.iwFPDU(c)
	case c.state < iwFPDU:
		qp.tcp.await = true
	}
}

// iwFPDU begins the active end's FPDU mode: its RTR goes first, then its
// QP's FPDUs.
func (h *HCA) iwFPDU(c *IWConn) {
	qp := c.QP
	h.iwPorts(c)
	c.state = iwFPDU
	c.Established = h.eng.Now()
	c.tries, c.rto = 0, h.Prof.TCP.RTOInitial
	h.iwSend(c, fabric.StepRTR)
	h.iwAwait(c, fabric.StepRTR)
	qp.tcp.await = false
	h.activate(qp)
}

// iwForget takes c out of the tables: it ended, or failed.
func (h *HCA) iwForget(c *IWConn) {
	t := h.iw()
	if t.byID[c.id] != c {
		c.state = iwGone
		return
	}
	c.state = iwGone
	h.eng.Cancel(c.timer)
	c.timer, c.resend = sim.Timer{}, 0
	delete(t.byID, c.id)
	if c.QP != nil && t.byQP[c.QP.QPN] == c {
		delete(t.byQP, c.QP.QPN)
	}
	if !c.Active {
		delete(t.byPeer, iwPeer{c.PeerIP, c.peerID})
	}
}

// iwDestroyed lets go of the connection of qp, which is being destroyed.
// A connection that is closing outlives its QP, as iw_cxgb4's endpoint
// outlives its QP and cm_id (iw_destroy_cm_id in the CLOSING state lets
// the provider finish): its FIN and FIN-ACK are answered, resent and
// timed out as before, with the QP's priority and ports. One still made
// (or being made) is abandoned with an RST, as iw_destroy_cm_id's QP
// moved to the error state has iw_cxgb4 abort it (send_abort).
func (h *HCA) iwDestroyed(qp *QP) {
	c := h.IWConnOf(qp)
	if c == nil {
		return
	}
	delete(h.iw().byQP, qp.QPN)
	switch c.state {
	case iwFinSent, iwLastAck:
		return // the close goes on (iwCloseSegment, iwTimeout)
	case iwIdle, iwGone:
	default:
		h.iwSend(c, fabric.StepRST)
	}
	h.iwForget(c)
}

// iwFail ends c before FPDU mode: its QP (if any) goes to the error
// state, and OnFail hears why.
func (h *HCA) iwFail(c *IWConn, why IWFailure) {
	h.iwForget(c)
	if qp := c.QP; qp != nil && !qp.destroyed && qp.State != QPErr && qp.State != QPReset {
		h.toErr(qp)
	}
	if c.OnFail != nil {
		c.OnFail(c, why)
	}
}

// iwAwait arms c's timer for an answer to step, which a timeout sends
// again.
func (h *HCA) iwAwait(c *IWConn, step fabric.SetupStep) {
	c.resend = step
	h.eng.Cancel(c.timer)
	c.timer = h.eng.After(c.rto, h, evIWTimer, 0, c)
}

// iwAnswered: what c waited for came.
func (h *HCA) iwAnswered(c *IWConn) {
	h.eng.Cancel(c.timer)
	c.timer, c.resend = sim.Timer{}, 0
	c.tries, c.rto = 0, h.Prof.TCP.RTOInitial
}

// iwTimeout sends c's awaited segment again, or fails the connection
// after SynRetries (a close that goes unanswered just ends).
func (h *HCA) iwTimeout(c *IWConn) {
	c.timer = sim.Timer{}
	if c.resend == 0 || c.state == iwGone {
		return
	}
	if c.tries >= SynRetries {
		switch c.state {
		case iwFPDU:
			h.iwForget(c) // the RTR's answer, or the last ACK, never came: the data decide
		case iwFinSent, iwLastAck:
			h.iwClosed(c)
		default:
			h.iwFail(c, IWTimedOut)
		}
		return
	}
	c.tries++
	c.rto = min(2*c.rto, h.Prof.TCP.RTOMax)
	c.Resent++
	if c.resend == fabric.StepMPARequest {
		h.iwSend(c, fabric.StepACK) // the handshake's ACK went with it
	}
	h.iwSend(c, c.resend)
	h.iwAwait(c, c.resend)
}

// iwClosed ends a closed connection.
func (h *HCA) iwClosed(c *IWConn) {
	h.iwForget(c)
	c.Closed = h.eng.Now()
	if c.OnClosed != nil {
		c.OnClosed(c)
	}
}
