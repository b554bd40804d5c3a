package cm

import (
	"github.com/lfsim/lfsim/hca"
)

// rdma_cm over iw_cm: on an iWARP NIC there is no QP1 and no CM MAD.
// rdma_connect and rdma_listen go to the NIC's own connection (hca's
// iwconn.go: TCP's three-way handshake, MPA's Request and Reply, the
// RTR), as Linux's iw_cm hands them to iw_cxgb4 or irdma. The host's
// times are the same as over CM MADs (Profile): rdma_create_qp's two
// commands (create, INIT) before the SYN; on the passive host, the
// driver's upcall through iw_cm to rdma_cm's CONNECT_REQUEST
// (MADProcessing), then the listener's QP moved to RTR and RTS (two
// commands) before the Reply goes (iw_cxgb4's c4iw_accept_cr moves the
// QP to RTS, then sends the Reply), and ESTABLISHED there once it has
// gone (its established_upcall); on the active host, the upcall for the
// Reply (MADProcessing), its RTR and RTS commands, and ESTABLISHED
// (cma_iw_handler's answer to IW_CM_EVENT_CONNECT_REPLY), with the RTR
// on the wire as the QP reaches RTS. Failures map as cma_iw_handler maps
// them: refused (RST) or rejected (the Reply's R bit) is REJECTED,
// timed out UNREACHABLE; a passive end whose Reply goes unanswered
// raises CONNECT_ERROR. rdma_disconnect closes with FIN (both sides then
// see DISCONNECTED); before ESTABLISHED it resets the connection (RST).
// The TCP ports are the active side's ephemeral port (Linux's
// ip_local_port_range) and the listener's; the private data goes as MPA's
// after revision 2's IRD and ORD (rdma_cm adds no header of its own on
// iWARP).

// connectIW is rdma_connect's work on iWARP, from address resolution
// (local, as on RoCE) to the SYN.
func (cm *Manager) connectIW(c *Conn) {
	src := cm.ephemeralPort()
	c.event(EventAddrResolved)
	c.event(EventRouteResolved)
	qp := c.QP
	cm.createAndInit(c, qp, func() {
		c.state = cmReqSent
		c.Sent = c.Inited
		iw, err := cm.h.IWConnect(qp, hca.IWConnectParams{Dest: c.Peer, DestIP: c.PeerIP, LocalPort: src, Port: c.Port, Private: c.Private,
			OnReply:  func(x *hca.IWConn) { cm.process(func() { cm.replyIW(c, x) }) },
			OnFail:   func(_ *hca.IWConn, why hca.IWFailure) { cm.failedIW(c, why) },
			OnClosed: func(*hca.IWConn) { cm.closedIW(c) }})
		if err != nil {
			panic(err) // Connect checked the private data's length
		}
		c.iw = iw
	})
}

// replyIW is the active side's work on the Reply: RTR, RTS (the RTR
// message goes), ESTABLISHED.
func (cm *Manager) replyIW(c *Conn, x *hca.IWConn) {
	if c.gone() || c.state != cmReqSent {
		return
	}
	c.RemoteQPN = x.PeerQPN
	c.Init, c.RespRes = min(c.Init, uint8(min(x.PeerMPA.IRD, 255))), min(c.RespRes, uint8(min(x.PeerMPA.ORD, 255)))
	c.state = cmIdle // between the Reply and RTS
	cm.modify(func() {
		if c.gone() {
			return
		}
		must(cm.h.ModifyQP(c.QP, hca.QPAttr{State: hca.QPRTR, Dest: c.Peer, DestIP: c.PeerIP, DestQPN: x.PeerQPN,
			MaxDestRdAtomic: max(int(c.RespRes), 1)}))
	})
	cm.modify(func() {
		if c.gone() {
			return
		}
		must(cm.h.ModifyQP(c.QP, hca.QPAttr{State: hca.QPRTS, MaxRdAtomic: max(int(c.Init), 1)}))
		c.state = cmEstablished
		c.Established = cm.eng.Now()
		c.event(EventEstablished)
	})
}

// failedIW ends c, whose connection the NIC could not make.
func (cm *Manager) failedIW(c *Conn, why hca.IWFailure) {
	if c.state == cmClosed {
		return
	}
	active := c.Active
	c.close()
	switch {
	case !active:
		c.event(EventConnectError)
	case why == hca.IWTimedOut:
		c.event(EventUnreachable)
	default:
		c.event(EventRejected)
	}
}

// closedIW: the connection's FINs are exchanged (this side's
// rdma_disconnect, or the peer's): its QP goes to the error state and
// DISCONNECTED is raised.
func (cm *Manager) closedIW(c *Conn) {
	if c.state == cmClosed {
		return
	}
	if c.QP != nil && !c.QP.Destroyed() && c.QP.State != hca.QPErr {
		must(cm.h.ModifyQP(c.QP, hca.QPAttr{State: hca.QPErr}))
	}
	c.close()
	c.Disconnected = cm.eng.Now()
	c.event(EventDisconnected)
}

// disconnectIW is rdma_disconnect on iWARP: the QP to the error state and
// a FIN; before ESTABLISHED, an RST.
func (c *Conn) disconnectIW() {
	cm := c.cm
	switch c.state {
	case cmClosed, cmDreqSent:
		return
	case cmEstablished:
		c.state = cmDreqSent
	default:
		c.close()
	}
	if !c.QP.Destroyed() && c.QP.State != hca.QPReset && c.QP.State != hca.QPErr {
		must(cm.h.ModifyQP(c.QP, hca.QPAttr{State: hca.QPErr}))
	}
	if c.iw != nil {
		c.iw.Close()
	}
}

// listenIW starts l on the NIC (rdma_listen over iw_cm).
func (cm *Manager) listenIW(l *Listener) error {
	err := cm.h.IWListen(&hca.IWListener{Port: l.Port, OnRequest: func(x *hca.IWConn) {
		cm.process(func() { cm.requestIW(l, x) })
	}})
	if err != nil {
		delete(cm.listeners, l.Port)
	}
	return err
}

// requestIW is the passive side's work on an MPA Request: CONNECT_REQUEST
// to the listener, whose QP goes through INIT, RTR and RTS before the
// Reply; or the Reply's reject.
func (cm *Manager) requestIW(l *Listener, x *hca.IWConn) {
	c := &Conn{cm: cm, LocalID: cm.nextID, Start: cm.eng.Now(), Peer: x.Peer, PeerIP: x.PeerIP, Port: l.Port, RemoteQPN: x.PeerQPN,
		Private: x.PeerPrivate, listener: l, OnEvent: l.OnEvent, state: cmIdle, iw: x}
	cm.nextID++
	// rdma_accept's responder resources and initiator depth: the
	// Request's ORD and IRD, within this side's limits.
	c.RespRes = uint8(min(int(x.PeerMPA.ORD), cm.h.Prof.MaxDestRdAtomic, 255))
	c.Init = uint8(min(int(x.PeerMPA.IRD), cm.h.Prof.MaxRdAtomic, 255))
	c.event(EventConnectRequest)
	qp := l.OnRequest(c, x.PeerPrivate)
	if qp == nil || qp.Destroyed() || (qp.State != hca.QPReset && qp.State != hca.QPInit) {
		x.Reject(nil) // rdma_reject, or a QP in use
		return
	}
	c.QP = qp
	cm.conns[c.LocalID] = c
	x.OnFail = func(_ *hca.IWConn, why hca.IWFailure) { cm.failedIW(c, why) }
	x.OnClosed = func(*hca.IWConn) { cm.closedIW(c) }
	cm.createAndInit(c, qp, nil)
	cm.modify(func() {
		if c.gone() {
			return
		}
		must(cm.h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTR, Dest: c.Peer, DestIP: c.PeerIP, DestQPN: x.PeerQPN,
			MaxDestRdAtomic: max(int(c.RespRes), 1)}))
	})
	cm.modify(func() {
		if c.gone() {
			return
		}
		must(cm.h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTS, MaxRdAtomic: max(int(c.Init), 1)}))
		c.Sent = cm.eng.Now()
		if err := x.Accept(qp, nil); err != nil {
			// The active side reset the connection meanwhile.
			must(cm.h.ModifyQP(qp, hca.QPAttr{State: hca.QPErr}))
			c.close()
			c.event(EventConnectError)
			return
		}
		c.state = cmEstablished
		c.Established = cm.eng.Now()
		c.event(EventEstablished)
	})
}
