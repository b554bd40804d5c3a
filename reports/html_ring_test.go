package reports

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"testing"
)

// nodeAt reads the drawn position of each node of a page's topology.
var nodeAt = regexp.MustCompile(`\{"name":"([^"]+)","x":([-0-9.e]+),"y":([-0-9.e]+)`)

func drawnAt(t *testing.T, topo *Topo) map[string][2]float64 {
	t.Helper()
	page := string(BuildHTML([]*Run{{Summary: Summary{Scenario: "s", Complete: true}, Topo: topo}}))
	at := map[string][2]float64{}
	for _, m := range nodeAt.FindAllStringSubmatch(page, -1) {
		x, _ := strconv.ParseFloat(m[2], 64)
		y, _ := strconv.ParseFloat(m[3], 64)
		at[m[1]] = [2]float64{x, y}
	}
	return at
}

// TestRingDrawnAsRing: a ring of switches (ib-credit-loop's seven, each
// with a host, as topology: {kind: ring} builds it, switch i's p1 to
// switch i+1's p2) is drawn as a ring: every switch ringRadius from the
// centre, neighbours on the ring one chord 2R·sin(π/n) apart, the
// closing link s6–s0 as long as any other, each host outside its switch
// (issue 51: drawn in layers it was a line of switches whose closing
// link crossed back over the others). A 2 × 2 leaf-spine, also a cycle
// of four switches, whose spines hold no host, stays in layers: the
// spines side by side above the leaves.
func TestRingDrawnAsRing(t *testing.T) {
	const n = 7
	ring := &Topo{}
	for i := range n {
		ring.Nodes = append(ring.Nodes, TopoNode{Name: fmt.Sprintf("s%d", i), Kind: "switch"})
	}
	for i := range n {
		ring.Nodes = append(ring.Nodes, TopoNode{Name: fmt.Sprintf("h%d", i), Kind: "host"})
		ring.Links = append(ring.Links, TopoLink{A: fmt.Sprintf("s%d:p0", i), B: fmt.Sprintf("h%d:p0", i), RateGbps: 100})
	}
	for i := range n {
		ring.Links = append(ring.Links, TopoLink{A: fmt.Sprintf("s%d:p1", i), B: fmt.Sprintf("s%d:p2", (i+1)%n), RateGbps: 100})
	}
	at := drawnAt(t, ring)
	chord := 2 * ringRadius * math.Sin(math.Pi/n)
	for i := range n {
		s, next, h := at[fmt.Sprintf("s%d", i)], at[fmt.Sprintf("s%d", (i+1)%n)], at[fmt.Sprintf("h%d", i)]
		if r := math.Hypot(s[0], s[1]); math.Abs(r-ringRadius) > 0.01 {
			t.Errorf("s%d at %v: %.2f from the centre, want %.0f", i, s, r, ringRadius)
		}
		if d := math.Hypot(next[0]-s[0], next[1]-s[1]); math.Abs(d-chord) > 0.01 {
			t.Errorf("s%d to s%d: %.2f apart, want the chord %.2f", i, (i+1)%n, d, chord)
		}
		if r := math.Hypot(h[0], h[1]); math.Abs(r-ringHostRadius) > 0.01 || math.Hypot(h[0]-s[0], h[1]-s[1]) > ringHostRadius-ringRadius+0.01 {
			t.Errorf("h%d at %v, its switch at %v: want it %.0f from the centre, just outside its switch", i, h, s, ringHostRadius)
		}
	}
	ls := &Topo{Nodes: []TopoNode{{Name: "leaf0", Kind: "switch"}, {Name: "leaf1", Kind: "switch"}, {Name: "spine0", Kind: "switch"}, {Name: "spine1", Kind: "switch"}, {Name: "h0", Kind: "host"}, {Name: "h1", Kind: "host"}}}
	for l := range 2 {
		ls.Links = append(ls.Links, TopoLink{A: fmt.Sprintf("leaf%d:p0", l), B: fmt.Sprintf("h%d:p0", l), RateGbps: 100})
		for s := range 2 {
			ls.Links = append(ls.Links, TopoLink{A: fmt.Sprintf("leaf%d:p%d", l, 1+s), B: fmt.Sprintf("spine%d:p%d", s, l), RateGbps: 100})
		}
	}
	at = drawnAt(t, ls)
	if at["spine0"][1] != at["spine1"][1] || at["leaf0"][1] != at["leaf1"][1] || at["spine0"][1] >= at["leaf0"][1] {
		t.Errorf("leaf-spine drawn at %v; want the spines side by side above the leaves", at)
	}
}
