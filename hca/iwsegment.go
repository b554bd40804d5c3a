package hca

import (
	"github.com/lfsim/lfsim/fabric"
)

// The segments of iwconn.go's exchange: made (iwSend) and taken
// (iwSegment), each as fabric's tcpsetup.go lays its fields out, sized as
// its frame is (fabric.SetupFrame) and, under an overlay, wrapped.

// iwSend sends c's segment step, in its QP's priority and DSCP (the
// NIC's defaults before it has one), Not-ECT (RFC 3168 §6.1.1 keeps
// SYNs so; the others follow), from the port its QP sends on.
func (h *HCA) iwSend(c *IWConn, step fabric.SetupStep) {
	p := h.pool.Get()
	p.Src, p.Dst = h.ID, c.Peer
	p.Priority, p.DSCP = h.Prof.Priority, h.Prof.Priority<<3
	if h.Prof.DSCPSet {
		p.DSCP = h.Prof.DSCP
	}
	var qpn uint32
	if qp := c.QP; qp != nil {
		qpn = qp.QPN
		p.Priority, p.DSCP = qp.Priority, qp.dscp()
		if qp.port2 {
			p.Src = h.cold.id2
		}
	}
	p.Flow = fabric.FlowKey{SrcIP: h.IP, DstIP: c.PeerIP, SrcPort: c.LocalPort, DstPort: c.PeerPort}
	p.SetSetup(step, c.Active, c.id, c.peerID, qpn, c.PeerQPN, c.LocalPort, c.PeerPort)
	tcp := h.Prof.TCP
	params, private := 0, 0
	if step == fabric.StepSYN || step == fabric.StepSYNACK {
		// The largest segment payload: a SEND's FPDU at the MTU (the
		// untagged header is the longer), and the timestamps it carries.
		mss := tcp.MPA.FPDUBytes(fabric.DDPSegmentBytes(fabric.OpSendMiddle, h.Prof.MTU))
		if tcp.Timestamps {
			mss += fabric.TCPTimestampBytes
		}
		p.SetSynOptions(fabric.SynOptions{MSS: uint16(min(mss, 0xFFFF)), Shift: fabric.WindowShift(tcp.RcvWin), Window: uint32(tcp.RcvWin),
			SACK: tcp.SACK, Timestamp: tcp.Timestamps})
	}
	if step == fabric.StepMPARequest || step == fabric.StepMPAReply {
		m := h.mpaParams(c.QP)
		m.Reject = c.rejecting
		p.SetMPAStart(m)
		params, private = m.ParamsBytes(), len(c.private)
		if private > 0 {
			h.pool.Ext(p).Data = c.private
		}
	}
	p.Wire, p.Link = h.overlaid(fabric.SetupFrame(step, tcp.MPA, tcp.SACK, tcp.Timestamps, params, private)), fabric.Ethernet
	p.InPort = -1
	c.Segments++
	h.pushCtrl(p)
}

// iwSegment takes a setup segment that arrived: the connection it is for
// (by its id at this end, or for a SYN the listener of its port) moves
// on; a segment for no connection is dropped, but a SYN no one takes is
// answered by RST.
func (h *HCA) iwSegment(p *fabric.Packet) {
	from, to := p.SetupIDs()
	t := h.iw()
	step := p.Step()
	if step == fabric.StepSYN {
		h.iwSyn(p, from)
		return
	}
	c := t.byID[to]
	if c == nil || c.state == iwGone || c.peerID != 0 && c.peerID != from {
		// A connection gone, or another's: TCP answers a segment for a
		// connection that does not exist with RST, unless it is one
		// (RFC 9293 §3.10.7.1).
		if step != fabric.StepRST {
			h.iwReset(p, from)
		}
		return
	}
	if c.peerID == 0 {
		c.peerID = from
	}
	if c.Active {
		h.iwActiveSegment(c, p)
	} else {
		h.iwPassiveSegment(c, p)
	}
	h.iwCloseSegment(c, p)
}

// iwSyn takes a SYN: a new passive end of the listener of its port,
// which answers with its SYN-ACK, or the same end's answer again.
func (h *HCA) iwSyn(p *fabric.Packet, from uint32) {
	t := h.iw()
	ip := p.Flow.SrcIP
	if c := t.byPeer[iwPeer{ip, from}]; c != nil {
		if c.state == iwSynRcvd {
			h.iwSend(c, fabric.StepSYNACK) // ours was lost: the SYN came again
		}
		return
	}
	srcQP, _ := p.SetupQPs()
	srcPort, dstPort := p.SetupPorts()
	l := t.listeners[dstPort]
	if l == nil {
		h.iwReset(p, from) // no one listens
		return
	}
	c := h.newIWConn(nil, false)
	c.listener = l
	c.Peer, c.PeerIP, c.peerID, c.PeerQPN = p.Src, ip, from, srcQP
	c.LocalPort, c.PeerPort = dstPort, srcPort
	t.byPeer[iwPeer{ip, from}] = c
	c.Start = h.eng.Now()
	c.state = iwSynRcvd
	h.iwSend(c, fabric.StepSYNACK)
	h.iwAwait(c, fabric.StepSYNACK)
}

// iwReset answers p, a segment for no connection here, with RST (the
// NIC's TCP, RFC 9293 §3.10.7.1): to its sender's port and id, from the
// port it was sent to.
func (h *HCA) iwReset(p *fabric.Packet, from uint32) {
	srcQP, _ := p.SetupQPs()
	srcPort, dstPort := p.SetupPorts()
	r := &IWConn{h: h, Peer: p.Src, PeerIP: p.Flow.SrcIP, LocalPort: dstPort, PeerPort: srcPort, peerID: from, PeerQPN: srcQP}
	h.iwSend(r, fabric.StepRST)
}

// iwActiveSegment moves the active end c on with p.
func (h *HCA) iwActiveSegment(c *IWConn, p *fabric.Packet) {
	switch p.Step() {
	case fabric.StepSYNACK:
		if c.state != iwSynSent {
			if c.state > iwSynSent && c.state < iwFinSent {
				h.iwSend(c, fabric.StepACK) // our ACK was lost
			}
			return
		}
		h.iwAnswered(c)
		h.iwSend(c, fabric.StepACK)
		c.state = iwReqSent
		h.iwSend(c, fabric.StepMPARequest)
		h.iwAwait(c, fabric.StepMPARequest)
	case fabric.StepRST:
		if c.state < iwFPDU {
			h.iwFail(c, IWRefused)
		}
	case fabric.StepMPAReply:
		switch {
		case c.state == iwFPDU && c.resend == fabric.StepRTR:
			h.iwSend(c, fabric.StepRTR) // the peer did not hear it
			return
		case c.state != iwReqSent:
			return
		}
		h.iwAnswered(c)
		c.PeerMPA = p.MPAStart()
		c.PeerPrivate = peerPrivate(p)
		if qpn, _ := p.SetupQPs(); qpn != 0 {
			c.PeerQPN = qpn
		}
		if c.PeerMPA.Reject {
			h.iwFail(c, IWRejected)
			return
		}
		c.state = iwReplied
		if c.OnReply != nil {
			c.OnReply(c)
		}
		if qp := c.QP; c.state == iwReplied && qp != nil && !qp.destroyed && qp.tcp != nil && (qp.State == QPRTS || qp.State == QPSQD) {
			h.iwFPDU(c)
		}
	case fabric.StepRTRResponse:
		if c.state == iwFPDU {
			if c.resend == fabric.StepRTR {
				h.iwAnswered(c)
			}
			h.iwSend(c, fabric.StepRTRAck)
		}
	}
}

// iwPassiveSegment moves the passive end c on with p.
func (h *HCA) iwPassiveSegment(c *IWConn, p *fabric.Packet) {
	switch p.Step() {
	case fabric.StepACK:
		if c.state == iwSynRcvd {
			h.iwAnswered(c)
		}
	case fabric.StepMPARequest:
		switch c.state {
		case iwSynRcvd:
			h.iwAnswered(c) // the Request acknowledges the SYN-ACK too
		case iwRepSent:
			h.iwSend(c, fabric.StepMPAReply) // ours was lost
			return
		default:
			return
		}
		c.PeerMPA = p.MPAStart()
		c.PeerPrivate = peerPrivate(p)
		c.state = iwReqRcvd
		if c.listener.OnRequest != nil {
			c.listener.OnRequest(c)
		}
	case fabric.StepRTR:
		switch {
		case c.state == iwRepSent:
			h.iwAnswered(c)
			c.state = iwFPDU
			if qp := c.QP; qp != nil && qp.tcp != nil && qp.tcp.await {
				qp.tcp.await = false // the Initiator's RTR: the Responder may send
				h.activate(qp)
			}
		case c.state != iwFPDU:
			return
		}
		h.iwSend(c, fabric.StepRTRResponse)
		h.iwAwait(c, fabric.StepRTRResponse)
	case fabric.StepRTRAck:
		if c.state == iwFPDU && c.resend == fabric.StepRTRResponse {
			h.iwAnswered(c)
		}
	}
}

// iwCloseSegment takes the segments that close a connection, at either
// end.
func (h *HCA) iwCloseSegment(c *IWConn, p *fabric.Packet) {
	switch p.Step() {
	case fabric.StepFIN:
		switch c.state {
		case iwFPDU, iwRepSent, iwReplied:
			h.iwAnswered(c)
			c.state = iwLastAck
			h.iwSend(c, fabric.StepFINACK)
			h.iwAwait(c, fabric.StepFINACK)
			c.Closed = h.eng.Now()
			if c.OnClosed != nil {
				c.OnClosed(c)
			}
		case iwLastAck:
			h.iwSend(c, fabric.StepFINACK) // ours was lost
		}
	case fabric.StepFINACK:
		switch c.state {
		case iwFinSent:
			h.iwSend(c, fabric.StepLastACK)
			h.iwClosed(c)
		}
	case fabric.StepLastACK:
		if c.state == iwLastAck {
			h.iwForget(c)
		}
	case fabric.StepRST:
		switch {
		case c.state == iwFinSent || c.state == iwLastAck:
			h.iwClosed(c) // the peer had let go: the close ends
		case !c.Active && c.state != iwGone:
			h.iwForget(c)
		}
	}
}

// peerPrivate is an MPA frame's private data after its revision's IRD
// and ORD: the segment's bytes, copied.
func peerPrivate(p *fabric.Packet) []byte {
	if d := p.Data(); len(d) > 0 {
		return append([]byte(nil), d...)
	}
	return nil
}
