package hca

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// The requester: segmentation of WQEs into packets, ACK and NAK handling,
// READ and atomic responses, retransmission (go-back-N, go-back-0),
// timeouts and RNR retries.

// msgOpcodes are a multi-packet operation's opcodes by packet position.
type msgOpcodes struct{ only, onlyImm, first, middle, last, lastImm fabric.Opcode }

var (
	sendOpcodes  = msgOpcodes{fabric.OpSendOnly, fabric.OpSendOnlyImm, fabric.OpSendFirst, fabric.OpSendMiddle, fabric.OpSendLast, fabric.OpSendLastImm}
	writeOpcodes = msgOpcodes{fabric.OpWriteOnly, fabric.OpWriteOnlyImm, fabric.OpWriteFirst, fabric.OpWriteMiddle, fabric.OpWriteLast, fabric.OpWriteLastImm}
)

// at returns the opcode of packet i of n, with immediate data or not.
func (o msgOpcodes) at(i, n int64, imm bool) fabric.Opcode {
	first, last := i == 0, i == n-1
	switch {
	case first && last && imm:
		return o.onlyImm
	case first && last:
		return o.only
	case first:
		return o.first
	case last && imm:
		return o.lastImm
	case last:
		return o.last
	}
	return o.middle
}

// opcodeFor returns the BTH operation of packet i of a message of n
// packets.
func opcodeFor(op WROpcode, i, n int64) fabric.Opcode {
	switch op {
	case WRSend, WRSendImm:
		return sendOpcodes.at(i, n, op == WRSendImm)
	case WRWrite, WRWriteImm:
		return writeOpcodes.at(i, n, op == WRWriteImm)
	case WRRead:
		return fabric.OpReadRequest
	case WRCompSwap:
		return fabric.OpCompareSwap
	}
	return fabric.OpFetchAdd
}

// nextRequest builds the next request packet of qp.
func (h *HCA) nextRequest(qp *QP) *fabric.Packet { return h.request(qp, qp.sq[qp.sendIdx]) }

// request builds packet qp.sendOff of w, which is qp.sq[qp.sendIdx] or,
// on iWARP, a READ completed before its request's segment was
// acknowledged (tcpResend), and moves the send position past it.
func (h *HCA) request(qp *QP, w *WQE) *fabric.Packet {
	now := h.eng.Now()
	i := qp.sendOff
	psn := w.FirstPSN + i
	mtu := int64(qp.pmtu)
	p := h.pool.Get()
	p.Kind = fabric.KindData
	p.Priority, p.SL, p.DSCP = qp.Priority, qp.SL, qp.dscp()
	if qp.ECT {
		p.ECN = fabric.ECT0
	}
	p.Src = h.ID
	if qp.port2 {
		p.Src = h.cold.id2
	}
	p.SrcQP = qp.QPN
	p.PSN = uint32(psn) & psnMask
	p.InPort = -1
	p.SentAt = now
	if qp.Type == UD {
		ah := w.wr.AH
		p.Dst = ah.Dest
		p.DestQP, p.QKey = w.wr.RemoteQPN, w.wr.RemoteQKey
		p.Flow = fabric.FlowKey{SrcIP: h.IP, DstIP: ah.DestIP, SrcPort: fabric.RoCEv2SourcePort(qp.QPN), DstPort: fabric.RoCEv2Port}
	} else {
		p.Dst, p.DestQP, p.Flow = qp.Remote, qp.RemoteQPN, qp.flow
		if qp.Entropy != nil {
			p.Flow.SrcPort = qp.Entropy.Next()
		}
	}
	var payload int64
	op := opcodeFor(w.Op, i, w.reqPkts)
	switch {
	case w.Op.isRead():
		off := i * mtu
		p.VA, p.RKey, p.DMALen = w.wr.RemoteAddr+uint64(off), w.wr.RKey, uint32(w.Size-off)
		p.AckReq = true
		if !w.requested {
			w.requested = true
			qp.rdOut++
		}
		w.retryAt = psn
	case w.Op.isAtomic():
		p.VA, p.RKey = w.wr.RemoteAddr, w.wr.RKey
		x := h.pool.Ext(p)
		x.SwapAdd, x.Compare = w.wr.CompareAdd, w.wr.Swap
		if w.Op == WRCompSwap {
			x.SwapAdd, x.Compare = w.wr.Swap, w.wr.CompareAdd
		}
		p.AckReq = true
		if !w.requested {
			w.requested = true
			qp.rdOut++
		}
	default:
		off := i * mtu
		payload = min(mtu, w.Size-off)
		if w.data != nil {
			h.pool.Ext(p).Data = w.data[off : off+payload]
		}
		if i == 0 && (w.Op == WRWrite || w.Op == WRWriteImm) {
			p.VA, p.RKey, p.DMALen = w.wr.RemoteAddr, w.wr.RKey, uint32(w.Size)
		}
		if w.Op.hasImm() && i == w.reqPkts-1 {
			h.pool.Ext(p).Imm = w.wr.Imm
		}
		if w.wr.Solicited && i == w.reqPkts-1 && (w.Op == WRSend || w.Op == WRSendImm || w.Op == WRWriteImm) {
			p.SE = true
		}
		// A packet that fills the window asks too: until it is
		// acknowledged nothing more may go.
		p.AckReq = i == w.reqPkts-1 || (h.Prof.AckEvery > 0 && (psn+1-w.FirstPSN)%int64(h.Prof.AckEvery) == 0) ||
			qp.Window > 0 && h.inFlightTo(qp, psn+1)*int64(mtu) >= qp.Window
	}
	p.Opcode = qp.Type.transport() | op
	p.Payload = int32(payload)
	p.Wire, p.Link = h.wireTo(p.Opcode, int(payload), p.Dst)
	if qp.INT {
		h.pool.AddINT(p)
		p.Wire += fabric.INTHeaderBytes
	}

	if qp.tcp != nil {
		qp.tcp.snd.sent(psn)
	}
	h.Stats.DataPackets++
	h.Stats.TxPackets++
	if s := qp.sr; s != nil && s.sentAt != nil {
		s.sentAt[psn%srWindow] = now // uet-htsim's RTO runs from it (uetRTODeadline)
	}
	if psn < qp.maxSent {
		h.Stats.Retransmitted++
		w.Retransmits++
	}
	if psn >= qp.maxSent {
		qp.readPSNs -= w.NPkts - w.reqPkts // a READ's first request: its responses' PSNs are sent for
	}
	// Advance the send position.
	if w.Op.isRead() || w.Op.isAtomic() || i == w.reqPkts-1 {
		qp.sendIdx++
		qp.sendOff = 0
		qp.nextPSN = w.FirstPSN + w.NPkts
	} else {
		qp.sendOff++
		qp.nextPSN = psn + 1
	}
	qp.maxSent = max(qp.maxSent, qp.nextPSN)
	if qp.Credits != nil {
		h.spendCredit(qp, p)
	}
	h.paced(qp, p, now)
	switch qp.Type {
	case RC:
		if qp.timerDue == 0 {
			h.armTimer(qp)
		}
	default:
		// UC and UD complete a WQE once its last packet is on its way.
		if qp.sendIdx > 0 {
			qp.sq[0] = nil
			qp.sq = qp.sq[1:]
			qp.sendIdx--
			qp.una = qp.nextPSN
			h.complete(qp, w, WCSuccess)
		}
	}
	return p
}

// armTimer (re)starts the ACK timer: the QP's local ACK timeout
// (4.096 us × 2^timeout, the IBTA's encoding), or IRN's RTO with
// selective repeat.
func (h *HCA) armTimer(qp *QP) {
	if qp.sr != nil && qp.sr.minRTO > 0 {
		h.uetArmTimer(qp)
		return
	}
	d := h.ackTimeout(qp)
	if d == 0 {
		qp.timerDue = 0
		return
	}
	qp.timerDue = h.eng.Now() + d
	if qp.timer.Pending() && qp.timer.At() <= qp.timerDue {
		return // it fires first and moves itself to timerDue
	}
	h.eng.Cancel(qp.timer)
	qp.timer = h.eng.Schedule(qp.timerDue, h, evTimeout, 0, qp)
}

// ackTimeout is how long qp's ACK timer runs; 0: it has none (timeout 0,
// the infinite wait of IBA C9-140).
func (h *HCA) ackTimeout(qp *QP) sim.Time {
	switch {
	case qp.tcp != nil:
		return h.tcpRTO(qp)
	case qp.sr != nil && qp.sr.minRTO > 0:
		return qp.sr.minRTO // UET, uet-htsim's rule (uetArmTimer)
	case (h.Prof.Retransmit == Selective || h.Prof.Transport == fabric.UET) && h.Prof.RTOHigh > 0:
		// Selective repeat's, and UET's PDS timer in either delivery
		// mode (ROD's go-back-N too, resolve/uet.go).
		return h.rto(qp)
	case qp.timeoutExp > 0:
		return 4096 * sim.Nanosecond << uint(qp.timeoutExp)
	}
	return 0
}

// stopTimer disarms the ACK timer; its event, if any, finds nothing due.
func (h *HCA) stopTimer(qp *QP) { qp.timerDue = 0 }

// timerFired handles the ACK timer's event: early (the timer was
// restarted since), it waits again until timerDue; at timerDue it is a
// timeout.
func (h *HCA) timerFired(qp *QP) {
	qp.timer = sim.Timer{} // this event is the timer: no longer pending
	switch now := h.eng.Now(); {
	case qp.timerDue == 0:
	case qp.timerDue > now:
		qp.timer = h.eng.Schedule(qp.timerDue, h, evTimeout, 0, qp)
	case qp.sr != nil && qp.sr.minRTO > 0 && !h.uetRTODue(qp):
		// UET: the oldest packet outstanding was sent later than the
		// deadline taken (uetRTODue moved it), or none is.
	default:
		qp.timerDue = 0
		h.timeout(qp)
	}
}

// acknowledged is the requester's side of an ACK, a NAK or an atomic
// response.
func (h *HCA) acknowledged(qp *QP, p *fabric.Packet) {
	if qp.Type != RC || (qp.State != QPRTS && qp.State != QPSQD) {
		return
	}
	if qp.tcp != nil && p.Syndrome == fabric.SyndromeACK && p.Opcode.Operation() == fabric.OpAcknowledge {
		h.tcpAcked(qp, p)
		return
	}
	if qp.tcp != nil && p.Syndrome == fabric.SyndromeTerminate {
		// The peer's RDMAP closed the stream (responder.go's terminate):
		// the connection is over, what is still posted is flushed.
		h.asyncEvent(AsyncEvent{Type: EventQPFatal, QP: qp})
		h.toErr(qp)
		return
	}
	psn := expand(p.PSN, qp.una)
	if psn < qp.una-1 && h.Prof.Transport == fabric.UET {
		h.uetOvertaken(qp, p) // its cumulative PSN is old news, not the PSN it names trimmed
		return
	}
	if psn < qp.una-1 || psn >= qp.maxSent {
		return // stale or bogus
	}
	if p.Opcode.Operation() == fabric.OpAtomicAcknowledge {
		if w, _ := qp.wqeAt(psn); w != nil && w.Op.isAtomic() && !w.respDone {
			_, _, orig := p.Atomic()
			w.AtomicResult = orig
			w.respDone = true
			var b [8]byte
			for i := range b {
				b[i] = byte(orig >> (8 * i))
			}
			h.scatter(w.wr.SGL, 0, b[:])
		}
		h.ackTo(qp, psn+1)
		return
	}
	switch syn := p.Syndrome; {
	case syn == fabric.SyndromeACK:
		h.ackTo(qp, psn+1)
		if p.Ext != nil && h.Prof.Transport == fabric.UET {
			h.uetSacked(qp, p) // its SACK bitmap, and SLEEK (uet.go)
		}
		if qp.sr != nil && qp.sr.baseRTT > 0 {
			h.rearmProbe(qp) // SLEEK's probe waits for the next silence
		}
		if qp.sr != nil && qp.sr.probing && p.Echo >= qp.sr.probeAt {
			h.srProbed(qp) // the answer to the timeout's resend, not an ACK already on its way
		}
	case syn&0xE0 == fabric.SyndromeRNRNAK:
		h.ackTo(qp, psn)
		qp.rnrRetries++
		if qp.rnrRetry != 7 && qp.rnrRetries > qp.rnrRetry {
			h.fail(qp, WCRNRRetryExceeded)
			return
		}
		h.stopTimer(qp)
		h.eng.Cancel(qp.rnrWait)
		qp.rnrWait = h.eng.After(RNRDelay(int(syn&0x1F)), h, evRNR, 0, qp)
		h.rewind(qp, psn)
	case syn == fabric.SyndromeNAKSeqErr && h.Prof.Retransmit == Selective:
		h.srSacked(qp, p, psn)
	case syn == fabric.SyndromeNAKSeqErr:
		// A sequence-error NAK is answered by going back; like ConnectX,
		// only timeouts count against retry_cnt.
		h.ackTo(qp, psn)
		if psn < qp.nextPSN {
			h.rewind(qp, psn)
			h.armTimer(qp) // the responder answered: restart the ACK timer
		}
	default:
		h.ackTo(qp, psn)
		status := WCRemOpError
		switch syn {
		case fabric.SyndromeNAKRemAccErr:
			status = WCRemAccessError
		case fabric.SyndromeNAKInvReq:
			status = WCRemInvReqError
		}
		h.fail(qp, status)
	}
}

// readResponse takes a READ response packet.
func (h *HCA) readResponse(qp *QP, p *fabric.Packet) {
	if qp.Type != RC || (qp.State != QPRTS && qp.State != QPSQD) {
		return
	}
	if qp.tcp != nil && !h.rspReceived(qp, p) {
		return // a segment TCP has already
	}
	psn := expand(p.PSN, qp.una)
	w, _ := qp.wqeAt(psn)
	if w == nil || !w.Op.isRead() || w.respDone {
		return // duplicate or stale
	}
	want := w.FirstPSN + w.respPkts
	qp.noteArrival(p, psn, want)
	switch {
	case psn < want:
		return // duplicate
	case psn > want && (h.Prof.Placement == Direct || qp.tcp != nil) && psn-want < srWindow:
		// Past a gap: placed at once (DDP places iWARP's tagged
		// segments as they come; the responder's TCP fills the gap).
		h.placeResponse(qp, w, p, psn, want)
		return
	case psn > want:
		// A response went missing: ask again from it, once per gap.
		if w.retryAt != want {
			h.Stats.OutOfOrder++
			h.rewind(qp, want)
		}
		return
	}
	// In order: it implicitly acknowledges everything before the READ
	// (on iWARP TCP's ACKs do, and the scoreboard must see them).
	if qp.tcp == nil {
		qp.ackHigh = max(qp.ackHigh, w.FirstPSN)
		qp.acked = max(qp.acked, w.FirstPSN)
	}
	if d := p.Data(); d != nil {
		h.scatter(w.wr.SGL, w.respPkts*int64(qp.pmtu), d)
	}
	w.respPkts++
	qp.ReadDelivered += int64(p.Payload)
	if qp.rdHave != nil {
		// Responses placed ahead of this one now join it.
		for psn := w.FirstPSN + w.respPkts; w.respPkts < w.NPkts && qp.rdHave[psn%srWindow] == psn+1; psn++ {
			qp.rdHave[psn%srWindow] = 0
			w.respPkts++
		}
	}
	if w.respPkts == w.NPkts {
		w.respDone = true
		if qp.tcp == nil {
			// Its last response acknowledges every PSN of the READ,
			// as its first acknowledged those before it: the
			// cumulative PSN, from which a timeout's recovery starts
			// (srTimeout), reaches past it. Left at the READ's first
			// PSN, below una once the READ completed, recovery found
			// no WQE there and resent nothing: a WRITE after the READ
			// that lost a packet, under direct placement (no NAK short
			// of ReorderWindow), ended with retry_exc_err
			// (TestWriteAfterReadLostAskedAgainByTimeout).
			qp.ackHigh = max(qp.ackHigh, w.FirstPSN+w.NPkts)
		}
	}
	h.advance(qp)
}

// ackTo records that the responder has everything before psn.
func (h *HCA) ackTo(qp *QP, psn int64) {
	if psn > qp.ackHigh {
		qp.ackHigh = min(psn, qp.maxSent)
	}
	partial := false
	if bound := h.ackedBound(qp); psn > qp.acked && qp.acked < bound {
		qp.acked = min(psn, bound)
		partial = h.Prof.Retransmit == GoBack0
	}
	una := qp.una
	h.advance(qp)
	if partial && qp.tcp == nil && qp.una == una && qp.acked > qp.una {
		// Under go-back-0 una holds still within a message, and advance
		// sees no progress: yet the ACK acknowledged requests
		// outstanding since the last rewind (goBack0Progress).
		h.goBack0Progress(qp)
	}
	if partial && qp.Window > 0 {
		// The window counts from acked (flightFrom): it opened, where
		// advance, una holding still, saw no progress.
		h.activate(qp)
	}
}

// ackedBound is what acked may reach: under go-back-0 nextPSN, what
// was sent since the last rewind (the PSNs past it are still to be sent
// again, whatever an ACK says of them); otherwise maxSent.
func (h *HCA) ackedBound(qp *QP) int64 {
	if h.Prof.Retransmit == GoBack0 {
		return min(qp.nextPSN, qp.maxSent)
	}
	return qp.maxSent
}

// goBack0Progress is the forward progress of an ACK that acknowledges
// part of a go-back-0 message, which leaves una at the message's first
// PSN (the responder may still discard the partial message, and a
// rewind restarts it from there). As any ACK that acknowledges
// outstanding requests it restarts the ACK timer, the requester's
// transport timer of IBA vol 1 ch. 9 (whose timeout C9-140 gives:
// 4.096 us x 2^timeout), which bounds the wait for an acknowledgement,
// not for a whole message; and it resets the retry counts, as advance
// does when una moves: only timeouts in a row without an
// acknowledgement exhaust retry_cnt. Linux's soft RoCE does both on
// every ACK, partial or not (rxe_comp.c: check_ack's
// reset_retry_counters, and rxe_completer's mod_timer while PSNs are
// outstanding). Without it a message that took longer than the ACK
// timeout to send started over at the timeout, and after retry_cnt
// such restarts failed with retry_exc_err, without any loss.
func (h *HCA) goBack0Progress(qp *QP) {
	qp.retries, qp.rnrRetries = 0, 0
	if qp.awaitsAck() {
		h.armTimer(qp)
	}
}

// flightFrom is the PSN from which qp's window (a congestion control's,
// hca.bdp_cap's) counts the packets in flight: una, the oldest PSN not
// acknowledged. Under go-back-0 una stays at the first PSN of the
// message under way until all of it is acknowledged (the responder may
// still discard it), yet the packets acknowledged past it have left the
// network: there the window counts from the highest PSN acknowledged
// since the last rewind (acked), as go-back-N's una is, so that a
// message longer than the window goes on as acknowledgements come. A
// READ's or atomic's PSNs are in flight until their responses are in,
// as under go-back-N (advance's una). In-flight is what is sent and not
// acknowledged in IRN's BDP flow control (Mittal et al., SIGCOMM 2018,
// 3.2) and in a window-based control's window (DCTCP, RFC 8257; HPCC,
// Li et al., SIGCOMM 2019, 3.2: inflight bytes).
func (h *HCA) flightFrom(qp *QP) int64 {
	if h.Prof.Retransmit != GoBack0 || len(qp.sq) == 0 {
		return qp.una
	}
	if w := qp.sq[0]; w.Op.isRead() || w.Op.isAtomic() {
		return qp.una
	}
	return max(qp.una, qp.acked)
}

// advance completes the WQEs at the head that are done: SEND and WRITE
// once acknowledged, READ and atomics once their responses are in.
func (h *HCA) advance(qp *QP) {
	progress := false
	for len(qp.sq) > 0 {
		w := qp.sq[0]
		end := w.FirstPSN + w.NPkts
		if w.Op.isRead() || w.Op.isAtomic() {
			if !w.respDone {
				break
			}
			qp.rdOut--
		} else if end > qp.ackHigh {
			break
		}
		if qp.tcp != nil {
			qp.tcp.retire(w, qp.ackHigh)
		}
		qp.sq[0] = nil
		qp.sq = qp.sq[1:]
		qp.sendIdx--
		qp.una = end
		progress = true
		h.complete(qp, w, WCSuccess)
	}
	if len(qp.sq) > 0 {
		w := qp.sq[0]
		una := min(qp.ackHigh, w.FirstPSN+w.NPkts)
		if h.Prof.Retransmit == GoBack0 {
			una = w.FirstPSN // the responder may still discard the partial message
		}
		if w.Op.isRead() {
			una = w.FirstPSN + w.respPkts
		} else if w.Op.isAtomic() {
			una = w.FirstPSN
		}
		if una > qp.una {
			qp.una = una
			progress = true
		}
	} else {
		qp.una = qp.endPSN
	}
	if qp.sendIdx < 0 || qp.nextPSN < qp.una {
		h.setSendPos(qp, qp.una)
	}
	if !progress {
		return
	}
	qp.retries, qp.rnrRetries = 0, 0
	if qp.awaitsAck() && len(qp.sq) > 0 {
		h.armTimer(qp)
	} else {
		h.stopTimer(qp)
	}
	if qp.State == QPSQD && len(qp.sq) == 0 {
		h.asyncEvent(AsyncEvent{Type: EventSQDrained, QP: qp})
	}
	h.activate(qp)
}

// awaitsAck reports whether qp has requests its ACK timer covers: PSNs
// sent and not acknowledged (responses included on RoCE and InfiniBand,
// where a READ's responses acknowledge it; on iWARP only the requester's
// own TCP stream, the responses having the responder's, tcpread.go).
func (q *QP) awaitsAck() bool {
	if q.tcp != nil {
		return q.ackHigh < q.maxSent
	}
	return q.una < q.maxSent
}

// setSendPos makes psn the next PSN to send.
func (h *HCA) setSendPos(qp *QP, psn int64) {
	w, i := qp.wqeAt(psn)
	if w == nil {
		qp.sendIdx, qp.sendOff, qp.nextPSN = len(qp.sq), 0, qp.endPSN
		return
	}
	qp.sendIdx = i
	switch {
	case w.Op.isRead():
		psn = max(psn, w.FirstPSN+w.respPkts)
		qp.sendOff = psn - w.FirstPSN
	case w.Op.isAtomic():
		psn = w.FirstPSN
		qp.sendOff = 0
	default:
		qp.sendOff = psn - w.FirstPSN
	}
	qp.nextPSN = psn
}

// rewind restarts sending at psn. Go-back-0 restarts at the first packet
// of the message that holds psn.
func (h *HCA) rewind(qp *QP, psn int64) {
	if h.Prof.Retransmit == GoBack0 {
		if w, _ := qp.wqeAt(psn); w != nil {
			psn = w.FirstPSN
			// What was sent from there is sent again, and the
			// window counts it from there until acknowledged anew.
			qp.acked = min(qp.acked, psn)
			if w.Op.isRead() && !w.respDone {
				// The READ starts over: the responses it took (all
				// but its last a full MTU) will be taken again, so
				// their bytes are not delivered until then.
				qp.ReadDelivered -= min(w.respPkts*int64(qp.pmtu), w.Size)
				w.respPkts = 0
			}
		}
	}
	h.setSendPos(qp, psn)
	h.activate(qp)
}

func (h *HCA) timeout(qp *QP) {
	if qp.State != QPRTS && qp.State != QPSQD || len(qp.sq) == 0 {
		return
	}
	if qp.tcp != nil && !qp.awaitsAck() {
		return // iWARP: only READ responses are awaited, on the responder's stream
	}
	h.Stats.Timeouts++
	qp.retries++
	if qp.tcp != nil {
		if qp.retries > h.Prof.TCP.Retries {
			h.fail(qp, WCRetryExceeded)
			return
		}
		h.tcpTimeout(qp)
		h.armTimer(qp)
		return
	}
	if qp.retries > qp.retryCnt && qp.apm && !qp.Migrated && h.hasAlternate(qp) {
		h.migrate(qp)
	}
	if qp.retries > qp.retryCnt {
		h.fail(qp, WCRetryExceeded)
		return
	}
	if h.Prof.Retransmit == Selective {
		h.srTimeout(qp)
	} else {
		h.rewind(qp, qp.una)
	}
	h.armTimer(qp)
}

// fail completes the oldest outstanding WQE with status, moves the QP to
// ERR and flushes everything else.
func (h *HCA) fail(qp *QP, status WCStatus) {
	if len(qp.sq) > 0 {
		w := qp.sq[0]
		qp.sq = qp.sq[1:]
		h.complete(qp, w, status)
	}
	h.toErr(qp)
	h.asyncEvent(AsyncEvent{Type: EventQPFatal, QP: qp})
}

// toErr moves qp to ERR: timers stop, and every send and receive WR still
// posted completes with wr_flush_err.
func (h *HCA) toErr(qp *QP) {
	h.touch(qp)
	h.unpark(qp)
	qp.State = QPErr
	h.stopTimer(qp)
	h.eng.Cancel(qp.timer)
	if qp.tcp != nil {
		h.eng.Cancel(qp.tcp.delack)
		if r := qp.tcp.rsp; r != nil {
			h.eng.Cancel(r.timer)
			r.due = 0
		}
	}
	h.eng.Cancel(qp.rnrWait)
	h.eng.Cancel(qp.wake)
	for _, w := range qp.sq {
		h.complete(qp, w, WCFlushed)
	}
	qp.sq, qp.sendIdx, qp.sendOff, qp.rdOut = nil, 0, 0, 0
	qp.nextPSN, qp.una = qp.endPSN, qp.endPSN
	if qp.curRecv != nil {
		h.completeRecv(qp, qp.curRecv, WC{Status: WCFlushed, Opcode: WCOpRecv})
		qp.curRecv = nil
	}
	for _, r := range qp.rq {
		h.completeRecv(qp, r, WC{Status: WCFlushed, Opcode: WCOpRecv})
	}
	qp.rq = nil
	qp.rdJobs = nil
	if qp.SRQ != nil {
		// Its RECVs are the SRQ's: the application learns that this QP
		// will take no more of them ("Last WQE Reached on a QP
		// associated with an SRQ", ibv_get_async_event(3)).
		h.asyncEvent(AsyncEvent{Type: EventQPLastWQE, QP: qp})
	}
}
