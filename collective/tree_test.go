package collective

import (
	"slices"
	"testing"
)

// TestDtree: ncclGetDtree's two trees as trees.cc draws them: 12 nodes
// (tree 0 rooted at 0, then 8; tree 1 its mirror, rooted at 11, then 3)
// and 13 (tree 1 shifted by one: rooted at 1, then 9).
func TestDtree(t *testing.T) {
	cases := []struct {
		n, tree, node  int
		up, kidA, kidB int
	}{
		{12, 0, 0, -1, -1, 8},
		{12, 0, 8, 0, 4, 10},
		{12, 0, 4, 8, 2, 6},
		{12, 0, 10, 8, 9, 11},
		{12, 0, 1, 2, -1, -1},
		{12, 1, 11, -1, -1, 3},
		{12, 1, 3, 11, 7, 1},
		{12, 1, 7, 3, 9, 5},
		{13, 0, 8, 0, 4, 12},
		{13, 0, 12, 8, 10, -1},
		{13, 0, 13 - 1, 8, 10, -1},
		{13, 1, 1, -1, -1, 9},
		{13, 1, 9, 1, 5, 0},
		{13, 1, 0, 9, 11, -1},
	}
	for _, c := range cases {
		up, a, b := dtree(c.n, c.node, c.tree)
		if up != c.up || a != c.kidA || b != c.kidB {
			t.Errorf("n=%d tree %d node %d: parent %d, children %d %d; want %d, %d %d", c.n, c.tree, c.node, up, a, b, c.up, c.kidA, c.kidB)
		}
	}
	// Every node but the root has a parent that names it as a child,
	// and a node is a leaf in at most one of the two trees (n even).
	for _, n := range []int{2, 3, 8, 12, 13, 64} {
		inner := make([]int, n)
		for tree := range 2 {
			for r := range n {
				up, a, b := dtree(n, r, tree)
				if a >= 0 || b >= 0 {
					inner[r]++
				}
				if up < 0 {
					continue
				}
				_, pa, pb := dtree(n, up, tree)
				if !slices.Contains([]int{pa, pb}, r) {
					t.Errorf("n=%d tree %d: %d's parent %d has children %d %d", n, tree, r, up, pa, pb)
				}
			}
		}
		if n%2 == 0 && n > 2 {
			for r, k := range inner {
				if k == 0 {
					t.Errorf("n=%d: node %d is a leaf in both trees", n, r)
				}
			}
		}
	}
}
