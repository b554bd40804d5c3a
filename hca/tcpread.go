package hca

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// iWARP's RDMA READ (RFC 5040 §4.4). The READ request is an untagged
// segment of the requester's stream, acknowledged by the responder's TCP
// like any other. The responses are tagged segments of the responder's
// own stream back, each placed directly into the requester's sink buffer
// (DDP's tagged placement, RFC 5041 §3: a segment past a gap is placed
// at once, and the READ completes when every one is in). The responder's
// TCP recovers lost responses; the requester never asks again.
//
// The response stream is numbered in segments from 1 (Packet.TSeq; the
// READ's PSN stays for placement) and runs a tcpSender of its own with a
// congestion control of its own (Profile.TCP.NewCC). A real connection
// carries a QP's READ responses and its own requests in one byte stream
// with one window: a QP that does both here has two windows, as if it
// had two connections. The requester acknowledges every response at once
// (no delayed ACK on this stream).

// tcpRsp is a responder's TCP for its READ responses.
type tcpRsp struct {
	snd       tcpSender
	una, high int64 // cumulative ACK and one past the highest segment sent
	next      int64 // the number the next new response takes
	window    int64 // bytes its congestion control lets it have in flight
	cc        CongestionControl
	// jobs are the READs whose responses are not all acknowledged, in
	// order; a segment is resent from them.
	jobs []*readJob
	// timer and due: the stream's retransmission timer (evRspTimeout).
	timer   sim.Timer
	due     sim.Time
	retries int
	// probe stands in for a response in the congestion control's OnSent
	// (which reads its segment number from PSN), so none is allocated.
	probe fabric.Packet
}

// rspRcv is the requester's side of the responder's stream: the next
// segment expected, and which after it are in.
type rspRcv struct {
	next int64
	have []bool
}

// rspStream returns qp's response stream, opening it at first use.
func (h *HCA) rspStream(qp *QP) *tcpRsp {
	t := qp.tcp
	if t.rsp == nil {
		r := &tcpRsp{una: 1, high: 1, next: 1}
		r.snd = h.newTCPSender(&r.una, &r.high, &r.window, int64(qp.pmtu))
		r.window = h.Prof.TCP.SndWin
		if f := h.Prof.TCP.NewCC; f != nil {
			r.cc = f(h, qp, func(_ fabric.Rate, w int64) {
				r.window = w
				h.activate(qp)
			})
		}
		t.rsp = r
	}
	return t.rsp
}

// SRTT is the response stream's smoothed round-trip time (RFC 6298), 0
// before its first sample.
func (r *tcpRsp) SRTT() sim.Time { return r.snd.srtt }

// ResponseStream opens the iWARP QP qp's READ response stream (before
// its first READ, so that what follows it is there from the start) and
// returns its congestion control and its round-trip time; nil, nil when
// qp runs no TCP.
func (h *HCA) ResponseStream(qp *QP) (CongestionControl, interface{ SRTT() sim.Time }) {
	if qp.tcp == nil {
		return nil, nil
	}
	r := h.rspStream(qp)
	return r.cc, r
}

// expand32 widens a 32-bit segment number to the int64 nearest near.
func expand32(v uint32, near int64) int64 {
	d := int64(int32(v - uint32(near)))
	return near + d
}

// rspQueued numbers a new READ's responses on qp's stream.
func (h *HCA) rspQueued(qp *QP, j *readJob) {
	r := h.rspStream(qp)
	j.seq = r.next
	r.next += j.end - j.psn
	r.jobs = append(r.jobs, j)
}

// rspHold reports whether qp's next new response must wait for its
// stream's window (the congestion window, the receive window, the
// scoreboard, and the requester's placement window, srWindow).
func (h *HCA) rspHold(qp *QP) bool {
	r := qp.tcp.rsp
	mss := r.snd.mss
	span := r.high + 1 - r.una
	return r.snd.full(mss) || span*mss > min(h.Prof.TCP.RcvWin, h.Prof.TCP.SndWin) && r.high > r.una || span > srWindow
}

// rspSent notes response p (segment seq) going out: on the scoreboard,
// to the congestion control, and under the timer.
func (h *HCA) rspSent(qp *QP, p *fabric.Packet, seq int64) {
	r := qp.tcp.rsp
	p.SetTSeq(uint32(seq))
	r.snd.sent(seq)
	r.high = max(r.high, seq+1)
	if r.cc != nil {
		r.probe.PSN = uint32(seq) & psnMask
		r.cc.OnSent(p.SentAt, &r.probe)
	}
	if r.due == 0 {
		h.rspArm(qp)
	}
}

// rspArm (re)starts the stream's retransmission timer.
func (h *HCA) rspArm(qp *QP) {
	r := qp.tcp.rsp
	r.due = h.eng.Now() + h.rtoNow(&r.snd)
	if r.timer.Pending() && r.timer.At() <= r.due {
		return // it fires first and moves itself to due
	}
	h.eng.Cancel(r.timer)
	r.timer = h.eng.Schedule(r.due, h, evRspTimeout, 0, qp)
}

// rspTimerFired handles the stream's timer event: early, it waits again
// until due; at due the responses outstanding are lost (RFC 6298 5.4).
func (h *HCA) rspTimerFired(qp *QP) {
	r := qp.tcp.rsp
	r.timer = sim.Timer{}
	switch now := h.eng.Now(); {
	case r.due == 0 || qp.State == QPErr || qp.destroyed:
	case r.due > now:
		r.timer = h.eng.Schedule(r.due, h, evRspTimeout, 0, qp)
	default:
		r.due = 0
		h.Stats.Timeouts++
		if r.retries++; r.retries > h.Prof.TCP.Retries {
			// The connection is given up: the responder's QP fails.
			h.asyncEvent(AsyncEvent{Type: EventQPFatal, QP: qp})
			h.toErr(qp)
			return
		}
		h.tcpExpire(&r.snd, r.cc)
		h.rspArm(qp)
		h.activate(qp)
	}
}

// rspAcked is the responder's side of an ACK of its response stream.
func (h *HCA) rspAcked(qp *QP, p *fabric.Packet) {
	if qp.tcp == nil || qp.tcp.rsp == nil {
		return // a late ACK for a QP reset since
	}
	r := qp.tcp.rsp
	cum := expand32(p.TSeq(), r.una)
	if cum < r.una || cum > r.high || cum == r.una && r.high == r.una {
		return // stale, bogus, or nothing outstanding
	}
	if h.tcpAck(&r.snd, r.cc, cum, p.SACK(), expand32(p.SackPSN(), r.una), p.Echo) {
		r.una, r.retries = cum, 0
		h.tcpMoved(&r.snd, r.cc)
		for len(r.jobs) > 0 && r.jobs[0].seq+r.jobs[0].end-r.jobs[0].start <= cum {
			r.jobs[0] = nil
			r.jobs = r.jobs[1:]
		}
		if r.una == r.high {
			r.due = 0
		} else {
			h.rspArm(qp)
		}
	}
	if r.cc != nil {
		r.cc.OnAck(h.eng.Now(), p)
	}
	h.activate(qp)
}

// rspResend sends qp's lowest lost response if the window allows, or
// returns nil.
func (h *HCA) rspResend(qp *QP) *fabric.Packet {
	r := qp.tcp.rsp
	seq := h.nextLost(&r.snd)
	if seq < 0 {
		return nil
	}
	for _, j := range r.jobs {
		if n := seq - j.seq; n < j.end-j.start {
			p := h.readResponsePacket(qp, j, j.start+n)
			h.Stats.Retransmitted++
			spaced(qp, p, p.SentAt)
			h.rspSent(qp, p, seq)
			return p
		}
	}
	return nil // not held: cannot happen while the segment is unacknowledged
}

// rspReceived is the requester's side of a response segment: it says
// whether the response is new (to be placed), and acknowledges it at
// once, with a SACK block when it came past a gap.
func (h *HCA) rspReceived(qp *QP, p *fabric.Packet) bool {
	r := &qp.tcp.rcv
	seq := expand32(p.TSeq(), r.next)
	isNew, kept := false, false
	switch {
	case seq == r.next:
		isNew = true
		r.next++
		for r.have != nil && r.have[r.next%tcpBoard] {
			r.have[r.next%tcpBoard] = false
			r.next++
		}
	case seq > r.next && seq-r.next < tcpBoard:
		if r.have == nil {
			r.have = make([]bool, tcpBoard)
		}
		isNew, kept = !r.have[seq%tcpBoard], true
		r.have[seq%tcpBoard] = true
	}
	h.sendTCPAck(qp, p, r.next-1, uint32(r.next), kept, uint32(seq))
	return isNew
}
