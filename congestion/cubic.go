package congestion

import (
	"math"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// CUBIC's constants (RFC 9438 §5: C = 0.4, beta_cubic = 0.7; Linux's
// tcp_cubic has beta 717/1024 and the same C through bic_scale).
const (
	cubicC    = 0.4
	cubicBeta = 0.7
	// cubicAlpha is the Reno-friendly region's growth per round trip, in
	// segments: 3 (1 - beta) / (1 + beta) (RFC 9438 §4.3).
	cubicAlpha = 3 * (1 - cubicBeta) / (1 + cubicBeta)
)

// CUBIC is RFC 9438's congestion control, Linux's default: after a
// congestion event the window follows W(t) = C (t - K)^3 + W_max (in
// segments, t in seconds since the event's epoch began), aiming one
// round trip ahead and growing at most by half per round trip, or the
// Reno-friendly estimate W_est when that is larger (as it is at a data
// centre's round trips, where t stays far below K); beta 0.7 on a loss,
// fast convergence on, slow start from ten segments without HyStart. The
// round trip it aims ahead by is the least one seen (as Linux's
// delay_min).
type CUBIC struct {
	tcpWindow
	wMax, k, wEst float64 // segments, seconds, segments
	epoch         sim.Time
	minRTT        sim.Time
}

// NewCUBIC starts a sender on path (its MTU is the segment's payload).
func NewCUBIC(path Path, apply Apply) *CUBIC {
	c := &CUBIC{tcpWindow: newTCPWindow(path, apply)}
	c.push()
	return c
}

// OnAck grows the window by what ack newly acknowledges, outside
// recovery: slow start, then the cubic or the Reno-friendly window.
func (c *CUBIC) OnAck(now sim.Time, ack *fabric.Packet) {
	if rtt := now - ack.Echo; ack.Kind == fabric.KindAck && ack.Echo > 0 && rtt > 0 && (c.minRTT == 0 || rtt < c.minRTT) {
		c.minRTT = rtt
	}
	n := c.acked(ack)
	if n == 0 || c.recovering {
		return
	}
	if n = c.slowStart(n); n > 0 {
		c.avoid(now, float64(n))
	}
	c.push()
}

// avoid is congestion avoidance for n segments acknowledged (RFC 9438
// §4.2–4.4): the Reno-friendly estimate grows by alpha per window
// acknowledged (alpha 1 once it reaches W_max); the window is that
// estimate while the cubic curve is below it, else it moves towards the
// curve's value one round trip ahead, at most 1.5 times the window.
func (c *CUBIC) avoid(now sim.Time, n float64) {
	w := c.cwnd / c.mss
	if c.epoch == 0 {
		c.epoch = now
		if c.wMax <= w {
			// No congestion event yet, or the window passed W_max: the
			// curve starts here (K = 0).
			c.wMax, c.k = w, 0
		}
		c.wEst = w
	}
	alpha := cubicAlpha
	if c.wEst >= c.wMax {
		alpha = 1
	}
	c.wEst += alpha * n / w
	t := (now - c.epoch).Seconds()
	if cubicC*math.Pow(t-c.k, 3)+c.wMax < c.wEst {
		w = c.wEst
	} else {
		target := cubicC*math.Pow(t+c.minRTT.Seconds()-c.k, 3) + c.wMax
		target = max(w, min(target, 1.5*w))
		w += (target - w) * n / w
	}
	c.cwnd = w * c.mss
}

// event is a congestion event: W_max (with fast convergence), K, and a
// new epoch.
func (c *CUBIC) event(flight int64) {
	w := c.cwnd / c.mss
	if w < c.wMax {
		c.wMax = w * (1 + cubicBeta) / 2 // fast convergence (RFC 9438 §4.7)
	} else {
		c.wMax = w
	}
	c.cut(flight, cubicBeta)
	c.k = math.Cbrt(c.wMax * (1 - cubicBeta) / cubicC)
	c.epoch = 0
}

// OnFastRetransmit cuts the window to beta of the flight (RFC 9438 §4.6).
func (c *CUBIC) OnFastRetransmit(_ sim.Time, flight int64) {
	c.event(flight)
	c.cwnd, c.recovering = c.ssthresh, true
	c.push()
}

// OnRTO keeps one segment (RFC 9438 §4.8) and slow-starts to ssthresh.
func (c *CUBIC) OnRTO(_ sim.Time, flight int64) {
	c.event(flight)
	c.cwnd, c.recovering = c.mss, false
	c.push()
}

// cubicControl is CUBIC's row: hca.tcp.cc: cubic, with no parameters.
func cubicControl() Control {
	row := kind.CC{Name: "cubic", Title: "CUBIC", Basis: "loss-based", TCP: true, Ethernet: true,
		Doc: "TCP CUBIC (RFC 8312): a cubic window growth from the last loss"}
	return Define(row, func(string) struct{} { return struct{}{} }, nil, func(_ struct{}, env Env) Sender { return NewCUBIC(env.Path, env.Apply) })
}
