package cm

import (
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
)

// Service ID resolution (IBTA vol. 1, 12.11): what rdma_connect does for
// a UD QP (rdma_cm's UDP port space). The client creates its UD QP and
// moves it through INIT, RTR and RTS (librdmacm's ucma_init_ud_qp: four
// QP commands), then sends a SIDR_REQ naming the service; the server's
// listener gives a UD QP of its own, which it creates and moves to RTS
// likewise (four commands), and answers with a SIDR_REP carrying that
// QP's number and Q_Key (rdma_cm's RDMA_UDP_QKEY); the client is then
// ESTABLISHED, with what it needs to address its datagrams. There is no
// RTU and nothing to tear down. A SIDR_REQ unanswered is sent again after
// 2^(20-8) ms = 4,096 ms (rdma_cm's cma_resolve_ib_udp), at most
// MaxRetries times; a SIDR_REP whose status is not 0 (no listener, or
// one that refused) ends it UNREACHABLE, its status in Reason.

// rdmaPSUDPService is rdma_cm's UDP port space: service ID 0x0111 << 16
// | port.
const rdmaPSUDPService = 0x0000000001110000

// udpQKey is the Q_Key rdma_cm gives UD QPs of the UDP port space
// (librdmacm's RDMA_UDP_QKEY).
const udpQKey = 0x01234567

// SIDR_REP statuses (IBTA table 118).
const (
	sidrSuccess     = 0
	sidrUnsupported = 1 // no such service: no listener
	sidrRejected    = 2
)

// sidr is rdma_connect's work for c's UD QP, from address resolution to
// the SIDR_REQ naming src as its port.
func (cm *Manager) sidr(c *Conn, src uint16) {
	c.event(EventAddrResolved)
	cm.resolveRoute(c, func() {
		cm.command(func() { c.Created = cm.eng.Now() })
		cm.udToRTS(c.QP, func() {
			if c.gone() {
				return
			}
			c.Inited = cm.eng.Now()
			c.state = cmReqSent
			c.Sent = c.Inited
			cm.sendTo(c, &cmMsg{Attr: AttrSIDRREQ, LocalID: c.LocalID, TID: uint64(cm.hiTID)<<32 | uint64(c.LocalID),
				ServiceID: rdmaPSUDPService | uint64(c.Port), SrcIP: cm.h.IP, DstIP: c.PeerIP, Port: src, Private: c.Private})
			c.arm()
		})
	})
}

// udToRTS queues a UD QP's moves to INIT (with rdma_cm's Q_Key), RTR and
// RTS, three commands, and runs then when the last is done.
func (cm *Manager) udToRTS(qp *hca.QP, then func()) {
	cm.command(func() {
		if qp.State == hca.QPReset {
			must(cm.h.ModifyQP(qp, hca.QPAttr{State: hca.QPInit, QKey: udpQKey}))
		} else {
			qp.QKey = udpQKey
		}
	})
	cm.modify(func() {
		if qp.State == hca.QPInit {
			must(cm.h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTR}))
		}
	})
	cm.modify(func() {
		if qp.State == hca.QPRTR {
			must(cm.h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTS}))
		}
		then()
	})
}

// sidrRequest is the server's handling of a SIDR_REQ.
func (cm *Manager) sidrRequest(m *cmMsg, from cmDest) {
	from.ip = m.SrcIP
	key := cmRemote{from.node, m.LocalID}
	if c := cm.byRemote[key]; c != nil {
		if c.state == cmEstablished { // the SIDR_REP was lost
			cm.Retransmitted++
			c.MADs++
			cm.enqueue(c.last, from)
		}
		return
	}
	reply := func(status uint8, qp *hca.QP) *cmMsg {
		r := &cmMsg{Attr: AttrSIDRREP, LocalID: m.LocalID, TID: m.TID, ServiceID: m.ServiceID, Status: status, QKey: udpQKey}
		if qp != nil {
			r.QPN = qp.QPN
		}
		return r
	}
	l := cm.listeners[uint16(m.ServiceID)]
	if l == nil || m.ServiceID&^0xffff != rdmaPSUDPService {
		var b [madBytes]byte
		reply(sidrUnsupported, nil).encode(b[:])
		cm.enqueue(b, from)
		return
	}
	c := &Conn{cm: cm, LocalID: cm.nextID, Start: cm.eng.Now(), RemoteID: m.LocalID, Peer: from.node, PeerIP: m.SrcIP,
		Port: l.Port, Private: m.Private, listener: l, OnEvent: l.OnEvent, state: cmIdle}
	cm.nextID++
	c.event(EventConnectRequest)
	qp := l.OnRequest(c, m.Private)
	if qp == nil || qp.Type != hca.UD {
		var b [madBytes]byte
		reply(sidrRejected, nil).encode(b[:])
		cm.enqueue(b, from)
		return
	}
	c.QP = qp
	cm.byRemote[key] = c
	// Kept to answer a resent SIDR_REQ, for as long as the client may
	// resend it (its retries at the response timeout), then forgotten.
	keep := cmMillis(m.LocalTimeout) * sim.Time(cm.prof.MaxRetries+1)
	if m.LocalTimeout == 0 {
		keep = cmMillis(cm.prof.ResponseTimeout) * sim.Time(cm.prof.MaxRetries+1)
	}
	cm.eng.Schedule(cm.eng.Now()+keep, cm, cmRun, 0, func() {
		if cm.byRemote[key] == c {
			delete(cm.byRemote, key)
		}
	})
	cm.command(func() { c.Created = cm.eng.Now() })
	cm.udToRTS(qp, func() {
		if c.gone() {
			return
		}
		c.state, c.Established = cmEstablished, cm.eng.Now()
		cm.sendTo(c, reply(sidrSuccess, qp))
		c.event(EventEstablished)
	})
}

// sidrReply is the client's handling of a SIDR_REP.
func (cm *Manager) sidrReply(m *cmMsg) {
	c := cm.conns[m.LocalID]
	if c == nil || c.state != cmReqSent {
		cm.Dropped++
		return
	}
	c.disarm()
	if m.Status != sidrSuccess {
		c.Reason = RejectReason(m.Status)
		c.close()
		c.event(EventUnreachable)
		return
	}
	c.RemoteQPN, c.RemoteQKey = m.QPN, m.QKey
	c.state, c.Established = cmEstablished, cm.eng.Now()
	// Nothing more goes on the wire: the connection is a record of where
	// the peer's QP is; it leaves the table at once.
	delete(cm.conns, c.LocalID)
	c.event(EventEstablished)
}
