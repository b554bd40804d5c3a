package fabric

import "fmt"

// The generators below give hosts the names h0, h1, ... and switches s0,
// s1, ... in the order documented on each, and number every port so that
// scenarios can name them (s0:p8). Hosts have a single port, p0.

// Star is one switch s0 with hosts h0..h(n-1); port s0:pI faces hI.
func Star(hosts int, link LinkSpec) (*Topology, error) {
	if hosts < 2 {
		return nil, fmt.Errorf("a star needs at least 2 hosts, not %d", hosts)
	}
	t := NewTopology()
	s := t.mustAdd("s0", Switch)
	for i := 0; i < hosts; i++ {
		t.Connect(s, t.mustAdd(fmt.Sprintf("h%d", i), Host), link)
	}
	return t, nil
}

// Dumbbell is two switches joined by one bottleneck link. Hosts
// h0..h(left-1) hang on s0 (ports p0..p(left-1)); h(left)..h(left+right-1)
// on s1 (ports p0..p(right-1)). The bottleneck joins s0:p(left) and
// s1:p(right).
func Dumbbell(left, right int, link, bottleneck LinkSpec) (*Topology, error) {
	if left < 1 || right < 1 {
		return nil, fmt.Errorf("a dumbbell needs at least 1 host on each side, not %d and %d", left, right)
	}
	t := NewTopology()
	s0, s1 := t.mustAdd("s0", Switch), t.mustAdd("s1", Switch)
	h := 0
	for _, side := range []struct {
		sw NodeID
		n  int
	}{{s0, left}, {s1, right}} {
		for i := 0; i < side.n; i++ {
			t.Connect(side.sw, t.mustAdd(fmt.Sprintf("h%d", h), Host), link)
			h++
		}
	}
	t.Connect(s0, s1, bottleneck)
	return t, nil
}

// LeafSpine is a two-tier Clos: leaves s0..s(leaves-1), then spines
// s(leaves)..s(leaves+spines-1). Leaf sL has hosts h(L*hostsPerLeaf+i) on
// ports p0..p(hostsPerLeaf-1) and spine j on port p(hostsPerLeaf+j). Spine
// port pL faces leaf L.
func LeafSpine(leaves, spines, hostsPerLeaf int, hostLink, fabricLink LinkSpec) (*Topology, error) {
	if leaves < 1 || spines < 1 || hostsPerLeaf < 1 {
		return nil, fmt.Errorf("a leaf-spine needs at least 1 leaf, 1 spine and 1 host per leaf")
	}
	t := NewTopology()
	leaf := make([]NodeID, leaves)
	for i := range leaf {
		leaf[i] = t.mustAdd(fmt.Sprintf("s%d", i), Switch)
	}
	spine := make([]NodeID, spines)
	for j := range spine {
		spine[j] = t.mustAdd(fmt.Sprintf("s%d", leaves+j), Switch)
	}
	for i, l := range leaf {
		for k := 0; k < hostsPerLeaf; k++ {
			t.Connect(l, t.mustAdd(fmt.Sprintf("h%d", i*hostsPerLeaf+k), Host), hostLink)
		}
	}
	for _, l := range leaf {
		for _, s := range spine {
			t.Connect(l, s, fabricLink)
		}
	}
	return t, nil
}

// FatTree is the k-ary fat-tree of Al-Fares et al. (SIGCOMM 2008): k pods
// of k/2 edge and k/2 aggregation switches, (k/2)^2 core switches and
// k^3/4 hosts, every link the same.
//
// Names: edge switches s0..s(k^2/2-1), pod by pod; then aggregation
// switches s(k^2/2)..s(k^2-1), pod by pod; then core switches
// s(k^2)..s(k^2+k^2/4-1). Edge switch e (counting from 0) has hosts
// h(e*k/2+i) on ports p0..p(k/2-1) and aggregation switch j of its pod on
// port p(k/2+j). Aggregation switch j of a pod has that pod's edge switch i
// on port pI and core switch j*k/2+c on port p(k/2+c). Core switch
// j*k/2+c has aggregation switch j of pod P on port pP.
func FatTree(k int, link LinkSpec) (*Topology, error) {
	if k < 2 || k%2 != 0 {
		return nil, fmt.Errorf("a fat-tree needs an even k of at least 2, not %d", k)
	}
	half := k / 2
	t := NewTopology()
	sw := 0
	newSwitch := func() NodeID {
		id := t.mustAdd(fmt.Sprintf("s%d", sw), Switch)
		sw++
		return id
	}
	edge := make([][]NodeID, k)
	agg := make([][]NodeID, k)
	for p := 0; p < k; p++ {
		for i := 0; i < half; i++ {
			edge[p] = append(edge[p], newSwitch())
		}
	}
	for p := 0; p < k; p++ {
		for i := 0; i < half; i++ {
			agg[p] = append(agg[p], newSwitch())
		}
	}
	core := make([]NodeID, half*half)
	for c := range core {
		core[c] = newSwitch()
	}
	h := 0
	for p := 0; p < k; p++ {
		for _, e := range edge[p] {
			for i := 0; i < half; i++ {
				t.Connect(e, t.mustAdd(fmt.Sprintf("h%d", h), Host), link)
				h++
			}
		}
	}
	for p := 0; p < k; p++ {
		for _, e := range edge[p] {
			for _, a := range agg[p] {
				t.Connect(e, a, link)
			}
		}
	}
	for p := 0; p < k; p++ {
		for j, a := range agg[p] {
			for c := 0; c < half; c++ {
				t.Connect(a, core[j*half+c], link)
			}
		}
	}
	return t, nil
}

// Ring is switches s0..s(n-1) in a cycle, each with hostsPerSwitch hosts.
// Switch sI has hosts h(I*hostsPerSwitch+j) on ports p0..p(hostsPerSwitch-1),
// the next switch s((I+1) mod n) on port p(hostsPerSwitch) and the previous
// one on port p(hostsPerSwitch+1). Rings are where cyclic buffer
// dependencies, and so PFC deadlocks, are easiest to build.
func Ring(switches, hostsPerSwitch int, link LinkSpec) (*Topology, error) {
	if switches < 3 {
		return nil, fmt.Errorf("a ring needs at least 3 switches, not %d", switches)
	}
	if hostsPerSwitch < 1 {
		return nil, fmt.Errorf("a ring needs at least 1 host per switch, not %d", hostsPerSwitch)
	}
	t := NewTopology()
	sw := make([]NodeID, switches)
	for i := range sw {
		sw[i] = t.mustAdd(fmt.Sprintf("s%d", i), Switch)
	}
	for i, s := range sw {
		for j := 0; j < hostsPerSwitch; j++ {
			t.Connect(s, t.mustAdd(fmt.Sprintf("h%d", i*hostsPerSwitch+j), Host), link)
		}
	}
	next, prev := hostsPerSwitch, hostsPerSwitch+1
	for i, s := range sw {
		t.connectAt(s, next, sw[(i+1)%switches], prev, link)
	}
	return t, nil
}
