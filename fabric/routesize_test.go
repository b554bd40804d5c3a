package fabric

import (
	"runtime"
	"strings"
	"testing"
)

// TestSizeRoutingCountsThePaths: the paths SizeRouting counts before
// anything is built are the ones lash and dfsssp lay out: lash's, from
// its own trees, a channel per switch left, each switch pair both ways;
// dfsssp's, walked host pair by host pair along minhop's tables, a
// channel per switch. Exact counts: on a ring of seven switches with two
// hosts each, a k=4 fat tree, a star and a dual-port host.
func TestSizeRoutingCountsThePaths(t *testing.T) {
	ring, _ := Ring(7, 2, testLink)
	ft, _ := FatTree(4, testLink)
	star, _ := Star(5, testLink)
	dual, _ := Ring(3, 1, testLink)
	second, err := dual.AddSecondPort(dual.Hosts()[0])
	if err != nil {
		t.Fatal(err)
	}
	dual.Connect(second, mustID(t, dual, "s1"), testLink)
	for _, c := range []struct {
		name string
		tp   *Topology
	}{{"ring7", ring}, {"fattree4", ft}, {"star5", star}, {"dual", dual}} {
		// lash: every ordered pair of switches, its tree path's length.
		b := newRouteBuilder(c.tp, RoutingLASH)
		next := b.lashNext()
		var paths, hops int64
		for i := range b.sw {
			for j := range b.sw {
				if i == j {
					continue
				}
				paths++
				for at := i; at != j; hops++ {
					at = int(b.r.swIndex[c.tp.Nodes[b.sw[at]].Ports[next[at][j]].Peer])
				}
			}
		}
		z, err := SizeRouting(c.tp, RoutingLASH)
		if err != nil || z.LayeredPaths != paths || z.LayeredHops != hops {
			t.Errorf("%s lash: %d paths of %d channels (%v); walked %d of %d", c.name, z.LayeredPaths, z.LayeredHops, err, paths, hops)
		}
		// dfsssp: every ordered host pair, a channel per switch.
		r := mustRoutes(t, c.tp, RoutingDFSSSP, nil)
		paths, hops = 0, 0
		for _, s := range c.tp.Endpoints() {
			for _, d := range c.tp.Endpoints() {
				if s != d {
					paths++
					hops += int64(hopsTo(c.tp, r, s, d))
				}
			}
		}
		z, err = SizeRouting(c.tp, RoutingDFSSSP)
		if err != nil || z.LayeredPaths != paths || z.LayeredHops != hops {
			t.Errorf("%s dfsssp: %d paths of %d channels (%v); walked %d of %d", c.name, z.LayeredPaths, z.LayeredHops, err, paths, hops)
		}
		if z.Switches != len(b.sw) || z.Hosts != len(c.tp.Endpoints()) {
			t.Errorf("%s: %d switches, %d hosts", c.name, z.Switches, z.Hosts)
		}
	}
}

// TestSizeRoutingRefuses: a topology past lash's or dfsssp's limits is
// refused by SizeRouting, and by AssignLASHLanes and AssignVLs before
// they lay anything out, with the limit named: a ring of 1,100 switches
// (lash's 1,024), one of 1,000 (250 million channels of paths, lash
// took 13 to 46 s and 3.4 GiB on it before this check), a star of 1,100
// hosts (dfsssp's 1,024), a ring of 800 hosts (dfsssp, 128 million
// channels); the other engines route them.
func TestSizeRoutingRefuses(t *testing.T) {
	ring := func(n int) *Topology { tp, _ := Ring(n, 1, testLink); return tp }
	star, _ := Star(1100, testLink)
	for _, c := range []struct {
		name string
		tp   *Topology
		algo RoutingAlgo
		want string
	}{
		{"ring1100", ring(1100), RoutingLASH, "lash lays out at most 1024 switches' paths; this topology has 1100"},
		{"ring1000", ring(1000), RoutingLASH, "this topology's 1000 switches have 999000 such paths of 250000000 channels in all, more than the 67108864 it takes"},
		{"star1100", star, RoutingDFSSSP, "dfsssp lays out at most 1024 hosts' paths; this topology has 1100"},
		// 800 × 799 pairs; from each host, 2 × (1 + ... + 399) + 400 =
		// 160,000 hops between switches and a channel more for each of
		// 799 paths.
		{"ring800", ring(800), RoutingDFSSSP, "this topology's 800 hosts have 639200 such paths of 128639200 channels in all, more than the 67108864 it takes"},
	} {
		_, err := SizeRouting(c.tp, c.algo)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v\nwant %s", c.name, c.algo, err, c.want)
		}
		var lerr error
		if c.algo == RoutingLASH {
			_, lerr = AssignLASHLanes(c.tp, 8)
		} else {
			_, lerr = AssignVLs(c.tp, nil, 8) // no tables: refused before it reads them
		}
		if lerr == nil || err == nil || lerr.Error() != err.Error() {
			t.Errorf("%s: laying out: %v", c.name, lerr)
		}
		for _, other := range []RoutingAlgo{RoutingMinHop, RoutingECMP} {
			if _, err := SizeRouting(c.tp, other); err != nil {
				t.Errorf("%s %s: %v", c.name, other, err)
			}
		}
	}
}

// TestRoutingBytes: what RoutingSize counts before anything is built
// bounds what the engines keep (Routes.Bytes, and the pairs' lanes of
// lash and dfsssp) from above, within 2.5 times (rows that switches
// share are counted apart), and the peak it counts while they build
// lies between what they keep and all they allocate (the rest being
// garbage a collection takes back): on a k=8 fat tree under every
// engine and a ring of 16 under lash and dfsssp.
func TestRoutingBytes(t *testing.T) {
	ft, _ := FatTree(8, testLink)
	ring, _ := Ring(16, 2, testLink)
	for _, c := range []struct {
		name string
		tp   *Topology
		algo RoutingAlgo
	}{
		{"k8", ft, RoutingECMP}, {"k8", ft, RoutingUpDown}, {"k8", ft, RoutingMinHop}, {"k8", ft, RoutingFtree},
		{"k8", ft, RoutingLASH}, {"k8", ft, RoutingDFSSSP}, {"ring16", ring, RoutingLASH}, {"ring16", ring, RoutingDFSSSP},
	} {
		z, err := SizeRouting(c.tp, c.algo)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		r, _, err := ComputeRoutes(c.tp, c.algo, nil)
		if err != nil {
			t.Fatal(err)
		}
		var lanes *PairLanes
		switch c.algo {
		case RoutingLASH:
			lanes, err = AssignLASHLanes(c.tp, 8)
		case RoutingDFSSSP:
			lanes, err = AssignVLs(c.tp, r, 8)
		}
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&m1)
		kept := r.Bytes() + int64(lanes.Bytes())
		all := int64(m1.TotalAlloc - m0.TotalAlloc)
		tb, bb := z.TableBytes(), z.BuildBytes(8)
		t.Logf("%s %s: kept %d, counted %d; built with %d allocated, counted %d", c.name, c.algo, kept, tb, all, bb)
		if tb < kept || tb > kept*5/2 {
			t.Errorf("%s %s: the tables keep %d bytes; counted %d", c.name, c.algo, kept, tb)
		}
		if bb < kept || bb > all {
			t.Errorf("%s %s: counted %d bytes at the peak; they keep %d and allocated %d", c.name, c.algo, bb, kept, all)
		}
	}
}
