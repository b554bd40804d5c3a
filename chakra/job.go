package chakra

import (
	"container/heap"
	"fmt"
	"slices"
	"strconv"
)

// Job is a trace's ranks assembled: every node checked, the collectives
// matched across the ranks of their groups and the sends matched with
// their receives.
type Job struct {
	// Ranks holds rank r's trace at r.
	Ranks []*Trace
	// Groups are the communicator groups the traces may name: the
	// communicator-group file's and those the METADATA nodes declare.
	Groups Groups
	// Collectives are the collectives, each called by every rank of its
	// group; in the order of their groups' names ("" first) and, within
	// a group, of their calls.
	Collectives []Collective
	// Transfers are the sends, each with its receive, in the order of
	// (source, destination, tag) and then of their calls.
	Transfers []Transfer
}

// Ref names a node of a rank.
type Ref struct {
	Rank int
	ID   uint64
}

// Collective is one collective as every rank of its group calls it.
type Collective struct {
	Type CommType
	// Size is comm_size, the bytes each rank puts in (as ASTRA-sim
	// takes it; NCCLTestsSize gives nccl-tests' size).
	Size uint64
	// Group is the process group's name ("" for every rank).
	Group string
	// Ranks are the group's ranks; Nodes[i] is the call of Ranks[i].
	Ranks []int
	Nodes []Ref
}

// Transfer is a send matched with its receive.
type Transfer struct {
	Src, Dst   int
	Tag        uint32
	Size       uint64
	Send, Recv Ref
}

// Assemble checks traces (rank r's at r) and matches their
// communication. Each rank's dependencies must name nodes of its own
// file and make no cycle. A collective's k-th call in a group at one
// rank is its k-th at every rank of the group (calls in a static
// topological order, the lowest id first among nodes ready together:
// like ASTRA-sim's order for nodes that become free at the same moment,
// but fixed before the run, where ASTRA-sim's depends on the durations
// and the busy hardware; see job's doc on static order); they
// must agree on comm_type and comm_size, and every rank of the group
// must call it. The k-th send from s to d with a tag is the k-th receive
// at d from s with that tag; their sizes must agree. Last, the ranks
// together must not wait on each other in a cycle (a deadlock).
func Assemble(traces []*Trace, groups Groups) (*Job, error) {
	j := &Job{Ranks: traces, Groups: groups}
	for _, t := range traces {
		if err := checkDeps(t); err != nil {
			return nil, err
		}
	}
	var err error
	if j.Groups, err = addMetadataGroups(traces, groups); err != nil {
		return nil, err
	}
	if err := j.matchCollectives(); err != nil {
		return nil, err
	}
	if err := j.matchTransfers(); err != nil {
		return nil, err
	}
	if err := j.checkDeadlock(); err != nil {
		return nil, err
	}
	return j, nil
}

// groupOf returns a collective's group key and ranks: "" (every rank)
// for pg_name "" or "0", as ASTRA-sim's extract_comm_group takes them.
func (j *Job) groupOf(t *Trace, n *Node) (string, []int, error) {
	name := n.Comm.Group
	if name == "" || name == "0" {
		all := make([]int, len(j.Ranks))
		for i := range all {
			all[i] = i
		}
		return "", all, nil
	}
	id, err := strconv.Atoi(name)
	if err != nil {
		return "", nil, nodeErr(t.File, n.ID, "pg_name %q: expected a communicator group's id, an integer as ASTRA-sim reads it", name)
	}
	key := strconv.Itoa(id)
	ranks, ok := j.Groups[key]
	if !ok {
		return "", nil, nodeErr(t.File, n.ID, "pg_name %q: no such communicator group: expected \"\" or \"0\" (every rank) or a group of the communicator-group file or of a METADATA node (%s)", name, groupNames(j.Groups))
	}
	return key, ranks, nil
}

func groupNames(g Groups) string {
	if len(g) == 0 {
		return "none given"
	}
	names := make([]string, 0, len(g))
	for k := range g {
		names = append(names, strconv.Quote(k))
	}
	slices.Sort(names)
	return "groups " + joinOr(names)
}

// inOrder lists a trace's nodes of one type in its call order: a
// topological order of its dependencies that takes, of the nodes ready
// together, the lowest id first. It is a static order: ASTRA-sim too
// issues the nodes free at one moment in id order
// (Workload::issue_dep_free_nodes), but it does so at run time, as
// nodes become free (durations decide which are free together) and
// only when the hardware resource is available, so a trace whose calls
// on one group become ready in a different order on different ranks is
// paired here differently from ASTRA-sim. The trace has passed checkDeps.
func inOrder(t *Trace, typ NodeType) []*Node {
	var out []*Node
	for _, i := range t.order() {
		if t.Nodes[i].Type == typ {
			out = append(out, &t.Nodes[i])
		}
	}
	return out
}

// order is the trace's call order, as indices into Nodes (computed once).
func (t *Trace) order() []int {
	if t.calls != nil || len(t.Nodes) == 0 {
		return t.calls
	}
	indeg := make([]int, len(t.Nodes))
	succ := make([][]int, len(t.Nodes))
	for i := range t.Nodes {
		for _, d := range t.Nodes[i].Deps() {
			k := t.index[d]
			succ[k] = append(succ[k], i)
			indeg[i]++
		}
	}
	ready := &readyHeap{t: t}
	for i := range t.Nodes {
		if indeg[i] == 0 {
			heap.Push(ready, i)
		}
	}
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		t.calls = append(t.calls, i)
		for _, s := range succ[i] {
			if indeg[s]--; indeg[s] == 0 {
				heap.Push(ready, s)
			}
		}
	}
	return t.calls
}

// readyHeap holds node indices, the lowest node id on top.
type readyHeap struct {
	t *Trace
	v []int
}

func (h *readyHeap) Len() int           { return len(h.v) }
func (h *readyHeap) Less(a, b int) bool { return h.t.Nodes[h.v[a]].ID < h.t.Nodes[h.v[b]].ID }
func (h *readyHeap) Swap(a, b int)      { h.v[a], h.v[b] = h.v[b], h.v[a] }
func (h *readyHeap) Push(x any)         { h.v = append(h.v, x.(int)) }
func (h *readyHeap) Pop() any {
	x := h.v[len(h.v)-1]
	h.v = h.v[:len(h.v)-1]
	return x
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// matchCollectives pairs the k-th call of each group across its ranks.
func (j *Job) matchCollectives() error {
	calls := map[string][][]*Node{} // group -> rank -> calls in id order
	members := map[string][]int{}
	for r, t := range j.Ranks {
		for _, n := range inOrder(t, CollNode) {
			key, ranks, err := j.groupOf(t, n)
			if err != nil {
				return err
			}
			if !slices.Contains(ranks, r) {
				return nodeErr(t.File, n.ID, "pg_name %q is the group of ranks %v, which does not hold rank %d: expected a group this rank is in", n.Comm.Group, ranks, r)
			}
			if calls[key] == nil {
				calls[key] = make([][]*Node, len(j.Ranks))
				members[key] = ranks
			}
			calls[key][r] = append(calls[key][r], n)
		}
	}
	keys := make([]string, 0, len(calls))
	for k := range calls {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		ia, _ := strconv.Atoi(a)
		ib, _ := strconv.Atoi(b)
		if a == "" || b == "" {
			return len(a) - len(b)
		}
		return ia - ib
	})
	for _, key := range keys {
		ranks := members[key]
		first := ranks[0]
		want := len(calls[key][first])
		for _, r := range ranks {
			if got := len(calls[key][r]); got != want {
				return fmt.Errorf("%s: %d collectives in %s, but %s has %d: expected every rank of the group to call each collective", j.Ranks[r].File, got, groupLabel(key), j.Ranks[first].File, want)
			}
		}
		for k := range want {
			lead := calls[key][first][k]
			c := Collective{Type: lead.Comm.Type, Size: lead.Comm.Size, Group: key, Ranks: slices.Clone(ranks)}
			for _, r := range ranks {
				n := calls[key][r][k]
				if n.Comm.Type != c.Type || n.Comm.Size != c.Size {
					return nodeErr(j.Ranks[r].File, n.ID, "call %d of %s is %s of %d bytes, but %s node %d (the same call there) is %s of %d bytes: expected the ranks to agree",
						k+1, groupLabel(key), n.Comm.Type, n.Comm.Size, j.Ranks[first].File, lead.ID, c.Type, c.Size)
				}
				c.Nodes = append(c.Nodes, Ref{Rank: r, ID: n.ID})
			}
			j.Collectives = append(j.Collectives, c)
		}
	}
	return nil
}

func groupLabel(key string) string {
	if key == "" {
		return "the group of every rank"
	}
	return "communicator group " + strconv.Quote(key)
}

type pairKey struct {
	src, dst int
	tag      uint32
}

// matchTransfers pairs each send with its receive.
func (j *Job) matchTransfers() error {
	sends := map[pairKey][]Ref{}
	recvs := map[pairKey][]Ref{}
	var keys []pairKey
	for r, t := range j.Ranks {
		for _, typ := range [2]NodeType{SendNode, RecvNode} {
			for _, n := range inOrder(t, typ) {
				c := n.Comm
				if typ == SendNode && c.Src < 0 {
					c.Src = r
				}
				if typ == RecvNode && c.Dst < 0 {
					c.Dst = r
				}
				own, peer, ownName, peerName := c.Src, c.Dst, "comm_src", "comm_dst"
				if typ == RecvNode {
					own, peer, ownName, peerName = c.Dst, c.Src, "comm_dst", "comm_src"
				}
				if own != r {
					return nodeErr(t.File, n.ID, "a %s with %s %d in rank %d's file: expected %s %d (ASTRA-sim: it is issued by its own rank)", typ, ownName, own, r, ownName, r)
				}
				if peer >= len(j.Ranks) || peer == r {
					return nodeErr(t.File, n.ID, "%s %d: expected another rank, from 0 to %d", peerName, peer, len(j.Ranks)-1)
				}
				k := pairKey{c.Src, c.Dst, c.Tag}
				if typ == SendNode {
					if sends[k] == nil && recvs[k] == nil {
						keys = append(keys, k)
					}
					sends[k] = append(sends[k], Ref{r, n.ID})
				} else {
					if sends[k] == nil && recvs[k] == nil {
						keys = append(keys, k)
					}
					recvs[k] = append(recvs[k], Ref{r, n.ID})
				}
			}
		}
	}
	slices.SortFunc(keys, func(a, b pairKey) int {
		if a.src != b.src {
			return a.src - b.src
		}
		if a.dst != b.dst {
			return a.dst - b.dst
		}
		return cmpU64(uint64(a.tag), uint64(b.tag))
	})
	for _, k := range keys {
		s, r := sends[k], recvs[k]
		for i := range max(len(s), len(r)) {
			if i >= len(r) {
				return nodeErr(j.Ranks[k.src].File, s[i].ID, "a send to rank %d with tag %d that no receive matches: expected a COMM_RECV_NODE in %s with comm_src %d and comm_tag %d for it",
					k.dst, k.tag, j.Ranks[k.dst].File, k.src, k.tag)
			}
			if i >= len(s) {
				return nodeErr(j.Ranks[k.dst].File, r[i].ID, "a receive from rank %d with tag %d that no send matches: expected a COMM_SEND_NODE in %s with comm_dst %d and comm_tag %d for it",
					k.src, k.tag, j.Ranks[k.src].File, k.dst, k.tag)
			}
			sn, _ := j.Ranks[k.src].Node(s[i].ID)
			rn, _ := j.Ranks[k.dst].Node(r[i].ID)
			if sn.Comm.Size != rn.Comm.Size {
				return nodeErr(j.Ranks[k.dst].File, rn.ID, "a receive of %d bytes, but its send (%s node %d) sends %d: expected the sizes to agree", rn.Comm.Size, j.Ranks[k.src].File, sn.ID, sn.Comm.Size)
			}
			j.Transfers = append(j.Transfers, Transfer{Src: k.src, Dst: k.dst, Tag: k.tag, Size: sn.Comm.Size, Send: s[i], Recv: r[i]})
		}
	}
	return nil
}
