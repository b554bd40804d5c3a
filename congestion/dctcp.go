package congestion

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// DCTCPParams are DCTCP's parameters (Alizadeh et al., "Data Center TCP
// (DCTCP)", SIGCOMM 2010; RFC 8257).
type DCTCPParams struct {
	// G is the weight of the newest window's marked fraction in alpha:
	// 1/16, the paper's section 3.4 and RFC 8257 section 4.2.
	G float64
	// InitialAlpha is alpha before the first window ends: 1, RFC 8257
	// section 4.2's conservative start (Linux's dctcp_alpha_on_init).
	InitialAlpha float64
	// InitialWindow is the first window, bytes; 0 means the path's
	// bandwidth-delay product, so that the QP starts at line rate as an
	// RDMA NIC does (HPCC's W_init). Below that the window grows by slow
	// start up to it.
	InitialWindow int64
}

// DCTCPDefaults returns g = 1/16, alpha starting at 1, and a first
// window of one bandwidth-delay product.
func DCTCPDefaults() DCTCPParams { return DCTCPParams{G: 1.0 / 16, InitialAlpha: 1} }

// DCTCP is one QP's DCTCP sender, as a window of bytes in flight over
// the QP's packets (RDMA's segments: one MTU of payload each):
//
//   - every ACK's ECN-Echo count (fabric.Packet.ECE, the responder's echo
//     of CE-marked packets, one ACK per packet) feeds the fraction F of
//     packets marked in the current window of data; when an ACK passes
//     the window's end, alpha = (1-g) alpha + g F (RFC 8257 section 3.3);
//   - the first ECE after the last cut's window ends cuts the window to
//     W (1 - alpha/2), once per window of data (RFC 3168 section 6.1.2);
//   - a go-back-N NAK (a lost packet) halves it, once per window, as TCP
//     does on a loss (RFC 8257 section 3.5);
//   - an ACK without ECE grows it: by the bytes acknowledged below
//     ssthresh (slow start), by MTU × acked/W above it (one MTU per
//     round trip: congestion avoidance, RFC 5681). An ACK with ECE does
//     not (RFC 3168 section 6.1.2). Growth goes on while a cut's window
//     is in flight, as in the paper's analysis (section 3.3) and htsim's
//     DCTCP; Linux holds the window then (its CWR state).
//
// The rate it asks for is the line rate: DCTCP is clocked by ACKs, not
// paced.
type DCTCP struct {
	p     DCTCPParams
	apply Apply
	line  fabric.Rate
	mss   float64 // bytes of payload per packet: the path MTU

	cwnd, ssthresh, minW float64
	alpha                float64

	una        uint32 // next PSN expected to be acknowledged (24-bit)
	sndNxt     uint32 // one past the last PSN sent
	started    bool   // una and sndNxt hold a PSN
	inWindow   bool   // an alpha window is open: it ends at alphaEnd
	alphaEnd   uint32 // alpha is updated when una reaches this
	cutEnd     uint32 // no cut until una passes this (CWR)
	cutPending bool   // a cut's window has not ended
	acked      int64  // packets acknowledged in the current alpha window
	marked     int64  // of which CE-marked
}

var _ Sender = (*DCTCP)(nil)

// NewDCTCP starts a sender with the parameters' first window on a path
// whose payload per packet is path.MTU bytes.
func NewDCTCP(p DCTCPParams, path Path, apply Apply) *DCTCP {
	d := &DCTCP{p: p, apply: apply, line: path.LineRate, mss: float64(max(path.MTU, 1)), alpha: p.InitialAlpha}
	bdp := float64(path.LineRate) / 8 * path.BaseRTT.Seconds()
	d.minW = d.mss
	d.cwnd = bdp
	if p.InitialWindow > 0 {
		d.cwnd = float64(p.InitialWindow)
	}
	d.cwnd = max(d.cwnd, d.minW)
	d.ssthresh = max(bdp, d.cwnd)
	d.apply(d.line, int64(d.cwnd))
	return d
}

// OnSent tracks snd_nxt.
func (d *DCTCP) OnSent(_ sim.Time, p *fabric.Packet) {
	next := (p.PSN + 1) & psnMask
	if !d.started {
		d.una, d.sndNxt, d.cutEnd, d.started = p.PSN, p.PSN, p.PSN, true
	}
	if psnAfter(next, d.sndNxt) { // not a resend
		d.sndNxt = next
	}
}

// OnCNP: DCTCP reads ECN from the ACKs' echo, not from CNPs.
func (d *DCTCP) OnCNP(sim.Time) {}

// OnAck updates alpha and the window from an ACK or a NAK.
func (d *DCTCP) OnAck(_ sim.Time, ack *fabric.Packet) {
	if ack.Kind != fabric.KindAck || !d.started {
		return
	}
	cum := (ack.PSN + 1) & psnMask // an ACK acknowledges PSN and before
	nak := ack.Syndrome == fabric.SyndromeNAKSeqErr
	if nak {
		cum = ack.PSN // a NAK's PSN is the one it expects
	}
	var n int64
	if psnAfter(cum, d.una) {
		n = int64((cum - d.una) & psnMask)
		d.una = cum
	}
	if !d.inWindow {
		// A window of data is what is in flight when its first ACK
		// comes (RFC 8257 section 3.3's WindowEnd = SND.NXT).
		d.alphaEnd, d.inWindow = d.sndNxt, true
	}
	d.acked += n
	d.marked += int64(ack.ECE)
	switch {
	case nak && !d.cutPending:
		d.cwnd = max(d.cwnd/2, d.minW)
		d.cut()
	case ack.ECE > 0 && !d.cutPending:
		d.cwnd = max(d.cwnd*(1-d.alpha/2), d.minW)
		d.cut()
	case ack.ECE == 0 && !nak:
		if d.cwnd < d.ssthresh {
			d.cwnd += float64(n) * d.mss
		} else {
			d.cwnd += float64(n) * d.mss * d.mss / d.cwnd
		}
	}
	if !psnAfter(d.cutEnd, d.una) {
		d.cutPending = false
	}
	if !psnAfter(d.alphaEnd, d.una) && d.acked > 0 {
		f := min(1, float64(d.marked)/float64(d.acked))
		d.alpha = (1-d.p.G)*d.alpha + d.p.G*f
		d.acked, d.marked, d.inWindow = 0, 0, false
	}
	d.apply(d.line, int64(d.cwnd))
}

// OnFastRetransmit halves the window, once per window of data, as a
// go-back-N NAK does (RFC 8257 section 3.5: a loss is answered as TCP
// answers it).
func (d *DCTCP) OnFastRetransmit(sim.Time, int64) {
	if !d.cutPending {
		d.cwnd = max(d.cwnd/2, d.minW)
		d.cut()
		d.apply(d.line, int64(d.cwnd))
	}
}

// OnRecoveryEnd: DCTCP's window goes on from where the cut left it.
func (d *DCTCP) OnRecoveryEnd(sim.Time) {}

// OnRTO keeps one segment, TCP's loss window (RFC 5681 section 3.1).
func (d *DCTCP) OnRTO(sim.Time, int64) {
	d.ssthresh = max(d.cwnd/2, 2*d.minW)
	d.cwnd = d.minW
	d.cutEnd, d.cutPending = d.sndNxt, true
	d.apply(d.line, int64(d.cwnd))
}

// cut ends congestion avoidance's growth until the data in flight now is
// acknowledged (one cut per window of data).
func (d *DCTCP) cut() {
	d.ssthresh = d.cwnd
	d.cutEnd, d.cutPending = d.sndNxt, true
}

// State reports alpha and the window; a window-based sender has no rate
// of its own (Rate 0: it sends at line rate while the window allows).
func (d *DCTCP) State(sim.Time) State {
	return State{Alpha: d.alpha, HasAlpha: true, Window: int64(d.cwnd)}
}

// dctcpMarking is the switches' ECN marking under DCTCP when switch.ecn
// is not given: every packet that arrives to a queue above K = 100 KB is
// marked (kmin = kmax, pmax 1, at enqueue), DCTCP's single threshold on
// the instantaneous queue (Alizadeh et al., SIGCOMM 2010, section 3.1).
// Their guideline K > C × RTT / 7 (section 3.4) then holds for paths of
// up to 100 Gb/s with round trips up to 57 us.
var dctcpMarking = kind.Marking{Kmin: 100 * fabric.KB, Kmax: 100 * fabric.KB, Pmax: 1, AtEnqueue: true}

// dctcpControl is DCTCP's row: hca.cc: dctcp on RoCE, or hca.tcp.cc:
// dctcp in iWARP's TCP, with hca.dctcp's keys over DCTCPDefaults. Its
// receiver acknowledges every packet and echoes CE marks in its ACKs
// instead of sending CNPs (as a TCP receiver with delayed ACKs off: the
// paper's section 3.1 echoes each mark exactly). In TCP it starts from
// TCP's ten segments, not the path's BDP, unless initial_window is given.
func dctcpControl() Control {
	type P = DCTCPParams
	row := kind.CC{
		Name: "dctcp", Title: "DCTCP", Basis: "ECN-based", RDMA: true, TCP: true, Ethernet: true,
		Doc: "DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257): a window cut by the fraction of marked packets",
		ECN: true, Marking: &dctcpMarking, Unmarked: "DCTCP slows down only for marks, so its windows will grow until PFC holds them",
		AckEvery: true, EchoECN: true, Metrics: []string{"alpha", "window_bytes"},
		Params: []kind.Param{
			kind.Frac("g", func(p *P) *float64 { return &p.G }).Checked(func(v any) string {
				if v.(float64) <= 0 {
					return "g is the weight of each window's marked fraction in alpha; it must be above 0 (RFC 8257 recommends 1/16)"
				}
				return ""
			}),
			kind.Frac("initial_alpha", func(p *P) *float64 { return &p.InitialAlpha }),
			kind.Size("initial_window", func(p *P) *int64 { return &p.InitialWindow }).Range("1B", "").ZeroMeans("the path's bandwidth-delay product (TCP's ten segments in iWARP)"),
		},
	}
	return Define(row, func(string) P { return DCTCPDefaults() }, nil, func(p P, env Env) Sender {
		if env.TCP && !env.Given("initial_window") {
			p.InitialWindow = TCPInitialWindow * int64(env.Path.MTU)
		}
		return NewDCTCP(p, env.Path, env.Apply)
	})
}
