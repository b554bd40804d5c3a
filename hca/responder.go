package hca

import (
	"github.com/lfsim/lfsim/fabric"
)

// The responder: in-order acceptance with PSN checks, memory protection,
// RECV consumption and RNR, READ responses, atomics, duplicates, ACK
// coalescing and NAKs.

// checkRemote finds the MR for a remote access and checks it: the rkey
// exists, the MR is in the QP's PD, [va, va+n) lies inside it, and both
// the MR and the QP allow the access. It returns nil on a violation.
func (h *HCA) checkRemote(qp *QP, rkey uint32, va uint64, n int64, need Access) *MR {
	mr := h.mrs[rkey]
	if mr == nil || mr.RKey != rkey || mr.PD != qp.PD || !mr.contains(va, n) ||
		mr.Access&need != need || qp.Access&need != need {
		return nil
	}
	return mr
}

func isFirst(op fabric.Opcode) bool {
	switch op {
	case fabric.OpSendFirst, fabric.OpSendOnly, fabric.OpSendOnlyImm,
		fabric.OpWriteFirst, fabric.OpWriteOnly, fabric.OpWriteOnlyImm,
		fabric.OpReadRequest, fabric.OpCompareSwap, fabric.OpFetchAdd:
		return true
	}
	return false
}

func isLast(op fabric.Opcode) bool {
	switch op {
	case fabric.OpSendLast, fabric.OpSendLastImm, fabric.OpSendOnly, fabric.OpSendOnlyImm,
		fabric.OpWriteLast, fabric.OpWriteLastImm, fabric.OpWriteOnly, fabric.OpWriteOnlyImm,
		fabric.OpReadRequest, fabric.OpCompareSwap, fabric.OpFetchAdd:
		return true
	}
	return false
}

// respond is the RC and UC responder.
func (h *HCA) respond(qp *QP, p *fabric.Packet) {
	if qp.State != QPRTR && qp.State != QPRTS && qp.State != QPSQD {
		h.Stats.BadQPDrops++
		h.discard(p, "bad_qp")
		return
	}
	if p.Src != qp.Remote || qp.port2 != (p.Dst != h.ID) {
		h.followPath(qp, p)
	}
	psn := expand(p.PSN, qp.ePSN)
	op := p.Opcode.Operation()
	qp.noteArrival(p, psn, qp.ePSN)
	if qp.Type == UC {
		if h.Prof.Placement == Direct {
			h.ucPlace(qp, p, psn, op)
		} else {
			h.ucInOrder(qp, p, psn, op)
		}
		if h.OnUCPacket != nil {
			h.OnUCPacket(qp)
		}
		return
	}
	switch {
	case psn == qp.ePSN && qp.sr != nil && h.Prof.Transport == fabric.UET:
		h.uetAccept(qp, p, psn, op)
	case psn == qp.ePSN:
		h.accept(qp, p, psn, op)
		if qp.sr != nil {
			h.srReplay(qp, p)
		}
	case psn > qp.ePSN && h.iwarp():
		h.tcpOutOfOrder(qp, p, psn)
	case psn > qp.ePSN && h.Prof.Placement == Direct:
		h.placeAhead(qp, p, psn)
	case psn > qp.ePSN && h.Prof.Retransmit == Selective:
		h.srBuffer(qp, p, psn)
	case psn > qp.ePSN:
		h.Stats.OutOfOrder++
		h.nakGap(qp, p)
	default:
		h.duplicate(qp, p, psn, op)
	}
}

// nakGap NAKs (PSN sequence error) the expected PSN once, request p
// having shown a gap before it; go-back-0 restarts the message in
// progress.
func (h *HCA) nakGap(qp *QP, p *fabric.Packet) {
	if qp.nakSent {
		return
	}
	qp.nakSent = true
	if h.Prof.Retransmit == GoBack0 && qp.inMsg {
		// Go-back-0 discards the partial message: the requester
		// restarts it from its first packet, and the bytes it
		// brought are delivered when they come again.
		qp.ePSN = qp.msgStart
		qp.inMsg = false
		qp.Delivered -= qp.msgBytes
		qp.msgBytes = 0
		if qp.curRecv != nil {
			qp.curRecvOff = 0
		}
	}
	h.sendAck(qp, p, fabric.SyndromeNAKSeqErr, qp.ePSN)
}

// ucDrop abandons a UC message in progress; its RECV stays for the next.
// The payload its earlier packets brought is no longer delivered: the
// byte ledger hears of it as dropped (p, the packet that ended it, names
// the flow).
func (h *HCA) ucDrop(qp *QP, p *fabric.Packet) {
	h.Stats.UCDroppedMsgs++
	qp.Delivered -= qp.msgBytes
	h.pool.Dropped(p, "uc_incomplete", qp.msgBytes)
	qp.msgBytes = 0
	qp.ucDiscard = true
	qp.inMsg = false
	qp.curRecvOff = 0
	qp.curMR = nil
}

// abandonUC gives up a UC message in progress on a QP being destroyed:
// its packets that landed are no longer delivered (as ucDrop has it),
// and the byte ledger hears of them as dropped, uc_incomplete, under the
// requester that sent them.
func (h *HCA) abandonUC(qp *QP) {
	if qp.Type != UC || !qp.inMsg || qp.msgBytes == 0 {
		return
	}
	// No packet ends it: one that names the requester stands in for the
	// byte ledger.
	h.ucDrop(qp, &fabric.Packet{Kind: fabric.KindData, Src: qp.Remote, SrcQP: qp.RemoteQPN, Dst: h.ID, DestQP: qp.QPN})
}

// duplicate handles a request the responder has already executed.
func (h *HCA) duplicate(qp *QP, p *fabric.Packet, psn int64, op fabric.Opcode) {
	h.Stats.Duplicates++
	switch op {
	case fabric.OpReadRequest:
		if h.iwarp() {
			// TCP drops a segment it has: the responder's own stream
			// resends any response lost.
			h.sendAck(qp, p, fabric.SyndromeACK, qp.ePSN-1)
			return
		}
		// READs are idempotent: execute again from this PSN, dropping
		// responses queued for it or later.
		n := int64(p.DMALen)
		mr := h.checkRemote(qp, p.RKey, p.VA, n, AccessRemoteRead)
		if mr == nil {
			return
		}
		for i, j := range qp.rdJobs {
			if j.psn >= psn {
				qp.rdJobs = qp.rdJobs[:i]
				break
			}
		}
		h.queueRead(qp, psn, mr, p.VA, n, p.Flow.SrcPort)
	case fabric.OpCompareSwap, fabric.OpFetchAdd:
		for _, a := range qp.atomics {
			if a.psn == psn {
				h.sendAtomicAck(qp, p, psn, a.orig)
				return
			}
		}
	default:
		// Selective repeat answers every duplicate: a resend after a
		// timeout probes how far the responder has got.
		if p.AckReq || h.Prof.Retransmit == Selective || h.iwarp() {
			h.sendAck(qp, p, fabric.SyndromeACK, qp.ePSN-1)
		}
	}
}

// accept executes the in-order request p.
func (h *HCA) accept(qp *QP, p *fabric.Packet, psn int64, op fabric.Opcode) {
	now := h.eng.Now()
	rc := qp.Type == RC
	payload := int64(p.Payload)
	if isFirst(op) {
		qp.msgStart = psn
	}
	switch op {
	case fabric.OpSendFirst, fabric.OpSendOnly, fabric.OpSendOnlyImm,
		fabric.OpSendMiddle, fabric.OpSendLast, fabric.OpSendLastImm:
		if isFirst(op) {
			if qp.curRecv == nil {
				qp.curRecv = h.takeRecv(qp)
			}
			if qp.curRecv == nil {
				if rc && h.iwarp() {
					h.terminate(qp, p, psn)
				} else if rc {
					h.rnrNak(qp, p, psn)
				} else {
					h.Stats.NoRecvDrops++
					h.discard(p, "no_recv")
					qp.ePSN = psn + 1
					qp.inMsg = !isLast(op)
					if qp.inMsg {
						qp.inMsg = false // skip the rest: handled as a lost start
					}
				}
				return
			}
			qp.curRecvOff = 0
		} else if qp.curRecv == nil || !qp.inMsg {
			h.invalidRequest(qp, p, psn)
			return
		}
		r := qp.curRecv
		if qp.curRecvOff+payload > r.size {
			// The RECV is too small: it completes with loc_len_err and
			// the requester gets an invalid-request NAK.
			qp.curRecv = nil
			h.completeRecv(qp, r, WC{Status: WCLocLenError, Opcode: WCOpRecv, Src: p.Src, SrcQP: p.SrcQP})
			h.invalidRequest(qp, p, psn)
			return
		}
		if p.Data() != nil {
			h.scatter(r.wr.SGL, qp.curRecvOff, p.Data())
		}
		qp.curRecvOff += payload
		if isLast(op) {
			qp.curRecv = nil
			wc := WC{Status: WCSuccess, Opcode: WCOpRecv, ByteLen: qp.curRecvOff, Src: p.Src, SrcQP: p.SrcQP, Solicited: p.SE}
			if op == fabric.OpSendLastImm || op == fabric.OpSendOnlyImm {
				wc.Imm, wc.HasImm = p.Imm(), true
			}
			h.completeRecv(qp, r, wc)
		}
	case fabric.OpWriteFirst, fabric.OpWriteOnly, fabric.OpWriteOnlyImm,
		fabric.OpWriteMiddle, fabric.OpWriteLast, fabric.OpWriteLastImm:
		imm := op == fabric.OpWriteOnlyImm || op == fabric.OpWriteLastImm
		var r *recvWQE
		if imm {
			// A WRITE with immediate consumes a RECV; without one, RNR.
			if r = h.takeRecv(qp); r == nil {
				if rc {
					h.rnrNak(qp, p, psn)
				} else {
					h.Stats.NoRecvDrops++
					h.discard(p, "no_recv")
					qp.ePSN = psn + 1
					qp.inMsg = false
				}
				return
			}
		}
		if isFirst(op) {
			n := int64(p.DMALen)
			mr := h.checkRemote(qp, p.RKey, p.VA, n, AccessRemoteWrite)
			if mr == nil {
				if r != nil {
					h.requeueRecv(qp, r)
				}
				h.accessError(qp, p, psn)
				return
			}
			qp.curMR, qp.curGen, qp.curVA, qp.curLeft = mr, h.mrGen, p.VA, n
			qp.msgLen = n
		} else if qp.curMR == nil || !qp.inMsg {
			if r != nil {
				h.requeueRecv(qp, r)
			}
			h.invalidRequest(qp, p, psn)
			return
		} else if qp.curGen != h.mrGen {
			// A region was deregistered since this WRITE's region was
			// last found: if it was this one, the rest of the WRITE is
			// an R_Key violation (DeregMR).
			if h.mrs[qp.curMR.RKey] != qp.curMR {
				if r != nil {
					h.requeueRecv(qp, r)
				}
				h.accessError(qp, p, psn)
				return
			}
			qp.curGen = h.mrGen
		}
		if payload > qp.curLeft || (isLast(op) && payload != qp.curLeft) {
			if r != nil {
				h.requeueRecv(qp, r)
			}
			h.invalidRequest(qp, p, psn)
			return
		}
		if p.Data() != nil {
			if b := qp.curMR.Bytes(qp.curVA, payload); b != nil {
				copy(b, p.Data())
			}
		}
		qp.curVA += uint64(payload)
		qp.curLeft -= payload
		if isLast(op) {
			if h.OnWrite != nil {
				start := qp.curVA - uint64(qp.msgLen)
				h.eng.After(h.Prof.DMALatency, h, evWrite, 0, &writeVisible{qp: qp, mr: qp.curMR, addr: start, n: qp.msgLen})
			}
			qp.curMR = nil
		}
		if r != nil {
			h.completeRecv(qp, r, WC{Status: WCSuccess, Opcode: WCOpRecvImm, ByteLen: qp.msgLen, Imm: p.Imm(), HasImm: true, Src: p.Src, SrcQP: p.SrcQP, Solicited: p.SE})
		}
	case fabric.OpReadRequest:
		if !rc {
			h.invalidRequest(qp, p, psn)
			return
		}
		n := int64(p.DMALen)
		mr := h.checkRemote(qp, p.RKey, p.VA, n, AccessRemoteRead)
		if mr == nil {
			h.accessError(qp, p, psn)
			return
		}
		if len(qp.rdJobs) >= qp.maxDestRdAtomic {
			h.invalidRequest(qp, p, psn)
			return
		}
		h.queueRead(qp, psn, mr, p.VA, n, p.Flow.SrcPort)
		qp.ePSN = psn + max(1, (n+int64(qp.pmtu)-1)/int64(qp.pmtu))
		qp.nakSent = false
		qp.msn++
		if h.iwarp() {
			h.tcpReceived(qp, p, qp.ePSN-1) // the request's segment, as any
		}
		return
	case fabric.OpCompareSwap, fabric.OpFetchAdd:
		if !rc {
			h.invalidRequest(qp, p, psn)
			return
		}
		mr := h.checkRemote(qp, p.RKey, p.VA, 8, AccessRemoteAtomic)
		if mr == nil || p.VA%8 != 0 {
			h.accessError(qp, p, psn)
			return
		}
		orig := mr.Word(p.VA)
		swapAdd, compare, _ := p.Atomic()
		if op == fabric.OpFetchAdd {
			mr.setWord(p.VA, orig+swapAdd)
		} else if orig == compare {
			mr.setWord(p.VA, swapAdd)
		}
		if len(qp.atomics) >= max(1, qp.maxDestRdAtomic) {
			copy(qp.atomics, qp.atomics[1:])
			qp.atomics = qp.atomics[:len(qp.atomics)-1]
		}
		qp.atomics = append(qp.atomics, atomicSaved{psn: psn, orig: orig})
		qp.ePSN = psn + 1
		qp.nakSent = false
		qp.msn++
		h.sendAtomicAck(qp, p, psn, orig)
		return
	default:
		h.invalidRequest(qp, p, psn)
		return
	}
	qp.ePSN = psn + 1
	qp.nakSent = false
	qp.inMsg = !isLast(op)
	qp.Delivered += payload
	// A message's bytes count as delivered as they land, and stop
	// counting if a UC message is lost (ucDrop) or go-back-0 discards
	// an RC one to take it again (the sequence-error NAK).
	qp.msgBytes += payload
	if !qp.inMsg {
		qp.msgBytes = 0
	}
	if qp.FirstDelivery == 0 {
		qp.FirstDelivery = now
	}
	qp.LastDelivery = now
	if isLast(op) {
		qp.msn++
	}
	switch {
	case rc && h.iwarp():
		h.tcpReceived(qp, p, psn)
	case rc && p.AckReq && qp.sr != nil && qp.sr.holdAck:
		qp.sr.ackHeld = true // uetAccept acknowledges once the replay is done
	case rc && p.AckReq:
		h.sendAck(qp, p, fabric.SyndromeACK, psn)
	}
}

// requeueRecv puts a RECV taken for a request that then failed back at
// the head of its queue.
func (h *HCA) requeueRecv(qp *QP, r *recvWQE) {
	q := &qp.rq
	if qp.SRQ != nil {
		q = &qp.SRQ.rq
	}
	*q = append([]*recvWQE{r}, *q...)
}

// rnrNak tells the requester no RECV is posted: it retries psn after the
// QP's min_rnr_timer.
// terminate is iWARP's answer to a SEND with no RECV posted: DDP finds no
// buffer for the untagged message (RFC 5041 §7, "no buffer available"),
// and RDMAP sends a Terminate message and closes the stream (RFC 5040
// §7; Linux's siw does as much). TCP has taken the segment, so it is
// acknowledged, and the requester's SEND may complete; then the
// Terminate puts both QPs in the error state (IBV_EVENT_QP_FATAL on
// each), flushing what is still posted. iWARP has no RNR retry.
// QP.Terminated records it: the SEND's bytes, and all the requester sent
// after them, are lost although its work completion may say success.
func (h *HCA) terminate(qp *QP, p *fabric.Packet, psn int64) {
	qp.Terminated = h.eng.Now()
	qp.ePSN = psn + 1
	h.sendAck(qp, p, fabric.SyndromeACK, psn)
	t := h.newAck(qp, p, fabric.OpAcknowledge, psn)
	t.Syndrome = fabric.SyndromeTerminate
	t.Wire = h.overlaid(fabric.IWARPFrame(fabric.OpSendOnly, fabric.IWARPTerminatePayload, h.Prof.TCP.MPA, h.Prof.TCP.Timestamps))
	h.Stats.NaksSent++
	h.pushCtrl(t)
	h.asyncEvent(AsyncEvent{Type: EventQPFatal, QP: qp})
	h.toErr(qp)
}

func (h *HCA) rnrNak(qp *QP, p *fabric.Packet, psn int64) {
	h.Stats.RNRNaksSent++
	h.sendAck(qp, p, fabric.SyndromeRNRNAK|uint8(qp.minRNRTimer&0x1F), psn)
}

// accessError NAKs a protection violation and moves the QP to ERR
// (IBTA vol. 1, 9.9.3.1.2: a class C error).
func (h *HCA) accessError(qp *QP, p *fabric.Packet, psn int64) {
	h.asyncEvent(AsyncEvent{Type: EventQPAccessErr, QP: qp})
	if qp.Type == RC {
		if h.failAfterReads(qp, fabric.SyndromeNAKRemAccErr, psn) {
			return
		}
		h.sendAck(qp, p, fabric.SyndromeNAKRemAccErr, psn)
	} else {
		if qp.inMsg {
			h.ucDrop(qp, p)
		}
		h.discard(p, "access_error")
	}
	h.toErr(qp)
}

// invalidRequest NAKs a malformed or unsupported request and moves the
// QP to ERR.
func (h *HCA) invalidRequest(qp *QP, p *fabric.Packet, psn int64) {
	h.asyncEvent(AsyncEvent{Type: EventQPReqErr, QP: qp})
	if qp.Type == RC {
		if h.failAfterReads(qp, fabric.SyndromeNAKInvReq, psn) {
			return
		}
		h.sendAck(qp, p, fabric.SyndromeNAKInvReq, psn)
		h.toErr(qp)
		return
	}
	h.ucDrop(qp, p)
	h.discard(p, "invalid_request")
	// The packet is taken: what follows is in order, and the rest of its
	// message is discarded as incomplete (under direct placement a PSN
	// left expected would hold every later packet back as past a gap).
	qp.ePSN = psn + 1
}

// newAck builds an ACK-family packet (op: Acknowledge or Atomic
// Acknowledge) answering req on qp: back to the requester on the reversed
// 5-tuple, in req's priority, carrying psn and the QP's MSN.
func (h *HCA) newAck(qp *QP, req *fabric.Packet, op fabric.Opcode, psn int64) *fabric.Packet {
	a := h.pool.Get()
	a.Kind = fabric.KindAck
	a.Opcode = fabric.TransportRC | op
	a.Priority, a.SL, a.DSCP = req.Priority, req.SL, req.DSCP
	if c := h.Prof.UETAckClass; c > 0 && h.Prof.Transport == fabric.UET {
		// UET's header-only packets ahead of data (Profile.UETAckClass).
		a.Priority, a.DSCP = c-1, (c-1)<<3
	}
	if h.Prof.LinkLayer == fabric.InfiniBand {
		// The QP's own VL for its SL: a switch port's SL-to-VL table may
		// have moved the request to another VL on its last link.
		a.Priority = qp.Priority
	}
	a.Src, a.Dst = h.local(req), req.Src
	a.Flow = fabric.FlowKey{SrcIP: req.Flow.DstIP, DstIP: req.Flow.SrcIP, SrcPort: req.Flow.SrcPort, DstPort: fabric.RoCEv2Port}
	a.DestQP, a.SrcQP = qp.RemoteQPN, qp.QPN
	a.PSN = uint32(psn) & psnMask
	a.MSN = qp.msn
	a.Wire, a.Link = h.wire(a.Opcode, 0)
	a.InPort = -1
	return a
}

// sendAck queues an ACK or NAK and returns it. An ACK still waiting in
// the control queue for this QP is updated instead of queueing another
// (coalescing), but on UET for a request of another entropy value: UET's
// ACK echoes its request's entropy, which the sender's spraying reads
// (hca.uet.spray; multipath), so requests sprayed over many values are
// each acknowledged.
func (h *HCA) sendAck(qp *QP, req *fabric.Packet, syndrome uint8, psn int64) *fabric.Packet {
	if syndrome == fabric.SyndromeACK && qp.queuedAck != nil &&
		(h.Prof.Transport != fabric.UET || qp.queuedAck.Flow.SrcPort == req.Flow.SrcPort) {
		qp.queuedAck.PSN = uint32(psn) & psnMask
		qp.queuedAck.MSN = qp.msn
		h.echo(qp.queuedAck, req)
		if qp.tcp != nil {
			qp.tcp.ackSent(qp.queuedAck)
		}
		if qp.sr != nil && h.Prof.Transport == fabric.UET {
			h.uetSack(qp, qp.queuedAck, req)
		}
		return qp.queuedAck
	}
	a := h.newAck(qp, req, fabric.OpAcknowledge, psn)
	a.Syndrome = syndrome
	h.echo(a, req)
	if syndrome == fabric.SyndromeACK && qp.sr != nil && h.Prof.Transport == fabric.UET {
		h.uetSack(qp, a, req)
	}
	if qp.tcp != nil {
		qp.tcp.ackSent(a)
	}
	if syndrome == fabric.SyndromeACK {
		h.Stats.AcksSent++
		qp.queuedAck = a
	} else {
		h.Stats.NaksSent++
	}
	h.pushCtrl(a)
	return a
}

func (h *HCA) sendAtomicAck(qp *QP, req *fabric.Packet, psn int64, orig uint64) {
	a := h.newAck(qp, req, fabric.OpAtomicAcknowledge, psn)
	h.pool.Ext(a).OrigData = orig
	h.echo(a, req)
	h.Stats.AcksSent++
	h.pushCtrl(a)
}

// queueRead adds a READ response job; the arbiter sends its packets.
// path is the request's source port: on InfiniBand the responses take
// its path index (the DLID offset), as ACKs do, so that they follow the
// requester's path, and its alternate after an APM migration.
func (h *HCA) queueRead(qp *QP, psn int64, mr *MR, va uint64, n int64, path uint16) {
	mtu := int64(qp.pmtu)
	j := &readJob{psn: psn, start: psn, end: psn + max(1, (n+mtu-1)/mtu), mr: mr, va: va, left: n, gen: h.mrGen, path: path}
	if b := mr.Bytes(va, n); b != nil {
		j.data = append([]byte(nil), b...) // what the responder's DMA reads now
	}
	j.size = n
	if qp.tcp != nil {
		h.rspQueued(qp, j)
	}
	qp.rdJobs = append(qp.rdJobs, j)
	h.activate(qp)
}

// failAfterReads handles a request at psn that puts RC qp in the error
// state while it still owes responses to earlier READs: a responder
// answers requests in PSN order (IBTA vol. 1, chapter 9: a response's
// PSN follows the last one's), so the NAK
// (syndrome) goes after those responses, not ahead of them as ACKs and
// NAKs otherwise do. The QP is in the error state at once: what arrives
// later is discarded, and its queues are flushed; the owed responses and
// the NAK still go. It reports false when nothing is owed (the caller
// NAKs now).
func (h *HCA) failAfterReads(qp *QP, syndrome uint8, psn int64) bool {
	jobs := qp.rdJobs
	if len(jobs) == 0 {
		return false
	}
	h.toErr(qp)
	qp.rdJobs = append(jobs, &readJob{psn: psn, nak: syndrome})
	h.activate(qp)
	return true
}

// standIn is a request packet for a NAK that answers one no longer at
// hand: what newAck reads of it (its sender, priority and 5-tuple).
func (h *HCA) standIn(qp *QP) *fabric.Packet {
	dst := h.ID
	if qp.port2 {
		dst = h.cold.id2 // the port the QP answers from (dualport.go)
	}
	return &fabric.Packet{Priority: qp.Priority, SL: qp.SL, DSCP: qp.dscp(), Src: qp.Remote, Dst: dst,
		Flow: fabric.FlowKey{SrcIP: qp.RemoteIP, DstIP: h.IP, SrcPort: fabric.RoCEv2SourcePort(qp.RemoteQPN), DstPort: fabric.RoCEv2Port}}
}

// readAccessLost ends qp's READ responses when the region they read has
// been deregistered since the READ arrived (DeregMR): a real HCA's DMA
// read fails there, so the responder NAKs with a remote access error at
// the next response's PSN and moves to the error state; no response is
// sent from a region no longer registered.
func (h *HCA) readAccessLost(qp *QP) {
	j := qp.rdJobs[0]
	h.sendAck(qp, h.standIn(qp), fabric.SyndromeNAKRemAccErr, j.psn)
	h.toErr(qp)
}

// nextReadResponse builds the next READ response packet of qp.
func (h *HCA) nextReadResponse(qp *QP) *fabric.Packet {
	j := qp.rdJobs[0]
	p := h.readResponsePacket(qp, j, j.psn)
	if qp.tcp != nil {
		spaced(qp, p, p.SentAt)
		h.rspSent(qp, p, j.seq+j.psn-j.start)
	} else {
		h.paced(h.touched(qp), p, p.SentAt) // (touched: its rate limiter is in its RCCC count, creditwait.go)
	}
	j.psn++
	j.left -= int64(p.Payload)
	if j.psn >= j.end {
		qp.rdJobs[0] = nil
		qp.rdJobs = qp.rdJobs[1:]
	}
	return p
}

// readResponsePacket builds j's response at psn.
func (h *HCA) readResponsePacket(qp *QP, j *readJob, psn int64) *fabric.Packet {
	mtu := int64(qp.pmtu)
	i := (psn - j.start) * mtu // offset
	payload := min(mtu, j.size-i)
	first, last := psn == j.start, psn == j.end-1
	var op fabric.Opcode
	switch {
	case first && last:
		op = fabric.OpReadResponseOnly
	case first:
		op = fabric.OpReadResponseFirst
	case last:
		op = fabric.OpReadResponseLast
	default:
		op = fabric.OpReadResponseMiddle
	}
	p := h.pool.Get()
	p.Kind = fabric.KindData
	p.Opcode = fabric.TransportRC | op
	p.Priority, p.SL, p.DSCP = qp.Priority, qp.SL, qp.dscp()
	if qp.ECT {
		p.ECN = fabric.ECT0
	}
	p.Src, p.Dst = h.ID, qp.Remote
	if qp.port2 {
		p.Src = h.cold.id2
	}
	sp := fabric.RoCEv2SourcePort(qp.QPN)
	if h.Prof.LinkLayer == fabric.InfiniBand && j.path != 0 {
		sp = j.path
	}
	p.Flow = fabric.FlowKey{SrcIP: h.IP, DstIP: qp.RemoteIP, SrcPort: sp, DstPort: fabric.RoCEv2Port}
	p.DestQP, p.SrcQP = qp.RemoteQPN, qp.QPN
	p.PSN = uint32(psn) & psnMask
	p.MSN = qp.msn
	if j.data != nil {
		h.pool.Ext(p).Data = j.data[i : i+payload]
	}
	p.Payload = int32(payload)
	p.Wire, p.Link = h.wire(p.Opcode, int(payload))
	p.SentAt = h.eng.Now()
	p.InPort = -1
	h.Stats.ReadResponses++
	h.Stats.TxPackets++
	return p
}

// receiveUD takes a datagram: it needs the right Q_Key and a posted RECV
// with room for the 40-byte GRH and the payload; otherwise it is dropped
// and counted.
func (h *HCA) receiveUD(qp *QP, p *fabric.Packet) {
	if qp.State != QPRTR && qp.State != QPRTS && qp.State != QPSQD {
		h.Stats.BadQPDrops++
		h.discard(p, "bad_qp")
		return
	}
	if p.QKey != qp.QKey {
		h.Stats.QKeyDrops++
		h.discard(p, "qkey")
		return
	}
	r := h.takeRecv(qp)
	if r == nil {
		h.Stats.NoRecvDrops++
		h.discard(p, "no_recv")
		return
	}
	n := int64(p.Payload)
	wc := WC{Status: WCSuccess, Opcode: WCOpRecv, ByteLen: GRHBytes + n, SrcQP: p.SrcQP, Src: p.Src, Solicited: p.SE}
	if op := p.Opcode.Operation(); op == fabric.OpSendOnlyImm {
		wc.Imm, wc.HasImm = p.Imm(), true
	}
	if GRHBytes+n > r.size {
		wc.Status = WCLocLenError
		h.completeRecv(qp, r, wc)
		h.discard(p, "loc_len")
		return
	}
	if p.Data() != nil {
		h.scatter(r.wr.SGL, GRHBytes, p.Data())
	}
	qp.Delivered += n
	now := h.eng.Now()
	if qp.FirstDelivery == 0 {
		qp.FirstDelivery = now
	}
	qp.LastDelivery = now
	h.completeRecv(qp, r, wc)
}

// ucInOrder is the UC responder for a packet taken in order: a gap
// before it loses the message in progress (UC never resends), and the
// rest of a message whose start was lost is discarded.
func (h *HCA) ucInOrder(qp *QP, p *fabric.Packet, psn int64, op fabric.Opcode) {
	if psn != qp.ePSN {
		// A gap: the message in progress is lost.
		h.Stats.OutOfOrder++
		if qp.inMsg {
			h.ucDrop(qp, p)
		}
		qp.ePSN = psn
	}
	if !isFirst(op) && !qp.inMsg {
		// The rest of a message whose start was lost (counted once).
		h.discard(p, "uc_incomplete")
		qp.ePSN = psn + 1
		if isLast(op) {
			if !qp.ucDiscard {
				h.Stats.UCDroppedMsgs++
			}
			qp.ucDiscard = false
		}
		return
	}
	qp.ucDiscard = false
	h.accept(qp, p, psn, op)
}
