package assembly

import (
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

// attachCredits gives qp, an RC QP of a UET sender on path p, RCCC's
// sender side.
func (n *Network) attachCredits(sender *hca.HCA, qp *hca.QP, p flowPath, prof hca.Profile) {
	path := congestion.Path{LineRate: sender.Port().Rate, BaseRTT: p.baseRTT(prof.MTU), MTU: prof.MTU}
	qp.Credits = congestion.NewRCCC(path, sender.FullFrame(qp))
}

// creditSinks has every UET host make the receiver's side of RCCC for a
// QP whose requests carry pull targets, served by the host's one pacer.
func (n *Network) creditSinks() {
	if !n.Scenario.UET.ReceiverCredits {
		return
	}
	n.pacers = make([]*congestion.RCCCPacer, len(n.HCAs))
	for _, h := range n.HCAs {
		if h == nil || h.Prof.Transport != fabric.UET {
			continue
		}
		h.SetCreditSinks(func(qp *hca.QP) hca.CreditSink {
			pc := n.pacers[h.ID]
			if pc == nil {
				pc = congestion.NewRCCCPacer(h.Engine(), h.Port().Rate, h.Prof.MTU)
				n.pacers[h.ID] = pc
			}
			// The sender's credit bound, 1.5 × its path's BDP, bounds
			// the slow pulls (uet-htsim's sink reads its source's).
			src := qp.Remote
			prof := n.Scenario.HCAProfile(src)
			fp := n.pathOfQPN(resolve.Flow{Src: src, Dst: h.ID}, qp.RemoteQPN)
			line := h.Port().Rate
			if fp.ok {
				line = fp.links[0].Rate // the sender's link, as the scenario has it (its port is another partition's)
			}
			path := congestion.Path{LineRate: line, BaseRTT: fp.baseRTT(prof.MTU), MTU: prof.MTU}
			return pc.Sink(congestion.RCCCMaxWindow(path, h.FullFrame(qp)), func(pull int64) { h.SendCredit(qp, pull) })
		})
	}
}
