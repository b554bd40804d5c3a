package fabric

import (
	"slices"
	"testing"
)

// TestMulticastTree: on a star, the switch's group ports are those of
// the sender and the members, not the other hosts'; in a k=4 fat tree a
// group spanning two pods uses one core switch, and every switch on the
// tree has as many ports as its tree links.
func TestMulticastTree(t *testing.T) {
	star, err := Star(4, LinkSpec{Rate: 100 * Gbps})
	if err != nil {
		t.Fatal(err)
	}
	h := star.Hosts()
	ports, err := MulticastTree(star, h[0], []NodeID{h[0], h[1], h[2]})
	if err != nil {
		t.Fatal(err)
	}
	if got := ports[0]; !slices.Equal(got, []int32{0, 1, 2}) || len(ports) != 1 {
		t.Errorf("star: %v, want s0's ports 0, 1, 2 (h0, h1, h2; not h3)", ports)
	}
	ft, err := FatTree(4, LinkSpec{Rate: 100 * Gbps})
	if err != nil {
		t.Fatal(err)
	}
	h = ft.Hosts()
	ports, err = MulticastTree(ft, h[0], []NodeID{h[0], h[1], h[15]})
	if err != nil {
		t.Fatal(err)
	}
	links := 0
	for _, p := range ports {
		links += len(p)
	}
	// h0 and h1 share an edge switch; h15 is in the last pod: edge,
	// aggregation, core, aggregation, edge — five switches, and the tree's
	// links are h0, h1, h15's and the four between the switches, each
	// counted at both ends where both are switches.
	if len(ports) != 5 || links != 3+2*4 {
		t.Errorf("fat tree: %d switches, %d port entries; want 5 and 11: %v", len(ports), links, ports)
	}
	if _, err := MulticastTree(ft, h[0], []NodeID{0}); err == nil {
		t.Error("a switch as a member was accepted")
	}
}
