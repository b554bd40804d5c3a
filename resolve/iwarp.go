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
	if p.Transport != fabric.IWARP {
		b.errorf(t.Pos, "hca.tcp", "hca.tcp configures the TCP an iWARP NIC runs; set hca.transport: iwarp (RoCE has no TCP)")
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

// iwarp checks what a scenario with hca.transport: iwarp may ask for and
// gives its NICs their TCP's congestion control: RC QPs only (iWARP has
// no UC or UD), no atomics or immediate data (RFC 5040 has neither; RFC
// 7306's extensions are not modelled), TCP's recovery and congestion
// control in place of RoCE's, and QPs connected out of band (iWARP's
// connection manager, TCP's handshake and MPA's negotiation, is not
// modelled yet).
func (b *builder) iwarp() {
	h := &b.f.HCA
	if b.s.HCA.Transport != fabric.IWARP {
		return
	}
	if b.s.LinkLayer == fabric.InfiniBand {
		b.errorf(h.Transport.Pos, "hca.transport", "iwarp runs RDMA over TCP on Ethernet; on InfiniBand links the transport is InfiniBand's own (drop hca.transport, or switch.link_layer)")
		return
	}
	if h.CC.Set && h.CC.V != "none" {
		tcp := ccList(func(r kind.CC) bool { return r.TCP }, ccName)
		b.errorf(h.CC.Pos, "hca.cc", "on iWARP the congestion control is TCP's: set hca.tcp.cc (%s) and drop hca.cc", orList(tcp))
	}
	for _, k := range []struct {
		set  bool
		at   scenario.Pos
		name string
	}{{h.Retransmit.Set, h.Retransmit.Pos, "retransmit"}, {h.RTOLow.Set, h.RTOLow.Pos, "rto_low"}, {h.RTOHigh.Set, h.RTOHigh.Pos, "rto_high"},
		{h.AckTimeout.Set, h.AckTimeout.Pos, "ack_timeout"}, {h.RetryCount.Set, h.RetryCount.Pos, "retry_count"}, {h.AckEvery.Set, h.AckEvery.Pos, "ack_every"},
		{h.Placement.Set, h.Placement.Pos, "placement"}, {h.BDPCap.Given(), h.BDPCap.Pos, "bdp_cap"}} {
		if k.set {
			b.errorf(k.at, "hca."+k.name, "on iWARP, TCP recovers lost segments and paces acknowledgements: %s has no meaning there (hca.tcp sets rto_min, delayed_ack and sack)", k.name)
		}
	}
	for _, k := range []struct {
		set  bool
		at   scenario.Pos
		name string
	}{{h.RNRRetry.Set, h.RNRRetry.Pos, "rnr_retry"}, {h.MinRNRTimer.Set, h.MinRNRTimer.Pos, "min_rnr_timer"}} {
		if k.set {
			b.errorf(k.at, "hca."+k.name, "iWARP has no RNR NAK: a SEND that finds no RECV posted ends the connection with a Terminate (RFC 5040 §7), so %s has no meaning there", k.name)
		}
	}
	if pc := b.f.Observe.Pcap; len(pc) > 0 {
		b.errorf(pc[0].Pos, "observe.pcap", "captures write RoCE's and InfiniBand's frames; iWARP's TCP segments are not written yet (drop observe.pcap, or use hca.transport: rocev2)")
	}
	newCC := b.tcpCongestion()
	b.s.HCA.WithTCP(func(c *hca.TCPProfile) { c.NewCC = newCC })
	if row, _ := kind.LookupCC(b.s.HCA.TCP.CC); row.ECN && !b.f.Switch.Has("ecn") {
		b.s.Switch.ECN = marking(row, b.s.Switch.ECN) // a TCP that reacts to marks needs marking switches
	}
}

// iwarpTraffic refuses on iWARP what a generator's common keys ask that
// iWARP cannot do.
func (b *builder) iwarpTraffic(tv *scenario.TrafficV, path string) {
	if b.s.HCA.Transport != fabric.IWARP {
		return
	}
	switch g := tv.Gen.(type) {
	case *scenario.MckeyS:
		b.errorf(tv.Pos, path, "mckey sends UD multicast, and iWARP has only reliable connections (RC over TCP)")
		return
	case *scenario.RdmaServerS, *scenario.RdmaClientS:
		b.errorf(tv.Pos, path, "rdma_server and rdma_client connect with rdma_cm, and iWARP's connection manager (TCP's handshake, MPA's request and reply) is not modelled yet")
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
	if com.Connect.Set && com.Connect.V == "cm" {
		b.errorf(com.Connect.Pos, path+".connect", "iWARP's connection manager (TCP's handshake, MPA's request and reply) is not modelled yet: connect: instant only")
	}
}

// tcpCongestion makes each iWARP RC QP's congestion control as its NIC's
// hca.tcp.cc says, on the NIC's line rate with the MTU as the segment's
// payload, with the parameters of the top-level hca: (a control may
// start otherwise in TCP than on a QP: congestion.Env.TCP).
func (b *builder) tcpCongestion() func(h *hca.HCA, qp *hca.QP, apply func(fabric.Rate, int64)) hca.CongestionControl {
	params, given := b.s.CC, map[string]func(string) bool{}
	for _, name := range ccList(func(r kind.CC) bool { return r.TCP }, ccName) {
		given[name] = b.ccGiven(name)
	}
	return func(h *hca.HCA, qp *hca.QP, apply func(fabric.Rate, int64)) hca.CongestionControl {
		path := congestion.Path{LineRate: h.Port().Rate, MTU: h.Prof.MTU}
		name := h.Prof.TCP.CC
		ctl, _ := congestion.Lookup(name)
		if ctl.ECN {
			qp.ECT = true
		}
		return ctl.New(params[name], congestion.Env{Engine: h.Engine(), Path: path, Apply: apply, TCP: true, Given: given[name]})
	}
}
