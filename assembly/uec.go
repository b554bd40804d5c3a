package assembly

import "github.com/lfsim/lfsim/reports"

// uecCounts fills summary.json's uec counters where the scenario turns
// trimming or link-level retry on (Ultra Ethernet's link layer).
func (n *Network) uecCounts(sum *reports.Summary) {
	trim := n.Scenario.Switch.Trim
	for _, p := range n.Scenario.SwitchProfiles {
		trim = trim || p.Trim
	}
	if !trim && !n.Scenario.UEC.LLR {
		return
	}
	u := &reports.UECCounts{}
	for _, sw := range n.Switches {
		if sw != nil {
			u.Trimmed += sw.Stats.Trimmed
			u.TrimmedBytes += sw.Stats.TrimmedBytes
		}
	}
	for _, h := range n.HCAs {
		if h != nil {
			u.TrimmedReceived += h.TrimmedReceived()
		}
	}
	for _, ports := range n.Fabric.Ports {
		for _, p := range ports {
			nacks, replayed := p.Link().LLR()
			u.LLRNacks += nacks
			u.LLRReplayed += replayed
		}
	}
	sum.UEC = u
}
