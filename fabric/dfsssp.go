package fabric

import "slices"

// dfssspInf is OpenSM's INF (osm_ucast_dfsssp.c): the distance of a
// switch Dijkstra has not reached.
const dfssspInf = 0x7FFFFFFF

// dfssspLink is one direction of a switch-to-switch link in dfsssp's
// graph: from switch from's port to switch to's port toPort, with the
// weight Dijkstra adds (OpenSM's link_t).
type dfssspLink struct {
	from, to int32
	toPort   int32
	weight   uint64
}

// pickDFSSSP reduces every next-hop list to the port OpenSM's dfsssp
// gives (osm_ucast_dfsssp.c, dfsssp_do_dijkstra_routing): destination
// by destination, a Dijkstra from the destination's CA over the switches
// whose links weigh P² at first (P the LIDs of CAs and switches, "to
// force shortest paths") and, after each destination, gain the LIDs each
// switch sends over them (update_weights), so that later destinations
// avoid the links earlier ones load. The destinations go in OpenSM's
// order: the switches by their number of LIDs (its own and its CAs'),
// most first, in GUID order (NodeID order here) among equals (glibc's
// qsort, a merge sort, keeps that order), each switch's CAs in port
// order. The switch a Dijkstra reaches a switch from gives the port, and
// its 4-ary heap (complib's cl_heap, emulated by dfssspHeap) decides
// between equal distances, as OpenSM's does. With an LMC (b.lmc) every
// CA counts 2^lmc LIDs (a switch's own one, without enhanced port 0) and
// each of a host's LIDs is a round of its own, in LID order: a Dijkstra,
// its ports, then the weights, so the next LID avoids the links the last
// one loaded (dfsssp_do_dijkstra_routing's loop over the port's LID
// range). A switch's entry then lists its port for each LID in turn
// (pinLIDs), which Routes.LFTPort reads back.
func (b *routeBuilder) pickDFSSSP() {
	r := b.r
	n := len(b.sw)
	hosts := b.t.Endpoints()
	lids := make([]uint64, n) // OpenSM's num_hca: the switch's LID and its CAs'
	for i := range lids {
		lids[i] = 1
	}
	perCA := uint64(1) << b.lmc
	var total uint64 = uint64(n)
	for _, h := range hosts {
		if p := b.t.Nodes[h].Ports; len(p) > 0 && p[0].Peer >= 0 && b.t.Nodes[p[0].Peer].Kind == Switch {
			lids[r.swIndex[p[0].Peer]] += perCA
			total += perCA
		}
	}
	rounds := 1 << b.lmc
	var perLID [][]int32 // with an LMC: switch -> its port for each of the host's LIDs
	if rounds > 1 {
		perLID = make([][]int32, n)
		for x := range perLID {
			perLID[x] = make([]int32, rounds)
		}
	}
	var links []dfssspLink
	out := make([][]int32, n) // each switch's links, in port order
	for i, id := range b.sw {
		for _, a := range b.adj[i] {
			if int(a.peer) == i {
				continue
			}
			out[i] = append(out[i], int32(len(links)))
			links = append(links, dfssspLink{from: int32(i), to: a.peer, toPort: int32(b.t.Nodes[id].Ports[a.port].PeerPort), weight: total * total})
		}
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(x, y int32) int {
		switch {
		case lids[x] > lids[y]:
			return -1
		case lids[x] < lids[y]:
			return 1
		}
		return 0
	})
	dist := make([]uint64, n+1) // vertex n is the destination's CA
	used := make([]int32, n+1)  // the link a switch was reached by, -1 none, -2 the CA's
	done := make([]bool, n+1)
	h := newDFSSSPHeap(n + 1)
	for _, si := range order {
		for p, ref := range b.t.Nodes[b.sw[si]].Ports {
			if ref.Peer < 0 || b.t.Nodes[ref.Peer].Kind != Host || r.hostIndex[ref.Peer] < 0 {
				continue
			}
			hi := int(r.hostIndex[ref.Peer])
			for lid := 0; lid < rounds; lid++ {
				// dijkstra(): the switches, then the CA, go in at INF; the
				// CA's key drops to 0.
				h.reset()
				for v := 0; v <= n; v++ {
					dist[v], used[v], done[v] = dfssspInf, -1, false
					h.insert(dfssspInf, int32(v))
				}
				dist[n], done[n] = 0, true
				h.modify(0, h.pos[n])
				for v := h.extract(); v >= 0; v = h.extract() {
					done[v] = true
					if int(v) == n { // the CA's one link, weight 1, to its switch
						if !done[si] && 1 < dist[si] {
							used[si], dist[si] = -2, 1
							h.modify(1, h.pos[si])
						}
						continue
					}
					for _, li := range out[v] {
						l := &links[li]
						if !done[l.to] && dist[v]+l.weight < dist[l.to] {
							used[l.to], dist[l.to] = li, dist[v]+l.weight
							h.modify(dist[l.to], h.pos[l.to])
						}
					}
				}
				// update_lft(): the port a switch was reached by.
				for x := 0; x < n; x++ {
					var port int32
					switch {
					case used[x] == -1:
						continue
					case used[x] == -2:
						port = int32(p)
					default:
						port = links[used[x]].toPort
					}
					if perLID != nil {
						perLID[x][lid] = port
					} else {
						b.pinPort(int32(x), hi, port)
					}
				}
				// update_weights(): each switch's LIDs on every link of its path.
				for x := 0; x < n; x++ {
					for j := used[x]; j >= 0; j = used[links[j].from] {
						links[j].weight += lids[x]
					}
				}
			}
			if perLID != nil {
				for x := 0; x < n; x++ {
					if used[x] != -1 {
						b.pinLIDs(int32(x), hi, perLID[x])
					}
				}
			}
		}
	}
}

// pinLIDs makes ports switch si's entries for host hi's LIDs, the LID
// with offset j forwarded on ports[j]: the entry is ports[0] and its
// candidates the list ports, so Routes.LFTPort, which takes a LID's port
// as the j-th candidate after the entry's own, gives each LID its port.
// LIDs that all take one port get that port alone. The entry's
// candidates are thus its LIDs' ports, which are also its adaptive-
// routing group (Routes.Groups); with an LMC above 1 a port two LIDs take
// is in it twice.
func (b *routeBuilder) pinLIDs(si int32, hi int, ports []int32) {
	r := b.r
	i := int(si)*r.hosts + hi
	if !slices.ContainsFunc(ports, func(p int32) bool { return p != ports[0] }) {
		ports = ports[:1]
	}
	all := b.emit(si, ports)
	r.spans[i], r.wide[i] = portRange{off: all.off, n: 1}, all
}

// pinPort makes port the entry of switch si for host hi: its place in
// the entry's candidates, or the port alone if it is none of them (a
// path longer than the shortest, which the weights allow late).
func (b *routeBuilder) pinPort(si int32, hi int, port int32) {
	r := b.r
	i := int(si)*r.hosts + hi
	s := &r.spans[i]
	for k, q := range r.ports[s.off : s.off+s.n] {
		if q == port {
			s.off, s.n = s.off+int32(k), 1
			return
		}
	}
	one := b.emit(si, []int32{port})
	r.spans[i], r.wide[i] = one, one
}

// dfssspHeap is complib's cl_heap as dfsssp uses it (cl_heap.c): a
// 4-ary min-heap of vertices by distance whose ties fall as its
// heap_up, heap_down and delete move elements, which decides between
// equal-cost paths.
type dfssspHeap struct {
	key  []uint64
	v    []int32
	pos  []int // vertex -> index
	size int
}

func newDFSSSPHeap(n int) *dfssspHeap {
	return &dfssspHeap{key: make([]uint64, n), v: make([]int32, n), pos: make([]int, n)}
}

func (h *dfssspHeap) reset() { h.size = 0 }

func (h *dfssspHeap) set(i int, key uint64, v int32) {
	h.key[i], h.v[i] = key, v
	h.pos[v] = i
}

func (h *dfssspHeap) insert(key uint64, v int32) {
	h.set(h.size, key, v)
	h.size++
	h.up(h.size - 1)
}

func (h *dfssspHeap) modify(key uint64, i int) {
	old := h.key[i]
	h.key[i] = key
	if key < old {
		h.up(i)
	} else if key > old {
		h.down(i)
	}
}

func (h *dfssspHeap) up(i int) {
	if i == 0 {
		return
	}
	k, v := h.key[i], h.v[i]
	child, swapped := i, false
	for parent := i; parent > 0; {
		child = parent
		parent = (child - 1) / 4
		if k >= h.key[parent] {
			break
		}
		h.set(child, h.key[parent], h.v[parent])
		child, swapped = parent, true
	}
	if swapped {
		h.set(child, k, v)
	}
}

func (h *dfssspHeap) down(i int) {
	k, v := h.key[i], h.v[i]
	parent, swapped := i, false
	for parent*4+1 < h.size {
		first := parent*4 + 1
		swap := first
		for c := first + 1; c < first+4 && c < h.size; c++ {
			if h.key[c] <= h.key[swap] {
				swap = c
			}
		}
		if k <= h.key[swap] {
			break
		}
		h.set(parent, h.key[swap], h.v[swap])
		parent, swapped = swap, true
	}
	if swapped {
		h.set(parent, k, v)
	}
}

// extract removes and returns the root's vertex (cl_heap_extract_root),
// -1 when empty.
func (h *dfssspHeap) extract() int32 {
	switch h.size {
	case 0:
		return -1
	case 1:
		h.size = 0
		return h.v[0]
	}
	h.size--
	lk, lv := h.key[h.size], h.v[h.size]
	rk, rv := h.key[0], h.v[0]
	h.set(h.size, rk, rv)
	h.set(0, lk, lv)
	h.down(0)
	return rv
}
