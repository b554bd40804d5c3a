package assembly

import (
	"fmt"
	"math"

	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/resolve"
)

// UET's receiver credit-based congestion control (hca.uet.receiver_credits;
// congestion/rccc.go, hca/rccc.go): the requester QP holds its credit,
// and the receiving host's pacer grants it. The receiver's side of a QP
// is made at the receiving host when the first request that carries a
// pull target comes (its partition's own), with the pacer of that host.

// attachCredits gives qp, an RC QP of a UET sender, RCCC's sender side
// on path, the one its congestion control has (attachCC: the QP's path
// MTU and the base RTT of a packet of it), whose full packets take frame
// bytes on the wire.
func (n *Network) attachCredits(qp *hca.QP, path congestion.Path, frame int64) {
	qp.Credits = congestion.NewRCCC(path, frame)
}

// creditSinks has every UET host make the receiver's side of RCCC for a
// QP whose requests carry pull targets, served by the host's one pacer.
func (n *Network) creditSinks() {
	if !n.Scenario.UET.ReceiverCredits {
		return
	}
	n.pacers = make([]*congestion.RCCCPacer, len(n.HCAs))
	n.oversub = make([]*congestion.RCCCOversubscription, len(n.HCAs))
	ratio := oversubscription(n.Scenario.Topology)
	for _, h := range n.HCAs {
		if h == nil || h.Prof.Transport != fabric.UET {
			continue
		}
		// The receiver's oversubscription control runs where the
		// fabric is oversubscribed and the host runs no sender control,
		// as uet-htsim's does (congestion/rcccoversub.go).
		_, senderCC := congestion.Lookup(h.Prof.CC)
		oversub := ratio > 1 && !senderCC
		h.SetCreditSinks(func(qp *hca.QP) hca.CreditSink {
			pc := n.pacers[h.ID]
			if pc == nil {
				pc = congestion.NewRCCCPacer(h.Engine(), h.Port().Rate)
				n.pacers[h.ID] = pc
				if oversub && !n.noOversub {
					n.oversub[h.ID] = congestion.NewRCCCOversubscription(h.Engine(), pc, ratio, h.Engine().Rand(fmt.Sprintf("rccc/oversubscription/%d", h.ID)))
				}
			}
			// The sender's credit bound, 1.5 × its path's BDP, bounds
			// the slow pulls (uet-htsim's sink reads its source's).
			// Its packets are of the QP's path MTU, as the sender's
			// side has it (attachCredits), and so are the 4 packets a
			// pull grants it.
			src := qp.Remote
			mtu := n.connectedMTU(qp, src)
			fp := n.pathOfQPN(resolve.Flow{Src: src, Dst: h.ID}, qp.RemoteQPN)
			line := h.Port().Rate
			if fp.ok {
				line = fp.links[0].Rate // the sender's link, as the scenario has it (its port is another partition's)
			}
			path := congestion.Path{LineRate: line, BaseRTT: fp.baseRTT(mtu), MTU: mtu}
			if o := n.oversub[h.ID]; o != nil {
				o.SetBaseRTT(path.BaseRTT)
			}
			return pc.Sink(congestion.RCCCMaxWindow(path, h.FullFrame(qp)), mtu, func(pull int64) { h.SendCredit(qp, pull) })
		})
	}
}

// oversubscription is the fabric's oversubscription ratio as uet-htsim
// reads its topology's (FatTreeTopologyCfg::get_oversubscription_ratio:
// each tier's Oversubscribed, multiplied): the switches are put in tiers
// by their hop distance from the nearest host (1 for those hosts attach
// to); a switch's ratio is the bandwidth of its links down (to hosts and
// switches of lower tiers) over that of its links up (to higher tiers),
// a tier's the largest of its switches' that have links up, in whole
// numbers (htsim's tiers take integers: 1.14, an edge switch with one of
// its four uplinks at half rate, counts 1), at least 1; the fabric's the
// product of its tiers'. A single switch, with no link up, is 1.
func oversubscription(t *fabric.Topology) float64 {
	if t == nil {
		return 1
	}
	tier := make([]int, len(t.Nodes))
	for i := range tier {
		tier[i] = -1
	}
	var queue []fabric.NodeID
	for i, nd := range t.Nodes {
		if nd.Kind == fabric.Host {
			tier[i] = 0
			queue = append(queue, fabric.NodeID(i))
		}
	}
	for len(queue) > 0 {
		a := queue[0]
		queue = queue[1:]
		for _, pr := range t.Nodes[a].Ports {
			if b := pr.Peer; t.Nodes[b].Kind != fabric.Host && tier[b] < 0 {
				tier[b] = tier[a] + 1
				queue = append(queue, b)
			}
		}
	}
	worst := map[int]float64{}
	top := 0
	for i, nd := range t.Nodes {
		if nd.Kind == fabric.Host || tier[i] < 0 {
			continue
		}
		var down, up float64
		for _, pr := range nd.Ports {
			r := float64(t.Links[pr.Link].Rate)
			switch pt := tier[pr.Peer]; {
			case pt >= 0 && pt < tier[i]:
				down += r
			case pt > tier[i]:
				up += r
			}
		}
		if up > 0 {
			worst[tier[i]] = max(worst[tier[i]], math.Floor(down/up+1e-9))
			top = max(top, tier[i])
		}
	}
	ratio := 1.0
	for k := 1; k <= top; k++ {
		ratio *= max(1, worst[k])
	}
	return ratio
}
