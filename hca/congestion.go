package hca

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// CongestionControl is what a QP's congestion control (a reaction point,
// as package congestion implements it) hears of the QP's traffic. It
// answers by calling HCA.SetRate, now or from its own timers.
type CongestionControl interface {
	// OnSent is told of every request packet the QP sends.
	OnSent(now sim.Time, p *fabric.Packet)
	// OnAck is told of every ACK or NAK the QP receives; ack.Echo is when
	// the acknowledged request was sent and ack.INT its telemetry.
	OnAck(now sim.Time, ack *fabric.Packet)
	// OnCNP is told of every CNP for the QP.
	OnCNP(now sim.Time)
}

// EntropySource is a QP's choice of its requests' entropy values (UET's
// spraying: package multipath implements them). Next is the next
// request's; Feedback is told, for each ACK or NAK, the entropy value its
// request carried (the ACK's source port echoes it) and whether the
// request came through good: neither CE-marked nor trimmed, now being
// when the ACK came; Timeout is told of each of the QP's retransmission
// timeouts (REPS freezes on one).
type EntropySource interface {
	Next() uint16
	Feedback(now sim.Time, ev uint16, good bool)
	Timeout(now sim.Time)
}

// echo copies into an ACK what congestion control needs of the request it
// acknowledges: its send time, its CE mark (counted in ECE, which a
// coalesced ACK sums), and its telemetry (with the INT header's bytes on
// the wire).
func (h *HCA) echo(ack, req *fabric.Packet) {
	ack.Echo = req.SentAt
	if req.ECN == fabric.CE && ack.ECE < 1<<16-1 {
		ack.ECE++
	}
	if req.INT != nil {
		if ack.INT == nil {
			ack.Wire += fabric.INTHeaderBytes
			h.pool.AddINT(ack)
		}
		*ack.INT = *req.INT
	}
}

// paced accounts a data packet qp sends now (a request, or a READ
// response) to its rate limiter, which spaces the next one a transmission
// at qp's rate later, and to its congestion control.
func (h *HCA) paced(qp *QP, p *fabric.Packet, now sim.Time) {
	spaced(qp, p, now)
	if qp.CC != nil {
		qp.CC.OnSent(now, p)
	}
}

// spaced accounts p to qp's rate limiter alone (an iWARP READ response:
// its stream's congestion control is not the QP's, tcpread.go).
func spaced(qp *QP, p *fabric.Packet, now sim.Time) {
	qp.lastTx, qp.lastWire = now, int64(p.Wire)
	if qp.Rate > 0 {
		qp.nextTx = now + fabric.SerializationTime(int64(p.Wire), qp.Rate)
	}
}

// SetRate sets qp's sending rate (0: line rate) and window (bytes in
// flight; 0: none). A new rate respaces the next request from when the
// last one started, so a rate increase takes effect at once.
func (h *HCA) SetRate(qp *QP, rate fabric.Rate, window int64) {
	if qp.destroyed {
		return // a congestion control's timer outliving its QP
	}
	if rate != qp.Rate {
		qp.Rate = rate
		qp.nextTx = 0
		if rate > 0 && qp.lastWire > 0 {
			qp.nextTx = qp.lastTx + fabric.SerializationTime(qp.lastWire, rate)
		}
	}
	if c := qp.windowCap; c > 0 && (window == 0 || window > c) {
		window = c
	}
	qp.Window = window
	h.activate(h.touched(qp)) // (touched: its RCCC count, creditwait.go)
}

// SetWindowCap bounds qp's bytes in flight to capBytes (0: no bound)
// whatever its congestion control's window: IRN's BDP-FC.
func (h *HCA) SetWindowCap(qp *QP, capBytes int64) {
	qp.windowCap = capBytes
	h.SetRate(qp, qp.Rate, qp.Window)
}
