package fabric

import (
	"slices"
	"strings"
	"testing"
)

// walk follows the tables from host src to host dst and returns the
// switches crossed, or nil if the path does not arrive (a missing entry
// or a loop).
func walk(t *Topology, r *Routes, src, dst NodeID) []NodeID {
	at := t.Nodes[src].Ports[0].Peer
	var path []NodeID
	for hops := 0; hops <= len(t.Nodes); hops++ {
		if at == dst {
			return path
		}
		if t.Nodes[at].Kind != Switch {
			return nil
		}
		path = append(path, at)
		next := r.NextPorts(at, dst)
		if len(next) != 1 {
			return nil
		}
		at = t.Nodes[at].Ports[next[0]].Peer
	}
	return nil
}

// TestOpenSMEnginesRouteEveryPair: on a k=4 fat tree, minhop, updn and
// ftree each give every switch one port per destination (a linear
// forwarding table), every host reaches every other on a minimum-hop
// path (a fat tree's up*/down* paths are its shortest ones), and with
// updn and ftree no path goes down and then up again (up*/down*: no credit
// loop can form).
func TestOpenSMEnginesRouteEveryPair(t *testing.T) {
	tp, err := FatTree(4, testLink)
	if err != nil {
		t.Fatal(err)
	}
	hosts := tp.Hosts()
	for _, algo := range []RoutingAlgo{RoutingMinHop, RoutingUpDn, RoutingFtree} {
		r, _, err := ComputeRoutes(tp, algo, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := newRouteBuilder(tp, RoutingUpDown)
		if err := b.groupHosts(); err != nil {
			t.Fatal(err)
		}
		b.distances()
		rank := b.upDownRank(false)
		ecmp, _, _ := ComputeRoutes(tp, RoutingECMP, nil)
		for _, s := range hosts {
			for _, d := range hosts {
				if s == d {
					continue
				}
				path := walk(tp, r, s, d)
				if path == nil {
					t.Fatalf("%s: no path %s -> %s", algo, tp.Nodes[s].Name, tp.Nodes[d].Name)
				}
				if want := len(walk(tp, shortestOf(ecmp), s, d)); len(path) != want {
					t.Errorf("%s: %s -> %s crosses %d switches, the shortest path %d", algo, tp.Nodes[s].Name, tp.Nodes[d].Name, len(path), want)
				}
				if algo == RoutingMinHop {
					continue
				}
				down := false
				for i := 1; i < len(path); i++ {
					up := rank[b.r.swIndex[path[i]]] < rank[b.r.swIndex[path[i-1]]]
					if up && down {
						t.Errorf("%s: %s -> %s goes down and then up at %s", algo, tp.Nodes[s].Name, tp.Nodes[d].Name, tp.Nodes[path[i-1]].Name)
					}
					down = down || !up
				}
			}
		}
	}
}

// shortestOf keeps the first port of each ECMP list: one shortest path.
func shortestOf(r *Routes) *Routes {
	c := *r
	c.lists = append([]portRange(nil), r.lists...)
	for i := range c.lists {
		c.lists[i].n = min(c.lists[i].n, 1)
	}
	return &c
}

// TestOpenSMSpreadsDestinations: an edge switch of a k=4 fat tree has two
// up ports, and every destination not under it (14 of 16) leaves by one
// of them; minhop, updn and ftree all spread them evenly: the counts on
// its up ports differ by at most one.
func TestOpenSMSpreadsDestinations(t *testing.T) {
	tp, err := FatTree(4, testLink)
	if err != nil {
		t.Fatal(err)
	}
	edge := tp.Nodes[tp.Hosts()[0]].Ports[0].Peer
	for _, algo := range []RoutingAlgo{RoutingMinHop, RoutingUpDn, RoutingFtree} {
		r, _, err := ComputeRoutes(tp, algo, nil)
		if err != nil {
			t.Fatal(err)
		}
		count := map[int32]int{}
		for _, d := range tp.Hosts() {
			if next := r.NextPorts(edge, d); tp.Nodes[tp.Nodes[edge].Ports[next[0]].Peer].Kind == Switch {
				count[next[0]]++
			}
		}
		lo, hi := 1<<30, 0
		for _, c := range count {
			lo, hi = min(lo, c), max(hi, c)
		}
		if len(count) != 2 || hi-lo > 1 {
			t.Errorf("%s: %s's up ports carry %v destinations; want two ports within one of each other", algo, tp.Nodes[edge].Name, count)
		}
	}
}

// TestLFTDump: the dump reads as OpenSM's: a header per switch, a line
// per host LID with its port (InfiniBand numbers ports from 1), the
// switch's own LID on port 0, and the footer.
func TestLFTDump(t *testing.T) {
	tp, err := Star(2, testLink)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := ComputeRoutes(tp, RoutingMinHop, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := string(LFTDump(tp, r, AssignLIDs(tp)))
	// Nodes: s0 (LID 1), h0 (2), h1 (3); s0's port 0 (IB port 1) faces h0.
	want := `Unicast lids [0-3] of switch Lid 1 guid 0x0002c90300000001 ('s0'):
0x0001 000 # Switch portguid 0x0002c90300000001: 's0'
0x0002 001 # Channel Adapter portguid 0x0002c90300000002: 'h0'
0x0003 002 # Channel Adapter portguid 0x0002c90300000003: 'h1'
3 lids dumped
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if !strings.HasPrefix(got, "Unicast lids [0-") {
		t.Errorf("no header")
	}
}

// TestAssignVLsBreaksARingsLoop: on a ring of seven switches, the
// three-hop paths clockwise close a cycle of channel dependencies with
// minhop's tables; AssignVLs puts them on two lanes, each acyclic, and
// cannot with one.
func TestAssignVLsBreaksARingsLoop(t *testing.T) {
	tp, err := Ring(7, 1, testLink)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := ComputeRoutes(tp, RoutingDFSSSP, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AssignVLs(tp, r, 1); err == nil {
		t.Errorf("one VL: no error; the ring's shortest paths close a cycle")
	}
	pl, err := AssignVLs(tp, r, 2)
	if err != nil {
		t.Fatal(err)
	}
	vls := pairMap(t, tp, pl)
	used := map[uint8]int{}
	for _, vl := range vls {
		used[vl]++
	}
	if len(used) != 2 || len(vls) != 7*6 {
		t.Errorf("lanes used %v over %d pairs; want both lanes over 42 pairs", used, len(vls))
	}
}

// TestLFTPortSpreadsLIDs: with an LMC above 0 the LIDs of one host leave
// an edge switch of a k=4 fat tree by both its up ports, in turn; LID 0
// by the table's own choice.
func TestLFTPortSpreadsLIDs(t *testing.T) {
	tp, err := FatTree(4, testLink)
	if err != nil {
		t.Fatal(err)
	}
	for _, algo := range []RoutingAlgo{RoutingMinHop, RoutingUpDn, RoutingFtree} {
		r, _, err := ComputeRoutes(tp, algo, nil)
		if err != nil {
			t.Fatal(err)
		}
		hosts := tp.Hosts()
		edge := tp.Nodes[hosts[0]].Ports[0].Peer
		far := hosts[len(hosts)-1] // in another pod
		ports := map[int32]bool{}
		for j := 0; j < 4; j++ {
			p, ok := r.LFTPort(edge, far, j)
			if !ok {
				t.Fatalf("%s: no entry for LID offset %d", algo, j)
			}
			if j == 0 && p != r.NextPorts(edge, far)[0] {
				t.Errorf("%s: LID offset 0 leaves by %d, the table says %d", algo, p, r.NextPorts(edge, far)[0])
			}
			ports[p] = true
		}
		if len(ports) != 2 {
			t.Errorf("%s: four LIDs leave %s by %d ports; want both up ports", algo, tp.Nodes[edge].Name, len(ports))
		}
	}
	lids := AssignLIDsLMC(tp, 2)
	if lids.Of(0) != 4 || lids.Of(1) != 8 {
		t.Errorf("LMC 2: base LIDs %d, %d; want 4, 8 (blocks of four, LID 0 reserved)", lids.Of(0), lids.Of(1))
	}
}

// TestGroups: an OpenSM engine's adaptive-routing groups hold every port
// its LFT entry was chosen from (on the triangle, minhop's s1 reaches c
// only directly, and a host on a square both ways round), and a pinned
// route is its entry's only candidate, in the LFT and the group alike.
func TestGroups(t *testing.T) {
	sq := explicitTopo(t, []string{"a", "c"}, []string{"s1", "s2", "s3", "s4"},
		[][2]string{{"a", "s1"}, {"c", "s3"}, {"s1", "s2"}, {"s2", "s3"}, {"s3", "s4"}, {"s4", "s1"}})
	r := mustRoutes(t, sq, RoutingMinHop, nil)
	s1, c := mustID(t, sq, "s1"), mustID(t, sq, "c")
	if lft, g := r.NextPorts(s1, c), r.Groups().NextPorts(s1, c); len(lft) != 1 || !slices.Equal(g, []int32{1, 2}) {
		t.Errorf("minhop s1 -> c: LFT %v, group %v; want one port and the group [1 2] (both ways round)", lft, g)
	}
	pinned := mustRoutes(t, sq, RoutingMinHop, routesByName(t, sq, [3]string{"s1", "c", "s4"}))
	if lft, g := pinned.NextPorts(s1, c), pinned.Groups().NextPorts(s1, c); !slices.Equal(lft, []int32{2}) || !slices.Equal(g, []int32{2}) {
		t.Errorf("pinned s1 -> c via s4: LFT %v, group %v; want [2] for both", lft, g)
	}
	if e := mustRoutes(t, sq, RoutingECMP, nil); e.Groups() != e {
		t.Error("ECMP's tables are their own groups")
	}
}

// TestAssignVLsLayersEveryLID: with an LMC, dfsssp's VL layering keeps
// every LID's path of a pair on the pair's lane acyclic, not only the
// base LID's: on rings at LMC 1 and 2 (where a host's LIDs may take
// different ways round), the paths of all LIDs of the pairs given one
// lane, put in one channel dependency graph, make no cycle. Layering the
// base LIDs' paths alone leaves cycles on the rings of 4 switches (4 of
// 112 LID paths with 2 hosts a switch at LMC 1, 36 of 528 with 3 at LMC
// 2); those of 1 host a switch happen to stay acyclic.
func TestAssignVLsLayersEveryLID(t *testing.T) {
	for _, c := range []struct{ switches, hosts, lmc int }{{4, 2, 1}, {4, 3, 2}, {5, 1, 1}, {6, 2, 1}, {7, 1, 2}} {
		tp, err := Ring(c.switches, c.hosts, testLink)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := ComputeRoutesLMC(tp, RoutingDFSSSP, nil, c.lmc)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := AssignVLsLMC(tp, r, 8, c.lmc)
		if err != nil {
			t.Fatal(err)
		}
		base, channels := switchChannels(tp)
		layers := map[uint8]*cdg{}
		for _, src := range tp.Endpoints() {
			for _, dst := range tp.Endpoints() {
				if src == dst {
					continue
				}
				vl, _ := pl.Lane(src, dst)
				if layers[vl] == nil {
					layers[vl] = newCDG(channels)
				}
				for j := 0; j < 1<<c.lmc; j++ {
					path := lidPath(tp, r, base, src, dst, j)
					if !layers[vl].add(path) {
						t.Errorf("ring of %d with %d hosts each, LMC %d: %s -> %s's LID %d on VL %d closes a cycle of that lane's dependencies", c.switches, c.hosts, c.lmc, tp.Nodes[src].Name, tp.Nodes[dst].Name, j, vl)
					}
				}
			}
		}
	}
}
