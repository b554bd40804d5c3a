package observe

// depGraph is the deadlock detector's buffer dependency graph (deadlock.go)
// as adjacency arrays: node i's out-edges are to[off[i]:off[i+1]], in the
// order they were added. Nodes are numbered 0..n-1 in the detector's
// sorted order, so that every search is independent of map order. It is
// built afresh for each search into the same arrays.
type depGraph struct {
	off []int32 // len nodes()+1 once built
	to  []int32
}

func (g *depGraph) reset() {
	g.off = append(g.off[:0], 0)
	g.to = g.to[:0]
}

// startNode adds the next node; addEdge then adds its out-edges.
func (g *depGraph) startNode() { g.off = append(g.off, int32(len(g.to))) }

// addEdge adds an edge from the last node started to w.
func (g *depGraph) addEdge(w int32) {
	g.to = append(g.to, w)
	g.off[len(g.off)-1]++
}

func (g *depGraph) nodes() int           { return len(g.off) - 1 }
func (g *depGraph) edges() int           { return len(g.to) }
func (g *depGraph) from(v int32) []int32 { return g.to[g.off[v]:g.off[v+1]] }

// sccFinder finds strongly connected components by Tarjan's algorithm
// (R. Tarjan, "Depth-first search and linear graph algorithms", SIAM J.
// Comput. 1(2), 1972), iteratively rather than by recursion, in buffers
// it keeps between searches: the detector searches graphs of thousands of
// paused queues every few microseconds of a PFC-heavy run, and gonum's
// topo.TarjanSCC, which it used before, allocated maps and an interface
// value per node and per neighbour list on each search
// (docs/PERFORMANCE.md, thirteenth round).
type sccFinder struct {
	index []int32 // visiting order, -1 until visited
	low   []int32 // the least index reachable through the DFS subtree
	comp  []int32 // component number, -1 while on the stack
	stack []int32
	calls []sccCall
}

// sccCall is one level of the depth-first search: a node and how many
// of its out-edges it has followed.
type sccCall struct{ v, e int32 }

// least returns the least node of all components of two or more nodes,
// and that component's number (comp holds every node's), or -1, -1 when
// every component is a single node. Which component is reported does not
// depend on the order the search meets them in.
func (f *sccFinder) least(g *depGraph) (v, c int32) {
	n := g.nodes()
	f.index = fill(f.index, n, -1)
	f.low = fill(f.low, n, 0)
	f.comp = fill(f.comp, n, -1)
	f.stack = f.stack[:0]
	v, c = -1, -1
	var next, comps int32
	for r := int32(0); r < int32(n); r++ {
		if f.index[r] >= 0 {
			continue
		}
		f.index[r], f.low[r] = next, next
		next++
		f.stack = append(f.stack, r)
		f.calls = append(f.calls[:0], sccCall{v: r})
		for len(f.calls) > 0 {
			top := &f.calls[len(f.calls)-1]
			u := top.v
			if out := g.from(u); top.e < int32(len(out)) {
				w := out[top.e]
				top.e++
				switch {
				case f.index[w] < 0: // a tree edge: descend
					f.index[w], f.low[w] = next, next
					next++
					f.stack = append(f.stack, w)
					f.calls = append(f.calls, sccCall{v: w})
				case f.comp[w] < 0: // w is on the stack
					f.low[u] = min(f.low[u], f.index[w])
				}
				continue
			}
			f.calls = f.calls[:len(f.calls)-1]
			if len(f.calls) > 0 {
				p := f.calls[len(f.calls)-1].v
				f.low[p] = min(f.low[p], f.low[u])
			}
			if f.low[u] != f.index[u] {
				continue
			}
			// u roots a component: the stack down to u.
			size, least := 0, u
			for {
				w := f.stack[len(f.stack)-1]
				f.stack = f.stack[:len(f.stack)-1]
				f.comp[w] = comps
				size++
				least = min(least, w)
				if w == u {
					break
				}
			}
			if size > 1 && (v < 0 || least < v) {
				v, c = least, comps
			}
			comps++
		}
	}
	return v, c
}

// fill returns s resized to n, every element x, reusing its array.
func fill(s []int32, n int, x int32) []int32 {
	if cap(s) < n {
		s = make([]int32, n)
	}
	s = s[:n]
	for i := range s {
		s[i] = x
	}
	return s
}
