package hca

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// iWARP's TCP, in the NIC (Profile.Transport == fabric.IWARP). An RC QP
// is one TCP connection each way; each request packet is one TCP segment
// carrying one FPDU (MPA aligns FPDUs to segments, RFC 5044 §8, and
// resends whole ones), so a segment is a PSN and the stream's bytes
// follow from the packets' sizes. The segment's payload is the QP's MTU.
//
// Receiver: an in-order segment is taken and acknowledged cumulatively,
// at once or (DelayedAck) every second segment or after the delay; a
// segment past a gap is kept (the reassembly queue, srKeep) and answered
// at once with a duplicate ACK, which with SACK carries the segment's
// block; a duplicate or a segment that fills a gap is acknowledged at
// once (RFC 5681 4.2).
//
// Sender: a scoreboard of the segments outstanding (tcpSeg) and the pipe
// (RFC 6675: segments in flight, neither acknowledged, SACKed nor
// counted lost). New segments go while the pipe is below the congestion
// window and the stream stays within the receive window and the send
// buffer from the cumulative ACK. DupThresh duplicate ACKs start a fast
// retransmit and loss recovery until the cumulative ACK passes the
// highest segment sent then: with SACK every segment below the highest
// SACKed one that was sent once and not SACKed is lost (RFC 6675's IsLost
// with each duplicate ACK SACKing one segment), without SACK the first
// unacknowledged one, and again after each partial ACK (NewReno, RFC
// 6582). Lost segments are resent while the pipe allows, the first at
// once. The retransmission timer follows RFC 6298 (SRTT, RTTVAR, RTO
// between RTOMin and RTOMax, doubled per expiry; round-trip samples from
// every ACK with timestamps, else only from ACKs of segments never
// resent, Karn's rule); on expiry every segment outstanding and not
// SACKed is lost and resent from one segment's window.
//
// What is not modelled: the responder's stream of READ responses (the
// scenario refuses READ on iWARP: without a TCP of their own a lost
// response stalls the READ); the handshake and MPA's negotiation (QPs are
// connected at once); the passive side's wait for the initiator's first
// FPDU (RFC 6581's RTR).

// tcpSeg is a PSN's state on the sender's scoreboard.
type tcpSeg uint8

const (
	segIdle   tcpSeg = iota // not in flight: not sent, or acknowledged
	segOut                  // sent once, in flight
	segSacked               // SACKed
	segLost                 // counted lost, waiting to be resent
	segResent               // resent, in flight (never counted lost again but by a timeout)
)

// tcpBoard is how many PSNs past the cumulative ACK the scoreboard
// holds: the sender keeps its stream within it.
const tcpBoard = 1 << 12

type tcpState struct {
	// Sender.
	board       []tcpSeg
	pipe        int64 // segments in flight
	inflate     int64 // without SACK: duplicate ACKs since the last cumulative ACK
	lost        int64 // segments counted lost, not yet resent
	lostFrom    int64 // no segment below it is lost
	holesTo     int64 // SACK's holes below it are counted lost already
	highSack    int64 // one past the highest SACKed PSN
	resentHigh  int64 // one past the highest PSN ever resent (Karn)
	dupacks     int
	recovering  bool
	afterRTO    bool  // the recovery is a timeout's
	recover     int64 // recovery ends when the cumulative ACK reaches it
	firstResend bool  // the fast retransmit itself goes regardless of the window
	srtt        sim.Time
	rttvar      sim.Time
	rto         sim.Time
	backoff     uint

	// Receiver.
	unacked int // in-order segments not yet acknowledged (DelayedAck)
	ece     uint16
	echoAt  sim.Time
	delack  sim.Timer
}

func (h *HCA) iwarp() bool { return h.Prof.Transport == fabric.IWARP }

// tcpStart opens qp's TCP as it reaches RTS.
func (h *HCA) tcpStart(qp *QP) {
	qp.tcp = &tcpState{board: make([]tcpSeg, tcpBoard), rto: h.Prof.TCP.RTOInitial, lostFrom: qp.ackHigh}
	if f := h.Prof.TCP.NewCC; f != nil {
		qp.CC = f(h, qp)
	}
	if qp.Window == 0 {
		qp.Window = h.Prof.TCP.SndWin
	}
}

func (t *tcpState) seg(psn int64) *tcpSeg { return &t.board[psn%tcpBoard] }

// SRTT is the QP's TCP smoothed round-trip time (RFC 6298), 0 before the
// first sample or when the QP runs no TCP.
func (q *QP) SRTT() sim.Time {
	if q.tcp == nil {
		return 0
	}
	return q.tcp.srtt
}

// tcpHold reports whether qp's next new segment must wait: the pipe is
// at the congestion window, or the stream would leave the receive
// window, the send buffer or the scoreboard.
func (h *HCA) tcpHold(qp *QP) bool {
	t, mss := qp.tcp, int64(h.Prof.MTU)
	span := qp.nextPSN + 1 - qp.ackHigh
	if w := qp.sq[qp.sendIdx]; w.Op.isRead() {
		span = w.FirstPSN + w.NPkts - qp.ackHigh
	}
	c := h.Prof.TCP
	return (t.pipe-t.inflate)*mss >= qp.Window || span*mss > min(c.RcvWin, c.SndWin) && qp.nextPSN > qp.ackHigh || span > tcpBoard
}

// tcpSent puts the segment at psn on the scoreboard as sent.
func (h *HCA) tcpSent(qp *QP, psn int64) {
	t := qp.tcp
	if psn < qp.ackHigh {
		return // a READ asked again from a lost response: acknowledged already
	}
	s := t.seg(psn)
	switch *s {
	case segOut, segResent:
		return // a READ asked again (readResponse): still in flight
	case segLost:
		t.lost--
		*s = segResent
		t.resentHigh = max(t.resentHigh, psn+1)
	case segSacked:
		return
	default:
		*s = segOut
		if psn < qp.maxSent {
			*s = segResent
			t.resentHigh = max(t.resentHigh, psn+1)
		}
	}
	t.pipe++
}

// tcpAcked is the sender's side of an ACK.
func (h *HCA) tcpAcked(qp *QP, p *fabric.Packet) {
	t := qp.tcp
	cum := expand(p.PSN, qp.una) + 1
	if cum < qp.ackHigh || cum > qp.maxSent {
		return // stale or bogus
	}
	now := h.eng.Now()
	if cum > qp.ackHigh {
		if h.Prof.TCP.Timestamps || (!t.recovering && t.backoff == 0 && cum > t.resentHigh) {
			h.tcpRTT(qp, now-p.Echo)
		}
		for psn := qp.ackHigh; psn < cum; psn++ {
			switch s := t.seg(psn); *s {
			case segOut, segResent:
				t.pipe--
			case segLost:
				t.lost--
			}
			*t.seg(psn) = segIdle
		}
		t.dupacks, t.inflate, t.backoff = 0, 0, 0
		h.ackTo(qp, cum)
		if t.recovering {
			if cum >= t.recover {
				t.recovering = false
				if tc, ok := qp.CC.(tcpCC); ok && !t.afterRTO {
					tc.OnRecoveryEnd(now)
				}
			} else if !h.Prof.TCP.SACK {
				h.tcpLose(qp, cum) // a partial ACK: the next hole (RFC 6582 3.2 step 5)
			}
		}
		h.activate(qp)
		return
	}
	if qp.maxSent == qp.ackHigh || qp.State != QPRTS && qp.State != QPSQD {
		return // nothing outstanding: a window update, not a duplicate
	}
	t.dupacks++
	if p.SACK {
		sp := expand(p.SackPSN, qp.ackHigh)
		if sp >= qp.ackHigh && sp < qp.maxSent && sp-qp.ackHigh < tcpBoard {
			switch s := t.seg(sp); *s {
			case segOut, segResent:
				t.pipe--
				*s = segSacked
			case segLost:
				t.lost--
				*s = segSacked
			}
			t.highSack = max(t.highSack, sp+1)
		}
	} else if t.inflate < t.pipe {
		t.inflate++ // a segment left the network (RFC 6582's inflation)
	}
	switch {
	case !t.recovering && t.dupacks >= h.Prof.TCP.DupThresh:
		t.recovering, t.afterRTO, t.recover, t.firstResend = true, false, qp.maxSent, true
		if tc, ok := qp.CC.(tcpCC); ok {
			tc.OnFastRetransmit(now, (qp.maxSent-qp.ackHigh)*int64(h.Prof.MTU))
		}
		h.tcpLoseHoles(qp)
	case t.recovering && p.SACK:
		h.tcpLoseHoles(qp)
	}
	h.activate(qp)
}

// tcpLoseHoles counts lost the segments sent once and not SACKed below
// the highest SACKed one; without SACK, the first unacknowledged one.
func (h *HCA) tcpLoseHoles(qp *QP) {
	t := qp.tcp
	if !h.Prof.TCP.SACK {
		h.tcpLose(qp, qp.ackHigh)
		return
	}
	for psn := max(t.holesTo, qp.ackHigh); psn < t.highSack; psn++ {
		h.tcpLose(qp, psn)
	}
	t.holesTo = max(t.holesTo, t.highSack)
}

// tcpLose counts the segment at psn lost if it is in flight, sent once.
func (h *HCA) tcpLose(qp *QP, psn int64) {
	t := qp.tcp
	if s := t.seg(psn); *s == segOut {
		*s = segLost
		t.pipe--
		t.lost++
		t.lostFrom = min(t.lostFrom, psn)
	}
}

// tcpRTT takes a round-trip sample (RFC 6298 2.2 and 2.3).
func (h *HCA) tcpRTT(qp *QP, r sim.Time) {
	t := qp.tcp
	if r <= 0 {
		return
	}
	if t.srtt == 0 {
		t.srtt, t.rttvar = r, r/2
	} else {
		d := t.srtt - r
		if d < 0 {
			d = -d
		}
		t.rttvar = (3*t.rttvar + d) / 4
		t.srtt = (7*t.srtt + r) / 8
	}
	c := h.Prof.TCP
	t.rto = min(max(t.srtt+4*t.rttvar, c.RTOMin), c.RTOMax)
}

// tcpTimeout: the retransmission timer expired (RFC 6298 5.4–5.6, RFC
// 5681 3.1): every segment outstanding and not SACKed is lost, resent
// from one segment's window; the timer backs off.
func (h *HCA) tcpTimeout(qp *QP) {
	t := qp.tcp
	flight := (qp.maxSent - qp.ackHigh) * int64(h.Prof.MTU)
	t.backoff++
	t.dupacks, t.inflate = 0, 0
	for psn := qp.ackHigh; psn < qp.maxSent; psn++ {
		if s := t.seg(psn); *s == segOut || *s == segResent {
			*s = segOut // lost again, and resent again
			h.tcpLose(qp, psn)
		}
	}
	t.recovering, t.afterRTO, t.recover, t.firstResend = true, true, qp.maxSent, true
	if tc, ok := qp.CC.(tcpCC); ok {
		tc.OnRTO(h.eng.Now(), flight)
	}
	h.activate(qp)
}

// tcpRTO is the retransmission timeout now, backed off.
func (h *HCA) tcpRTO(qp *QP) sim.Time {
	t := qp.tcp
	return min(t.rto<<min(t.backoff, 30), h.Prof.TCP.RTOMax)
}

// tcpPending reports whether a lost segment waits to be resent.
func (q *QP) tcpPending() bool { return q.tcp != nil && q.tcp.lost > 0 }

// tcpResend sends qp's lowest lost segment if the pipe allows (the fast
// retransmit's first always), or returns nil.
func (h *HCA) tcpResend(qp *QP) *fabric.Packet {
	t := qp.tcp
	if !t.firstResend && (t.pipe-t.inflate)*int64(h.Prof.MTU) >= qp.Window {
		return nil
	}
	psn := max(t.lostFrom, qp.ackHigh)
	for ; psn < qp.maxSent && *t.seg(psn) != segLost; psn++ {
	}
	if psn >= qp.maxSent {
		t.lost = 0 // none left (acknowledged meanwhile)
		return nil
	}
	t.lostFrom = psn
	t.firstResend = false
	idx, off, next := qp.sendIdx, qp.sendOff, qp.nextPSN
	h.setSendPos(qp, psn)
	p := h.nextRequest(qp)
	qp.sendIdx, qp.sendOff, qp.nextPSN = idx, off, next
	return p
}

// tcpCC is a congestion control that hears TCP's loss events
// (congestion.TCPSender).
type tcpCC interface {
	OnFastRetransmit(now sim.Time, flight int64)
	OnRecoveryEnd(now sim.Time)
	OnRTO(now sim.Time, flight int64)
}

// ---- receiver

// tcpReceived acknowledges the in-order segment p: at once, or with
// DelayedAck every second segment or after the delay.
func (h *HCA) tcpReceived(qp *QP, p *fabric.Packet, psn int64) {
	t := qp.tcp
	d := h.Prof.TCP.DelayedAck
	if t == nil || d == 0 {
		h.sendAck(qp, p, fabric.SyndromeACK, psn)
		return
	}
	t.unacked++
	if t.unacked >= 2 {
		h.sendAck(qp, p, fabric.SyndromeACK, psn)
		return
	}
	if p.ECN == fabric.CE {
		t.ece++
	}
	t.echoAt = p.SentAt
	if !t.delack.Pending() {
		t.delack = h.eng.Schedule(h.eng.Now()+d, h, evDelAck, 0, qp)
	}
}

// delayedAck sends the ACK a lone segment waited for.
func (h *HCA) delayedAck(qp *QP) {
	t := qp.tcp
	t.delack = sim.Timer{}
	if t.unacked == 0 || qp.State == QPErr || qp.destroyed {
		return
	}
	req := h.standIn(qp)
	req.SentAt = t.echoAt
	h.sendAck(qp, req, fabric.SyndromeACK, qp.ePSN-1)
}

// tcpAckSent notes that an ACK covering everything taken is on its way.
func (t *tcpState) ackSent(a *fabric.Packet) {
	if t.ece > 0 && a.ECE < 1<<16-1-t.ece {
		a.ECE += t.ece
	}
	t.unacked, t.ece = 0, 0
}

// tcpOutOfOrder keeps the segment p past a gap and answers with a
// duplicate ACK, which with SACK carries its block.
func (h *HCA) tcpOutOfOrder(qp *QP, p *fabric.Packet, psn int64) {
	h.srKeep(qp, p, psn, false) // beyond the queue it is dropped; the ACK still goes
	a := h.newAck(qp, p, fabric.OpAcknowledge, qp.ePSN-1)
	h.echo(a, p)
	if h.Prof.TCP.SACK {
		a.SACK = true
		a.SackPSN = uint32(psn) & psnMask
		a.Wire = int32(fabric.TCPAckWire(h.Prof.TCP.Timestamps, true))
	}
	h.Stats.AcksSent++
	h.ctrl.Push(a)
	h.port.Kick()
}
