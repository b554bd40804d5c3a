package resolve

import (
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/kind"
	_ "github.com/lfsim/lfsim/multipath" // the sprays register in kind's table
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// UET is Ultra Ethernet Transport's own keys (hca.uet), the whole
// network's.
type UET struct {
	// Spray is hca.uet.spray: how each sender chooses its packets'
	// entropy values (a row of kind.Sprays, multipath's); "" or the
	// table's first, ecmp, keeps one value a QP.
	Spray string
	// ReceiverCredits is hca.uet.receiver_credits: the receivers run
	// UET's receiver credit-based congestion control (RCCC), the first
	// row of kind.ReceiverCCs (congestion/rccc.go), beside the senders'
	// hca.cc.
	ReceiverCredits bool
	// SleekOff is hca.uet.sleek: false: no QP runs SLEEK (hca/uet.go),
	// a loss being found by a trim NACK or a timeout alone, as in
	// uet-htsim without -sleek (its default).
	SleekOff bool
	// AckPriority is hca.uet.ack_priority: the 802.1p priority of UET's
	// ACKs and NACKs (hca.Profile.UETAckClass); default
	// swtch.TrimPriority, 7.
	AckPriority uint8
	// MinRTO is hca.uet.min_rto given as a time, MinRTOAuto as auto:
	// then UETMinRTO computes uet-htsim's from RTOQueue, the largest
	// lossy egress queue a switch of the network can hold, bytes (set
	// once the topology is known). Neither: IRN's rto_low and rto_high.
	MinRTO     sim.Time
	MinRTOAuto bool
	RTOQueue   int64
	// ROD is hca.uet.delivery: rod, UET's reliable ordered delivery
	// (see rodProfile); false is RUD, reliable unordered delivery.
	ROD bool
}

// UET's retransmission timeout, uet-htsim's (htsim/sim/datacenter/
// main_uec.cpp: _min_rto = 15 us + queuesize × 6 × 8 / linkspeed, "2
// priority queues; 3 hops for incast"; uec.cpp: the timer runs from the
// oldest outstanding packet's send time, hca.SetMinRTO).
const (
	uetRTOBase   = 15 * sim.Microsecond
	uetRTOQueues = 6
)

// UETMinRTO is the retransmission timeout of a UET QP whose NIC sends at
// rate under uet-htsim's rule: hca.uet.min_rto's time, or with auto
// uet-htsim's 15 us plus six drains of the largest switch queue at that
// rate (1,021.6 us with 4 MiB buffers at alpha 1, 2 MiB queues, at
// 100 Gb/s; htsim's own at -q 505, 4,160-byte packets, is 1,023.4 us;
// 8,068 us with the default 32 MiB buffer). 0 without min_rto: the
// NICs keep IRN's RTO_low and RTO_high (hca.Profile).
func (u *UET) UETMinRTO(rate fabric.Rate) sim.Time {
	if u.MinRTO > 0 || !u.MinRTOAuto {
		return u.MinRTO
	}
	if rate <= 0 {
		return uetRTOBase
	}
	return uetRTOBase + sim.Time(float64(uetRTOQueues*u.RTOQueue*8)/float64(rate)*float64(sim.Second))
}

// rtoQueue is the largest egress queue a lossy class of a switch of the
// network can hold, bytes: its static egress_threshold, up to its
// buffer (or shared pool), or under the dynamic threshold alpha × free
// the fixed point alpha / (1 + alpha) of its buffer (or shared pool),
// what one queue alone reaches (Choudhury and Hahne). The buffer's
// reserved minimums and PFC headroom, which the switch keeps out of its
// shared pool, are not taken off: with lossless priorities the queue is
// overstated by alpha / (1 + alpha) of the headroom.
func (b *builder) rtoQueue() int64 {
	t := b.s.Topology
	if t == nil {
		return 0
	}
	var q int64
	for id := range t.Nodes {
		if t.Nodes[id].Kind != fabric.Switch {
			continue
		}
		p := b.s.SwitchProfile(fabric.NodeID(id))
		th := p.EgressThreshold
		pool := int64(p.Buffer)
		if p.SharedPool > 0 {
			pool = int64(p.SharedPool)
		}
		if th.Alpha <= 0 {
			// No queue holds more than the pool, whatever the
			// threshold allows.
			q = max(q, min(int64(th.Bytes), pool))
			continue
		}
		q = max(q, int64(th.Alpha*float64(pool)/(1+th.Alpha)))
	}
	return q
}

// DefaultUETAckPriority is hca.uet.ack_priority's default: the trimmed
// headers' priority (swtch.TrimPriority, 7), which the strict scheduler
// serves ahead of data, as uet-htsim serves every header-only packet
// (its UecAckPacket, UecNackPacket, UecPullPacket and UecRtsPacket are
// _is_header and priority() PRIO_HI, htsim/sim/uecpacket.h) from its
// CompositeQueue's high queue, 100,000 to 1 ahead of data
// (compositequeue.cpp: _ratio_high, _ratio_low).
const DefaultUETAckPriority = swtch.TrimPriority

// uetBlock reads the top-level hca.uet (h) into the scenario, before the
// NIC's profile is made: its cc stands in hca.cc's place (either, not
// both), the rest is UET's own. hca.uet with another transport is
// refused by checkUET, once the transport is known.
func (b *builder) uetBlock(h *scenario.HCAS) {
	u := &h.UET
	b.s.UET.AckPriority = DefaultUETAckPriority
	if !u.Set {
		return
	}
	overrideNum(&b.s.UET.AckPriority, u.AckPriority)
	if u.Has("min_rto") {
		b.s.UET.MinRTO, b.s.UET.MinRTOAuto = u.MinRTO.Time.V, u.MinRTO.Auto
		switch at := u.KeyPos("min_rto"); {
		case h.RTOLow.Set || h.RTOHigh.Set:
			b.errorf(at, "hca.uet.min_rto", "min_rto is uet-htsim's timeout, rto_low and rto_high IRN's: give one or the other")
		case !u.MinRTO.Auto && u.MinRTO.Time.V <= 0:
			b.errorf(at, "hca.uet.min_rto", "min_rto must be above 0 (or auto)")
		}
	}
	if u.CC.Set {
		if h.CC.Set {
			b.errorf(u.CC.Pos, "hca.uet.cc", "the congestion control is given twice, as hca.cc and hca.uet.cc: give one")
		} else {
			h.CC = u.CC
		}
	}
	if u.ReceiverCredits.Set && u.ReceiverCredits.V {
		b.s.UET.ReceiverCredits = true
	}
	if u.Spray.Set {
		b.s.UET.Spray = u.Spray.V // the schema checked the name
	}
	b.s.UET.SleekOff = u.Sleek.Set && !u.Sleek.V
	b.s.UET.ROD = u.Delivery.Set && u.Delivery.V == "rod"
}

// UET's reliable ordered delivery (ROD, hca.uet.delivery: rod) is the
// PDS delivery mode whose target hands packets to the SES in PSN order
// (UE 1.0.1's PDS packet types, as Wireshark's UET dissector names them:
// UET_PDS_TYPE_ROD_REQ beside RUD_REQ, the same 12-byte header,
// UET_PDS_RUD_ROD_MIN_HDR_LEN, so nothing changes on the wire). The
// target keeps nothing past a gap: a PSN that arrives out of order is
// dropped and NACKed (the dissector's NACK code
// UET_PDS_NACK_CODE_ROD_OOO, "a PSN arrived out of order on a ROD
// PDC"), the NACK naming here the PSN the target expects, and the source
// sends again from there: go-back-N (the model's reading; the
// specification's text was not among its sources), which the
// RC machinery has (hca.retransmit: go-back-n, placement: in-order; a
// gap NAKed once until the PSN it names arrives, as IBA's responder
// does, and a trimmed packet NAKed as a gap, hca/trimmed.go). Packets
// of one PDC stay on one path, one entropy value, since any reordering
// would be taken for a loss: spraying is refused. Not modelled: the
// PDC's setup and the SES's ordering of messages above it. The source's
// timer is the PDS's (hca.rto_low, rto_high), as RUD's.

// rodProfile gives a UET profile p ROD's recovery where the block h
// does not set it, and refuses a setting that contradicts it.
func (b *builder) rodProfile(p *hca.Profile, h *scenario.HCAS) {
	if h.Retransmit.Set && p.Retransmit != hca.GoBackN {
		b.errorf(h.Retransmit.Pos, "hca.retransmit", "hca.uet.delivery: rod drops what arrives past a gap and resends from it: retransmit: go-back-n (its default), not %s", h.Retransmit.V)
	}
	if h.Placement.Set && p.Placement != hca.InOrder {
		b.errorf(h.Placement.Pos, "hca.placement", "hca.uet.delivery: rod takes packets in PSN order only: placement: in-order (its default), not %s", h.Placement.V)
	}
	if !h.Retransmit.Set {
		p.Retransmit = hca.GoBackN
	}
	if !h.Placement.Set {
		p.Placement = hca.InOrder
	}
}

// checkUET refuses hca.uet where the transport is not UET, and warns
// when the senders spray but the switches choose ports themselves.
func (b *builder) checkUET() {
	u := &b.f.HCA.UET
	b.s.UET.RTOQueue = b.rtoQueue()
	if u.Set && b.transportRow().Block != "uet" {
		b.errorf(u.Pos, "hca.uet", "hca.uet configures Ultra Ethernet's transport: set hca.transport: %s", uetTransport().Name)
	}
	if first := kind.Sprays(); b.s.UET.ROD && u.Spray.Set && len(first) > 0 && u.Spray.V != first[0].Name {
		b.errorf(u.Spray.Pos, "hca.uet.spray", "hca.uet.delivery: rod keeps a QP's packets on one path, one entropy value, since ROD takes any reordering for a loss: spray: %s, or delivery: rud to spray", first[0].Name)
	}
	if b.s.UET.ROD && u.Has("min_rto") {
		// uet-htsim's timer runs in RUD's selective recovery (its
		// oldest outstanding packet); ROD's go-back-N keeps the PDS's.
		b.errorf(u.KeyPos("min_rto"), "hca.uet.min_rto", "min_rto is uet-htsim's timer for delivery: rud; under delivery: rod the timer is hca.rto_low and rto_high")
	}
	if b.s.UET.ROD && u.Sleek.Set && u.Sleek.V {
		b.warnf(u.Sleek.Pos, "hca.uet.sleek", "SLEEK counts what the target keeps out of order, and under delivery: rod it keeps none: SLEEK does not run")
	}
	if b.s.UET.ROD && b.s.Switch.LoadBalance.Chooses() {
		b.warnf(u.Delivery.Pos, "hca.uet.delivery", "ROD takes a packet out of order for a loss, and switch.load_balance %s moves a QP's packets across paths: each reordering it makes is resent from the gap", b.s.Switch.LoadBalance)
	}
	if first := kind.Sprays(); u.Spray.Set && len(first) > 0 && u.Spray.V != first[0].Name && b.s.Switch.LoadBalance.Chooses() {
		b.warnf(u.Spray.Pos, "hca.uet.spray", "the senders choose each packet's entropy (%s), but switch.load_balance %s chooses the ports itself and overrides it: set load_balance: %s", u.Spray.V, b.s.Switch.LoadBalance, kind.LoadBalances()[0].Name)
	}
}

// checkSprayedQP warns at a traffic item (path) whose data hca.uet.spray
// does not spray: the assembly gives a sprayer to the RC QP that sends
// requests (assembly/flows.go attachCC), so a READ's data, the
// responder's READ responses, and a UC or UD QP's packets keep the QP's
// one entropy value and ECMP keeps them on one path. qpAt and opAt are
// where the item's qp and op are (opAt the item where op is not given).
func (b *builder) checkSprayedQP(path, qp, op string, qpAt, opAt scenario.Pos) {
	first := kind.Sprays()
	if b.s.UET.Spray == "" || len(first) == 0 || b.s.UET.Spray == first[0].Name {
		return
	}
	switch {
	case qp != "rc":
		if !qpAt.IsValid() {
			qpAt = opAt
		}
		b.warnf(qpAt, path+".qp", "hca.uet.spray %s sprays RC QPs' requests: a %s QP's packets keep one entropy value, so ECMP keeps them on one path", b.s.UET.Spray, strings.ToUpper(qp))
	case op == "read":
		b.warnf(opAt, path+".op", "hca.uet.spray %s sprays RC QPs' requests: a READ's data is the responder's READ responses, which keep one entropy value, so ECMP keeps them on one path", b.s.UET.Spray)
	}
}

// checkHostUET refuses hca.uet in a host's own block h (at path).
func (b *builder) checkHostUET(h *scenario.HCAS, path string) {
	if h.UET.Set {
		b.errorf(h.UET.Pos, path+".hca.uet", "every NIC of a fabric runs UET alike: set hca.uet at the top level")
	}
}

// uetTransport is the transport row whose parameters are hca.uet.
func uetTransport() kind.Transport {
	for _, t := range kind.Transports() {
		if t.Block == "uet" {
			return t
		}
	}
	return kind.Transport{}
}
