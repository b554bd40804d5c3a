package congestion

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// RCCC is Ultra Ethernet's receiver credit-based congestion control (UEC
// 1.0, hca.uet.receiver_credits), as the UEC's own simulator runs it:
// ultraethernet/uet-htsim, htsim/sim/uec.cpp (the sender, UecSrc:
// initRccc, startConnection, can_send_RCCC, spendCredit,
// stopSpeculating, computePullTarget, handlePull, processPull; the
// receiver, UecSink: handlePullTarget, processTrimmed, processRts, pull;
// and the receiving host's UecPullPacer: doNextEvent, requestPull) and
// htsim/sim/datacenter/main_uec.cpp (-receiver_cc, -receiver_cc_only:
// one pacer a receiving host at 0.99 of its line rate). The facts and
// constants below are those files'; the code is lfsim's.
//
// The receiving host paces credit to its senders at just under its line
// rate, so that what they send together arrives at the rate its link
// drains it:
//
//   - A sender starts with speculative credit of 1.5 × its path's BDP
//     (initRccc: configured maxwnd 1.5 × BDP; startConnection: credit =
//     maxwnd) and sends while it has any credit (can_send_RCCC: credit >
//     0), each packet's bytes on the wire taken from it (spendCredit), so
//     that credit may end a packet below zero. The first word it hears
//     from the receiver (an ACK, a trim NACK or credit:
//     stopSpeculating) ends the speculation: what is left of the
//     speculative credit is given up.
//   - Every packet it sends carries its pull target, the credit it
//     wants in all (computePullTarget): the credit received so far plus
//     what it still has to send, new data and resends (backlog +
//     rtx_backlog), at most its congestion window plus a packet when a
//     sender control runs too (cwnd + mtu), at most 1.5 × BDP, less the
//     credit it holds; at least one packet while it speculates with data
//     left; divided by the sources active on its NIC when more than one
//     is (UecNIC::activeSources: the connections waiting their turn on
//     the sending NIC, itself among them), so that a NIC whose senders
//     share its link asks each receiver for its share only; rounded up
//     to the credit quantum, 256 bytes (UEC_PULL_QUANTUM, uecpacket.h).
//   - The receiver keeps, for each sender, the highest pull target heard
//     (a data packet's, a trimmed header's, an RTS's) and the credit it
//     granted; a sender whose target passed its grant, or whose packet
//     came trimmed, joins the host's pacer (handlePullTarget,
//     processTrimmed).
//   - The pacer serves its senders in turn: each turn grants one pull,
//     4 MTU of credit (UecSink::_mtus_per_pull 4, "as per default in UEC
//     spec"), the payload of 4 packets of the sender's path MTU (Sink),
//     at most up to the sender's target, in a credit packet that
//     carries the total granted (pull); then waits the time the credit
//     granted takes at 0.99 of the line rate (UecPullPacer's
//     pull_rate_modifier, main_uec.cpp), or 1,024 bytes' time for a turn
//     that granted nothing. A sender whose target is met leaves for the
//     idle list, whose senders, when no sender wants credit, are each
//     granted a pull beyond their target (a slow pull: speculative
//     credit for what comes next), until 1.5 × BDP of it.
//   - The sender adds what a credit packet's total grants past the last
//     one it heard, its credit never above 1.5 × BDP (handlePull).
//   - A sender whose retransmission timer fires while it has no credit
//     sends an RTS, a header that carries its pull target, so that a
//     receiver that forgot it hears of its want (rtxTimerExpired:
//     sendRTS; processRts); lfsim's sender sends one too when it has new
//     work, no credit and nothing unacknowledged (AskOnce, hca/rccc.go),
//     a case uet-htsim leaves uncovered, and again at each ACK timeout
//     until credit comes.
//
// With a sender control (hca.uet.cc: nscc) both hold the sender: it
// sends when it has credit and its window allows (isSendPermitted), as
// htsim's -receiver_cc beside its default NSCC. Without one, on an
// oversubscribed fabric, the pacer's rate is the receiving host's
// oversubscription control's (RCCCOversubscription, rcccoversub.go).
type RCCC struct {
	credit      int64 // bytes it may still send; below zero by at most a packet
	pull        int64 // the total credit granted, as the last credit packet heard says
	maxWnd      int64 // 1.5 × BDP, bytes
	frame       int64 // a full packet's bytes on the wire
	speculating bool
	asked       bool // an RTS went since the last credit (AskOnce)
}

// RCCC's constants (uet-htsim; see RCCC).
const (
	// rcccQuantum is the unit of credit, bytes (UEC_PULL_QUANTUM).
	rcccQuantum = 256
	// rcccMTUsPerPull are the MTUs of credit one pull grants
	// (UecSink::_mtus_per_pull).
	rcccMTUsPerPull = 4
	// rcccIdleSpacing is the bytes' time the pacer waits after a pull
	// that granted nothing (UecPullPacer::doNextEvent: 1024 >>
	// UEC_PULL_SHIFT quanta).
	rcccIdleSpacing = 1024
)

// rcccPullRate is the share of its line rate at which a host's pacer
// grants credit (main_uec.cpp: UecPullPacer(linkspeed, 0.99, ...)).
const rcccPullRate = 0.99

// RCCCMaxWindow is the credit a sender on path whose full packets take
// frame bytes holds at most: 1.5 × the path's BDP in bytes (initRccc:
// setMaxWnd, setConfiguredMaxWnd 1.5 × _bdp), at least one frame.
func RCCCMaxWindow(path Path, frame int64) int64 {
	return max(frame, int64(1.5*float64(path.LineRate)/8*path.BaseRTT.Seconds()))
}

// NewRCCC starts a sender on path whose full packets take frame bytes on
// the wire, with 1.5 × BDP of speculative credit.
func NewRCCC(path Path, frame int64) *RCCC {
	s := &RCCC{frame: max(frame, 1), speculating: true}
	s.maxWnd = RCCCMaxWindow(path, s.frame)
	s.credit = s.maxWnd
	return s
}

// MaxWindow is the credit the sender holds at most, 1.5 × BDP: the
// receiver's slow pulls grant no more than that past its target.
func (s *RCCC) MaxWindow() int64 { return s.maxWnd }

// Frame is the bytes on the wire of the sender's full packet, by which
// its pull targets are counted.
func (s *RCCC) Frame() int64 { return s.frame }

// CanSend reports whether the sender has any credit.
func (s *RCCC) CanSend() bool { return s.credit > 0 }

// Credit is the credit the sender holds, bytes.
func (s *RCCC) Credit() int64 { return s.credit }

// Sent takes a packet of wire bytes from the credit and returns the pull
// target the packet carries: backlog is what the sender still has to
// send after it (bytes on the wire, resends included), window its
// congestion window (0: none), active the connections of its NIC that
// wait to send now, itself counted (computePullTarget divides what it
// asks for by them when more than one: UecNIC::activeSources, the
// sources queued for the NIC's link, of which the sender is the first
// when its turn comes).
func (s *RCCC) Sent(wire, backlog, window, active int64) (pullTarget int64) {
	s.credit -= wire
	t := backlog
	if window > 0 {
		t = min(t, window+s.frame)
	}
	t = min(t, s.maxWnd) - s.credit
	if s.speculating && t < s.frame && backlog > 0 {
		t = s.frame
	}
	if active > 1 {
		t /= active // as htsim's integer division: toward zero
	}
	return quantumCeil(t + s.pull)
}

// Target is the pull target of a header that carries no data (an RTS),
// with backlog and window as Sent has them. A sender that sends an RTS
// is held without credit, so it waits on no turn of its NIC's, and its
// want is not divided.
func (s *RCCC) Target(backlog, window int64) int64 { return s.Sent(0, backlog, window, 1) }

// Heard is told of every ACK or NACK: the speculation ends.
func (s *RCCC) Heard() {
	if s.speculating {
		s.speculating = false
		s.credit = min(s.credit, 0)
	}
}

// Granted takes a credit packet that says pull bytes were granted in
// all.
func (s *RCCC) Granted(pull int64) {
	s.Heard()
	s.asked = false
	if pull > s.pull {
		s.credit = min(s.credit+pull-s.pull, s.maxWnd)
		s.pull = pull
	}
}

// AskOnce reports whether the sender, held without credit with nothing
// unacknowledged, should send an RTS: once until credit comes.
func (s *RCCC) AskOnce() bool {
	if s.asked {
		return false
	}
	s.asked = true
	return true
}

// quantumCeil rounds b up to a whole credit quantum.
func quantumCeil(b int64) int64 {
	q := b / rcccQuantum
	if b%rcccQuantum > 0 {
		q++
	}
	return q * rcccQuantum
}

// RCCCPacer is a receiving host's pacer (UecPullPacer): it grants its
// senders credit in turn, at 0.99 of its line rate.
type RCCCPacer struct {
	eng    *sim.Engine
	rate   fabric.Rate           // the rate it grants credit at
	active []*RCCCSink           // senders that want credit, in turn
	idle   []*RCCCSink           // senders whose want is met, for slow pulls
	busy   bool                  // its next turn is scheduled
	os     *RCCCOversubscription // the host's oversubscription control; nil: none

	// Pulls counts the credit packets it sent.
	Pulls int64
}

// NewRCCCPacer makes the pacer of a host whose link runs at line.
func NewRCCCPacer(eng *sim.Engine, line fabric.Rate) *RCCCPacer {
	return &RCCCPacer{eng: eng, rate: fabric.Rate(float64(line) * rcccPullRate)}
}

// RCCCSink is the receiver's side of one sender (UecSink's pull state).
type RCCCSink struct {
	p               *RCCCPacer
	latest, highest int64 // the credit granted; the highest pull target heard
	maxWnd          int64 // the sender's 1.5 × BDP: slow pulls grant no more past its target
	perPull         int64 // bytes of credit a pull grants: 4 packets' payload of the sender's path MTU
	inPull          bool  // it wants credit (UecSink::_in_pull)
	inActive        bool  // it is on the active list
	inIdle          bool  // it is on the idle list
	send            func(pull int64)
}

// Sink adds a sender whose credit is at most maxWnd and whose packets
// carry mtu bytes of payload (its path MTU); send sends it a credit
// packet that grants pull bytes in all. A pull grants it 4 packets'
// payload: uet-htsim's UecSink::_credit_per_pull, 4 × its sender's MSS
// ("4 packets of credit per pull, as per default in UEC spec", uec.cpp;
// the payload, "round down to mss rather than mtu"), one MSS for every
// host there; here hosts' hca.mtu may differ, and a pull of the
// receiver's own MTU would grant a sender of a smaller path MTU more
// packets a turn.
func (p *RCCCPacer) Sink(maxWnd int64, mtu int, send func(pull int64)) *RCCCSink {
	return &RCCCSink{p: p, maxWnd: maxWnd, perPull: int64(rcccMTUsPerPull * max(mtu, 1)), send: send}
}

// PullTarget takes the pull target a data packet carries
// (handlePullTarget).
func (k *RCCCSink) PullTarget(pt int64) {
	if pt > k.highest {
		k.highest = pt
		if !k.inPull {
			k.request()
		}
	}
}

// Trimmed takes the pull target of a packet that came trimmed, or of an
// RTS: the sender has something to resend (processTrimmed, processRts).
func (k *RCCCSink) Trimmed(pt int64) {
	k.PullTarget(pt)
	if !k.inPull {
		k.request()
	}
}

// Arrived counts a request that reached the receiver for the host's
// oversubscription control, if it runs one (RCCCOversubscription): a
// data packet, CE-marked or not, a trimmed header, trimmed at the
// host's own link (lastHop) or before, or an RTS (neither).
func (k *RCCCSink) Arrived(ce, trimmed, lastHop bool) {
	if o := k.p.os; o != nil {
		o.arrived(ce, trimmed, lastHop)
	}
}

// request puts the sink on the pacer's active list (requestPull).
func (k *RCCCSink) request() {
	k.inPull = true
	p := k.p
	if !k.inActive {
		k.inActive = true
		p.active = append(p.active, k)
	}
	if !p.busy {
		p.busy = true
		p.eng.After(0, p, 0, 0, nil)
	}
}

// backlog is the credit the sender wants and was not granted.
func (k *RCCCSink) backlog() int64 { return max(k.highest-k.latest, 0) }

// slow is the credit granted past the sender's target.
func (k *RCCCSink) slow() int64 { return max(k.latest-k.highest, 0) }

// MaxWindow is the sender's credit bound the sink's slow pulls keep to,
// bytes.
func (k *RCCCSink) MaxWindow() int64 { return k.maxWnd }

// HandleEvent is the pacer's turn (UecPullPacer::doNextEvent).
func (p *RCCCPacer) HandleEvent(*sim.Event) {
	var k *RCCCSink
	var extra int64
	switch {
	case len(p.active) > 0:
		k = p.active[0]
		p.active[0] = nil
		p.active = p.active[1:]
		k.inActive = false
		prev := k.latest
		k.latest += k.perPull
		if k.latest > k.highest {
			k.latest = max(k.highest, prev) // no more than asked, never back
		}
		extra = k.latest - prev
		if k.backlog() > 0 {
			k.inActive = true
			p.active = append(p.active, k)
		} else {
			k.inPull = false
			if !k.inIdle {
				k.inIdle = true
				p.idle = append(p.idle, k)
			}
		}
	case len(p.idle) > 0:
		k = p.idle[0]
		p.idle[0] = nil
		p.idle = p.idle[1:]
		k.inIdle = false
		extra = k.perPull // a slow pull: past the target
		k.latest += extra
		if k.backlog() == 0 && k.slow() < k.maxWnd/rcccQuantum*rcccQuantum {
			k.inIdle = true
			p.idle = append(p.idle, k)
		}
	default:
		p.busy = false
		return
	}
	p.Pulls++
	k.send(k.latest)
	gap := extra
	if gap == 0 {
		gap = rcccIdleSpacing
	}
	d := fabric.SerializationTime(gap, p.rate)
	if p.os != nil && p.os.rate < 1 {
		d = sim.Time(float64(d) / p.os.rate) // updatePullRate
	}
	p.eng.After(d, p, 0, 0, nil)
}

// RCCCRow is RCCC's row of the table of receiver controls.
var RCCCRow = kind.ReceiverCC{
	Name: "rccc", Title: "RCCC",
	Doc: "UET's receiver credit-based congestion control (UEC 1.0; ultraethernet/uet-htsim's uec.cpp, UecPullPacer): the receiving host paces credit to its senders at 0.99 of its line rate, 4 MTU a pull; a sender starts with 1.5 BDP of speculative credit and sends no more than it holds",
}

func init() { kind.RegisterReceiverCC(RCCCRow) }
