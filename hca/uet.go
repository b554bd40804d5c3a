package hca

import (
	"math/bits"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// UET's reliable unordered delivery (RUD), loss recovery as the UEC's own
// simulator models the UE 1.0 PDS (ultraethernet/uet-htsim,
// htsim/sim/uec.cpp, UecSink and UecSrc). It runs on the selective-repeat
// machinery (selective.go) of a QP whose transport is fabric.UET; what
// differs from IRN is what counts as a loss:
//
//   - The receiver never NAKs a gap: a packet past its cumulative PSN is
//     kept (placed) and counted out of order. It acknowledges at its
//     cadence (the requester's AckReq, every hca.ack_every packets:
//     uet-htsim's UecSink::_bytes_unacked_threshold, 16,384 bytes, 4
//     packets of 4,096 bytes, resolve sets it from the MTU), and each ACK
//     sent while packets wait past a gap carries the SACK bitmap of the 64
//     PSNs ending at the packet acknowledged
//     (UecSink::sackBitmapBase: max(psn - 63, expected + 1)) and the
//     out-of-order count (UecSink::sack: set_ooo).
//   - The sender resends a packet when a trim NACK names it (trimmed.go:
//     that PSN alone); when its retransmission timeout fires (srTimeout:
//     the oldest PSN unacknowledged and the holes below the highest
//     SACKed one, where uet-htsim's per-packet timer,
//     UecSrc::rtxTimerExpired, resends each packet sent an RTO ago and
//     still unacknowledged); or by SLEEK's rule (UecSrc::runSleek): when
//     the out-of-order count reaches max(min(1.5 × cwnd, maxwnd), 5
//     packets), maxwnd being 1.5 × the path's BDP
//     (UecSrc::update_base_rtt: _maxwnd = 1.5 * _bdp; runSleek:
//     loss_retx_factor 1.5, min_retx_config 5), it enters loss recovery
//     until the cumulative PSN passes the highest PSN sent, and resends
//     the PSNs not SACKed from the cumulative one, at most a window of
//     them past it.
//
// The sender keeps its PSNs within what the receiver tracks past its
// cumulative PSN (srWindow, 512: uet-htsim's sink keeps a bitmap of the
// PSNs received, UecSink::_epsn_rx_bitmap, and its sender sends no more
// than its window, maxwnd at most): a packet beyond it would be dropped
// unSACKed, and every later one with it, until a timeout.
//
// SLEEK runs where the QP has a congestion window (a sender congestion
// control such as NSCC, or hca.bdp_cap): uet-htsim runs it only with its
// sender-based congestion control (UecSrc::processAck: `_sender_based_cc
// && _enable_sleek`), its threshold being tied to the window. Without one
// (cc: none) a gap is resent only on a trim NACK or a timeout, as in
// uet-htsim's runs with `-sender_cc_algo constant`. A reordering that
// stays below the threshold costs nothing: spraying over a slowed path
// is not taken for loss.

// sackBitmapSpan is the PSNs one UET SACK covers (a 64-bit bitmap).
const sackBitmapSpan = 64

// SLEEK's constants (uet-htsim, htsim/sim/uec.cpp: UecSrc::loss_retx_factor
// 1.5, min_retx_config 5).
const (
	sleekFactorNum, sleekFactorDen = 3, 2
	sleekMinPackets                = 5
)

// SetPathBDP gives a UET QP its path's bandwidth-delay product in bytes,
// from which SLEEK's threshold follows (maxwnd = 1.5 × BDP); 0 leaves
// SLEEK off (loss found by trim NACKs and timeouts only).
func (h *HCA) SetPathBDP(qp *QP, bdp int64) {
	qp.srs().pathBDP = bdp
}

// SetMinRTO gives a UET QP uet-htsim's retransmission timeout
// (UecSrc::startRTO, recalculateRTO, rtxTimerExpired): the timer fires
// minRTO after the send time of the oldest packet sent and neither
// acknowledged nor SACKed (UecSrc::_send_times, which an ACK, a SACK and
// a resend each update), where IRN's restarts RTO_low or RTO_high at
// each acknowledgement that makes progress. 0 keeps IRN's. What a
// timeout resends is lfsim's (srTimeout: the oldest PSN and the holes
// below the highest SACKed one), where htsim's resends the one packet
// whose time is up and then takes the next oldest's; after it the next
// deadline runs from the timeout at the earliest.
func (h *HCA) SetMinRTO(qp *QP, minRTO sim.Time) {
	s := qp.srs()
	s.minRTO = minRTO
	if minRTO > 0 && s.sentAt == nil {
		s.sentAt = make([]sim.Time, srWindow)
	}
}

// uetRTODeadline is uet-htsim's retransmission deadline for qp: minRTO
// after the send time of its oldest packet neither acknowledged nor
// SACKed, and not before minRTO after its last timeout; false when no
// packet is outstanding. The PSNs outstanding lie within srWindow of the
// cumulative acknowledgement (the sender's limit, holdUntil).
func (h *HCA) uetRTODeadline(qp *QP) (sim.Time, bool) {
	s := qp.sr
	s.sync(qp.ackHigh)
	oldest, any := sim.Never, false
	for psn := qp.ackHigh; psn < qp.maxSent && psn-qp.ackHigh < srWindow; psn++ {
		if s.sack[psn%srSackWindow] {
			continue
		}
		oldest, any = min(oldest, s.sentAt[psn%srWindow]), true
	}
	if !any {
		return 0, false
	}
	return max(oldest, s.rtoFloor) + s.minRTO, true
}

// uetArmTimer starts qp's timer at uet-htsim's deadline, unless it runs:
// the deadline never comes sooner while packets are outstanding (an
// acknowledgement or SACK takes a packet out, a send or resend is the
// latest), so a running timer fires no later than it, and uetRTODue
// then takes the deadline as it has become.
func (h *HCA) uetArmTimer(qp *QP) {
	if qp.timerDue != 0 && qp.timer.Pending() {
		return
	}
	due, ok := h.uetRTODeadline(qp)
	if !ok {
		due = h.eng.Now() + qp.sr.minRTO // the packet about to go
	}
	qp.timerDue = max(due, h.eng.Now())
	h.eng.Cancel(qp.timer)
	qp.timer = h.eng.Schedule(qp.timerDue, h, evTimeout, 0, qp)
}

// uetRTODue reports, at qp's timer's due time, whether its deadline
// has come (a timeout); if a later one stands, it moves the timer there.
func (h *HCA) uetRTODue(qp *QP) bool {
	now := h.eng.Now()
	due, ok := h.uetRTODeadline(qp)
	switch {
	case !ok:
		qp.timerDue = 0
		return false
	case due > now:
		qp.timerDue = due
		qp.timer = h.eng.Schedule(due, h, evTimeout, 0, qp)
		return false
	}
	qp.sr.rtoFloor = now
	return true
}

// uetGap takes UET request p kept past the gap at ePSN: it is SACKed when
// its requester asked for an acknowledgement (sendAck attaches the
// bitmap); the gap itself is never NAKed.
func (h *HCA) uetGap(qp *QP, p *fabric.Packet) {
	if p.AckReq {
		h.sendAck(qp, p, fabric.SyndromeACK, qp.ePSN-1)
	}
}

// uetAccept executes the in-order UET request p, then the packets kept
// past it that it made contiguous, and acknowledges p once, its ACK's
// cumulative PSN past them all: as uet-htsim's UecSink::processData
// advances its cumulative PSN over its receive bitmap before it sends
// the one ACK the arriving packet asked for. The packets replayed were
// SACKed when they arrived (uetGap); an ACK for each again, now, would
// hand the sender a second RTT sample of each, stretched by its wait
// past the gap, and its CE mark a second time (NSCC read both as
// queueing: issue 53).
func (h *HCA) uetAccept(qp *QP, p *fabric.Packet, psn int64, op fabric.Opcode) {
	s := qp.sr
	s.holdAck, s.ackHeld = true, false
	h.accept(qp, p, psn, op)
	n := h.replay(qp)
	held := s.ackHeld
	s.holdAck, s.ackHeld = false, false
	if (held || n > 0) && qp.Type == RC && qp.State != QPErr {
		h.sendAck(qp, p, fabric.SyndromeACK, qp.ePSN-1)
	}
}

// uetSack writes into UET ACK a (for request req) the SACK bitmap and
// out-of-order count of qp's receive side, or clears them when nothing
// waits past a gap.
func (h *HCA) uetSack(qp *QP, a, req *fabric.Packet) {
	h.uetSackFrom(qp, a, expand(req.PSN, qp.ePSN))
}

// uetSackFrom is uetSack for the bitmap that ends at psn (from the PSN
// past the cumulative one at the earliest).
func (h *HCA) uetSackFrom(qp *QP, a *fabric.Packet, psn int64) {
	s := qp.sr
	if s == nil || s.kept == 0 {
		if a.Ext != nil {
			a.Ext.SackBits, a.Ext.OOO = 0, 0
		}
		return
	}
	base := max(psn-(sackBitmapSpan-1), qp.ePSN+1)
	var bm uint64
	for i := int64(0); i < sackBitmapSpan && base+i-qp.ePSN < srWindow; i++ {
		if b := s.buf[(base+i)%srWindow]; b != nil && expand(b.PSN, qp.ePSN) == base+i {
			bm |= 1 << i
		}
	}
	x := h.pool.Ext(a)
	x.SackPSN, x.SackBits, x.OOO = uint32(base)&psnMask, bm, uint32(s.kept)
}

// uetSacked takes the SACK bitmap and out-of-order count of UET ACK p
// (its cumulative PSN taken already) and runs SLEEK's rule.
func (h *HCA) uetSacked(qp *QP, p *fabric.Packet) {
	if qp.State != QPRTS && qp.State != QPSQD {
		return
	}
	s := qp.srs()
	s.sync(qp.ackHigh)
	x := p.Ext
	fresh := false
	if bm := x.SackBits; bm != 0 {
		base := expand(x.SackPSN, qp.ackHigh)
		for bm != 0 {
			i := int64(bits.TrailingZeros64(bm))
			bm &= bm - 1
			if sp := base + i; sp >= qp.ackHigh && sp < qp.maxSent && sp-qp.ackHigh < srSackWindow && !s.sack[sp%srSackWindow] {
				s.sack[sp%srSackWindow] = true
				s.sacked++
				s.sackTop = max(s.sackTop, sp+1)
				fresh = true
			}
		}
	}
	if fresh {
		h.armTimer(qp) // the responder took packets the sender had not heard of
		if qp.Window > 0 {
			h.activate(qp) // SACKed packets leave the window (uetInFlight)
		}
	}
	if s.pathBDP == 0 || qp.Window == 0 {
		return // SLEEK off: no path BDP, or no congestion window
	}
	probed := x.Probe && p.Echo == s.probeSentAt && s.baseRTT > 0 && h.eng.Now()-s.probeSentAt < s.baseRTT+s.target
	if probed {
		// The answer to the last probe, back with a queueing delay
		// under the target: the silence was a loss, not congestion
		// (UecSrc::processAck: is_probe_ack, delay < _target_Qdelay).
		// Recovery from the cumulative PSN, as SLEEK's (below).
		s.recovering, s.next, s.top, s.high = true, qp.ackHigh, qp.ackHigh, qp.maxSent
	}
	if s.recovering && qp.ackHigh >= s.high {
		// UecSrc::runSleek: exit_loss. After the probe's entry, as
		// htsim runs it: an answer that acknowledges every PSN sent
		// (only ACKs were lost) leaves no recovery open.
		s.recovering = false
	}
	if probed && s.recovering {
		h.coldPart().sleek++
	}
	if !s.recovering {
		if int64(x.OOO) < h.sleekThreshold(qp) {
			return
		}
		// SLEEK: enter loss recovery until the cumulative PSN passes
		// the highest PSN sent now.
		s.recovering, s.next, s.top, s.high = true, qp.ackHigh, qp.ackHigh, qp.maxSent
		h.coldPart().sleek++
	}
	// Resend what is not SACKed from the cumulative PSN, at most a
	// window past it, up to the recovery's end (runSleek's loop, at each
	// ACK while recovering).
	if top := min(s.high, qp.ackHigh+h.sleekWindow(qp)); top > s.top {
		s.top = top
		h.activate(qp)
	}
}

// uetOvertaken takes UET ACK or NACK p whose cumulative PSN is below
// what later ACKs acknowledged: they overtook it on another path (an ACK
// echoes its request's entropy value, so a sprayed QP's ACKs and NACKs
// come back over many paths, all in hca.uet.ack_priority's class). The
// PSN a trim NACK names is still news: uet-htsim's sender resends the
// PSN of every NACK (UecSrc::processNack) whatever its cumulative PSN.
// Discarded whole as stale, a trim NACK overtaken by the ACK of a later
// packet left its PSN to the retransmission timeout (issue 53: with the
// ACKs at their request's priority and the NACKs at the trimmed
// header's, a NACK was rarely overtaken). An overtaken ACK's SACK bitmap
// is left out, as before: htsim takes it too (processAck's handleAckno),
// but lfsim's NSCC does not count SACKed bytes as htsim's does
// (docs/RELIABILITY.md), and taking the bitmap alone moved the NSCC
// permutation's last flow from 284.4 to 293.3 us.
func (h *HCA) uetOvertaken(qp *QP, p *fabric.Packet) {
	if qp.sr != nil && p.Syndrome == fabric.SyndromeNAKSeqErr && p.Ext != nil && p.Ext.Trimmed {
		h.srSacked(qp, p, qp.ackHigh)
	}
	if qp.sr != nil && qp.sr.baseRTT > 0 && p.Syndrome == fabric.SyndromeACK && (qp.State == QPRTS || qp.State == QPSQD) {
		h.rearmProbe(qp) // an ACK all the same (UecSrc::processAck)
	}
}

// SLEEK's probe (uet-htsim, htsim/sim/uec.cpp: UecSrc::processAck's
// "probe packets", sendProbe, doNextEvent; UecSink::processData's
// DATA_PROBE): at each ACK a QP that runs SLEEK restarts a probe timer
// while it has packets unacknowledged or data still to send, of the base
// RTT plus NSCC's target delay, or probe_first_trial_time (3) base RTTs
// while data waits to be sent; if it fires (its ACKs stopped), the QP
// sends a probe, a header the receiver answers at once with an ACK of
// its cumulative PSN, SACK bitmap and out-of-order count, and probes
// again every probe_retry_time (5) base RTTs while none answers. An
// answer back with a queueing delay under the target says the silence
// was a loss (a full window or a tail lost), not congestion: the QP
// enters SLEEK's recovery and resends what is neither acknowledged nor
// SACKed from the cumulative PSN (uetSacked), without waiting for its
// retransmission timeout. The probe goes in the QP's data class, a
// header (a PDS control packet of an ACK's size) on the QP's entropy
// value (uet-htsim sends it on the next entropy, not modelled).
const (
	sleekProbeFirst = 3 // UecSrc::probe_first_trial_time, base RTTs
	sleekProbeRetry = 5 // UecSrc::probe_retry_time, base RTTs
)

// SetSleekProbe gives a UET QP that runs SLEEK its path's base RTT and
// NSCC's target delay, from which its probes' timers follow; 0 leaves
// the probes off.
func (h *HCA) SetSleekProbe(qp *QP, baseRTT, target sim.Time) {
	s := qp.srs()
	s.baseRTT, s.target = baseRTT, target
}

// rearmProbe restarts qp's probe timer at an ACK, as UecSrc::processAck
// does: while packets are unacknowledged or data waits to be sent, and
// SLEEK runs (a path BDP and a congestion window).
func (h *HCA) rearmProbe(qp *QP) {
	s := qp.sr
	h.eng.Cancel(s.probeTimer)
	s.probeTimer = sim.Timer{}
	if s.pathBDP == 0 || qp.Window == 0 {
		return
	}
	backlog := qp.sendIdx < len(qp.sq)
	if qp.ackHigh >= qp.maxSent && !backlog {
		return
	}
	d := s.baseRTT + s.target
	if backlog {
		d = sleekProbeFirst * s.baseRTT
	}
	s.probeTimer = h.eng.After(d, h, evSleekProbe, 0, qp)
}

// sleekProbe sends qp's probe (UecSrc::sendProbe) and times the next.
func (h *HCA) sleekProbe(qp *QP) {
	s := qp.sr
	s.probeTimer = sim.Timer{}
	if qp.destroyed || qp.State != QPRTS && qp.State != QPSQD {
		return
	}
	now := h.eng.Now()
	s.probeSeq++
	c := h.pool.Get()
	c.Kind = fabric.KindCNP
	c.Opcode = fabric.OpCNP
	c.Priority, c.SL, c.DSCP = qp.Priority, qp.SL, qp.dscp()
	if qp.ECT {
		c.ECN = fabric.ECT0
	}
	c.Src, c.Dst = h.ID, qp.Remote
	if qp.port2 {
		c.Src = h.cold.id2
	}
	c.Flow = qp.flow
	c.DestQP, c.SrcQP = qp.RemoteQPN, qp.QPN
	c.PSN = s.probeSeq & psnMask
	c.SentAt = now
	c.Wire, c.Link = h.wire(fabric.OpCNP, 0)
	c.InPort = -1
	h.pool.Ext(c).Probe = true
	s.probeSentAt = now
	h.coldPart().probes++
	h.pushCtrl(c)
	s.probeTimer = h.eng.After(sleekProbeRetry*s.baseRTT, h, evSleekProbe, 0, qp)
}

// answerProbe answers UET probe p for responder qp at once with an ACK
// of its cumulative PSN, the SACK bitmap from it and its out-of-order
// count, marked as the probe's answer and echoing the probe's send time
// and CE mark (UecSink::processData: sack(...) with set_probe_ack).
func (h *HCA) answerProbe(qp *QP, p *fabric.Packet) {
	if qp.Type != RC || qp.State != QPRTR && qp.State != QPRTS && qp.State != QPSQD {
		return
	}
	a := h.newAck(qp, p, fabric.OpAcknowledge, qp.ePSN-1)
	a.Syndrome = fabric.SyndromeACK
	h.echo(a, p)
	h.uetSackFrom(qp, a, qp.ePSN)
	h.pool.Ext(a).Probe = true
	h.Stats.AcksSent++
	h.pushCtrl(a)
}

// SleekProbes returns how many probes the HCA's UET QPs sent.
func (h *HCA) SleekProbes() int64 {
	if h.cold == nil {
		return 0
	}
	return h.cold.probes
}

// uetInFlight is what a UET QP's congestion window holds, in packets:
// those sent and neither acknowledged nor SACKed, as uet-htsim's sender
// counts its bytes in flight (UecSrc::_in_flight, which each packet's
// SACK takes its bytes from: processAck, handleAckno). A packet past a
// gap that the receiver SACKed leaves the window, where the PSN span
// from the oldest unacknowledged PSN (IRN's BDP-FC, hca.bdp_cap on
// RoCE) keeps it in: under spraying over a slowed path one late packet
// would hold the window shut behind it.
// end is one past the last PSN counted (the next to send).
func uetInFlight(qp *QP, end int64) int64 {
	n := end - qp.una
	if s := qp.sr; s != nil {
		n -= s.sacked
	}
	return max(0, n)
}

// sleekWindow is SLEEK's window in packets: the QP's congestion window,
// at most maxwnd (1.5 × the path's BDP), in whole packets.
func (h *HCA) sleekWindow(qp *QP) int64 {
	maxwnd := qp.sr.pathBDP * sleekFactorNum / sleekFactorDen
	return max(1, min(qp.Window, maxwnd)/int64(qp.pmtu))
}

// sleekThreshold is the out-of-order count, in packets, past which SLEEK
// takes the gap for a loss: max(min(1.5 × cwnd, maxwnd), 5 packets)
// (UecSrc::runSleek).
func (h *HCA) sleekThreshold(qp *QP) int64 {
	maxwnd := qp.sr.pathBDP * sleekFactorNum / sleekFactorDen
	t := min(qp.Window*sleekFactorNum/sleekFactorDen, maxwnd)
	return max(sleekMinPackets, t/int64(qp.pmtu))
}

// SleekRecoveries returns how many times a UET QP of the HCA entered
// SLEEK's loss recovery.
func (h *HCA) SleekRecoveries() int64 {
	if h.cold == nil {
		return 0
	}
	return h.cold.sleek
}
