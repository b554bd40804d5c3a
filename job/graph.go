package job

import (
	"fmt"
	"strings"
)

// Graph is a rank's nodes with their dependencies as indices into the
// rank's list, and a topological order of them.
type Graph struct {
	// Deps[i] and Succ[i] are node i's dependencies and dependents.
	Deps, Succ [][]int32
	// Order is a topological order: ready nodes by list position (Kahn's
	// algorithm with the lowest index first), so a list already in
	// order is kept.
	Order []int32
}

// Error is a job's refusal: the rank and node (when one) and what was
// expected.
type Error struct {
	Job     string
	Rank    int // -1: none
	Node    uint64
	HasNode bool
	// Name is the node's name, when it has one.
	Name string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Job != "" {
		fmt.Fprintf(&b, "job %s: ", e.Job)
	}
	if e.Rank >= 0 {
		fmt.Fprintf(&b, "rank %d: ", e.Rank)
	}
	switch {
	case e.HasNode && e.Name != "":
		fmt.Fprintf(&b, "node %d (%s): ", e.Node, e.Name)
	case e.HasNode:
		fmt.Fprintf(&b, "node %d: ", e.Node)
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (j *Job) errorf(rank int, n *Node, format string, args ...any) *Error {
	e := &Error{Job: j.Name, Rank: rank, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Node, e.HasNode, e.Name = n.ID, true, n.Name
	}
	return e
}

// Graph is rank r's graph: an error names an unknown or repeated id, a
// node waiting for itself, or a cycle (its nodes, in order).
func (j *Job) Graph(r int) (*Graph, error) {
	nodes := j.Graphs[r]
	index := make(map[uint64]int32, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		if _, dup := index[n.ID]; dup {
			return nil, j.errorf(r, n, "the id is used by another node of the rank; each node's id must be unique in its rank")
		}
		index[n.ID] = int32(i)
	}
	g := &Graph{Deps: make([][]int32, len(nodes)), Succ: make([][]int32, len(nodes))}
	indeg := make([]int32, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		for _, d := range n.Deps {
			k, ok := index[d]
			switch {
			case !ok:
				return nil, j.errorf(r, n, "depends on node %d, which rank %d does not have; a dependency names a node of the same rank", d, r)
			case k == int32(i):
				return nil, j.errorf(r, n, "depends on itself")
			case containsIdx(g.Deps[i], k):
				continue // listed twice: once is enough
			}
			g.Deps[i] = append(g.Deps[i], k)
			g.Succ[k] = append(g.Succ[k], int32(i))
			indeg[i]++
		}
	}
	// Kahn's algorithm, the lowest ready index first (a binary heap).
	var ready idxHeap
	for i := range nodes {
		if indeg[i] == 0 {
			ready.push(int32(i))
		}
	}
	for len(ready) > 0 {
		i := ready.pop()
		g.Order = append(g.Order, i)
		for _, s := range g.Succ[i] {
			if indeg[s]--; indeg[s] == 0 {
				ready.push(s)
			}
		}
	}
	if len(g.Order) < len(nodes) {
		return nil, j.cycle(r, g, indeg)
	}
	return g, nil
}

// cycle names a cycle among the nodes Kahn's algorithm left (indeg >
// 0): from the first such node, follow a dependency still left until a
// node repeats.
func (j *Job) cycle(r int, g *Graph, indeg []int32) error {
	nodes := j.Graphs[r]
	start := int32(0)
	for indeg[start] == 0 {
		start++
	}
	seen := map[int32]int{}
	var path []int32
	for i := start; ; {
		if at, ok := seen[i]; ok {
			path = path[at:]
			break
		}
		seen[i] = len(path)
		path = append(path, i)
		for _, d := range g.Deps[i] {
			if indeg[d] > 0 {
				i = d
				break
			}
		}
	}
	var ids []string
	for k := len(path) - 1; k >= 0; k-- {
		n := &nodes[path[k]]
		if n.Name != "" {
			ids = append(ids, fmt.Sprintf("%d (%s)", n.ID, n.Name))
		} else {
			ids = append(ids, fmt.Sprint(n.ID))
		}
	}
	ids = append(ids, ids[0])
	return j.errorf(r, &nodes[path[len(path)-1]], "a dependency cycle: %s (each waits for the one before it); a job's dependencies must not loop", strings.Join(ids, " -> "))
}

func containsIdx(s []int32, x int32) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// idxHeap is a min-heap of node indices.
type idxHeap []int32

func (h *idxHeap) push(x int32) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *idxHeap) pop() int32 {
	s := *h
	x := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(s) && s[l] < s[m] {
			m = l
		}
		if l+1 < len(s) && s[l+1] < s[m] {
			m = l + 1
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return x
}
