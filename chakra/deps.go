package chakra

import (
	"fmt"
	"slices"
	"strings"
)

// checkDeps fails on a dependency that names no node of t and on a
// cycle of dependencies in t, naming the nodes of the cycle.
func checkDeps(t *Trace) error {
	preds := make([][]int, len(t.Nodes))
	for i := range t.Nodes {
		n := &t.Nodes[i]
		for _, list := range [2]struct {
			name string
			ids  []uint64
		}{{"data_deps", n.DataDeps}, {"ctrl_deps", n.CtrlDeps}} {
			for _, d := range list.ids {
				k, ok := t.index[d]
				if !ok {
					return nodeErr(t.File, n.ID, "%s names node %d, which is not in this file: expected the ids of nodes of this rank", list.name, d)
				}
				preds[i] = append(preds[i], k)
			}
		}
	}
	if cyc := findCycle(preds); cyc != nil {
		ids := make([]string, len(cyc))
		for i, k := range cyc {
			ids[i] = fmt.Sprint(t.Nodes[k].ID)
		}
		return nodeErr(t.File, t.Nodes[cyc[0]].ID, "a dependency cycle: %s: expected the dependencies to form a DAG", strings.Join(ids, " → "))
	}
	return nil
}

// findCycle returns a cycle of the graph whose vertex v waits on
// preds[v], as the vertices in dependency order with the first repeated
// at the end, or nil if there is none (Kahn's algorithm, then a walk
// back along the predecessors left).
func findCycle(preds [][]int) []int {
	n := len(preds)
	succ := make([][]int, n)
	indeg := make([]int, n)
	for v, ps := range preds {
		for _, p := range ps {
			succ[p] = append(succ[p], v)
			indeg[v]++
		}
	}
	queue := make([]int, 0, n)
	for v := range n {
		if indeg[v] == 0 {
			queue = append(queue, v)
		}
	}
	done := make([]bool, n)
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		done[v] = true
		for _, s := range succ[v] {
			if indeg[s]--; indeg[s] == 0 {
				queue = append(queue, s)
			}
		}
	}
	start := slices.Index(done, false)
	if start < 0 {
		return nil
	}
	// Every vertex left has a predecessor left: walk back until one repeats.
	at := map[int]int{}
	var path []int
	v := start
	for {
		if i, seen := at[v]; seen {
			cyc := slices.Clone(path[i:])
			slices.Reverse(cyc)
			// Start at the cycle's first vertex, so that the message
			// does not depend on where the walk came in.
			low := slices.Index(cyc, slices.Min(cyc))
			cyc = append(cyc[low:], cyc[:low]...)
			return append(cyc, cyc[0])
		}
		at[v] = len(path)
		path = append(path, v)
		for _, p := range preds[v] {
			if !done[p] {
				v = p
				break
			}
		}
	}
}

// checkDeadlock fails when the ranks wait on each other in a cycle: a
// collective's calls are one vertex (none finishes before all have
// started), a rank's calls on a group wait one for the other, a
// receive waits on its send, and each node on its dependencies.
func (j *Job) checkDeadlock() error {
	base := make([]int, len(j.Ranks)+1)
	for r, t := range j.Ranks {
		base[r+1] = base[r] + len(t.Nodes)
	}
	total := base[len(j.Ranks)]
	vertex := func(ref Ref) int { return base[ref.Rank] + j.Ranks[ref.Rank].index[ref.ID] }
	rep := make([]int, total)
	for v := range rep {
		rep[v] = v
	}
	for _, c := range j.Collectives {
		lead := vertex(c.Nodes[0])
		for _, ref := range c.Nodes[1:] {
			rep[vertex(ref)] = lead
		}
	}
	preds := make([][]int, total)
	for r, t := range j.Ranks {
		for i := range t.Nodes {
			v := rep[base[r]+i]
			for _, d := range t.Nodes[i].Deps() {
				preds[v] = append(preds[v], rep[base[r]+t.index[d]])
			}
		}
	}
	// A rank makes its calls on a communicator one after the other
	// (job.Validate's rule): call k waits for call k-1 of its group.
	// GATHER, SCATTER and groups of one rank make no communicator call
	// (JobGraph). Groups are numbered in order of first use, never by
	// iterating a map.
	last := map[Ref]int{}
	groupIdx := map[string]uint64{}
	for _, c := range j.Collectives {
		if len(c.Ranks) < 2 || c.Type == Gather || c.Type == Scatter {
			continue
		}
		gi, ok := groupIdx[c.Group]
		if !ok {
			gi = uint64(len(groupIdx))
			groupIdx[c.Group] = gi
		}
		for _, ref := range c.Nodes {
			v := rep[vertex(ref)]
			key := Ref{ref.Rank, gi}
			if p, ok := last[key]; ok {
				preds[v] = append(preds[v], p)
			}
			last[key] = v
		}
	}
	for _, tr := range j.Transfers {
		v := rep[vertex(tr.Recv)]
		preds[v] = append(preds[v], rep[vertex(tr.Send)])
	}
	cyc := findCycle(preds)
	if cyc == nil {
		return nil
	}
	names := make([]string, len(cyc))
	for i, v := range cyc {
		r := sortSearch(base, v)
		names[i] = fmt.Sprintf("rank %d node %d", r, j.Ranks[r].Nodes[v-base[r]].ID)
	}
	r := sortSearch(base, cyc[0])
	return nodeErr(j.Ranks[r].File, j.Ranks[r].Nodes[cyc[0]-base[r]].ID,
		"the ranks wait on each other in a cycle (a collective's calls wait for one another, a rank's calls on a group one after the other, a receive for its send): %s: expected an order every rank can follow", strings.Join(names, " → "))
}

// sortSearch returns the rank whose vertices hold v.
func sortSearch(base []int, v int) int {
	r := 0
	for r+1 < len(base) && base[r+1] <= v {
		r++
	}
	return r
}
