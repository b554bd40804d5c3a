package congestion

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// NSCC is Ultra Ethernet's network-signal-based congestion control (UEC
// 1.0, the sender's window), as the UEC's own simulator runs it:
// ultraethernet/uet-htsim, htsim/sim/uec.cpp (UecSrc::initNsccParams,
// initNscc, updateCwndOnAck_NSCC, updateCwndOnNack_NSCC, quick_adapt,
// fair_increase, proportional_increase, fast_increase,
// multiplicative_decrease, fulfill_adjustment, update_delay,
// update_base_rtt). The facts and constants below are that file's; the
// code is lfsim's.
//
// Its window reacts to three signals: an ACK's ECN echo, the queueing
// delay its RTT sample shows above the path's base RTT, and a trimmed
// packet's NACK.
//
//   - An ACK neither marked nor delayed past the target queueing delay
//     grows the window in proportion to the delay left under the target
//     (and, under 1 us of delay for a window's worth of bytes, fast: by a
//     quarter of the bytes acknowledged, scaled); one delayed past the
//     target but not marked grows it fairly (5 MTU × the BDP's scale per
//     window); one marked and delayed past the target cuts it, at most
//     once a base RTT, by gamma × (avg delay - target) / avg delay, at
//     most by half; one marked under the target only moves the path
//     (the spraying's concern, not the window's).
//   - The increases gather and are applied every 8 MTU of data
//     acknowledged or once a base RTT (fulfill_adjustment), with eta,
//     0.15 MTU × the BDP's scale, added once a base RTT.
//   - A trimmed packet's NACK takes its bytes off the window, and asks
//     quick adapt to run: once per base RTT + target delay, a window
//     whose data acknowledged in that time fell under max_window / 2^qa_gate
//     is set to what was acknowledged, and the acknowledgements of the
//     data in flight then are not acted on (they tell of the old window).
//
// The window is bounded by one MTU and 1.5 × the path's BDP, which it
// starts at (initNscc with no cwnd given); the base RTT is the least RTT
// sampled (update_base_rtt). The delay is an EWMA of the samples above
// the base RTT with weight 1/80 (update_delay: 0.0125).
//
// An ACK counts the packets it reports received for the first time
// (nsccAcked: every PSN before its cumulative one, and the PSN a NACK of
// selective repeat names for a packet that arrived past a gap), each a
// full MTU: uet-htsim counts the bytes the receiver reports received
// (recvd_bytes), so an ACK the responder coalesced counts all it covers
// and a cumulative ACK past packets already SACKed counts them no more;
// the last packet of a message, shorter, is counted whole. Only a
// trimmed packet's NACK is a loss.
type NSCC struct {
	p     NSCCParams
	apply Apply
	line  fabric.Rate
	mss   float64
	rccc  bool // the receivers run RCCC (SetReceiverCredits)

	netRTT      sim.Time // the network's base RTT (uet-htsim's _network_rtt)
	baseRTT     sim.Time // the least RTT sampled
	target      sim.Time // target queueing delay
	qaThreshold sim.Time

	fi, eta, fiScale, propScale float64 // increase constants, from the BDP's scale
	minW, maxW                  float64

	acked    nsccAcked // the packets the receiver reported received
	cwnd     float64
	inFlight float64
	avgDelay float64 // ps

	achieved, received         float64 // bytes acknowledged: in the quick-adapt period, since the last adjustment
	toIgnore, ignored          float64 // quick adapt's data in flight, not acted on
	incBytes                   float64 // gathered increases, bytes²
	fiCount                    float64
	increasing, triggerQA      bool
	qaEnd, lastAdjust, lastDec sim.Time
}

var _ Sender = (*NSCC)(nil)

// NSCCParams are NSCC's parameters (uet-htsim's initNsccParams).
type NSCCParams struct {
	// TargetQDelay is the queueing delay NSCC steers to; 0 means
	// uet-htsim's default: 0.75 × the path's base RTT where switches
	// trim, the base RTT where they do not.
	TargetQDelay sim.Time
	// QAGate: quick adapt acts when the data acknowledged in a period fell
	// under max_window / 2^QAGate; 3 (initNsccParams' default).
	QAGate int
	// Gamma is the multiplicative decrease's factor, 0.8.
	Gamma float64
	// DelayAlpha is the delay EWMA's weight, 0.0125.
	DelayAlpha float64
	// QuickAdapt runs quick adapt (uet-htsim's -disable_quick_adapt turns it off).
	QuickAdapt bool
}

// NSCCDefaults returns uet-htsim's defaults.
func NSCCDefaults() NSCCParams {
	return NSCCParams{QAGate: 3, Gamma: 0.8, DelayAlpha: 0.0125, QuickAdapt: true}
}

// nsccReference is the network NSCC's constants are written for: 100 Gb/s
// and a 12 us base RTT (initNsccParams' _reference_network_*), whose BDP
// is 150,000 bytes.
const (
	nsccRefRate = 100 * fabric.Gbps
	nsccRefRTT  = 12 * sim.Microsecond
)

// TargetDelay is the queueing delay NSCC steers to (hca.nscc.target_qdelay
// or its default), which UET's SLEEK probes read too (TargetDelayer).
func (n *NSCC) TargetDelay() sim.Time { return n.target }

// NewNSCC starts a sender on path; trimming says whether the switches trim
// (the target delay's default).
func NewNSCC(p NSCCParams, path Path, trimming bool, apply Apply) *NSCC {
	n := &NSCC{p: p, apply: apply, line: path.LineRate, mss: float64(max(path.MTU, 1))}
	n.netRTT = max(path.BaseRTT, sim.Nanosecond)
	n.baseRTT = n.netRTT
	n.target = p.TargetQDelay
	if n.target <= 0 {
		n.target = n.netRTT
		if trimming {
			n.target = n.netRTT * 3 / 4
		}
	}
	n.qaThreshold = 4 * n.target
	refBDP := float64(nsccRefRate) / 8 * nsccRefRTT.Seconds()
	a := n.bdp(n.netRTT) / refBDP                // _scaling_factor_a
	b := float64(n.target) / float64(nsccRefRTT) // _scaling_factor_b
	n.fi = 5 * n.mss * a
	n.eta = 0.15 * n.mss * a
	n.fiScale = 0.25 * a
	n.propScale = 4 * n.mss * a * b // _alpha × target: per byte acknowledged at no delay
	n.minW = n.mss
	n.maxW = 1.5 * n.bdp(n.baseRTT)
	n.cwnd = n.maxW
	n.apply(n.line, int64(n.cwnd))
	return n
}

// bdp is the bytes the sender's line carries in rtt.
func (n *NSCC) bdp(rtt sim.Time) float64 { return float64(n.line) / 8 * rtt.Seconds() }

// OnSent counts the bytes in flight.
func (n *NSCC) OnSent(_ sim.Time, p *fabric.Packet) {
	n.acked.sent(p.PSN)
	n.inFlight += float64(p.Payload)
}

// OnCNP: NSCC reads ECN from the ACKs' echo.
func (n *NSCC) OnCNP(sim.Time) {}

// OnAck takes an ACK, a NAK for a packet past a gap, or a trimmed
// packet's NACK.
func (n *NSCC) OnAck(now sim.Time, ack *fabric.Packet) {
	if ack.Kind != fabric.KindAck {
		return
	}
	if ack.Ext != nil && ack.Ext.Trimmed {
		n.onTrim(now, ack)
	} else {
		n.onArrival(now, ack)
	}
	n.apply(n.line, int64(n.cwnd))
}

// onArrival is processAck's window update for an ACK, with the bytes it
// reports newly received.
func (n *NSCC) onArrival(now sim.Time, ack *fabric.Packet) {
	got := float64(n.acked.newly(ack)) * n.mss
	n.inFlight = max(0, n.inFlight-got)
	n.achieved += got
	n.received += got
	n.ignored += got
	marked := ack.ECE > 0
	delay := n.avgDelay
	if ack.Echo > 0 && now > ack.Echo {
		raw := now - ack.Echo
		n.sampleBase(raw)
		if raw >= n.baseRTT {
			n.updateDelay(raw, marked)
			delay = float64(raw - n.baseRTT)
		}
	}
	if n.quickAdapt(now, false, marked, delay) {
		return
	}
	target := float64(n.target)
	switch {
	case !marked && delay >= target:
		n.incBytes += n.fi * got // fair increase
	case !marked:
		if n.fastIncrease(got, delay) {
			break
		}
		n.incBytes += n.propScale * got * (target - delay) / target // proportional increase
	case delay >= target:
		n.decrease(now)
	}
	n.bound()
	if n.received > 8*n.mss || now-n.lastAdjust > n.netRTT {
		n.cwnd += n.incBytes / n.cwnd // fulfill adjustment
		if now-n.lastAdjust >= n.netRTT {
			n.cwnd += n.eta
			n.lastAdjust = now
		}
		n.incBytes, n.received = 0, 0
	}
	n.bound()
}

// onTrim is processNack and updateCwndOnNack_NSCC for a trimmed packet:
// its bytes leave the window and flight, a delay of one network RTT is
// sampled (the trimming queue's, as uet-htsim estimates it), and quick
// adapt is asked to run.
func (n *NSCC) onTrim(now sim.Time, ack *fabric.Packet) {
	if ack.Echo > 0 && now > ack.Echo {
		n.sampleBase(now - ack.Echo)
	}
	lost := n.mss
	n.inFlight = max(0, n.inFlight-lost)
	n.ignored += lost
	n.updateDelay(n.baseRTT+n.netRTT, true)
	n.triggerQA = true
	if !n.quickAdapt(now, true, true, 0) && (!n.rccc || !ack.Ext.LastHop) {
		n.cwnd -= lost
		n.bound()
	}
}

// SetReceiverCredits says the receivers run RCCC: a packet trimmed on
// the last link, into its receiver, does not cut the window
// (updateCwndOnNack_NSCC: `!_receiver_based_cc || !last_hop`), the
// receiver's credit answering for that link.
func (n *NSCC) SetReceiverCredits(on bool) { n.rccc = on }

// fastIncrease grows the window by a quarter of the bytes acknowledged,
// scaled, once a window's worth came with under 1 us of delay, and goes
// on while they do; it reports whether it did.
func (n *NSCC) fastIncrease(got, delay float64) bool {
	if delay < float64(sim.Microsecond) {
		n.fiCount += got
		if n.fiCount > n.cwnd || n.increasing {
			n.cwnd += got * n.fiScale
			n.increasing = true
			return true
		}
	} else {
		n.fiCount = 0
	}
	n.increasing = false
	return false
}

// decrease is multiplicative_decrease.
func (n *NSCC) decrease(now sim.Time) {
	n.increasing, n.fiCount = false, 0
	avg, target := n.avgDelay, float64(n.target)
	if avg > target && now-n.lastDec > n.baseRTT {
		n.cwnd = max(n.cwnd*max(1-n.p.Gamma*(avg-target)/avg, 0.5), n.minW)
		n.lastDec = now
	}
}

// quickAdapt is quick_adapt: it reports whether this ACK's update is
// done (the window set to what was acknowledged, or an ACK of the data
// in flight at the last quick adapt).
func (n *NSCC) quickAdapt(now sim.Time, loss, marked bool, delay float64) bool {
	if !n.p.QuickAdapt {
		return false
	}
	done := false
	if n.ignored < n.toIgnore && marked {
		done = true
	} else if now > n.qaEnd {
		if n.qaEnd != 0 && (n.triggerQA || loss || delay > float64(n.qaThreshold)) && n.achieved < n.maxW/float64(int64(1)<<n.p.QAGate) {
			n.cwnd = max(n.achieved, n.minW)
			n.toIgnore, n.ignored = n.inFlight, 0
			n.triggerQA = false
			done = true
		}
		n.achieved = 0
		n.qaEnd = now + n.baseRTT + n.target
	}
	if done {
		n.incBytes, n.received = 0, 0
	}
	return done
}

// sampleBase lowers the base RTT to a smaller sample, and the window's
// bound with it (update_base_rtt).
func (n *NSCC) sampleBase(raw sim.Time) {
	if raw < n.baseRTT {
		n.baseRTT = raw
		n.maxW = 1.5 * n.bdp(raw)
	}
}

// updateDelay is update_delay's EWMA of the queueing delay: an unmarked
// sample past the target counts as a quarter of the base RTT (the path
// is delayed but not congested: another flow's queue); one past 5 base
// RTTs with weight 1/80.
func (n *NSCC) updateDelay(raw sim.Time, marked bool) {
	d := float64(raw - n.baseRTT)
	w := n.p.DelayAlpha
	switch {
	case !marked && d > float64(n.target):
		d = float64(n.baseRTT) / 4
	case d > 5*float64(n.baseRTT):
		w = 0.0125
	}
	n.avgDelay = w*d + (1-w)*n.avgDelay
}

// bound keeps the window within one MTU and 1.5 BDP.
func (n *NSCC) bound() { n.cwnd = min(max(n.cwnd, n.minW), n.maxW) }

// State reports the window.
func (n *NSCC) State(sim.Time) State { return State{Window: int64(n.cwnd)} }

// nsccMarking is the switches' marking under NSCC when switch.ecn is not
// given: uet-htsim's (main_uec.cpp: ECN from 0.2 to 0.8 of the BDP,
// marked at dequeue, CompositeQueue::decide_ECN: a probability rising
// linearly to 1), for the BDP of NSCC's reference network (100 Gb/s ×
// 12 us, 150,000 bytes): 30 KB to 120 KB.
var nsccMarking = kind.Marking{Kmin: 30 * fabric.KB, Kmax: 120 * fabric.KB, Pmax: 1}

// nsccControl is NSCC's row: hca.cc: nscc (or hca.uet.cc) with hca.nscc's
// keys over NSCCDefaults. Its receiver acknowledges every packet and
// echoes CE marks in the ACK (UET's PDS ACK), with no CNPs.
func nsccControl() Control {
	type P = NSCCParams
	row := kind.CC{
		Name: "nscc", Title: "NSCC", Basis: "ECN-, delay- and trim-based", RDMA: true, Ethernet: true,
		Doc: "UET's NSCC (UEC 1.0; ultraethernet/uet-htsim's uec.cpp): a window from ECN, queueing delay and trimmed packets' NACKs",
		ECN: true, Marking: &nsccMarking, Unmarked: "NSCC then reacts to delay and trims only",
		AckEvery: true, EchoECN: true, Metrics: []string{"window_bytes"},
		Params: []kind.Param{
			kind.Time("target_qdelay", func(p *P) *sim.Time { return &p.TargetQDelay }).ZeroMeans("0.75 × the path's base RTT with switch.trim, the base RTT without"),
			kind.Int("qa_gate", func(p *P) *int { return &p.QAGate }).Range("0", "16"),
			kind.Frac("gamma", func(p *P) *float64 { return &p.Gamma }),
			kind.Frac("delay_alpha", func(p *P) *float64 { return &p.DelayAlpha }),
			kind.Bool("quick_adapt", func(p *P) *bool { return &p.QuickAdapt }),
		},
	}
	return Define(row, func(string) P { return NSCCDefaults() }, nil, func(p P, env Env) Sender {
		n := NewNSCC(p, env.Path, env.Trimming, env.Apply)
		n.SetReceiverCredits(env.ReceiverCredits)
		return n
	})
}
