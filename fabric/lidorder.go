package fabric

import "slices"

// openSMOrder returns the host indexes in the order OpenSM's minhop and
// updn fill the tables in (osm_ucast_mgr.c, ucast_mgr_build_lfts and
// sort_ports_by_switch_load): the switches by the number of CA ports
// linked to them, most first, in GUID order (NodeID order here) among
// equals (glibc's qsort, a merge sort, keeps it), and each switch's CAs
// in its port order; then any host on no switch. Each destination takes
// its switch's least-used port, so the order decides the spread: on a
// fabric whose hosts are numbered leaf by leaf with as many on each, it
// is the hosts' own order.
func (b *routeBuilder) openSMOrder() []int {
	r := b.r
	load := make([]int, len(b.sw))
	for si, id := range b.sw {
		for _, ref := range b.t.Nodes[id].Ports {
			if ref.Peer >= 0 && b.t.Nodes[ref.Peer].Kind == Host {
				load[si]++
			}
		}
	}
	sws := make([]int, len(b.sw))
	for i := range sws {
		sws[i] = i
	}
	slices.SortStableFunc(sws, func(x, y int) int { return load[y] - load[x] })
	order := make([]int, 0, r.hosts)
	seen := make([]bool, r.hosts)
	for _, si := range sws {
		for _, ref := range b.t.Nodes[b.sw[si]].Ports {
			if ref.Peer < 0 || b.t.Nodes[ref.Peer].Kind != Host {
				continue
			}
			if hi := r.hostIndex[ref.Peer]; hi >= 0 && !seen[hi] {
				seen[hi] = true
				order = append(order, int(hi))
			}
		}
	}
	for hi := range seen {
		if !seen[hi] {
			order = append(order, hi)
		}
	}
	return order
}
