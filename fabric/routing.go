package fabric

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// RoutingAlgo selects how switches compute next hops.
type RoutingAlgo string

// Routing algorithms. The empty RoutingAlgo means RoutingECMP.
const (
	RoutingECMP     RoutingAlgo = "ecmp"     // all shortest paths (hop count), default
	RoutingShortest RoutingAlgo = "shortest" // one shortest path: the lowest-numbered port among the ECMP set
	RoutingUpDown   RoutingAlgo = "updown"   // up*/down* (Autonet; Schroeder et al. 1991)
)

// ExplicitRoute pins, at switch At, the next hop for traffic to host Dst:
// the neighbour Via.
type ExplicitRoute struct{ At, Dst, Via NodeID }

// RouteLoop is a forwarding loop for one destination: Cycle lists switches
// in order, the first repeated implicitly at the end.
type RouteLoop struct {
	Dst   NodeID
	Cycle []NodeID
}

// Describe says what the loop does in the topology's names, e.g. "traffic
// for c loops s1 -> s2 -> s3 -> s1".
func (l RouteLoop) Describe(t *Topology) string {
	var b strings.Builder
	b.WriteString("traffic for ")
	b.WriteString(nodeName(t, l.Dst))
	b.WriteString(" loops")
	for i, n := range l.Cycle {
		if i > 0 {
			b.WriteString(" ->")
		}
		b.WriteByte(' ')
		b.WriteString(nodeName(t, n))
	}
	if len(l.Cycle) > 0 {
		b.WriteString(" -> ")
		b.WriteString(nodeName(t, l.Cycle[0]))
	}
	return b.String()
}

func nodeName(t *Topology, n NodeID) string {
	if t == nil || n < 0 || int(n) >= len(t.Nodes) {
		return "node " + strconv.Itoa(int(n))
	}
	return t.Nodes[n].Name
}

// Routes is every switch's next-hop ports per destination host.
//
// The tables are one backing array of port numbers; each switch's
// distinct next-hop lists, as spans of it; and per (switch, host index)
// the number of its list among the switch's, in 2 bytes. Identical
// consecutive lists of a switch (for example a core switch's single port
// toward every host of one pod) share their storage, and a switch has
// few distinct lists (about its ports' number), so a k=16 fat-tree (320
// switches, 1024 hosts) needs about 0.7 MB and a k=32 one (1,280
// switches, 8,192 hosts) 21 MB, where a span per entry took 2.6 and 84.
// Switches whose rows of entries are the same share one (a fat tree's
// aggregation switches of a pod, its core switches: 545 rows of a k=32
// one's 1,280, 9 MB).
type Routes struct {
	algo      RoutingAlgo
	hosts     int
	swIndex   []int32 // by NodeID: index among the switches, -1 for a host
	hostIndex []int32 // by NodeID: host index, -1 for a switch
	// entry[row[switch index] + host index] is the entry's list among
	// its switch's: lists[base[switch index]+entry]. wideEntry's rows
	// are at the same offsets.
	entry []uint16
	row   []int32
	base  []int32
	lists []portRange
	ports []int32 // every next-hop list, back to back
	// wideEntry keeps, for OpenSM's engines (one port per destination),
	// the candidate list each entry was chosen from, for the LIDs of an
	// LMC above 0 (LFTPort), in entry's form; nil for the others.
	wideEntry []uint16
	// spans and wide are the entries as spans while the tables are
	// built (compact turns them into entry and wideEntry).
	spans, wide []portRange
}

type portRange struct{ off, n int32 }

// Algo returns the algorithm the tables were computed with.
func (r *Routes) Algo() RoutingAlgo { return r.algo }

// NextPorts returns the ports of switch at that lead toward host dst, sorted
// ascending; empty if none (at is not a switch, dst not a host). The slice
// belongs to the tables: callers must not modify it (its capacity is capped,
// so appending to it copies). It does not allocate.
func (r *Routes) NextPorts(at, dst NodeID) []int32 {
	if uint(at) >= uint(len(r.swIndex)) || uint(dst) >= uint(len(r.hostIndex)) {
		return nil
	}
	si, hi := r.swIndex[at], r.hostIndex[dst]
	if si < 0 || hi < 0 {
		return nil
	}
	s := r.lists[int(r.base[si])+int(r.entry[int(r.row[si])+int(hi)])]
	return r.ports[s.off : s.off+s.n : s.off+s.n]
}

// RouteRow is one switch's part of the tables (Routes.Row): what it
// reads for each packet, found without the switch's index.
type RouteRow struct {
	hostIndex []int32
	entry     []uint16    // the switch's entries, by host index
	lists     []portRange // the switch's lists
	ports     []int32
	wide      []uint16 // the switch's wideEntry, or nil
}

// Row returns switch at's part of the tables (empty if at is not a
// switch).
func (r *Routes) Row(at NodeID) *RouteRow {
	if uint(at) >= uint(len(r.swIndex)) || r.swIndex[at] < 0 {
		return &RouteRow{}
	}
	si := int(r.swIndex[at])
	end := len(r.lists)
	if si+1 < len(r.base) {
		end = int(r.base[si+1])
	}
	off := int(r.row[si])
	row := &RouteRow{hostIndex: r.hostIndex, entry: r.entry[off : off+r.hosts : off+r.hosts], lists: r.lists[r.base[si]:end], ports: r.ports}
	if r.wideEntry != nil && r.algo != RoutingLASH { // lash: every LID of a host on its one path
		row.wide = r.wideEntry[off : off+r.hosts : off+r.hosts]
	}
	return row
}

// Next is Routes.NextPorts for the row's switch.
func (w *RouteRow) Next(dst NodeID) []int32 {
	if uint(dst) >= uint(len(w.hostIndex)) {
		return nil
	}
	hi := w.hostIndex[dst]
	if hi < 0 || int(hi) >= len(w.entry) {
		return nil
	}
	s := w.lists[w.entry[hi]]
	return w.ports[s.off : s.off+s.n : s.off+s.n]
}

// LFTPort is Routes.LFTPort for the row's switch.
func (w *RouteRow) LFTPort(dst NodeID, j int) (port int32, ok bool) {
	next := w.Next(dst)
	if len(next) == 0 {
		return 0, false
	}
	if j == 0 || w.wide == nil {
		return next[0], true
	}
	hi := w.hostIndex[dst]
	return lmcPort(w.ports, w.lists[w.wide[hi]], w.lists[w.entry[hi]], j), true
}

// tableBytes is what the tables take: the ports, the lists, the entries
// and the node indexes.
func (r *Routes) tableBytes() int {
	return 4*len(r.ports) + 8*len(r.lists) + 2*(len(r.entry)+len(r.wideEntry)) + 4*(len(r.row)+len(r.base)+len(r.swIndex)+len(r.hostIndex))
}

// compact turns the spans the builders set into each switch's distinct
// lists and the entries' numbers among them (Routes), a row of them per
// switch, shared by switches whose rows are the same; and drops the
// spans.
func (r *Routes) compact() error {
	n := len(r.base)
	r.row = make([]int32, n)
	entry, wide := make([]uint16, r.hosts), []uint16(nil) // the row being made
	if r.wide != nil {
		wide = make([]uint16, r.hosts)
	}
	index := map[portRange]uint16{} // lookups only, never iterated
	rows := map[uint64][]int32{}    // offsets of the rows made so far by hash; lookups only
	for si := 0; si < n; si++ {
		r.base[si] = int32(len(r.lists))
		clear(index)
		number := func(s portRange) (uint16, error) {
			if i, ok := index[s]; ok {
				return i, nil
			}
			i := len(r.lists) - int(r.base[si])
			if i > math.MaxUint16 {
				return 0, fmt.Errorf("a switch has more than %d distinct next-hop lists", math.MaxUint16+1)
			}
			index[s] = uint16(i)
			r.lists = append(r.lists, s)
			return uint16(i), nil
		}
		for hi, s := range r.spans[si*r.hosts : (si+1)*r.hosts] {
			i, err := number(s)
			if err != nil {
				return err
			}
			entry[hi] = i
		}
		if r.wide != nil {
			for hi, s := range r.wide[si*r.hosts : (si+1)*r.hosts] {
				i, err := number(s)
				if err != nil {
					return err
				}
				wide[hi] = i
			}
		}
		r.row[si] = r.shareRow(rows, entry, wide)
	}
	r.lists = slices.Clip(r.lists)
	// Exactly their size: appended row by row, they may hold up to
	// twice as much (8.9 MB of entries at k=32).
	r.entry, r.wideEntry = slices.Clone(r.entry), slices.Clone(r.wideEntry)
	r.spans, r.wide = nil, nil
	return nil
}

// shareRow returns the offset of a row of entries equal to entry (and
// wide, for wideEntry), appending them if there is none yet.
func (r *Routes) shareRow(rows map[uint64][]int32, entry, wide []uint16) int32 {
	key := uint64(14695981039346656037) // FNV-1a, a number at a time
	for _, row := range [][]uint16{entry, wide} {
		for _, e := range row {
			key = (key ^ uint64(e)) * 1099511628211
		}
	}
	for _, off := range rows[key] {
		if slices.Equal(r.entry[off:int(off)+len(entry)], entry) && (wide == nil || slices.Equal(r.wideEntry[off:int(off)+len(wide)], wide)) {
			return off
		}
	}
	off := int32(len(r.entry))
	r.entry = append(r.entry, entry...)
	if wide != nil {
		r.wideEntry = append(r.wideEntry, wide...)
	}
	rows[key] = append(rows[key], off)
	return off
}
