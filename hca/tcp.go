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
// READ responses travel on the responder's own stream (tcpread.go), so
// a READ can complete, and leave the send queue, before its request's
// segment is acknowledged: the stream keeps it (doneReads) until it is,
// to resend that segment from.
//
// The passive side (Accept) sends no FPDU before the initiator's first.
// A connection made by rdma_cm (IWConnect, IWListen: iwconn.go) sends
// none before its NIC's TCP handshake, MPA exchange and RFC 6581's
// ready-to-receive message are done. Connect and Accept skip them (out
// of band, as on every transport).

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
	// snd sends the QP's requests; its cumulative ACK and highest PSN
	// sent are the QP's ackHigh and maxSent.
	snd tcpSender
	// rsp sends the QP's READ responses (tcpread.go), nil until the QP
	// serves a READ; rcv takes the responses to its own READs.
	rsp *tcpRsp
	rcv rspRcv
	// await: the QP sends no FPDU yet: MPA's Responder (Accept) has not
	// received the Initiator's first FPDU, or a connection rdma_cm makes
	// (iwconn.go) is not yet in FPDU mode (the Initiator waits for MPA's
	// Reply, the Responder for the Initiator's RTR or first FPDU).
	await bool
	// doneReads are the READs that completed (every response in) and
	// left the send queue before their request's segment was
	// acknowledged, in PSN order: the stream may still count that
	// segment lost and resend it (tcpResend), from them.
	doneReads []*WQE

	// Receiver.
	unacked int // in-order segments not yet acknowledged (DelayedAck)
	ece     uint16
	echoAt  sim.Time
	delack  sim.Timer
}

// tcpSender is one direction's TCP sender: its scoreboard, keyed by
// PSN, and its recovery and retransmission timer state. una and high
// point at the stream's cumulative ACK and one past its highest PSN sent
// (the QP's ackHigh and maxSent for requests); window at the bytes the
// congestion control lets it have in flight.
type tcpSender struct {
	board       []tcpSeg
	una, high   *int64
	window      *int64
	mss         int64 // bytes of payload a segment counts for: the QP's path MTU
	out         int64 // segments sent and not cumulatively acknowledged (the flight)
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
}

func (h *HCA) iwarp() bool { return h.Prof.Transport == fabric.IWARP }

// tcpStart opens qp's TCP as it reaches RTS.
func (h *HCA) tcpStart(qp *QP) {
	qp.tcp = &tcpState{rcv: rspRcv{next: 1}}
	qp.tcp.snd = h.newTCPSender(&qp.ackHigh, &qp.maxSent, &qp.Window, int64(qp.pmtu))
	if f := h.Prof.TCP.NewCC; f != nil {
		qp.CC = f(h, qp, func(r fabric.Rate, w int64) { h.SetRate(qp, r, w) })
	}
	if qp.Window == 0 {
		qp.Window = h.Prof.TCP.SndWin
	}
	h.iwStarted(qp)
}

// newTCPSender counts each segment as mss bytes of the window: the QP's
// path MTU (QPAttr.PathMTU), which cuts its FPDUs, not the port's.
func (h *HCA) newTCPSender(una, high, window *int64, mss int64) tcpSender {
	return tcpSender{board: make([]tcpSeg, tcpBoard), una: una, high: high, window: window, mss: mss, rto: h.Prof.TCP.RTOInitial, lostFrom: *una}
}

func (s *tcpSender) seg(psn int64) *tcpSeg { return &s.board[psn%tcpBoard] }

// SRTT is the QP's TCP smoothed round-trip time (RFC 6298) on its
// requests, 0 before the first sample or when the QP runs no TCP.
func (q *QP) SRTT() sim.Time {
	if q.tcp == nil {
		return 0
	}
	return q.tcp.snd.srtt
}

// full reports whether the pipe is at the window.
func (s *tcpSender) full(mss int64) bool { return (s.pipe-s.inflate)*mss >= *s.window }

// tcpHold reports whether qp's next new segment must wait: the pipe is
// at the congestion window, or the stream would leave the receive
// window or the send buffer (counted in segments: a READ request is one,
// though its responses' PSNs follow it), or the receiver's reassembly
// queue, which keeps segments past a gap by PSN (srWindow PSNs from the
// cumulative ACK; a segment beyond it would be dropped).
func (h *HCA) tcpHold(qp *QP) bool {
	s := &qp.tcp.snd
	mss := s.mss
	c := h.Prof.TCP
	return s.full(mss) || (s.out+1)*mss > min(c.RcvWin, c.SndWin) && s.out > 0 || qp.nextPSN+1-qp.ackHigh > srWindow
}

// sent puts the segment at psn on the scoreboard as sent.
func (s *tcpSender) sent(psn int64) {
	if psn < *s.una {
		return // a READ asked again from a lost response: acknowledged already
	}
	g := s.seg(psn)
	switch *g {
	case segOut, segResent:
		return // a READ asked again (readResponse): still in flight
	case segLost:
		s.lost--
		*g = segResent
		s.resentHigh = max(s.resentHigh, psn+1)
	case segSacked:
		return
	default:
		*g = segOut
		if psn < *s.high {
			*g = segResent
			s.resentHigh = max(s.resentHigh, psn+1)
		} else {
			s.out++
		}
	}
	s.pipe++
}

// acked is the sender's side of an ACK whose cumulative point (one past
// the last PSN it acknowledges) is cum and whose SACK block, if sack,
// is sackPSN. It returns whether the cumulative ACK moved (the caller
// then moves the stream's una and its WQEs) and reports a duplicate ACK
// to the recovery. echo is the ACK's echo of its segment's send time.
func (h *HCA) tcpAck(s *tcpSender, cc CongestionControl, cum int64, sack bool, sackPSN int64, echo sim.Time) (moved bool) {
	now := h.eng.Now()
	if cum > *s.una {
		if h.Prof.TCP.Timestamps || (!s.recovering && s.backoff == 0 && cum > s.resentHigh) {
			h.tcpRTT(s, now-echo)
		}
		for psn := *s.una; psn < cum; psn++ {
			switch g := s.seg(psn); *g {
			case segOut, segResent:
				s.pipe--
			case segLost:
				s.lost--
			}
			if g := s.seg(psn); *g != segIdle {
				s.out--
				*g = segIdle
			}
		}
		s.dupacks, s.inflate, s.backoff = 0, 0, 0
		return true
	}
	s.dupacks++
	if sack {
		if sackPSN >= *s.una && sackPSN < *s.high && sackPSN-*s.una < tcpBoard {
			switch g := s.seg(sackPSN); *g {
			case segOut, segResent:
				s.pipe--
				*g = segSacked
			case segLost:
				s.lost--
				*g = segSacked
			}
			s.highSack = max(s.highSack, sackPSN+1)
		}
	} else if s.inflate < s.pipe {
		s.inflate++ // a segment left the network (RFC 6582's inflation)
	}
	switch {
	case !s.recovering && s.dupacks >= h.Prof.TCP.DupThresh:
		s.recovering, s.afterRTO, s.recover, s.firstResend = true, false, *s.high, true
		if tc, ok := cc.(tcpCC); ok {
			tc.OnFastRetransmit(now, s.out*s.mss)
		}
		h.tcpLoseHoles(s)
	case s.recovering && sack:
		h.tcpLoseHoles(s)
	}
	return false
}

// tcpMoved ends or continues a recovery once the cumulative ACK (now
// *s.una) has moved.
func (h *HCA) tcpMoved(s *tcpSender, cc CongestionControl) {
	if !s.recovering {
		return
	}
	if *s.una >= s.recover {
		s.recovering = false
		if tc, ok := cc.(tcpCC); ok && !s.afterRTO {
			tc.OnRecoveryEnd(h.eng.Now())
		}
	} else if !h.Prof.TCP.SACK {
		h.tcpLose(s, *s.una) // a partial ACK: the next hole (RFC 6582 3.2 step 5)
	}
}

// tcpAcked is the request stream's side of an ACK.
func (h *HCA) tcpAcked(qp *QP, p *fabric.Packet) {
	s := &qp.tcp.snd
	cum := expand(p.PSN, qp.una) + 1
	if cum < qp.ackHigh || cum > qp.maxSent {
		return // stale or bogus
	}
	if cum == qp.ackHigh && (qp.maxSent == qp.ackHigh || qp.State != QPRTS && qp.State != QPSQD) {
		return // nothing outstanding: a window update, not a duplicate
	}
	if h.tcpAck(s, qp.CC, cum, p.SACK(), expand(p.SackPSN(), qp.ackHigh), p.Echo) {
		h.ackTo(qp, cum)
		h.tcpMoved(s, qp.CC)
		t := qp.tcp
		for len(t.doneReads) > 0 && t.doneReads[0].FirstPSN < qp.ackHigh {
			t.doneReads[0] = nil
			t.doneReads = t.doneReads[1:]
		}
	}
	h.activate(qp)
}

// retire is told that w leaves the send queue completed, with the
// stream's cumulative ACK at ackHigh. A READ completes when its
// responses are in, which come on the responder's stream: its request's
// segment may not be acknowledged yet (its ACK lost or late), and then
// the stream keeps w to resend the segment from.
func (t *tcpState) retire(w *WQE, ackHigh int64) {
	if w.Op.isRead() && w.FirstPSN >= ackHigh {
		t.doneReads = append(t.doneReads, w)
	}
}

// doneRead returns the completed READ whose request's segment is at
// psn, or nil.
func (t *tcpState) doneRead(psn int64) *WQE {
	for _, w := range t.doneReads {
		if w.FirstPSN == psn {
			return w
		}
	}
	return nil
}

// tcpLoseHoles counts lost the segments sent once and not SACKed below
// the highest SACKed one; without SACK, the first unacknowledged one.
func (h *HCA) tcpLoseHoles(s *tcpSender) {
	if !h.Prof.TCP.SACK {
		h.tcpLose(s, *s.una)
		return
	}
	for psn := max(s.holesTo, *s.una); psn < s.highSack; psn++ {
		h.tcpLose(s, psn)
	}
	s.holesTo = max(s.holesTo, s.highSack)
}

// tcpLose counts the segment at psn lost if it is in flight, sent once.
func (h *HCA) tcpLose(s *tcpSender, psn int64) {
	if g := s.seg(psn); *g == segOut {
		*g = segLost
		s.pipe--
		s.lost++
		s.lostFrom = min(s.lostFrom, psn)
	}
}

// tcpRTT takes a round-trip sample (RFC 6298 2.2 and 2.3).
func (h *HCA) tcpRTT(s *tcpSender, r sim.Time) {
	if r <= 0 {
		return
	}
	if s.srtt == 0 {
		s.srtt, s.rttvar = r, r/2
	} else {
		d := s.srtt - r
		if d < 0 {
			d = -d
		}
		s.rttvar = (3*s.rttvar + d) / 4
		s.srtt = (7*s.srtt + r) / 8
	}
	c := h.Prof.TCP
	s.rto = min(max(s.srtt+4*s.rttvar, c.RTOMin), c.RTOMax)
}

// tcpExpire: the retransmission timer expired (RFC 6298 5.4–5.6, RFC
// 5681 3.1): every segment outstanding and not SACKed is lost, resent
// from one segment's window; the timer backs off.
func (h *HCA) tcpExpire(s *tcpSender, cc CongestionControl) {
	flight := s.out * s.mss
	s.backoff++
	s.dupacks, s.inflate = 0, 0
	for psn := *s.una; psn < *s.high; psn++ {
		if g := s.seg(psn); *g == segOut || *g == segResent {
			*g = segOut // lost again, and resent again
			h.tcpLose(s, psn)
		}
	}
	if g := s.seg(*s.una); *s.una < *s.high && *g == segSacked {
		// The receiver may have dropped what it SACKed (reneging, RFC
		// 2018 §8): the first segment goes again whatever its SACK said.
		*g = segLost
		s.lost++
		s.lostFrom = min(s.lostFrom, *s.una)
	}
	s.recovering, s.afterRTO, s.recover, s.firstResend = true, true, *s.high, true
	if tc, ok := cc.(tcpCC); ok {
		tc.OnRTO(h.eng.Now(), flight)
	}
}

// tcpTimeout is the request stream's timer expiring.
func (h *HCA) tcpTimeout(qp *QP) {
	h.tcpExpire(&qp.tcp.snd, qp.CC)
	h.activate(qp)
}

// rtoNow is the retransmission timeout now, backed off.
func (h *HCA) rtoNow(s *tcpSender) sim.Time {
	return min(s.rto<<min(s.backoff, 30), h.Prof.TCP.RTOMax)
}

// tcpRTO is the request stream's retransmission timeout now.
func (h *HCA) tcpRTO(qp *QP) sim.Time { return h.rtoNow(&qp.tcp.snd) }

// tcpPending reports whether a lost segment waits to be resent, a
// request or a READ response (sendRequest then has nothing new to send
// when the send queue is done).
func (q *QP) tcpPending() bool {
	return q.tcp != nil && (q.tcp.snd.lost > 0 || q.tcp.rsp != nil && q.tcp.rsp.snd.lost > 0)
}

// nextLost returns the lowest lost PSN, which the caller resends, if the
// pipe allows (the fast retransmit's first always); -1 if none may go
// or none is left.
func (h *HCA) nextLost(s *tcpSender) int64 {
	if !s.firstResend && s.full(s.mss) {
		return -1
	}
	psn := max(s.lostFrom, *s.una)
	for ; psn < *s.high && *s.seg(psn) != segLost; psn++ {
	}
	if psn >= *s.high {
		s.lost = 0 // none left (acknowledged meanwhile)
		return -1
	}
	s.lostFrom = psn
	s.firstResend = false
	return psn
}

// tcpResend sends qp's lowest lost request segment if the pipe allows,
// or returns nil.
func (h *HCA) tcpResend(qp *QP) *fabric.Packet {
	if qp.tcp.snd.lost == 0 {
		return nil
	}
	psn := h.nextLost(&qp.tcp.snd)
	if psn < 0 {
		return nil
	}
	idx, off, next := qp.sendIdx, qp.sendOff, qp.nextPSN
	var p *fabric.Packet
	if w := qp.tcp.doneRead(psn); w != nil {
		// A READ that completed before its request's ACK came: the
		// request goes again, and the responder, which has it, only
		// acknowledges it.
		qp.sendOff, qp.nextPSN = 0, w.FirstPSN
		p = h.request(qp, w)
	} else {
		h.setSendPos(qp, psn)
		if w := qp.sq[qp.sendIdx]; w.Op.isRead() {
			// The READ's request, whole: on iWARP its responses come on
			// the responder's stream, never asked for again.
			qp.sendOff, qp.nextPSN = 0, w.FirstPSN
		}
		p = h.nextRequest(qp)
	}
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
	kept := h.srKeep(qp, p, psn, false) // beyond the queue it is dropped; the ACK still goes
	h.sendTCPAck(qp, p, qp.ePSN-1, 0, kept, uint32(psn)&psnMask)
}

// sendTCPAck acknowledges segment p at once: cumulatively through psn,
// tseq the cumulative point when p is a READ response (tcpread.go; 0
// otherwise), with a SACK block for sackAt when sack says p was kept past
// a gap and the connection uses SACK. A segment dropped is never SACKed:
// its sender must resend it.
func (h *HCA) sendTCPAck(qp *QP, p *fabric.Packet, psn int64, tseq uint32, sack bool, sackAt uint32) {
	a := h.newAck(qp, p, fabric.OpAcknowledge, psn)
	a.SetTSeq(tseq)
	h.echo(a, p)
	if sack && h.Prof.TCP.SACK {
		x := h.pool.Ext(a)
		x.SACK, x.SackPSN = true, sackAt
		a.Wire = h.overlaid(fabric.TCPAckFrame(h.Prof.TCP.Timestamps, true))
	}
	h.Stats.AcksSent++
	h.pushCtrl(a)
}
