package job

import (
	"fmt"
	"strings"
)

// The ranks' graphs taken together (review C, findings 1 and 2): a job
// whose ranks wait for each other in a loop would idle until the run's
// stop, each rank's graph being acyclic on its own. crossCycle finds
// such a loop before the run. Its graph has a vertex per node of every
// rank, except that the k-th collective node of communicator c at each
// of its ranks is one vertex, the call (it starts nowhere until every
// rank has made it, and is done nowhere before); its edges are
//   - each rank's dependencies;
//   - each Send to its matched Recv (the Recv is done when the bytes
//     land; the Send's completion waits for no node of the receiver);
//   - call k to call k+1 of each communicator (a rank's calls on one
//     communicator run one after the other, in its node order, as one
//     CUDA stream runs NCCL's kernels).
//
// Iterations need no more: a rank's iteration i+1 waits only for its
// own iteration i, and matches only iteration i+1's calls and messages.

// vref is a node of a rank (rank, index in its list).
type vref struct{ r, i int32 }

// cedge is an edge of the graph of every rank: its ends' vertices and
// the nodes that give it (for collective calls, the rank's node that
// makes the call), and why it is there.
type cedge struct {
	from     int32
	src, dst vref
	kind     uint8
	// comm and call name an order edge's communicator and its call k
	// (the edge is call k to call k+1).
	comm, call int
}

// The kinds of an edge.
const (
	edgeDep uint8 = iota
	edgeMsg
	edgeOrder
)

// crossCycle refuses a loop of waits across the job's ranks, naming
// every rank and node on it.
func (j *Job) crossCycle(graphs []*Graph) error {
	base := make([]int32, j.Ranks+1)
	for r := range j.Ranks {
		base[r+1] = base[r] + int32(len(j.Graphs[r]))
	}
	nv := base[j.Ranks]
	// vertex[r][i] is node i's vertex: its own, or its call's.
	vertex := make([][]int32, j.Ranks)
	for r := range vertex {
		vertex[r] = make([]int32, len(j.Graphs[r]))
		for i := range vertex[r] {
			vertex[r][i] = base[r] + int32(i)
		}
	}
	// callOf[v-first] names a call vertex: its communicator and k.
	first := nv
	var callOf [][2]int
	calls := make([][][]int32, len(j.Comms)) // by communicator, by position: the calls' nodes
	for c := range j.Comms {
		ranks := j.Comms[c].Ranks
		calls[c] = make([][]int32, len(ranks))
		for p, r := range ranks {
			calls[c][p] = j.Collectives(graphs[r], r, c)
		}
		for k := range calls[c][0] {
			v := nv
			nv++
			callOf = append(callOf, [2]int{c, k})
			for p, r := range ranks {
				vertex[r][calls[c][p][k]] = v
			}
		}
	}
	preds := make([][]cedge, nv)
	succs := make([][]int32, nv)
	add := func(e cedge, to int32) {
		preds[to] = append(preds[to], e)
		succs[e.from] = append(succs[e.from], to)
	}
	for r, g := range graphs {
		for i, ds := range g.Deps {
			for _, d := range ds {
				add(cedge{from: vertex[r][d], src: vref{int32(r), d}, dst: vref{int32(r), int32(i)}, kind: edgeDep}, vertex[r][i])
			}
		}
	}
	p2p := j.Matches(graphs)
	for _, k := range p2p.Keys {
		for m, s := range p2p.Sends[k] {
			rv := p2p.Recvs[k][m]
			add(cedge{from: vertex[k.From][s], src: vref{int32(k.From), s}, dst: vref{int32(k.To), rv}, kind: edgeMsg}, vertex[k.To][rv])
		}
	}
	for c := range j.Comms {
		r0 := int32(j.Comms[c].Ranks[0])
		for k := 1; k < len(calls[c][0]); k++ {
			a, b := calls[c][0][k-1], calls[c][0][k]
			add(cedge{from: vertex[r0][a], src: vref{r0, a}, dst: vref{r0, b}, kind: edgeOrder, comm: c, call: k - 1}, vertex[r0][b])
		}
	}
	// Kahn's algorithm; what it leaves waits on a loop.
	indeg := make([]int32, nv)
	for v := range preds {
		indeg[v] = int32(len(preds[v]))
	}
	var queue []int32
	for v := range indeg {
		if indeg[v] == 0 {
			queue = append(queue, int32(v))
		}
	}
	left := int(nv)
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		left--
		for _, s := range succs[v] {
			if indeg[s]--; indeg[s] == 0 {
				queue = append(queue, s)
			}
		}
	}
	if left == 0 {
		return nil
	}
	// From the first vertex left, follow an edge from a vertex still
	// left until a vertex repeats: the edges from there are a loop.
	start := int32(0)
	for indeg[start] == 0 {
		start++
	}
	seen := map[int32]int{}
	var path []cedge
	for v := start; ; {
		if at, ok := seen[v]; ok {
			path = path[at:]
			break
		}
		seen[v] = len(path)
		for _, e := range preds[v] {
			if indeg[e.from] > 0 {
				path = append(path, e)
				v = e.from
				break
			}
		}
	}
	return j.cycleError(path, first, callOf)
}

// cycleError says a loop of waits: path is its edges, each one the
// edge into the vertex the one before it leaves (backwards).
func (j *Job) cycleError(path []cedge, first int32, callOf [][2]int) error {
	var steps []string
	throughCall := false
	for n := len(path) - 1; n >= 0; n-- {
		e := path[n]
		switch e.kind {
		case edgeDep:
			steps = append(steps, fmt.Sprintf("rank %d: %s waits for %s", e.dst.r, j.nodeName(e.dst), j.nodeName(e.src)))
		case edgeMsg:
			steps = append(steps, fmt.Sprintf("rank %d: %s waits for rank %d: %s", e.dst.r, j.nodeName(e.dst), e.src.r, j.nodeName(e.src)))
		case edgeOrder:
			throughCall = true
			steps = append(steps, fmt.Sprintf("call %d of %s waits for call %d (rank %d: %s after %s)", e.call+1, j.CommName(e.comm), e.call, e.dst.r, j.nodeName(e.dst), j.nodeName(e.src)))
		}
		// The next edge leaves the vertex this one enters: if that is a
		// call, it may leave from another rank's node of the call.
		next := path[(n-1+len(path))%len(path)]
		if next.src != e.dst {
			throughCall = true
			c := callOf[next.from-first]
			steps = append(steps, fmt.Sprintf("rank %d: %s is call %d of %s, which waits for every rank to make it, rank %d by %s", next.src.r, j.nodeName(next.src), c[1], j.CommName(c[0]), e.dst.r, j.nodeName(e.dst)))
		}
	}
	msg := "a cycle of waits across ranks, which would idle until the run's stop: " + strings.Join(steps, "; ")
	if throughCall {
		msg += ". A communicator's k-th call is each of its ranks' k-th collective node of it in node order (dependencies first, then list position), and a rank makes its calls on a communicator one after the other: reorder the nodes, or add a dependency, so that the calls line up"
	} else {
		msg += ". A receive waits for its send: no send may wait, through dependencies, for its own receive"
	}
	return j.errorf(-1, nil, "%s", msg)
}

// nodeName is "node ID (name or kind, and for a send or recv its
// peer and tag)".
func (j *Job) nodeName(v vref) string {
	n := &j.Graphs[v.r][v.i]
	switch n.Kind {
	case Send:
		return fmt.Sprintf("node %d (%s to rank %d, tag %d)", n.ID, n.Label(), n.Peer, n.Tag)
	case Recv:
		return fmt.Sprintf("node %d (%s from rank %d, tag %d)", n.ID, n.Label(), n.Peer, n.Tag)
	}
	return fmt.Sprintf("node %d (%s)", n.ID, n.Label())
}
