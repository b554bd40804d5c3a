package hca

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// Selective repeat, as IRN proposes (Mittal et al., "Revisiting Network
// Support for RDMA", SIGCOMM 2018, §3.1): the RC responder accepts
// packets that arrive after a gap into a bitmap (here the packets
// themselves, executed in order once the gap fills), and answers each
// with a NACK that carries both the cumulative PSN it expects and the
// PSN that arrived (fabric.Packet.SackPSN). The requester records the
// SACKed PSNs, enters loss recovery, and retransmits only the PSNs
// between the cumulative acknowledgement and the highest SACKed one that
// were not SACKed, each once per recovery; new packets go out after
// them. A timeout (IRN's RTO_low when at most RTOLowPackets are in
// flight, RTO_high otherwise) restarts recovery over everything not
// SACKed. IRN's BDP flow control (at most one BDP in flight) is the
// window cap SetWindowCap sets (hca.bdp_cap); READ responses lost still
// go back to the missing response.

// srWindow is how many PSNs past the expected one the responder buffers
// (IRN sizes its bitmap to the bandwidth-delay product; 512 MTU-4096
// packets is 2 MiB, about 160 µs at 100 Gb/s); later packets are dropped
// and recovered by timeout. srSackWindow is the requester's SACK bitmap.
const (
	srWindow     = 512
	srSackWindow = 1 << 16
)

type srState struct {
	// Responder: the out-of-order request packets kept, by PSN %
	// srWindow (nil where none): the packets themselves, out of the pool
	// until their replay (a pointer per slot, where a copy was 192 bytes
	// to write and 96 KiB per QP). held is the packet srKeep kept during
	// the current HCA.process, which must then not return it to the pool.
	buf  []*fabric.Packet
	held *fabric.Packet
	// keptBytes is the payload of the packets in buf (QP.KeptBytes),
	// kept how many they are (UET's out-of-order count, uet.go).
	keptBytes int64
	kept      int32
	// holdAck and ackHeld are, on UET, the acknowledgement of an
	// in-order packet held while the packets kept past it are replayed
	// (uetAccept): one ACK then answers the packet that arrived.
	holdAck, ackHeld bool
	// Requester: SACKed PSNs by PSN % srSackWindow, valid from base;
	// sacked counts them (the bits set).
	sack       []bool
	base       int64
	sacked     int64
	recovering bool
	// next is the next PSN recovery may resend, top one past the highest
	// SACKed PSN (holes lie below it), high the recovery sequence: one
	// past the highest PSN sent when recovery began (IRN leaves recovery
	// when the cumulative acknowledgement passes it, so that SACKs sent
	// before the resends arrived do not start another round).
	next, top, high int64
	// probing: a timeout's resend of the oldest PSN is out (at probeAt
	// or later), and the acknowledgement of it says what the responder
	// holds.
	probing bool
	probeAt sim.Time
	// trims are the PSNs the responder said reached it trimmed
	// (srTrimmed), to resend before recovery's holes, each once a NAK.
	trims []int64
	// aside is the send position a resend (srRetransmit) sets aside
	// while it builds the packet at the hole's, resending says it does:
	// what a rewind has the QP send again counts from it (rewound).
	aside     sendPos
	resending bool
	// pathBDP is, on UET, the path's bandwidth-delay product in bytes
	// (SetPathBDP), from which SLEEK's threshold follows (uet.go).
	pathBDP int64
	// sackTop is, on UET, one past the highest PSN SACKed (uet.go): a
	// timeout resends the holes below it.
	sackTop int64
	// minRTO is, on UET, uet-htsim's retransmission timeout (SetMinRTO,
	// uet.go): the timer fires minRTO after the send time of the oldest
	// packet neither acknowledged nor SACKed; 0 keeps IRN's RTO_low and
	// RTO_high. sentAt is each PSN's last send time, by PSN % srWindow,
	// and rtoFloor the last timeout, before which no deadline runs.
	minRTO   sim.Time
	sentAt   []sim.Time
	rtoFloor sim.Time
	// SLEEK's probe, on UET (uet.go): baseRTT and target are the path's
	// base RTT and NSCC's target delay (SetSleekProbe), probeTimer the
	// next probe, probeSeq the last probe's number and probeSentAt when
	// it went.
	baseRTT, target sim.Time
	probeTimer      sim.Timer
	probeSeq        uint32
	probeSentAt     sim.Time
}

func (q *QP) srs() *srState {
	if q.sr == nil {
		q.sr = &srState{}
	}
	return q.sr
}

// ---- responder

// srBuffer keeps the out-of-order request p (psn > ePSN) and SACKs it.
func (h *HCA) srBuffer(qp *QP, p *fabric.Packet, psn int64) {
	if !h.srKeep(qp, p, psn, false) {
		return // beyond the bitmap: dropped, recovered by timeout
	}
	if h.Prof.Transport == fabric.UET {
		h.uetGap(qp, p) // UET SACKs at its cadence, never NAKs a gap
		return
	}
	if a := h.sendAck(qp, p, fabric.SyndromeNAKSeqErr, qp.ePSN); a != nil {
		h.pool.Ext(a).SackPSN = uint32(psn) & psnMask
	}
}

// srKeep keeps the out-of-order request p (psn > ePSN) for its replay
// once the gap fills (srReplay), counting it out of order, or as a
// duplicate if one is kept already (p then goes back to the pool as
// usual); with placed, also as placed (a WRITE's) or held (any other)
// for direct placement. It returns false when psn is beyond the buffer,
// and p is not kept.
func (h *HCA) srKeep(qp *QP, p *fabric.Packet, psn int64, placed bool) bool {
	s := qp.srs()
	if s.buf == nil {
		s.buf = make([]*fabric.Packet, srWindow)
	}
	i := psn % srWindow
	switch {
	case psn-qp.ePSN >= srWindow:
		h.Stats.OutOfOrder++
		return false
	case s.buf[i] != nil:
		h.Stats.Duplicates++
		return true
	}
	h.Stats.OutOfOrder++
	if placed {
		if placeable(p.Opcode.Operation()) {
			h.Placed++
		} else {
			h.ReorderHeld++
		}
	}
	s.buf[i], s.held = p, p
	s.keptBytes += int64(p.Payload)
	s.kept++
	return true
}

// take empties slot i of the ring and returns its packet.
func (s *srState) take(i int64) *fabric.Packet {
	p := s.buf[i]
	s.buf[i] = nil
	s.keptBytes -= int64(p.Payload)
	s.kept--
	return p
}

// KeptBytes is the payload of the request packets the QP keeps past a
// gap (selective repeat, direct placement): received, neither taken in
// nor lost.
func (q *QP) KeptBytes() int64 {
	if q.sr == nil {
		return 0
	}
	return q.sr.keptBytes
}

// srFree returns the packets a QP kept to the pool (the QP is destroyed
// or reset): their payload is dropped, as a packet for a destroyed QP's
// is, or on UC as the rest of messages that lost a packet (a UC flow's
// byte ledger hears of it).
func (h *HCA) srFree(qp *QP) {
	reason := "closed_qp"
	if qp.Type == UC {
		reason = "uc_incomplete"
	}
	if s := qp.sr; s != nil {
		for i, p := range s.buf {
			if p != nil {
				s.take(int64(i))
				h.discard(p, reason)
				h.pool.Put(p)
			}
		}
	}
}

// srReplay executes the buffered packets that the in-order packet p made
// contiguous, then acknowledges cumulatively.
func (h *HCA) srReplay(qp *QP, p *fabric.Packet) {
	if h.replay(qp) > 0 && qp.Type == RC && qp.State != QPErr {
		h.sendAck(qp, p, fabric.SyndromeACK, qp.ePSN-1)
	}
}

// replay takes in the kept packets that follow ePSN without a gap, while
// the QP receives, as if each arrived in order now (UC's through
// ucInOrder, which drops what follows a lost start), returning each to
// the pool; it returns how many.
func (h *HCA) replay(qp *QP) (n int) {
	for qp.sr != nil && qp.sr.buf != nil && receives(qp) {
		i := qp.ePSN % srWindow
		b := qp.sr.buf[i]
		if b == nil || expand(b.PSN, qp.ePSN) != qp.ePSN {
			break
		}
		qp.sr.take(i)
		if qp.Type == UC {
			h.ucInOrder(qp, b, qp.ePSN, b.Opcode.Operation())
		} else {
			h.accept(qp, b, qp.ePSN, b.Opcode.Operation())
		}
		h.pool.Put(b)
		n++
	}
	return n
}

// ---- requester

// sync drops SACK bits below the cumulative acknowledgement.
func (s *srState) sync(ackHigh int64) {
	if s.sack == nil {
		s.sack, s.base = make([]bool, srSackWindow), ackHigh
	}
	if ackHigh-s.base >= srSackWindow {
		clear(s.sack)
		s.base, s.sacked = ackHigh, 0
	}
	for ; s.base < ackHigh; s.base++ {
		if i := s.base % srSackWindow; s.sack[i] {
			s.sack[i] = false
			s.sacked--
		}
	}
}

// srSacked takes a selective-repeat NACK: psn is the responder's
// cumulative PSN, p.SackPSN the packet it received out of order.
func (h *HCA) srSacked(qp *QP, p *fabric.Packet, psn int64) {
	h.ackTo(qp, psn)
	if qp.State != QPRTS && qp.State != QPSQD {
		return
	}
	s := qp.srs()
	s.sync(qp.ackHigh)
	sp := expand(p.SackPSN(), qp.ackHigh)
	if p.Ext != nil && p.Ext.Trimmed {
		// Not received but trimmed (trimmed.go): resend it, whatever
		// recovery has resent already.
		if sp >= qp.ackHigh && sp < qp.maxSent {
			s.trims = append(s.trims, sp)
		}
		h.armTimer(qp)
		h.activate(qp)
		return
	}
	if sp >= qp.ackHigh && sp < qp.maxSent && sp-qp.ackHigh < srSackWindow {
		if !s.sack[sp%srSackWindow] {
			s.sacked++
		}
		s.sack[sp%srSackWindow] = true
		if !s.recovering {
			s.recovering, s.next, s.top, s.high = true, qp.ackHigh, sp+1, qp.maxSent
		}
		s.top = max(s.top, sp+1)
	}
	h.armTimer(qp) // the responder answered
	h.activate(qp)
}

// srTimeout resends, after a timeout, the oldest unacknowledged PSN and
// the holes below the highest SACKed PSN (again, if recovery was under
// way: their resends were lost too). The responder acknowledges the
// oldest PSN even as a duplicate, so when only acknowledgements were
// missing (ACKs ask every AckEvery packets) one resend brings the
// cumulative acknowledgement up. When instead its acknowledgement shows
// that the responder holds nothing past it (srProbed), what was sent
// after it was lost: all of it is resent then, not one packet a timeout.
func (h *HCA) srTimeout(qp *QP) {
	s := qp.srs()
	s.sync(qp.ackHigh)
	// The oldest PSN not acknowledged, if one was sent: with every PSN
	// acknowledged (a READ's last response acknowledges the READ,
	// readResponse) what the timeout waits for is a READ's or an
	// atomic's response, asked for again below, and a recovery past
	// maxSent would count a frame RCCC's backlog never sends.
	top := min(qp.ackHigh+1, qp.maxSent)
	if s.recovering {
		top = max(top, s.top)
	}
	if h.Prof.Transport == fabric.UET {
		top = max(top, s.sackTop) // UET's SACKs start no recovery: the timeout does
	}
	s.recovering, s.next, s.top, s.high = true, qp.ackHigh, top, qp.maxSent
	s.probing, s.probeAt = true, h.eng.Now()
	if w, _ := qp.wqeAt(qp.una); w != nil && w.Op.isRead() && !w.respDone && (w.respPkts > 0 || qp.ackHigh > w.FirstPSN) {
		// A READ that took responses and misses one: recovery resends
		// only a READ's request (srHole), and under direct placement a
		// gap among its last ReorderWindow responses is asked for by
		// nothing else (placeResponse), so the timeout asks for it again
		// from its first missing response. So too a READ whose request
		// the responder took (the cumulative PSN past it: an ACK, or a
		// later READ's response) and which holds no response in order:
		// its first response lost, the others placed past the gap.
		// Recovery starts at the cumulative PSN, past its request, and
		// would resend nothing of it: retry_cnt timeouts, then
		// retry_exc_err (TestReadFirstResponseLostAskedAgainByTimeout).
		h.rewind(qp, w.FirstPSN+w.respPkts)
	} else if w != nil && w.Op.isAtomic() && !w.respDone && qp.ackHigh > w.FirstPSN {
		// So too an atomic whose acknowledgement (its response) was
		// lost and whose request a later request's ACK acknowledged:
		// recovery, from the cumulative PSN, would never resend it
		// (TestAtomicAckLostAskedAgainByTimeout). The responder answers
		// the request again from its atomic cache, not executing it twice.
		h.rewind(qp, w.FirstPSN)
	}
	if qp.Credits != nil && !qp.Credits.CanSend() {
		h.sendRTS(qp) // RCCC: the receiver may not know it wants credit
	}
	if qp.Entropy != nil {
		qp.Entropy.Timeout(h.eng.Now()) // REPS freezes (multipath)
	}
	h.activate(qp)
}

// srProbed takes the cumulative acknowledgement after a timeout's
// resend: if the responder holds nothing past it (no SACK above it) and
// PSNs sent before the timeout are still unacknowledged, they were lost,
// and recovery resends all of them (as a SACK sender takes a timeout,
// RFC 6675 §5.1). Without this a window lost past the responder's last
// SACK came back one packet per timeout: a 16-to-1 incast without
// congestion control, IRN's BDP cap off, took tens of milliseconds.
func (h *HCA) srProbed(qp *QP) {
	s := qp.sr
	s.probing = false
	if !s.recovering || qp.ackHigh >= s.high {
		return
	}
	s.sync(qp.ackHigh)
	for psn := qp.ackHigh; psn < s.high && psn-qp.ackHigh < srSackWindow; psn++ {
		if s.sack[psn%srSackWindow] {
			return // the responder holds some: its holes are resent as usual
		}
	}
	s.next, s.top = qp.ackHigh, s.high
	h.activate(qp)
}

// srHole returns the next PSN recovery should resend, or -1, and ends
// recovery once the cumulative acknowledgement passes its high mark.
func (h *HCA) srHole(qp *QP) int64 {
	s := qp.sr
	if s == nil || !s.recovering {
		return -1
	}
	s.sync(qp.ackHigh)
	if qp.ackHigh >= max(s.high, s.top) {
		s.recovering = false
		return -1
	}
	psn := max(s.next, qp.ackHigh)
	for psn < s.top {
		w, _ := qp.wqeAt(psn)
		if w == nil {
			break
		}
		if w.Op.isRead() || w.Op.isAtomic() {
			if psn != w.FirstPSN || w.respDone || w.respPkts > 0 {
				psn = w.FirstPSN + w.NPkts // only its request is ever resent here
				continue
			}
		}
		if !s.sack[psn%srSackWindow] {
			return psn
		}
		psn++
	}
	s.next = psn
	return -1
}

// sendPos is a QP's send position: the WQE, the packet within it, the
// PSN (QP.sendIdx, sendOff, nextPSN).
type sendPos struct {
	idx       int
	off, next int64
}

// srPending reports whether recovery has something to resend.
func (q *QP) srPending() bool {
	return q.sr != nil && (q.sr.recovering && max(q.sr.next, q.ackHigh) < q.sr.top || len(q.sr.trims) > 0)
}

// srTrim returns the next PSN a trim NAK asked for that is still
// unacknowledged, or -1.
func (h *HCA) srTrim(qp *QP) int64 {
	s := qp.sr
	for len(s.trims) > 0 {
		psn := s.trims[0]
		if psn >= qp.ackHigh && !s.sack[psn%srSackWindow] {
			return psn
		}
		s.trims = s.trims[1:]
	}
	return -1
}

// srRetransmit sends the next hole of qp's recovery, or returns nil (no
// hole, or the rate limiter holds it; then a wake timer is set).
func (h *HCA) srRetransmit(qp *QP, now sim.Time) *fabric.Packet {
	if h.touched(qp).Credits != nil && !qp.Credits.CanSend() { // (touched: the trims and holes it passes change its RCCC count)
		return nil // RCCC: a resend needs credit too (rccc.go)
	}
	hole, trim := h.srTrim(qp), true
	if hole < 0 {
		hole, trim = h.srHole(qp), false
	}
	if hole < 0 {
		return nil
	}
	if qp.nextTx > now {
		if qp.wake.At() != qp.nextTx {
			h.eng.Cancel(qp.wake)
			qp.wake = h.eng.Schedule(qp.nextTx, h, evWake, 0, qp)
		}
		return nil
	}
	s := qp.sr
	s.aside = sendPos{qp.sendIdx, qp.sendOff, qp.nextPSN}
	s.resending = true
	h.setSendPos(qp, hole)
	// Past the hole before the packet is built: RCCC's pull target
	// (spendCredit, creditBacklog) asks for what is left after it, as
	// uet-htsim's sendRtxPacket takes it off _rtx_backlog first.
	if trim {
		s.trims = s.trims[1:]
	} else {
		s.next = hole + 1
	}
	p := h.nextRequest(qp)
	qp.sendIdx, qp.sendOff, qp.nextPSN = s.aside.idx, s.aside.off, s.aside.next
	s.resending = false
	return p
}

// rto is the retransmission timeout of a selective-repeat QP: IRN's
// RTO_low while at most RTOLowPackets are unacknowledged, else RTO_high.
func (h *HCA) rto(qp *QP) sim.Time {
	if qp.maxSent-qp.ackHigh <= int64(h.Prof.RTOLowPackets) {
		return h.Prof.RTOLow
	}
	return h.Prof.RTOHigh
}
