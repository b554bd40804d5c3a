package hca

import (
	"fmt"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// UET's receiver credit-based congestion control (RCCC,
// hca.uet.receiver_credits; the model is congestion/rccc.go's, after
// ultraethernet/uet-htsim's htsim/sim/uec.cpp): the HCA's part is to
// carry it.
//
//   - A requester QP with Credits sends a request (a resend too) only
//     while it holds credit (holdUntil, srRetransmit); each request
//     carries its pull target (fabric.PacketExt.Pull), and asks for an
//     acknowledgement when it spends the last credit (uet-htsim's
//     sendNewPacket: set_ar when _credit <= 0).
//   - The pull target is divided among the RCCC QPs of the HCA that wait
//     to send at that moment (creditActive; uet-htsim's
//     UecNIC::activeSources), and counts a READ as its one request
//     (creditBacklog): its responses are the responder's data, not
//     credited.
//   - The responder QP's CreditSink hears the pull target of each request
//     and trimmed header, and is told of every request that arrives
//     (Arrived: the receiving host's oversubscription control counts
//     them); the receiving host's pacer answers with credit packets
//     (SendCredit).
//   - A credit packet, and an RTS (a requester whose retransmission
//     timer fires without credit tells its receiver its pull target,
//     srTimeout), are UET PDS control packets, each as large as a PDS
//     ACK, 70 bytes on the frame (fabric.UETFrame; uet-htsim makes its
//     UecPullPacket and UecRtsPacket the size of its ACK, ACKSIZE 64,
//     uecpacket.h), in the class of the NIC's CNPs (as htsim sends them
//     at its high priority). They travel as KindCNP packets whose
//     PacketExt.Credit says which; they count as no CNP.
//   - ACKs and trim NACKs end the requester's speculation (Heard).
//   - A requester held without credit with nothing unacknowledged (new
//     work on a QP whose earlier messages went on speculative credit,
//     whose pull targets asked for none) sends an RTS too (creditHeld):
//     nothing else would tell its receiver; and again at each ACK
//     timeout until credit comes (askCredit), for a loss of the RTS or
//     of its credit.
//     uet-htsim has no such case covered (its continueConnection
//     asserts a pending timeout); this is lfsim's.

// Credits is a requester QP's side of RCCC (congestion.RCCC).
type Credits interface {
	// CanSend reports whether the QP holds any credit.
	CanSend() bool
	// Sent takes a request of wire bytes from the credit and returns its
	// pull target; backlog is what the QP still has to send after it
	// (bytes on the wire), window its congestion window (0: none),
	// active the QPs of the HCA that wait to send a request now, the QP
	// among them (creditActive).
	Sent(wire, backlog, window, active int64) int64
	// Target is an RTS's pull target.
	Target(backlog, window int64) int64
	// Heard is told of each ACK or NACK.
	Heard()
	// Granted takes a credit packet: pull bytes granted in all.
	Granted(pull int64)
	// AskOnce reports whether an RTS should go now: true once until
	// credit comes.
	AskOnce() bool
}

// CreditSink is a responder QP's side of RCCC (congestion.RCCCSink).
type CreditSink interface {
	// PullTarget takes a request's pull target.
	PullTarget(pt int64)
	// Trimmed takes the pull target of a trimmed header or an RTS.
	Trimmed(pt int64)
	// Arrived is told of each request that reaches the QP (a data
	// packet, CE-marked or not, a trimmed header, trimmed at the
	// receiver's own link or before) and each RTS (neither).
	Arrived(ce, trimmed, lastHop bool)
}

// creditBacklog is what qp still has to send, in bytes on the wire: the
// requests posted and not yet sent, and those waiting to be resent
// (trimmed, or in a timeout's recovery), each a full packet (uet-htsim's
// _backlog + _rtx_backlog, which count the last packet's own bytes). A
// READ posted counts its one request, not the PSNs its responses take
// (readPSNs): its responses are the responder's to send, and a QP with
// several READs posted would otherwise ask for credit for data it never
// sends (uet-htsim has no READ). A rewind (a READ's missing responses
// asked for again, srTimeout, or an RNR NAK's) moves the send position
// back below the highest PSN sent, and what it sends again from there
// counts too (rewound): uet-htsim's _rtx_backlog counts every resend it
// owes.
func (h *HCA) creditBacklog(qp *QP) int64 {
	n := max(qp.endPSN-qp.maxSent-qp.readPSNs, 0)
	at := sendPos{qp.sendIdx, qp.sendOff, qp.nextPSN}
	if s := qp.sr; s != nil && s.resending {
		at = s.aside // a resend's packet, built at its hole's position
	}
	if at.next < qp.maxSent {
		n += rewound(qp, at)
	}
	if s := qp.sr; s != nil {
		n += int64(len(s.trims))
		if s.recovering && s.top > s.next {
			n += s.top - s.next - readRecovered(qp, s.next, s.top)
		}
	}
	return n * h.FullFrame(qp)
}

// rewound is how many requests qp sends again from its send position at,
// moved back by a rewind, up to the highest PSN it has sent: a READ or
// an atomic one, its request (a READ's from its first missing response,
// setSendPos), every other WQE its PSNs. Before, the RTS of a QP held
// without credit when its timeout rewound a READ asked for none, and no
// credit came (TestRCCCReadAskedAgainAsksCredit).
func rewound(qp *QP, at sendPos) int64 {
	var n int64
	for i := at.idx; i < len(qp.sq); i++ {
		w := qp.sq[i]
		if w.FirstPSN >= qp.maxSent {
			break
		}
		if w.Op.isRead() || w.Op.isAtomic() {
			n++
			continue
		}
		from := w.FirstPSN
		if i == at.idx {
			from += at.off
		}
		n += max(min(w.FirstPSN+w.NPkts, qp.maxSent)-from, 0)
	}
	return n
}

// readRecovered is how many of the PSNs from..to (a timeout's recovery)
// recovery does not resend because they belong to READs or atomics: all
// of a READ's but its request, which goes again once, and only while no
// response to it has come (srHole's rule: a READ whose responses came,
// all or some, is passed over, its missing responses asked for by a
// rewind instead). A READ whose request recovery has resent already
// (from past its first PSN) counts whole. Only READs sent and not
// completed can be there (rdOut).
func readRecovered(qp *QP, from, to int64) int64 {
	if qp.rdOut == 0 {
		return 0
	}
	var n int64
	for _, w := range qp.sq {
		if w.FirstPSN >= to {
			break
		}
		lo, hi := max(w.FirstPSN, from), min(w.FirstPSN+w.NPkts, to)
		if !(w.Op.isRead() || w.Op.isAtomic()) || hi <= lo {
			continue
		}
		n += hi - lo
		if lo == w.FirstPSN && !w.respDone && w.respPkts == 0 {
			n-- // its request, still to be resent
		}
	}
	return n
}

// creditActive counts the RCCC requester QPs of the HCA that wait to
// send a request now, qp (which is sending one) among them: uet-htsim's
// UecNIC::activeSources, the sources queued for the NIC's link, each
// there while its credit and window let it send (isSendPermitted), the
// sender first in line when its turn comes. A QP counts when it is in a
// transmit ring, holds credit, has a request or a resend to send, its
// window and its rate limiter let it, and the WQE's doorbell is done;
// what pauses its priority does not count (the NIC's queue of sources
// knows no pause). The count is kept as the QPs change (creditwait.go),
// so a request reads no other QP; creditActiveScan reads the rings for
// it, as the count did before.
func (h *HCA) creditActive(qp *QP) int64 {
	n := h.creditWaiting(qp)
	if creditCheck {
		if want := h.creditActiveScan(qp); n != want {
			panic(fmt.Sprintf("hca: %s: %v at %v: %d RCCC QPs counted waiting to send, %d in the transmit rings",
				h.Name, qp, h.eng.Now(), n, want))
		}
	}
	return n
}

// creditActiveScan is creditActive read from the HCA's transmit rings.
func (h *HCA) creditActiveScan(qp *QP) int64 {
	n := int64(1)
	now := h.eng.Now()
	count := func(ring []*QP) {
		for _, o := range ring {
			if o != qp && h.waitsToSend(o, now) {
				n++
			}
		}
	}
	if h.arb != nil {
		for i := range h.arb.rings {
			count(h.arb.rings[i])
		}
	} else {
		count(h.active)
	}
	return n
}

// waitsToSend reports whether RCCC requester QP o, in a transmit ring,
// could send a request now (creditActiveScan).
func (h *HCA) waitsToSend(o *QP, now sim.Time) bool {
	if o.Credits == nil || o.Type != RC || o.State != QPRTS || o.tcp != nil || !o.Credits.CanSend() || o.nextTx > now {
		return false
	}
	if o.Window > 0 && h.inFlight(o)*int64(o.pmtu) >= o.Window {
		return false
	}
	if o.srPending() {
		return true
	}
	return o.sendIdx < len(o.sq) && o.sq[o.sendIdx].ready <= now && !o.rnrWait.Pending()
}

// FullFrame is the wire bytes of qp's full request.
func (h *HCA) FullFrame(qp *QP) int64 { return h.FrameOf(int(qp.pmtu)) }

// FrameOf is the wire bytes of a full request of a QP whose path MTU is
// mtu bytes (FullFrame before RTR has set it).
func (h *HCA) FrameOf(mtu int) int64 {
	w, _ := h.wire(fabric.TransportRC|fabric.OpWriteMiddle, mtu)
	return int64(w)
}

// spendCredit takes request p, sent now, from qp's credit and writes its
// pull target.
func (h *HCA) spendCredit(qp *QP, p *fabric.Packet) {
	h.touchCredit(qp) // what it sends changes its place in creditActive's count
	h.pool.Ext(p).Pull = qp.Credits.Sent(int64(p.Wire), h.creditBacklog(qp), qp.Window, h.creditActive(qp))
	if !qp.Credits.CanSend() {
		p.AckReq = true
	}
}

// heard tells RCCC requester qp's credits of an ACK or a NACK.
func (h *HCA) heard(qp *QP) {
	h.touchCredit(qp)
	qp.Credits.Heard()
}

// creditHeld takes requester qp, which has work but no credit: with
// nothing unacknowledged no ACK or credit is coming, so it asks its
// receiver for credit with an RTS, sent from an event of its own (the
// transmit arbiter, which finds it held, is choosing a packet now).
func (h *HCA) creditHeld(qp *QP) {
	if qp.una >= qp.maxSent && qp.Credits.AskOnce() {
		h.eng.Cancel(qp.rts) // an RTS due later, asking again for earlier work: now
		qp.rts = h.eng.After(0, h, evRTS, 0, qp)
	}
}

// askCredit sends qp's RTS, if it is still held without credit, and,
// while nothing is unacknowledged (no ACK timer runs, whose timeout
// sends the RTS then: srTimeout), asks again each ACK timeout until
// credit comes: the RTS, or the credit it brings, may be lost, and
// nothing else would tell the receiver (as uet-htsim's sender sends its
// RTS at each retransmission timeout: rtxTimerExpired).
func (h *HCA) askCredit(qp *QP) {
	qp.rts = sim.Timer{}
	if qp.Credits == nil || qp.Credits.CanSend() || qp.destroyed || qp.State == QPErr || qp.State == QPReset {
		return
	}
	h.sendRTS(qp)
	if d := h.ackTimeout(qp); d > 0 && qp.una >= qp.maxSent && h.creditBacklog(qp) > 0 {
		qp.rts = h.eng.After(d, h, evRTS, 0, qp)
	}
}

// SendCredit sends the requester of responder QP qp a credit packet that
// grants pull bytes in all (the receiving host's pacer calls it).
func (h *HCA) SendCredit(qp *QP, pull int64) {
	h.sendCreditCP(qp, fabric.CreditGrant, pull)
}

// sendRTS tells qp's responder its pull target: qp's retransmission
// timer fired while it held no credit.
func (h *HCA) sendRTS(qp *QP) {
	h.sendCreditCP(qp, fabric.CreditRTS, qp.Credits.Target(h.creditBacklog(qp), qp.Window))
}

// sendCreditCP queues an RCCC control packet of qp's to its peer.
func (h *HCA) sendCreditCP(qp *QP, which fabric.CreditCP, pull int64) {
	if qp.destroyed || qp.State == QPErr || qp.State == QPReset {
		return
	}
	c := h.pool.Get()
	c.Kind = fabric.KindCNP
	c.Opcode = fabric.OpCNP
	// The class of the NIC's CNPs (cnp_802p_prio 6, DSCP 48 by
	// default), served before data where the switches schedule by
	// priority: uet-htsim sends its pulls and RTSs at its high priority
	// (UecPullPacket, UecRtsPacket::priority: PRIO_HI), and credit that
	// waits behind data in a queue of another flow's holds its sender
	// back (an oblivious permutation on a k=8 fat tree ended at 296 us
	// with credit at the data's priority, 257 us so).
	c.Priority, c.DSCP = h.Prof.CNPPriority, h.Prof.CNPDSCP
	c.Src, c.Dst = h.ID, qp.Remote
	if qp.port2 {
		c.Src = h.cold.id2
	}
	c.Flow = qp.flow
	c.DestQP, c.SrcQP = qp.RemoteQPN, qp.QPN
	c.Wire, c.Link = h.wire(fabric.OpCNP, 0)
	c.InPort = -1
	x := h.pool.Ext(c)
	x.Credit, x.Pull = which, pull
	h.coldPart().creditCPs++
	h.pushCtrl(c)
}

// creditArrival takes an RCCC control packet for qp.
func (h *HCA) creditArrival(qp *QP, p *fabric.Packet) {
	switch p.Ext.Credit {
	case fabric.CreditGrant:
		if qp.Credits != nil {
			qp.Credits.Granted(p.Ext.Pull)
			h.activate(h.touched(qp))
		}
	case fabric.CreditRTS:
		if k := h.creditSink(qp); k != nil {
			k.Arrived(false, false, false)
			k.Trimmed(p.Ext.Pull)
		}
	}
}

// CreditPackets returns how many RCCC control packets (credit and RTS)
// the HCA sent.
func (h *HCA) CreditPackets() int64 {
	if h.cold == nil {
		return 0
	}
	return h.cold.creditCPs
}

// creditSink is responder qp's side of RCCC, made when its requester
// first asks for credit; nil where the host runs none.
func (h *HCA) creditSink(qp *QP) CreditSink {
	if qp.CreditSink == nil && h.cold != nil && h.cold.newCreditSink != nil {
		qp.CreditSink = h.cold.newCreditSink(qp)
	}
	return qp.CreditSink
}

// SetCreditSinks has the HCA make the receiver's side of RCCC with make
// for each responder QP whose requester asks for credit.
func (h *HCA) SetCreditSinks(make func(qp *QP) CreditSink) {
	h.coldPart().newCreditSink = make
}
