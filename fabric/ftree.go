package fabric

import "slices"

// OpenSM's ftree engine (osm_ucast_ftree.c at 3.3.23), as lfsim
// follows it: the fabric is ranked from its leaves, the switches linked
// to hosts, indexed by ftree's tuples, and each leaf's hosts are routed
// in turn, leaf by leaf in tuple order and each leaf's hosts in port
// order: the destination's main path goes up by the least-loaded up port
// group (its counter of main paths, the lower-indexed remote switch on a
// tie) and sets the down entries on its way, and every switch it crosses
// sets the up entries of the switches below it toward itself
// (fabric_route_downgoing_by_going_up, fabric_route_upgoing_by_going_down);
// switches no main path reaches take the secondary paths' first up group,
// in the order its last sort left. The counters, sorts and tie-breaks are
// OpenSM's, so the tables are OpenSM's entry for entry
// (TestOpenSMRecordedTables). A fabric that is no fat tree in ftree's
// sense (newFtree) OpenSM refuses, and routes with minhop.

// ftreeNoPath is OpenSM's OSM_NO_PATH: no hop count, no port.
const ftreeNoPath = 0xFF

type ftreePort struct {
	num, remote            int32 // lfsim's port numbers, here and at the peer
	counterUp, counterDown uint32
}

// ftreeGroup is a switch's ports to one neighbour (a switch, or a host's
// port).
type ftreeGroup struct {
	remote                 *ftreeSwitch // nil for a host
	host                   int32        // the host's index, for a host
	ports                  []*ftreePort
	counterUp, counterDown uint32
}

type ftreeSwitch struct {
	si             int32
	rank           int32
	tuple          [8]byte
	leaf           bool
	up, down       []*ftreeGroup
	minCounterDown uint32
	upChanged      bool
	lft            []int32 // per destination (the hosts, then the dummy): port, or -1
	hops           []uint8
}

type ftree struct {
	sw     []*ftreeSwitch
	leaves []*ftreeSwitch
	maxCN  int
	dummy  int // the destination index of ftree's dummy CAs
}

// newFtree builds ftree's view of the fabric, or returns nil where OpenSM's
// ftree would refuse it (construct_fabric): a host on no switch or on a
// host, a switch no host reaches, fewer than two switches or hosts, one
// rank only (a ring: every switch a root, "ERR AB2B"), a tree of more
// than 8 or fewer than 2 ranks, a host's switch not at the leaves' rank,
// links between switches of one rank, or fewer than two leaves. OpenSM
// also checks that the switches of a rank have the same numbers of up
// and down ports (fabric_validate_topology); lfsim does not.
func (b *routeBuilder) newFtree() *ftree {
	n := len(b.sw)
	hosts := b.t.Endpoints()
	if n < 2 || len(hosts) < 2 {
		return nil
	}
	f := &ftree{sw: make([]*ftreeSwitch, n), dummy: len(hosts)}
	for i := range f.sw {
		s := &ftreeSwitch{si: int32(i), rank: -1, lft: make([]int32, len(hosts)+1), hops: make([]uint8, len(hosts)+1)}
		for j := range s.lft {
			s.lft[j], s.hops[j] = -1, ftreeNoPath
		}
		for j := range s.tuple {
			s.tuple[j] = 0xFF
		}
		f.sw[i] = s
	}
	// fabric_rank_from_hcas: distances from the hosts' switches, reversed.
	var queue []int32
	for _, h := range hosts {
		for _, ref := range b.t.Nodes[h].Ports {
			if ref.Peer < 0 {
				continue
			}
			if b.t.Nodes[ref.Peer].Kind != Switch {
				return nil
			}
			if s := f.sw[b.r.swIndex[ref.Peer]]; s.rank != 0 {
				s.rank = 0
				queue = append(queue, s.si)
			}
		}
	}
	bfs := func() int32 {
		var last int32
		for q := 0; q < len(queue); q++ {
			x := queue[q]
			for _, a := range b.adj[x] {
				if r := f.sw[a.peer]; r.rank < 0 || r.rank > f.sw[x].rank+1 {
					r.rank = f.sw[x].rank + 1
					last = r.rank
					queue = append(queue, a.peer)
				}
			}
		}
		return last
	}
	top := bfs()
	for _, s := range f.sw {
		if s.rank < 0 {
			return nil
		}
		s.rank = top - s.rank
	}
	// fabric_rerank_using_root: distances from the rank-0 switches.
	queue = queue[:0]
	for _, s := range f.sw {
		if s.rank == 0 {
			queue = append(queue, s.si)
		} else {
			s.rank = -1
		}
	}
	leafRank := bfs()
	if leafRank < 1 || leafRank+1 > 8 {
		return nil
	}
	// fabric_construct_sw_ports: a group per neighbour, in port order.
	for _, s := range f.sw {
		for p, ref := range b.t.Nodes[b.sw[s.si]].Ports {
			if ref.Peer < 0 {
				continue
			}
			var g *ftreeGroup
			if b.t.Nodes[ref.Peer].Kind == Host {
				hi := b.r.hostIndex[ref.Peer]
				if hi < 0 {
					continue
				}
				g = &ftreeGroup{host: hi}
				s.down = append(s.down, g)
				s.leaf = true
			} else {
				r := f.sw[b.r.swIndex[ref.Peer]]
				if r == s {
					continue
				}
				groups := &s.down
				switch {
				case r.rank == s.rank:
					return nil // siblings: not followed here
				case r.rank < s.rank:
					groups = &s.up
				}
				for _, x := range *groups {
					if x.remote == r {
						g = x
					}
				}
				if g == nil {
					g = &ftreeGroup{remote: r, host: -1}
					*groups = append(*groups, g)
				}
			}
			g.ports = append(g.ports, &ftreePort{num: int32(p), remote: int32(ref.PeerPort)})
		}
		if s.leaf && s.rank != leafRank {
			return nil
		}
	}
	f.index(leafRank)
	var atLeafRank []*ftreeSwitch
	for _, s := range f.sw {
		if s.rank == leafRank {
			atLeafRank = append(atLeafRank, s)
		}
	}
	slices.SortFunc(atLeafRank, func(x, y *ftreeSwitch) int { return compareTuples(x, y) })
	first, last := len(atLeafRank), 0
	for i, s := range atLeafRank {
		if s.leaf {
			first, last = min(first, i), i
		}
	}
	if first >= last {
		return nil
	}
	f.leaves = atLeafRank[first : last+1]
	for _, s := range f.leaves {
		cn := 0
		for _, g := range s.down {
			if g.remote == nil {
				cn++
			}
		}
		f.maxCN = max(f.maxCN, cn)
	}
	return f
}

func compareTuples(x, y *ftreeSwitch) int {
	for i := range x.tuple {
		if x.tuple[i] != y.tuple[i] {
			if x.tuple[i] > y.tuple[i] {
				return 1
			}
			return -1
		}
	}
	return 0
}

func compareGroups(x, y *ftreeGroup) int { return compareTuples(x.remote, y.remote) }

// index gives every switch its tuple (fabric_make_indexing,
// bfs_fabric_indexing): from the first leaf in GUID order, a
// breadth-first search that gives each switch it meets the first tuple
// free under its finder's, and sorts each switch's groups by their
// switches' tuples.
func (f *ftree) index(leafRank int32) {
	used := map[[8]byte]bool{} // looked up only
	assign := func(s *ftreeSwitch, t [8]byte) {
		s.tuple = t
		used[t] = true
	}
	var start *ftreeSwitch
	for _, s := range f.sw {
		if s.leaf {
			start = s
			break
		}
	}
	var t [8]byte
	for i := range t {
		t[i] = 0xFF
	}
	t[0] = byte(start.rank)
	for i := 1; i <= int(leafRank); i++ {
		t[i] = 0
	}
	assign(start, t)
	next := func(from [8]byte, down bool) [8]byte {
		tmp := from
		var v int
		if down {
			tmp[0]++
			v = int(from[0]) + 1
		} else {
			tmp[0]--
			v = int(from[0])
		}
		for i := 0; i < 0xFF; i++ {
			tmp[v] = byte(i)
			if !used[tmp] {
				return tmp
			}
		}
		return tmp
	}
	queue := []*ftreeSwitch{start}
	for q := 0; q < len(queue); q++ {
		s := queue[q]
		if s.rank < leafRank {
			for _, g := range s.down {
				if g.remote == nil || g.remote.tuple[0] != 0xFF {
					continue
				}
				assign(g.remote, next(s.tuple, true))
				queue = append(queue, g.remote)
			}
			slices.SortFunc(s.down, compareGroups)
		}
		if s.rank != 0 {
			for _, g := range s.up {
				if g.remote.tuple[0] != 0xFF {
					continue
				}
				assign(g.remote, next(s.tuple, false))
				queue = append(queue, g.remote)
			}
			slices.SortFunc(s.up, compareGroups)
		}
	}
}

// route fills every switch's table for every host (fabric_route_to_cns).
func (f *ftree) route() {
	for _, s := range f.leaves {
		routed := 0
		for _, g := range s.down {
			if g.remote != nil {
				continue
			}
			s.lft[g.host] = g.ports[0].num
			s.hops[g.host] = 1
			f.downgoingByGoingUp(s, nil, int(g.host), true, 1)
			routed++
		}
		for j := 0; j < f.maxCN-routed; j++ { // dummy CAs: they move the counters only
			s.hops[f.dummy] = 1
			f.downgoingByGoingUp(s, nil, f.dummy, true, 1)
			for _, x := range f.sw {
				x.hops[f.dummy], x.lft[f.dummy] = ftreeNoPath, -1
			}
		}
	}
}

func leastLoadedDown(g *ftreeGroup) *ftreePort {
	var p *ftreePort
	for _, x := range g.ports {
		if p == nil || x.counterDown < p.counterDown {
			p = x
		}
	}
	return p
}

func (f *ftree) downgoingByGoingUp(s, prev *ftreeSwitch, t int, main bool, hops uint8) bool {
	created := f.upgoingByGoingDown(s, prev, t, main, hops)
	if s.rank == 0 {
		return created // no reverse hops (OpenSM's default)
	}
	bubbleSort(s.up, compareLoadDown)
	if main {
		g := s.up[0]
		p := leastLoadedDown(g)
		r := g.remote
		g.counterDown++
		p.counterDown++
		if g.counterDown == r.minCounterDown+1 {
			r.minCounterDown = 1 << 30
			for _, x := range r.down {
				r.minCounterDown = min(r.minCounterDown, x.counterDown)
			}
		}
		if r.lft[t] < 0 || hops+1 < r.hops[t] {
			r.lft[t], r.hops[t] = p.remote, hops+1
		}
		created = f.downgoingByGoingUp(r, s, t, main, hops+1) || created
	}
	start := 0
	if main {
		start = 1
	}
	for _, g := range s.up[start:] {
		r := g.remote
		if r.lft[t] >= 0 && hops+1 >= r.hops[t] {
			continue
		}
		if len(g.ports) == 0 {
			continue
		}
		p := leastLoadedDown(g)
		r.lft[t], r.hops[t] = p.remote, hops+1
		created = f.downgoingByGoingUp(r, s, t, false, hops+1) || created
	}
	return created
}

func (f *ftree) upgoingByGoingDown(s, prev *ftreeSwitch, t int, main bool, hops uint8) bool {
	if len(s.down) == 0 {
		return false
	}
	if s.upChanged {
		bubbleSort(s.down, compareLoadUp)
		s.upChanged = false
	}
	created := false
	for _, g := range s.down {
		if g.remote == nil {
			created = true
			continue
		}
		if prev != nil && g.remote == prev {
			continue
		}
		var p *ftreePort
		for _, x := range g.ports {
			if p == nil || x.counterUp < p.counterUp {
				p = x
			}
		}
		r := g.remote
		if r.hops[t] != ftreeNoPath && hops+1 >= r.hops[t] {
			continue
		}
		r.lft[t], r.hops[t] = p.remote, hops+1
		if f.upgoingByGoingDown(r, nil, t, main, hops+1) {
			created = true
			p.counterUp++
			g.counterUp++
			s.upChanged = true
		}
	}
	return created
}

// compareLoadDown is port_group_compare_load_down: fewer main paths
// first; then, where the other's switch is less loaded below, the
// other; else the lower tuple (OpenSM reaches the tuples also when this
// one's switch is the less loaded).
func compareLoadDown(x, y *ftreeGroup) int {
	switch {
	case x.counterDown > y.counterDown:
		return 1
	case x.counterDown < y.counterDown:
		return -1
	case x.remote.minCounterDown > y.remote.minCounterDown:
		return 1
	}
	return compareGroups(x, y)
}

// compareLoadUp is port_group_compare_load_up: fewer up routes first,
// then the lower tuple.
func compareLoadUp(x, y *ftreeGroup) int {
	switch {
	case x.counterUp > y.counterUp:
		return 1
	case x.counterUp < y.counterUp:
		return -1
	}
	return compareGroups(x, y)
}

// bubbleSort is OpenSM's bubble_sort_up and _down: passes of adjacent
// swaps until one swaps nothing (stable).
func bubbleSort(a []*ftreeGroup, cmp func(x, y *ftreeGroup) int) {
	for i, swapped := 0, true; swapped; i++ {
		swapped = false
		for j := 1; j < len(a)-i; j++ {
			if cmp(a[j], a[j-1]) < 0 {
				a[j-1], a[j] = a[j], a[j-1]
				swapped = true
			}
		}
	}
}

// pickFtree reduces every next-hop list to ftree's port; an entry
// ftree leaves unset (a switch its paths do not reach, on a fabric with
// failed links) keeps its first candidate, so that every table holds
// one port.
func (b *routeBuilder) pickFtree(f *ftree) {
	f.route()
	for _, s := range f.sw {
		for hi := 0; hi < b.r.hosts; hi++ {
			if p := s.lft[hi]; p >= 0 {
				b.pinPort(s.si, hi, p)
			} else if sp := &b.r.spans[int(s.si)*b.r.hosts+hi]; sp.n > 1 {
				sp.n = 1
			}
		}
	}
}
