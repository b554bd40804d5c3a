package cm

import (
	"github.com/lfsim/lfsim/hca"
)

// The CM thread's work for each MAD it receives: the passive side's
// REQ (its QP through INIT, RTR and RTS, then the REP), the active
// side's REP (RTR, RTS, the RTU), REJ, RTU, DREQ and DREP, and SIDR's
// two (sidr.go).

// handle is the CM thread's work for one MAD.
func (cm *Manager) handle(m *cmMsg, from cmDest) {
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
			c.Established = cm.eng.Now()
			c.event(EventEstablished)
		}
	case AttrREJ:
		if c.state == cmReqSent || c.state == cmRepSent {
			c.Reason = m.Reason
			c.close()
			c.event(EventRejected)
		}
	case AttrDREQ:
		// Also in REP-sent: the RTU was lost, yet the peer used the
		// connection and now ends it (the kernel's cm_dreq_handler).
		if c.state == cmEstablished || c.state == cmDreqSent || c.state == cmRepSent {
			if !c.QP.Destroyed() {
				must(cm.h.ModifyQP(c.QP, hca.QPAttr{State: hca.QPErr}))
			}
			cm.sendTo(c, &cmMsg{Attr: AttrDREP, TID: m.TID, LocalID: c.LocalID, RemoteID: c.RemoteID})
			c.close()
			c.Disconnected = cm.eng.Now()
			c.event(EventDisconnected)
		}
	case AttrDREP:
		if c.state == cmDreqSent {
			c.close()
			c.Disconnected = cm.eng.Now()
			c.event(EventDisconnected)
		}
	}
}

// request is the passive side's handling of a REQ.
func (cm *Manager) request(m *cmMsg, from cmDest) {
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
	c := &Conn{cm: cm, LocalID: cm.nextID, Start: cm.eng.Now(), psn: cm.rng.Uint32() & 0xffffff,
		RemoteID: m.LocalID, Peer: from.node, PeerIP: m.SrcIP, Port: l.Port, RemoteQPN: m.QPN,
		Private: m.Private, tid: m.TID, listener: l, OnEvent: l.OnEvent, state: cmIdle, wait: cmMillis(m.LocalTimeout)}
	cm.nextID++
	// rdma_accept's responder resources and initiator depth: the
	// request's, within this side's limits.
	c.RespRes = min(m.InitDepth, uint8(min(cm.h.Prof.MaxDestRdAtomic, 255)))
	c.Init = min(m.RespRes, uint8(min(cm.h.Prof.MaxRdAtomic, 255)))
	c.event(EventConnectRequest)
	qp := l.OnRequest(c, m.Private)
	if qp == nil {
		cm.reject(m, from, RejectConsumerRejection)
		return
	}
	if qp.Destroyed() || (qp.State != hca.QPReset && qp.State != hca.QPInit) {
		// A REQ for a connection this side gave up on (its REP went
		// unanswered), whose QP is in use: the kernel's stale-connection
		// REJ.
		cm.reject(m, from, RejectStaleConn)
		return
	}
	c.QP = qp
	cm.conns[c.LocalID] = c
	cm.byRemote[cmRemote{c.Peer, c.RemoteID}] = c
	cm.createAndInit(c, qp, nil)
	cm.modify(func() {
		if c.gone() {
			return
		}
		must(cm.h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTR, Dest: c.Peer, DestIP: c.PeerIP, DestQPN: m.QPN, RQPSN: m.StartPSN,
			MaxDestRdAtomic: max(int(c.RespRes), 1)}))
	})
	cm.modify(func() {
		if c.gone() {
			return
		}
		must(cm.h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTS, SQPSN: c.psn, MaxRdAtomic: max(int(c.Init), 1),
			RetryCnt: int(m.RetryCount), RNRRetry: int(m.RNRRetry), SetRetries: true}))
		c.state = cmRepSent
		c.Sent = cm.eng.Now()
		cm.sendTo(c, &cmMsg{Attr: AttrREP, TID: c.tid, LocalID: c.LocalID, RemoteID: c.RemoteID, QPN: qp.QPN,
			StartPSN: c.psn, RespRes: c.RespRes, InitDepth: c.Init, RNRRetry: m.RNRRetry})
		c.arm()
	})
}

// reject answers a REQ with a REJ (the kernel's cm_issue_rej for a
// request no listener takes, or rdma_reject's).
func (cm *Manager) reject(m *cmMsg, from cmDest, why RejectReason) {
	var b [madBytes]byte
	(&cmMsg{Attr: AttrREJ, TID: m.TID, RemoteID: m.LocalID, Reason: why, Rejected: 0}).encode(b[:])
	cm.enqueue(b, from)
}

// reply is the active side's handling of a REP: RTR, RTS, then the RTU
// and ESTABLISHED. A REP again after that (the RTU was lost) gets the
// RTU again.
func (cm *Manager) reply(c *Conn, m *cmMsg) {
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
	c.event(EventConnectResponse)
	cm.modify(func() {
		if c.gone() {
			return
		}
		must(cm.h.ModifyQP(c.QP, hca.QPAttr{State: hca.QPRTR, Dest: c.Peer, DestIP: c.PeerIP, DestQPN: m.QPN, RQPSN: m.StartPSN,
			MaxDestRdAtomic: max(int(m.InitDepth), 1)}))
	})
	cm.modify(func() {
		if c.gone() {
			return
		}
		must(cm.h.ModifyQP(c.QP, hca.QPAttr{State: hca.QPRTS, SQPSN: c.psn, MaxRdAtomic: max(int(m.RespRes), 1)}))
		cm.sendTo(c, &cmMsg{Attr: AttrRTU, TID: c.tid, LocalID: c.LocalID, RemoteID: c.RemoteID})
		c.state = cmEstablished
		c.Established = cm.eng.Now()
		c.event(EventEstablished)
	})
}
