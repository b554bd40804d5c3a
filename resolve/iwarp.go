package resolve

import (
	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
)

// applyTCP overrides p with hca.tcp (t).
func (b *builder) applyTCP(p *hca.Profile, h *scenario.HCAS) {
	t := &h.TCP
	if !t.Set {
		return
	}
	if kind.TransportOf(p.Transport).Block != "tcp" {
		tcp := tcpTransport()
		b.errorf(t.Pos, "hca.tcp", "hca.tcp configures the TCP an %s NIC runs; set hca.transport: %s (RoCE has no TCP)", tcp.Title, tcp.Name)
		return
	}
	p.WithTCP(func(c *hca.TCPProfile) {
		override(&c.CC, t.CC)
		setTime(&c.RTOMin, t.RTOMin)
		setTime(&c.DelayedAck, t.DelayedAck)
		override(&c.SACK, t.SACK)
		override(&c.Timestamps, t.Timestamps)
		overrideNum(&c.RcvWin, t.RcvWin)
		overrideNum(&c.SndWin, t.SndWin)
		override(&c.MPA.CRC, t.MPACRC)
		override(&c.MPA.Markers, t.MPAMarkers)
	})
}

// tcpRules checks what a transport over TCP (iWARP) may ask for: TCP's
// congestion control stands for RoCE's (hca.tcp.cc, not hca.cc), and
// TCP's recovery for RoCE's.
func (b *builder) tcpRules(t kind.Transport) {
	h := &b.f.HCA
	if h.CC.Set && h.CC.V != "none" {
		tcp := ccList(func(r kind.CC) bool { return r.TCP }, ccName)
		b.errorf(h.CC.Pos, "hca.cc", "on %s the congestion control is TCP's: set hca.tcp.cc (%s) and drop hca.cc", t.Title, orList(tcp))
	}
	for _, k := range []struct {
		set  bool
		at   scenario.Pos
		name string
	}{{h.Retransmit.Set, h.Retransmit.Pos, "retransmit"}, {h.RTOLow.Set, h.RTOLow.Pos, "rto_low"}, {h.RTOHigh.Set, h.RTOHigh.Pos, "rto_high"},
		{h.AckTimeout.Set, h.AckTimeout.Pos, "ack_timeout"}, {h.RetryCount.Set, h.RetryCount.Pos, "retry_count"}, {h.AckEvery.Set, h.AckEvery.Pos, "ack_every"},
		{h.Placement.Set, h.Placement.Pos, "placement"}, {h.BDPCap.Given(), h.BDPCap.Pos, "bdp_cap"}} {
		if k.set {
			b.errorf(k.at, "hca."+k.name, "on %s, TCP recovers lost segments and paces acknowledgements: %s has no meaning there (hca.tcp sets rto_min, delayed_ack and sack)", t.Title, k.name)
		}
	}
}

// rdmapRules refuses among the NIC's keys what iWARP's RDMAP (RFC 5040)
// lacks: the RNR NAK. (Its traffic's are rdmapTraffic's.)
func (b *builder) rdmapRules(t kind.Transport) {
	h := &b.f.HCA
	for _, k := range []struct {
		set  bool
		at   scenario.Pos
		name string
	}{{h.RNRRetry.Set, h.RNRRetry.Pos, "rnr_retry"}, {h.MinRNRTimer.Set, h.MinRNRTimer.Pos, "min_rnr_timer"}} {
		if k.set {
			b.errorf(k.at, "hca."+k.name, "%s has no RNR NAK: a SEND that finds no RECV posted ends the connection with a Terminate (RFC 5040 §7), so %s has no meaning there", t.Title, k.name)
		}
	}
}

// tcpCC gives the NICs of a transport over TCP their TCP's congestion
// control (hca.tcp.cc), and marking switches to one that reacts to
// marks.
func (b *builder) tcpCC() {
	newCC := b.tcpCongestion()
	b.s.HCA.WithTCP(func(c *hca.TCPProfile) { c.NewCC = newCC })
	if row, _ := kind.LookupCC(b.s.HCA.TCP.CC); row.ECN && !b.f.Switch.Has("ecn") {
		b.s.Switch.ECN = marking(row, b.s.Switch.ECN) // a TCP that reacts to marks needs marking switches
	}
}

// tcpTransport is the first row whose parameters are hca.tcp (iWARP),
// which the message refusing hca.tcp names.
func tcpTransport() kind.Transport {
	for _, t := range kind.Transports() {
		if t.Block == "tcp" {
			return t
		}
	}
	return kind.Transport{}
}

// rdmapTraffic refuses, on a transport whose verbs are iWARP's RDMAP
// (RFC 5040), what a generator's common keys ask that it cannot do: RC
// QPs only (iWARP has no UC or UD), no atomics or immediate data (RFC
// 5040 has neither; RFC 7306's extensions are not modelled). rdma_cm
// (connect: cm) runs over iw_cm: TCP's handshake and MPA's exchange
// (cm's iwarp.go).
func (b *builder) rdmapTraffic(tv *scenario.TrafficV, path string) {
	if !b.transportRow().RDMAP {
		return
	}
	switch g := tv.Gen.(type) {
	case *scenario.MckeyS:
		b.errorf(tv.Pos, path, "mckey sends UD multicast, and iWARP has only reliable connections (RC over TCP)")
		return
	case *scenario.PerftestS:
		if g.Test.Set && (g.Test.V == "atomic_bw" || g.Test.V == "atomic_lat") {
			b.errorf(g.Test.Pos, path+".test", "iWARP has no atomics (RFC 5040; RFC 7306's extension is not modelled)")
		}
	}
	com := genCommon(tv.Gen)
	if com == nil {
		return
	}
	if com.QP.Set && com.QP.V != "rc" {
		b.errorf(com.QP.Pos, path+".qp", "iWARP has only reliable connections (RC over TCP), not %s", com.QP.V)
	}
	if com.Op.Set && (com.Op.V == "atomic" || com.Op.V == "write_imm") {
		b.errorf(com.Op.Pos, path+".op", "iWARP's RDMAP (RFC 5040) has no %s; RFC 7306's extensions are not modelled", com.Op.V)
	}
}

// tcpCongestion makes each iWARP RC QP's congestion control as its NIC's
// hca.tcp.cc says, on the NIC's line rate with the QP's path MTU as the
// segment's payload (the QP reaches RTS, or takes its first READ, after
// RTR set it: the smaller of the two ports' hca.mtu, by which its FPDUs
// are cut and its TCP counts them), with the parameters of the top-level
// hca: (a control may start otherwise in TCP than on a QP:
// congestion.Env.TCP).
func (b *builder) tcpCongestion() func(h *hca.HCA, qp *hca.QP, apply func(fabric.Rate, int64)) hca.CongestionControl {
	params, given := b.s.CC, map[string]func(string) bool{}
	for _, name := range ccList(func(r kind.CC) bool { return r.TCP }, ccName) {
		given[name] = b.ccGiven(name)
	}
	return func(h *hca.HCA, qp *hca.QP, apply func(fabric.Rate, int64)) hca.CongestionControl {
		path := congestion.Path{LineRate: h.Port().Rate, MTU: qp.PathMTU()}
		name := h.Prof.TCP.CC
		ctl, _ := congestion.Lookup(name)
		if ctl.ECN {
			qp.ECT = true
		}
		return ctl.New(params[name], congestion.Env{Engine: h.Engine(), Path: path, Apply: apply, TCP: true, Given: given[name]})
	}
}

// iwarpCapture checks observe.pcap on a transport whose frames are
// MPA's FPDUs (iWARP): captures write FPDUs without markers, so
// hca.tcp.mpa_markers (which lfsim counts by their average, not where
// the stream puts them) is refused beside them; and Wireshark decodes MPA,
// DDP and RDMAP only on a TCP connection whose MPA Request and Reply it
// has seen (packet-iwarp-mpa.c: is_mpa_fpdu), so QPs connected out of
// band (connect: instant, pingpong, perftest and rping without
// connect: cm) are warned of: their segments show as TCP.
func (b *builder) iwarpCapture() {
	o := &b.f.Observe
	if len(o.Pcap) == 0 || !b.transportRow().RDMAP {
		return
	}
	at := o.Pcap[0].Pos
	if b.s.HCA.TCP.MPA.Markers {
		b.errorf(at, "observe.pcap", "captures write iWARP's FPDUs without MPA markers; hca.tcp.mpa_markers counts them by their average, not where the stream puts them: drop mpa_markers or observe.pcap")
	}
	instant := 0
	for _, f := range b.s.Flows {
		if f.QP == "rc" && !f.CM {
			instant++
		}
	}
	for _, g := range b.s.Poisson {
		if !g.CM {
			instant++
		}
	}
	for _, t := range b.s.Tests {
		if t.Kind == "pingpong" || t.Kind == "perftest" && !t.Perftest.CM || t.Kind == "rping" && !t.Rping.CM {
			instant++
		}
	}
	if instant > 0 {
		b.warnf(at, "observe.pcap", "%d of the traffic's connections are made out of band (connect: instant): Wireshark decodes iWARP's MPA, DDP and RDMAP only on a TCP connection whose MPA Request and Reply it has seen, so their segments show as TCP; connect: cm makes each connection on the wire (TCP's handshake, MPA's exchange)", instant)
	}
}
