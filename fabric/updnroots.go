package fabric

// openSMRoots returns the switch indexes OpenSM's updn takes for roots
// when it is given none (osm_ucast_updn.c,
// updn_find_root_nodes_by_min_hop): a switch whose histogram of CAs by
// hop distance (each CA counted at its switch's distance from this one)
// has one bar above 90% of the CAs and no other above 5%: a fat tree's
// top switches, which see every CA at the same distance. Where no switch
// passes (a ring, a dumbbell), OpenSM's updn gives up and OpenSM routes
// with minhop; lfsim's updn then takes one root (upDownRank), as OpenSM
// does when given it (its root_guid_file, -a).
func (b *routeBuilder) openSMRoots() []int32 {
	n := len(b.sw)
	cas := make([]int, n) // CAs linked to each switch
	total := 0
	for _, h := range b.t.Endpoints() {
		for _, ref := range b.t.Nodes[h].Ports {
			if ref.Peer >= 0 && b.t.Nodes[ref.Peer].Kind == Switch {
				cas[b.r.swIndex[ref.Peer]]++
				total++
			}
		}
	}
	thd1, thd2 := float64(total)*0.9, float64(total)*0.05
	var roots []int32
	hist := make([]int, n) // CAs by hop distance (less than n)
	for x := 0; x < n; x++ {
		clear(hist)
		for _, s := range b.hostSw {
			if d := b.dist[int(b.row[s])*n+x]; d < unreachable {
				hist[d] += cas[s]
			}
		}
		over1, over2 := 0, 0
		for _, c := range hist {
			if float64(c) > thd1 {
				over1++
			}
			if float64(c) > thd2 {
				over2++
			}
		}
		if over1 == 1 && over2 == 1 {
			roots = append(roots, int32(x))
		}
	}
	return roots
}
