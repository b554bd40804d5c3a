package resolve

import (
	"path/filepath"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/reports"
)

// ReportFabric is what the report of a run of s chooses its rows,
// captions and charts by (reports.Fabric): each node's link layer
// (LinkLayerOf; a VPI host's ports each their own), and from the kinds'
// tables whether an Ethernet port's transport carries IP, whose ECN
// field switches mark (kind.Transport.IP), and whether an InfiniBand
// port's congestion control reacts to marks (kind.CC.ECN: InfiniBand
// congestion control's FECN, BECN and CCT index).
func (s *Scenario) ReportFabric() *reports.Fabric {
	f := &reports.Fabric{}
	for id, n := range s.Topology.Nodes {
		ll := s.LinkLayerOf(fabric.NodeID(id))
		ib := ll == fabric.InfiniBand
		f.InfiniBand = f.InfiniBand || ib
		f.Ethernet = f.Ethernet || !ib
		if n.Kind != fabric.Host {
			continue
		}
		p := s.HCAProfile(fabric.NodeID(id))
		if ib {
			cc, ok := kind.LookupCC(p.CC)
			f.FECN = f.FECN || ok && cc.ECN
		} else {
			f.ECN = f.ECN || kind.TransportOf(p.Transport).IP
		}
	}
	return f
}

// RunFabric is ReportFabric of the scenario a run's folder holds
// (its scenario.yaml, as the run wrote it), or nil when there is none or
// it no longer loads (the report then tells the fabric from the run's
// files).
func RunFabric(dir string) *reports.Fabric {
	s, err := Load(filepath.Join(dir, "scenario.yaml"))
	if err != nil {
		return nil
	}
	return s.ReportFabric()
}
