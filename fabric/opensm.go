package fabric

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// OpenSM's unicast routing engines (linux-rdma/opensm, its
// routing_engine option), named as OpenSM names them. An InfiniBand
// switch forwards by a linear forwarding table: one output port per
// destination LID, so each engine picks one port where ECMP would keep
// several.
//
//   - minhop: every switch forwards on a minimum-hop port; among those it
//     takes, destination by destination (in OpenSM's order, below), the port that
//     carries the fewest destinations so far, the lowest-numbered on a
//     tie (osm_ucast_mgr.c: the "least used" port of the min-hop set).
//     Credit loops are possible (a ring).
//   - updn: the same choice among the ports of legal up*/down* paths
//     (the up*/down* rule of Routes): no path goes down and then up
//     again, so no credit loop can form (osm_ucast_updn.c). Its roots are
//     the ones OpenSM finds (openSMRoots: a switch that sees more than
//     90% of the CAs at one hop distance, a fat tree's top); where it
//     finds none (a ring) OpenSM gives updn up and routes minhop, with
//     credit loops, and lfsim takes one root, the switch with the
//     smallest NodeID among those farthest from any host (every switch
//     has hosts: the first), which is what OpenSM routes when given that
//     root's GUID in its root_guid_file (-a).
//   - ftree: OpenSM's fat-tree routing (osm_ucast_ftree.c, followed in
//     ftree.go): each leaf's hosts spread over the up port groups by
//     their counters of main paths, leaf by leaf in ftree's tuple order,
//     and the other switches' up entries from each destination's main
//     path. A fabric ftree does not take for a fat tree (a ring) OpenSM
//     routes with minhop, and so does lfsim.
//
// minhop and updn fill the tables destination by destination in OpenSM's
// order (openSMOrder: the switches with the most hosts first, each
// switch's hosts in port order). Every engine's tables are OpenSM 3.3's,
// entry for entry, on the fabrics TestOpenSMRecordedTables holds.
const (
	RoutingMinHop RoutingAlgo = "minhop"
	RoutingUpDn   RoutingAlgo = "updn"
	RoutingFtree  RoutingAlgo = "ftree"
)

// IsLFT reports whether the algorithm is one of OpenSM's (one port per
// destination).
func (a RoutingAlgo) IsLFT() bool {
	return a == RoutingMinHop || a == RoutingUpDn || a == RoutingFtree || a == RoutingDFSSSP || a == RoutingLASH
}

// pickOne reduces every switch's next-hop list per destination to one
// port, as a linear forwarding table has: by least use (minhop, updn) or
// by destination index (ftree), or as lash's trees go (pickLASH). A span keeps pointing into the list it
// came from, at the chosen port.
func (b *routeBuilder) pickOne(algo RoutingAlgo) {
	r := b.r
	r.wide = append([]portRange(nil), r.spans...)
	switch {
	case algo == RoutingLASH:
		b.pickLASH()
		return
	case algo == RoutingDFSSSP:
		b.pickDFSSSP()
		return
	case algo == RoutingFtree && b.ft != nil:
		b.pickFtree(b.ft)
		return
	}
	order := b.openSMOrder()
	for si := range b.sw {
		used := map[int32]int{} // looked up only
		for _, hi := range order {
			s := &r.spans[si*r.hosts+hi]
			if s.n <= 1 {
				if s.n == 1 {
					used[r.ports[s.off]]++
				}
				continue
			}
			list := r.ports[s.off : s.off+s.n]
			pick := int32(0)
			for i, p := range list {
				if used[p] < used[list[pick]] {
					pick = int32(i)
				}
			}
			used[list[pick]]++
			s.off, s.n = s.off+pick, 1
		}
	}
}

// LFTPort returns the port switch at forwards the LID of host dst with
// offset j on: the table's own entry for j 0 (NextPorts), and for the
// other LIDs of an LMC above 0 the next candidates of the same min-hop
// (or up*/down*) set in turn, as OpenSM's minhop and updn spread a port's
// LIDs over the paths it has; lash forwards every LID of a host on its
// one path (osm_ucast_lash.c, lash_set_lft: each LID takes its port's
// switch's egress port), the path its layering keeps deadlock-free. ok
// is false without an entry.
func (r *Routes) LFTPort(at, dst NodeID, j int) (port int32, ok bool) {
	next := r.NextPorts(at, dst)
	if len(next) == 0 {
		return 0, false
	}
	if j == 0 || r.wideEntry == nil || r.algo == RoutingLASH {
		return next[0], true
	}
	si, hi := r.swIndex[at], r.hostIndex[dst]
	i := int(r.row[si]) + int(hi)
	return lmcPort(r.ports, r.lists[int(r.base[si])+int(r.wideEntry[i])], r.lists[int(r.base[si])+int(r.entry[i])], j), true
}

// lmcPort is the port of a destination's LID with offset j: among its
// candidates wide, the j-th after the entry's own pick, own.
func lmcPort(ports []int32, wide, own portRange, j int) int32 {
	return ports[wide.off+(own.off-wide.off+int32(j))%wide.n]
}

// Groups returns the tables' adaptive-routing groups: for each switch
// and destination, every port the routing engine chose the LFT's one
// from (the min-hop ports for minhop, the up*/down*-legal ones for updn
// and ftree), as the subnet manager hands a switch with adaptive routing
// its port groups (NVIDIA's AR groups, beside the LFT). NextPorts on the
// result gives the group, sorted; the tables themselves are shared, not
// copied. Tables not made by an OpenSM engine (one port per destination)
// are their own groups.
func (r *Routes) Groups() *Routes {
	if r.wideEntry == nil {
		return r
	}
	g := *r
	g.entry, g.wideEntry = r.wideEntry, nil
	return &g
}

// LIDs are the local identifiers the subnet manager gives the nodes: a
// base LID per node, in NodeID order, each node's block of 2^LMC LIDs
// aligned as OpenSM aligns them (LID 0 is reserved: node i's base is
// (i+1) × 2^LMC). A range extender, which the subnet manager does not
// see (TopoNode.RangeExtender), has none (0), and the nodes after it
// take the numbers it would have.
type LIDs struct {
	base []uint16
	lmc  int
	n    int // nodes with LIDs
}

// AssignLIDs gives every node of t a LID (LMC 0).
func AssignLIDs(t *Topology) *LIDs { return AssignLIDsLMC(t, 0) }

// AssignLIDsLMC gives every node of t a block of 2^lmc LIDs.
func AssignLIDsLMC(t *Topology, lmc int) *LIDs {
	l := &LIDs{base: make([]uint16, len(t.Nodes)), lmc: lmc}
	for i := range t.Nodes {
		if t.Nodes[i].RangeExtender {
			continue
		}
		l.n++
		l.base[i] = uint16(l.n << lmc)
	}
	return l
}

// AssignLIDsOn is AssignLIDsLMC for the nodes on reports true of (the
// InfiniBand side of a network that mixes link layers): each keeps the
// block AssignLIDsLMC gives it, the others get none (LID 0), as a subnet
// manager addresses only its own subnet's ports.
func AssignLIDsOn(t *Topology, lmc int, on func(NodeID) bool) *LIDs {
	l := AssignLIDsLMC(t, lmc)
	for i := range l.base {
		if !on(NodeID(i)) {
			l.base[i] = 0
		}
	}
	return l
}

// LMC returns the LID mask control: each node has 2^LMC LIDs.
func (l *LIDs) LMC() int { return l.lmc }

// Of returns node n's LID.
func (l *LIDs) Of(n NodeID) uint16 { return l.base[n] }

// GUID is the node GUID the model gives node n: NVIDIA's OUI (0x0002c9)
// in the top bytes, the node id below, so that dumps read like a real
// fabric's.
func GUID(n NodeID) uint64 { return 0x0002c90300000000 | uint64(n+1) }

// LFTDump returns the switches' linear forwarding tables as WriteLFTs
// writes them.
func LFTDump(t *Topology, r *Routes, lids *LIDs) []byte {
	var b bytes.Buffer
	WriteLFTs(&b, t, r, lids) // a bytes.Buffer does not fail
	return b.Bytes()
}

// WriteLFTs writes the switches' linear forwarding tables to w in the
// format of OpenSM's dump (osm_dump.c, opensm-lfts.dump): per switch a
// header line "Unicast lids [0-MAX] of switch Lid L guid 0xGUID
// ('NAME'):", then one line per destination LID that has a route, "0xLID
// PORT # TYPE portguid 0xGUID: 'NAME'", and "MAX lids dumped". A switch's
// own LID routes to port 0. Ports are numbered from 1, as InfiniBand's
// are (port 0 is the switch's management port): lfsim's port i is port
// i+1.
//
// It writes a switch at a time from one buffer, so that what it holds
// does not grow with the dump: a k=8 fat tree's tables with LMC 7 are 85
// MB (80 switches × 128 hosts × 128 LIDs, a line of some 65 bytes
// each), and built whole, by append, they took a run's peak from 25 MB
// to 280 MB.
func WriteLFTs(w io.Writer, t *Topology, r *Routes, lids *LIDs) error {
	// Written by hand rather than with fmt: a k=16 fat tree's dump is
	// 430,000 lines, and fmt made it a fifth of the run's time.
	maxLID := uint64((lids.n+1)<<lids.lmc - 1)
	var b []byte
	hex := func(v uint64, digits int) {
		for i := digits - 1; i >= 0; i-- {
			b = append(b, "0123456789abcdef"[v>>(4*uint(i))&0xF])
		}
	}
	line := func(dst NodeID, lid uint16, port int32, kind string) {
		b = append(b, "0x"...)
		hex(uint64(lid), 4)
		b = append(b, ' ')
		p := port + 1
		b = append(b, byte('0'+p/100%10), byte('0'+p/10%10), byte('0'+p%10))
		b = append(b, " # "...)
		b = append(b, kind...)
		b = append(b, " portguid 0x"...)
		hex(GUID(dst), 16)
		b = append(b, ": '"...)
		b = append(b, t.Nodes[dst].Name...)
		b = append(b, "'\n"...)
	}
	for id, n := range t.Nodes {
		if n.Kind != Switch || n.RangeExtender || lids.Of(NodeID(id)) == 0 {
			continue // a host, an extender, or a switch outside the subnet (AssignLIDsOn)
		}
		at := NodeID(id)
		b = b[:0]
		b = append(b, "Unicast lids [0-"...)
		b = strconv.AppendUint(b, maxLID, 10)
		b = append(b, "] of switch Lid "...)
		b = strconv.AppendUint(b, uint64(lids.Of(at)), 10)
		b = append(b, " guid 0x"...)
		hex(GUID(at), 16)
		b = append(b, " ('"...)
		b = append(b, n.Name...)
		b = append(b, "'):\n"...)
		for did, dn := range t.Nodes {
			dst := NodeID(did)
			switch {
			case dst == at:
				for j := 0; j < 1<<lids.lmc; j++ {
					line(dst, lids.Of(dst)+uint16(j), -1, "Switch") // port 0: the switch itself
				}
			case dn.Kind == Host && lids.Of(dst) != 0:
				for j := 0; j < 1<<lids.lmc; j++ {
					if port, ok := r.LFTPort(at, dst, j); ok {
						line(dst, lids.Of(dst)+uint16(j), port, "Channel Adapter")
					}
				}
				// Switch LIDs: the tables route to hosts; OpenSM routes
				// to switches too, which the model does not need.
			}
			if len(b) >= 64<<10 {
				if _, err := w.Write(b); err != nil {
					return err
				}
				b = b[:0]
			}
		}
		b = strconv.AppendUint(b, maxLID, 10)
		b = append(b, " lids dumped\n"...)
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// RoutingDFSSSP is OpenSM's dfsssp: deadlock-free single-source shortest
// paths. The forwarding tables are OpenSM's sssp's (pickDFSSSP: a
// Dijkstra per destination over link weights that count the routes
// already on each link), entry for entry as OpenSM 3.3 fills them on the
// same fabric (TestOpenSMRecordedTables); what makes it deadlock-free is
// AssignVLs: the paths are put on virtual lanes so that no lane's channel
// dependencies close a cycle (osm_ucast_dfsssp.c: the layers, and the SL
// each source-destination pair uses).
const RoutingDFSSSP RoutingAlgo = "dfsssp"

// AssignVLs puts every host pair's path (as r forwards it) on the first
// of vls virtual lanes whose channel dependency graph stays acyclic with
// it, pair by pair in node order, and returns the lane of each pair. A
// channel is a switch's output port; a path depends channel by channel
// from its first switch's to its last's. It fails when a path fits no
// lane (the fabric needs more VLs than it has), and, before it lays out
// anything, when t is past dfsssp's limits (SizeRouting).
func AssignVLs(t *Topology, r *Routes, vls int) (*PairLanes, error) {
	return AssignVLsLMC(t, r, vls, 0)
}

// AssignVLsLMC is AssignVLs for hosts with 2^lmc LIDs: a pair's lane
// must keep the paths of all its LIDs acyclic together (with an LMC,
// dfsssp's tables route a host's LIDs apart, ComputeRoutesLMC), so they
// go into a lane together or not at all. At LMC 0 it is AssignVLs.
func AssignVLsLMC(t *Topology, r *Routes, vls, lmc int) (*PairLanes, error) {
	if _, err := SizeRouting(t, RoutingDFSSSP); err != nil {
		return nil, err
	}
	hosts := t.Endpoints()
	base, channels := switchChannels(t)
	layers := make([]*cdg, vls)
	for i := range layers {
		layers[i] = newCDG(channels)
	}
	out := newPairLanes(t, len(hosts))
	for i, h := range hosts {
		out.row[h] = int32(i)
	}
	paths := make([][]int32, 1<<lmc)
	for si, src := range hosts {
		for di, dst := range hosts {
			if src == dst {
				continue
			}
			for j := range paths {
				paths[j] = lidPathInto(paths[j][:0], t, r, base, src, dst, j)
			}
			placed := false
			for vl, g := range layers {
				if addAll(g, paths) {
					out.lane[si*len(hosts)+di] = uint8(vl)
					placed = true
					break
				}
			}
			if !placed {
				return nil, fmt.Errorf("dfsssp needs more than %d VLs to keep every path's dependencies acyclic (%s -> %s fits none); raise switch.ib.data_vls", vls, t.Nodes[src].Name, t.Nodes[dst].Name)
			}
		}
	}
	return out, nil
}

// addAll puts every path's dependencies in g if together they keep it
// acyclic, and reports whether it did; when not, g is as it was.
func addAll(g *cdg, paths [][]int32) bool {
	for k, p := range paths {
		if !g.add(p) {
			for _, q := range paths[:k] {
				g.remove(q)
			}
			return false
		}
	}
	return true
}

// lidPath is the channels (base[switch] + port) a packet from host src
// to host dst's LID with offset j takes through the switches.
func lidPath(t *Topology, r *Routes, base []int, src, dst NodeID, j int) []int32 {
	return lidPathInto(nil, t, r, base, src, dst, j)
}

// lidPathInto is lidPath appended to path.
func lidPathInto(path []int32, t *Topology, r *Routes, base []int, src, dst NodeID, j int) []int32 {
	at := t.Nodes[src].Ports[0].Peer
	for hops := 0; t.Nodes[at].Kind == Switch && hops <= len(t.Nodes); hops++ {
		port, ok := r.LFTPort(at, dst, j)
		if !ok {
			break
		}
		path = append(path, int32(base[at])+port)
		at = t.Nodes[at].Ports[port].Peer
	}
	return path
}
