package congestion

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// TCPSender is a congestion control that a NIC's TCP (iWARP) tells of
// its loss events, besides the ACKs every Sender hears. flight is the
// bytes in flight when the event happened (RFC 6675's pipe, in full
// segments), from which the new ssthresh is computed.
type TCPSender interface {
	Sender
	// OnFastRetransmit: DupThresh duplicate ACKs; loss recovery begins.
	OnFastRetransmit(now sim.Time, flight int64)
	// OnRecoveryEnd: the cumulative ACK passed the recovery point.
	OnRecoveryEnd(now sim.Time)
	// OnRTO: the retransmission timer expired.
	OnRTO(now sim.Time, flight int64)
}

var (
	_ TCPSender = (*NewReno)(nil)
	_ TCPSender = (*CUBIC)(nil)
	_ TCPSender = (*DCTCP)(nil)
)

// TCPInitialWindow is TCP's first window in segments: 10 (RFC 6928).
const TCPInitialWindow = 10

// tcpWindow is what NewReno and CUBIC share: the window in bytes, slow
// start's threshold, and which segments an ACK newly acknowledges.
type tcpWindow struct {
	apply Apply
	line  fabric.Rate
	mss   float64

	cwnd, ssthresh float64
	recovering     bool

	una     uint32 // next PSN expected to be acknowledged (24-bit)
	started bool
}

func newTCPWindow(path Path, apply Apply) tcpWindow {
	mss := float64(max(path.MTU, 1))
	return tcpWindow{apply: apply, line: path.LineRate, mss: mss, cwnd: TCPInitialWindow * mss, ssthresh: 1e18}
}

// acked returns how many segments ack newly acknowledges (0 for a
// duplicate). An ACK's PSN is the last one it acknowledges.
func (w *tcpWindow) acked(ack *fabric.Packet) int64 {
	if ack.Kind != fabric.KindAck || !w.started {
		return 0
	}
	cum := (ack.PSN + 1) & psnMask
	if !psnAfter(cum, w.una) {
		return 0
	}
	n := int64((cum - w.una) & psnMask)
	w.una = cum
	return n
}

// OnSent notes the first PSN.
func (w *tcpWindow) OnSent(_ sim.Time, p *fabric.Packet) {
	if !w.started {
		w.una, w.started = p.PSN, true
	}
}

// OnCNP: TCP has no CNPs.
func (w *tcpWindow) OnCNP(sim.Time) {}

// State reports the line rate and the window.
// State is TCP's window; a TCP sender has no rate of its own (Rate 0:
// it sends as the window allows, at line rate).
func (w *tcpWindow) State(sim.Time) State { return State{Window: int64(w.cwnd)} }

// slowStart grows the window by the bytes acknowledged, at most two
// segments per ACK (RFC 3465's L = 2 SMSS), up to ssthresh; it returns
// the segments left for congestion avoidance.
func (w *tcpWindow) slowStart(n int64) int64 {
	if w.cwnd >= w.ssthresh {
		return n
	}
	w.cwnd = min(w.cwnd+min(float64(n), 2)*w.mss, w.ssthresh)
	return 0
}

// cut sets ssthresh from the flight after a loss, at least two segments
// (RFC 5681 eq. 4), scaled by beta.
func (w *tcpWindow) cut(flight int64, beta float64) {
	w.ssthresh = max(float64(flight)*beta, 2*w.mss)
}

func (w *tcpWindow) push() { w.apply(w.line, int64(w.cwnd)) }

// OnRecoveryEnd deflates the window to ssthresh, from which congestion
// avoidance resumes (RFC 6582 3.2 step 3; CUBIC's the same, RFC 9438).
func (w *tcpWindow) OnRecoveryEnd(sim.Time) {
	w.recovering = false
	w.cwnd = w.ssthresh
	w.push()
}

// NewReno is TCP's standard congestion control (RFC 5681, with RFC
// 6582's recovery, which the NIC's TCP runs): slow start from ten
// segments, one segment per round trip in congestion avoidance, half the
// flight on a fast retransmit (no growth until recovery ends), one
// segment after a timeout. The window is what the NIC's TCP keeps in
// flight; the rate is the line's (TCP is clocked by ACKs).
type NewReno struct{ tcpWindow }

// NewNewReno starts a sender on path (its MTU is the segment's payload).
func NewNewReno(path Path, apply Apply) *NewReno {
	r := &NewReno{newTCPWindow(path, apply)}
	r.push()
	return r
}

// OnAck grows the window by what ack newly acknowledges, outside recovery.
func (r *NewReno) OnAck(_ sim.Time, ack *fabric.Packet) {
	n := r.acked(ack)
	if n == 0 || r.recovering {
		return
	}
	if n = r.slowStart(n); n > 0 {
		r.cwnd += float64(n) * r.mss * r.mss / r.cwnd
	}
	r.push()
}

// OnFastRetransmit halves the flight (RFC 5681 eq. 4 and step 2 of 3.2).
func (r *NewReno) OnFastRetransmit(_ sim.Time, flight int64) {
	r.cut(flight, 0.5)
	r.cwnd, r.recovering = r.ssthresh, true
	r.push()
}

// OnRTO keeps one segment (the loss window, RFC 5681 3.1).
func (r *NewReno) OnRTO(_ sim.Time, flight int64) {
	r.cut(flight, 0.5)
	r.cwnd, r.recovering = r.mss, false
	r.push()
}

// newRenoControl is NewReno's row: hca.tcp.cc: newreno (the default of
// iWARP's TCP), with no parameters.
func newRenoControl() Control {
	row := kind.CC{Name: "newreno", Title: "NewReno", Basis: "loss-based", TCP: true, Ethernet: true,
		Doc: "TCP NewReno (RFC 6582): slow start and a halving on loss"}
	return Define(row, func(string) struct{} { return struct{}{} }, nil, func(_ struct{}, env Env) Sender { return NewNewReno(env.Path, env.Apply) })
}
