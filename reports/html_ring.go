package reports

import (
	"math"
	"slices"
)

// Ring drawing (issue 51: a ring drawn in layers is a straight line of
// switches whose closing link runs back across the picture, hiding the
// loop that a credit-loop or deadlock lab is about).
const (
	ringRadius     = 200.0 // the switches' circle, in the chart's units
	ringHostRadius = 290.0 // the hosts' circle, outside their switches'
	ringHeightPx   = 620   // the chart's height
)

// switchRing returns the switches in the order they stand on a ring when
// the switches, with the links between them, form one cycle of three or
// more and each has a host (a ring of switches, not a 2 × 2 leaf-spine,
// whose spines have none); otherwise nil. The ring starts at the first
// switch in topology.json's order and goes toward the neighbour that
// comes first there.
func switchRing(t *Topo, adj map[string][]string) []string {
	kind := map[string]string{}
	var switches []string
	for _, n := range t.Nodes {
		kind[n.Name] = n.Kind
		if n.Kind == "switch" {
			switches = append(switches, n.Name)
		}
	}
	if len(switches) < 3 {
		return nil
	}
	at := map[string]int{}
	for i, s := range switches {
		at[s] = i
	}
	peers := map[string][]string{}
	for _, s := range switches {
		hosts := 0
		for _, m := range adj[s] {
			switch kind[m] {
			case "switch":
				if !slices.Contains(peers[s], m) {
					peers[s] = append(peers[s], m)
				}
			case "host":
				hosts++
			}
		}
		if len(peers[s]) != 2 || hosts == 0 {
			return nil
		}
		slices.SortFunc(peers[s], func(a, b string) int { return at[a] - at[b] })
	}
	order := []string{switches[0]}
	prev, cur := "", switches[0]
	for {
		next := peers[cur][0]
		if next == prev {
			next = peers[cur][1]
		}
		if next == switches[0] {
			break
		}
		if slices.Contains(order, next) {
			return nil
		}
		order = append(order, next)
		prev, cur = cur, next
	}
	if len(order) != len(switches) {
		return nil // more than one cycle
	}
	return order
}

// ringPositions places a ring's switches on a circle, in ring order
// clockwise from the top, and each host outside the switch it is linked
// to, a host that no ring switch holds at the centre.
func ringPositions(order []string, hosts []string, adj map[string][]string) map[string][2]float64 {
	pos := map[string][2]float64{}
	n := float64(len(order))
	angle := map[string]float64{}
	for i, s := range order {
		a := -math.Pi/2 + 2*math.Pi*float64(i)/n
		angle[s] = a
		pos[s] = [2]float64{ringRadius * math.Cos(a), ringRadius * math.Sin(a)}
	}
	under := map[string][]string{}
	for _, h := range hosts {
		sw := ""
		for _, m := range adj[h] {
			if _, ok := angle[m]; ok {
				sw = m
				break
			}
		}
		under[sw] = append(under[sw], h)
	}
	for _, s := range order {
		k := len(under[s])
		step := math.Min(0.25, 2*math.Pi/n/float64(k+1))
		for j, h := range under[s] {
			a := angle[s] + (float64(j)-float64(k-1)/2)*step
			pos[h] = [2]float64{ringHostRadius * math.Cos(a), ringHostRadius * math.Sin(a)}
		}
	}
	for _, h := range under[""] {
		pos[h] = [2]float64{0, 0}
	}
	return pos
}
