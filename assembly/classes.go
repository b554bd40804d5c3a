package assembly

import (
	"fmt"

	"github.com/lfsim/lfsim/reports"
)

// qos reports whether any switch configures QoS (swtch.Profile.QoS): the
// runs that write per-class counters.
func (n *Network) qos() bool {
	for _, sw := range n.Switches {
		if sw != nil && sw.Prof.QoS() {
			return true
		}
	}
	return false
}

// classCounters are summary.json's classes where a switch configures
// QoS: per host, what ethtool -S prints on a ConnectX under the same
// names (rx_prioN_bytes, as its switch port sent them; rx_prioN_pause,
// PFC frames that paused N; np_cnp_sent, CNPs sent as notification
// point; rp_cnp_handled, CNPs taken as reaction point); per switch port,
// its egress bytes and PAUSE frames sent per priority under the
// transmit names (tx_prioN_bytes, tx_prioN_pause). Zero counters are
// left out, and ports with none.
func (n *Network) classCounters() []reports.ClassCounters {
	if !n.qos() {
		return nil
	}
	var out []reports.ClassCounters
	nodes := n.Scenario.Topology.Nodes
	for id, h := range n.HCAs {
		if h == nil {
			continue
		}
		c := map[string]int64{}
		for _, p := range n.Fabric.Ports[id] {
			for prio := range uint8(8) {
				if k := p.Stats.PauseRecvPrio[prio]; k > 0 {
					c[fmt.Sprintf("rx_prio%d_pause", prio)] += k
				}
				peer := p.Peer()
				if peer == nil || int(peer.Node) >= len(n.Switches) || n.Switches[peer.Node] == nil {
					continue
				}
				if b := n.Switches[peer.Node].PortPrio(peer.Index, prio).TxBytes; b > 0 {
					c[fmt.Sprintf("rx_prio%d_bytes", prio)] += b
				}
			}
		}
		if h.Stats.CNPsSent > 0 {
			c["np_cnp_sent"] = h.Stats.CNPsSent
		}
		if h.Stats.CNPsReceived > 0 {
			c["rp_cnp_handled"] = h.Stats.CNPsReceived
		}
		if len(c) > 0 {
			out = append(out, reports.ClassCounters{Node: nodes[id].Name, Counters: c})
		}
	}
	for id, sw := range n.Switches {
		if sw == nil {
			continue
		}
		for _, p := range sw.Ports() {
			c := map[string]int64{}
			for prio := range uint8(8) {
				pp := sw.PortPrio(p.Index, prio)
				if pp.TxBytes > 0 {
					c[fmt.Sprintf("tx_prio%d_bytes", prio)] = pp.TxBytes
				}
				if pp.PauseSent > 0 {
					c[fmt.Sprintf("tx_prio%d_pause", prio)] = pp.PauseSent
				}
			}
			if len(c) > 0 {
				out = append(out, reports.ClassCounters{Node: nodes[id].Name, Port: p.Name, Counters: c})
			}
		}
	}
	return out
}
