package assembly

import (
	"testing"
)

// TestCNPsInTheirOwnClass: on the qos-roce-ets example (trust: dscp), the
// CNPs go in the class their DSCP maps to, and every CNP the receiver
// sent is counted there at the switch's egress toward the senders, none
// in the other CNP class: cnp_dscp 48 to priority 6 (NVIDIA's defaults);
// cnp_dscp 40 mapped to 5 with cnp_802p_prio 5; and cnp_dscp 40 with
// cnp_802p_prio left at 6, where the switch trusts the DSCP, not the PCP
// the NIC tags. Without cnp_dscp the last two would count on 6.
func TestCNPsInTheirOwnClass(t *testing.T) {
	base := exampleText(t, "qos-roce-ets")
	for _, c := range []struct {
		name      string
		dcqcn     string
		want, not uint8
	}{
		{"cnp_dscp 48, cnp_802p_prio 6", "dcqcn: {variant: nvidia, cnp_dscp: 48, cnp_802p_prio: 6}", 6, 5},
		{"cnp_dscp 40, cnp_802p_prio 5", "dcqcn: {variant: nvidia, cnp_dscp: 40, cnp_802p_prio: 5}", 5, 6},
		{"cnp_dscp 40, cnp_802p_prio 6", "dcqcn: {variant: nvidia, cnp_dscp: 40, cnp_802p_prio: 6}", 5, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := patch(t, base, "dcqcn: {variant: nvidia, cnp_dscp: 48, cnp_802p_prio: 6}", c.dcqcn,
				"dscp2prio: {26: 3, 48: 6, 10: 1}", "dscp2prio: {26: 3, 48: 6, 10: 1, 40: 5}")
			n, res := runSource(t, "qos.yaml", src)
			var sent int64
			for _, h := range n.HCAs {
				if h != nil {
					sent += h.Stats.CNPsSent
				}
			}
			var on, off int64
			for _, sw := range n.Switches {
				if sw == nil {
					continue
				}
				for _, p := range sw.Ports() {
					on += sw.PortPrio(p.Index, c.want).TxPackets
					off += sw.PortPrio(p.Index, c.not).TxPackets
				}
			}
			if sent == 0 || on != sent || off != 0 {
				t.Errorf("%d CNPs sent; the switch sent %d packets on priority %d (want all of them) and %d on %d (want 0)", sent, on, c.want, off, c.not)
			}
			var np int64
			for _, cl := range res.Summary.Classes {
				np += cl.Counters["np_cnp_sent"]
			}
			if np != sent {
				t.Errorf("summary.json's classes count %d np_cnp_sent, the NICs %d", np, sent)
			}
		})
	}
}
