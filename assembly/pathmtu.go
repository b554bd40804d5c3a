package assembly

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/resolve"
)

// setPeerMTU tells every HCA each host port's MTU (hca.mtu, a host's own
// or the network's), from which a connected QP takes the smaller of its
// two ports' as its path MTU at RTR, as the SA's path record gives it
// (IBTA 15.2.5.16 PathRecord MTU; rdma_cm's REQ carries it, perftest
// exchanges it). Where every host has the same MTU nothing is set: a QP
// keeps its port's.
func setPeerMTU(s *resolve.Scenario, hcas []*hca.HCA) {
	mtus := make([]int, len(s.Topology.Nodes))
	first, same := -1, true
	for _, id := range s.Topology.Endpoints() {
		m := s.HCAProfile(id).MTU
		mtus[id] = m
		if first < 0 {
			first = m
		}
		same = same && m == first
	}
	if same {
		return
	}
	peer := func(id fabric.NodeID) int {
		if int(id) < len(mtus) {
			return mtus[id]
		}
		return 0
	}
	for _, h := range hcas {
		if h != nil {
			h.SetPeerMTU(peer)
		}
	}
}
