package fabric

import (
	"slices"
	"testing"
)

// TestUnreachableTwoFabrics: on a network of an InfiniBand fabric and an
// Ethernet fabric that meet only in VPI hosts (SetLinkLayers), a host
// does not forward from one of its ports to the other, so each fabric is
// searched on its own from its first endpoint. Two Ethernet islands (or
// two InfiniBand ones) joined only through the hosts' other ports are not
// connected: before this, Unreachable crossed a VPI host from port to
// port and passed them (issue 47's review, defect 1), and the flows
// between the islands had every packet dropped no_route.
func TestUnreachableTwoFabrics(t *testing.T) {
	for _, c := range []struct {
		name string
		// links are pairs of node names; ib names the InfiniBand switches
		links [][2]string
		from  string
		cut   []string
	}{
		{"one switch per fabric", [][2]string{{"h0", "ib0"}, {"h1", "ib0"}, {"h0", "eth0"}, {"h1", "eth0"}}, "h0", nil},
		{"two Ethernet islands", [][2]string{{"h0", "ib0"}, {"h1", "ib0"}, {"h0", "eth0"}, {"h1", "eth1"}}, "h0/2", []string{"eth1", "h1/2"}},
		{"two InfiniBand islands", [][2]string{{"h0", "ib0"}, {"h1", "ib1"}, {"h0", "eth0"}, {"h1", "eth0"}}, "h0", []string{"h1", "ib1"}},
		{"Ethernet islands joined by a switch link", [][2]string{{"h0", "ib0"}, {"h1", "ib0"}, {"h0", "eth0"}, {"h1", "eth1"}, {"eth0", "eth1"}}, "h0", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			topo := NewTopology()
			for _, n := range []string{"h0", "h1"} {
				topo.mustAdd(n, Host)
			}
			for _, l := range c.links {
				a, _ := topo.Lookup(l[0])
				b, ok := topo.Lookup(l[1])
				if !ok {
					b = topo.mustAdd(l[1], Switch)
				}
				if topo.Nodes[a].Kind == Host && len(topo.Nodes[a].Ports) == 1 {
					if _, err := topo.AddSecondPort(a); err != nil {
						t.Fatal(err)
					}
					a, _ = topo.Lookup(l[0] + "/2")
				}
				topo.Connect(a, b, testLink)
			}
			ll := make([]LinkLayer, len(topo.Nodes))
			for id, n := range topo.Nodes {
				if n.Name[:2] == "ib" || n.Kind == Host && !n.Second {
					ll[id] = InfiniBand
				}
			}
			topo.SetLinkLayers(ll)
			from, cut := topo.Unreachable()
			var names []string
			for _, id := range cut {
				names = append(names, topo.Nodes[id].Name)
			}
			if topo.Nodes[from].Name != c.from || !slices.Equal(names, c.cut) {
				t.Errorf("unreachable %v from %s; want %v from %s", names, topo.Nodes[from].Name, c.cut, c.from)
			}
		})
	}
}
