package fabric

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// pairMap is lanes as a map from every pair of distinct hosts of tp,
// failing where a pair has no lane.
func pairMap(t *testing.T, tp *Topology, lanes *PairLanes) map[[2]NodeID]uint8 {
	t.Helper()
	out := map[[2]NodeID]uint8{}
	for _, s := range tp.Endpoints() {
		for _, d := range tp.Endpoints() {
			lane, ok := lanes.Lane(s, d)
			if ok != (s != d) {
				t.Fatalf("%s -> %s: lane %d, %v", tp.Nodes[s].Name, tp.Nodes[d].Name, lane, ok)
			}
			if ok {
				out[[2]NodeID{s, d}] = lane
			}
		}
	}
	return out
}

// laneCycles builds, from the forwarding tables themselves, the channel
// dependency graph of every lane (a channel is a switch's output port) and
// returns a description of the first cycle it finds, or "".
func laneCycles(t *testing.T, tp *Topology, r *Routes, lanes map[[2]NodeID]uint8) string {
	t.Helper()
	type ch struct {
		at   NodeID
		port int32
	}
	deps := map[uint8]map[ch]map[ch]bool{}
	hosts := tp.Hosts()
	for _, src := range hosts {
		for _, dst := range hosts {
			if src == dst {
				continue
			}
			lane, ok := lanes[[2]NodeID{src, dst}]
			if !ok {
				t.Fatalf("no lane for %s -> %s", tp.Nodes[src].Name, tp.Nodes[dst].Name)
			}
			if deps[lane] == nil {
				deps[lane] = map[ch]map[ch]bool{}
			}
			var prev *ch
			at := tp.Nodes[src].Ports[0].Peer
			for hops := 0; tp.Nodes[at].Kind == Switch; hops++ {
				if hops > len(tp.Nodes) {
					t.Fatalf("%s -> %s loops", tp.Nodes[src].Name, tp.Nodes[dst].Name)
				}
				c := ch{at, r.NextPorts(at, dst)[0]}
				if prev != nil {
					if deps[lane][*prev] == nil {
						deps[lane][*prev] = map[ch]bool{}
					}
					deps[lane][*prev][c] = true
				}
				prev = &c
				at = tp.Nodes[at].Ports[c.port].Peer
			}
		}
	}
	for lane, g := range deps {
		state := map[ch]int{} // 1 on the stack, 2 done
		var visit func(c ch) bool
		visit = func(c ch) bool {
			state[c] = 1
			for d := range g[c] {
				if state[d] == 1 || state[d] == 0 && visit(d) {
					return true
				}
			}
			state[c] = 2
			return false
		}
		for c := range g {
			if state[c] == 0 && visit(c) {
				return fmt.Sprintf("lane %d has a cycle through %s port %d", lane, tp.Nodes[c.at].Name, c.port)
			}
		}
	}
	return ""
}

// TestLASH: on a ring of seven switches, lash's shortest paths need two
// layers (the three-hop paths one way round close a cycle, as for
// dfsssp), each lane's dependencies are acyclic in the tables as
// forwarded, every path is a shortest one, and the layers are balanced
// to within OpenSM's limit of six pairs. On a k=4 fat tree, whose switch
// pairs include core-to-core paths that go down and up again, the lanes
// are acyclic too; on a star one lane does.
func TestLASH(t *testing.T) {
	ring, err := Ring(7, 2, testLink)
	if err != nil {
		t.Fatal(err)
	}
	ft, err := FatTree(4, testLink)
	if err != nil {
		t.Fatal(err)
	}
	star, err := Star(4, testLink)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		tp        *Topology
		minLanes  int // fewer VLs than this fail
		wantLanes int
	}{
		{"ring7", ring, 2, 2},
		{"fattree4", ft, 1, -1},
		{"star", star, 1, 1},
	} {
		r, _, err := ComputeRoutes(c.tp, RoutingLASH, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.minLanes > 1 {
			if _, err := AssignLASHLanes(c.tp, c.minLanes-1); err == nil {
				t.Errorf("%s: %d VLs: no error", c.name, c.minLanes-1)
			}
		}
		pl, err := AssignLASHLanes(c.tp, 8)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		lanes := pairMap(t, c.tp, pl)
		if cyc := laneCycles(t, c.tp, r, lanes); cyc != "" {
			t.Errorf("%s: %s", c.name, cyc)
		}
		used := map[uint8]int{}
		for _, l := range lanes {
			used[l]++
		}
		if c.wantLanes > 0 && len(used) != c.wantLanes {
			t.Errorf("%s: lanes %v, want %d", c.name, used, c.wantLanes)
		}
		t.Logf("%s: host pairs per lane %v", c.name, used)
		// Shortest paths: every host pair's hop count is the minhop one.
		mh, _, err := ComputeRoutes(c.tp, RoutingMinHop, nil)
		if err != nil {
			t.Fatal(err)
		}
		hosts := c.tp.Hosts()
		for _, s := range hosts {
			for _, d := range hosts {
				if s != d && hopsTo(c.tp, r, s, d) != hopsTo(c.tp, mh, s, d) {
					t.Errorf("%s: %s -> %s takes %d hops, minhop %d", c.name, c.tp.Nodes[s].Name, c.tp.Nodes[d].Name, hopsTo(c.tp, r, s, d), hopsTo(c.tp, mh, s, d))
				}
			}
		}
	}
}

// TestLASHBalances: on a ring of seven switches the switch pairs split
// over the two layers to within six pairs (OpenSM's balance_limit), or
// the fuller layer has no pair that would keep the other acyclic.
func TestLASHBalances(t *testing.T) {
	ring, err := Ring(7, 1, testLink)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := AssignLASHLanes(ring, 2)
	if err != nil {
		t.Fatal(err)
	}
	lanes := pairMap(t, ring, pl)
	pairs := [2]int{}
	hosts := ring.Hosts()
	for i, s := range hosts {
		for _, d := range hosts[i+1:] {
			pairs[lanes[[2]NodeID{s, d}]]++
			if lanes[[2]NodeID{s, d}] != lanes[[2]NodeID{d, s}] {
				t.Errorf("%s and %s: lanes differ by direction", ring.Nodes[s].Name, ring.Nodes[d].Name)
			}
		}
	}
	// 21 switch pairs; before balancing the first layer holds all but the
	// ones that close the cycle.
	if d := pairs[0] - pairs[1]; d >= lashBalanceLimit || d <= -lashBalanceLimit {
		t.Errorf("pairs per lane %v: want them within %d", pairs, lashBalanceLimit)
	}
}

func hopsTo(tp *Topology, r *Routes, src, dst NodeID) int {
	n := 0
	for at := tp.Nodes[src].Ports[0].Peer; tp.Nodes[at].Kind == Switch && n <= len(tp.Nodes); n++ {
		at = tp.Nodes[at].Ports[r.NextPorts(at, dst)[0]].Peer
	}
	return n
}

// TestCDGAgreesWithASearch: the dynamic topological order accepts a path
// exactly when a plain search of the graph finds no cycle, over 20,000
// random paths added and removed on 40 channels.
func TestCDGAgreesWithASearch(t *testing.T) {
	const n = 40
	g := newCDG(n)
	naive := map[[2]int]int{}
	reaches := func(from, to int) bool {
		seen := map[int]bool{from: true}
		stack := []int{from}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if x == to {
				return true
			}
			for y := 0; y < n; y++ {
				if naive[[2]int{x, y}] > 0 && !seen[y] {
					seen[y] = true
					stack = append(stack, y)
				}
			}
		}
		return false
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var kept [][]int32
	accepted := 0
	for i := 0; i < 20000; i++ {
		if len(kept) > 0 && rng.IntN(3) == 0 {
			k := rng.IntN(len(kept))
			g.remove(kept[k])
			for j := 0; j+1 < len(kept[k]); j++ {
				naive[[2]int{int(kept[k][j]), int(kept[k][j+1])}]--
			}
			kept = slices.Delete(kept, k, k+1)
			continue
		}
		path := []int32{rng.Int32N(n)}
		for len(path) < 2+rng.IntN(4) {
			if c := rng.Int32N(n); !slices.Contains(path, c) {
				path = append(path, c)
			}
		}
		want := true
		var added [][2]int
		for j := 0; j+1 < len(path); j++ {
			e := [2]int{int(path[j]), int(path[j+1])}
			if naive[e] == 0 && reaches(e[1], e[0]) {
				want = false
				break
			}
			naive[e]++
			added = append(added, e)
		}
		if !want {
			for _, e := range added {
				naive[e]--
			}
		}
		if got := g.add(path); got != want {
			t.Fatalf("step %d: path %v accepted %v, a search says %v", i, path, got, want)
		}
		if want {
			kept = append(kept, path)
			accepted++
		}
		for u := 0; u < n; u++ {
			for _, d := range g.out[u] {
				if g.ord[u] >= g.ord[d.to] {
					t.Fatalf("step %d: order puts %d (%d) after %d (%d)", i, u, g.ord[u], d.to, g.ord[d.to])
				}
			}
		}
	}
	if accepted < 1000 || accepted > 12000 {
		t.Errorf("%d paths accepted: the mix does not test both answers", accepted)
	}
}
