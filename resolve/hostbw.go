package resolve

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/scenario"
)

// HostBandwidthOf is host h's adapter's hca.host_bandwidth (0: line).
func (s *Scenario) HostBandwidthOf(h fabric.NodeID) fabric.Rate {
	if r, ok := s.HostBandwidths[h]; ok {
		return r
	}
	return s.HostBandwidth
}

// hostBandwidth is an hca: block's host_bandwidth over def.
func hostBandwidth(def fabric.Rate, h *scenario.HCAS) fabric.Rate {
	if !h.Has("host_bandwidth") {
		return def
	}
	if h.HostBandwidth.Line {
		return 0
	}
	return h.HostBandwidth.Rate.V
}
