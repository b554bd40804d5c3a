package chakra

import (
	"fmt"
	"math"
	"slices"

	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/job"
	"github.com/lfsim/lfsim/sim"
)

// p2pTagBase is the first tag of the sends and receives a GATHER or a
// SCATTER becomes: above every comm_tag (a 32-bit value), so they match
// none of the trace's own.
const p2pTagBase = int64(1) << 32

// ops are the collectives' calls (GATHER and SCATTER are sends).
var ops = map[CommType]collective.Op{AllReduce: collective.AllReduce, ReduceScatter: collective.ReduceScatter,
	ReduceScatterBlock: collective.ReduceScatter, AllGather: collective.AllGather, AllToAll: collective.AllToAll,
	Broadcast: collective.Broadcast, Reduce: collective.Reduce, Barrier: collective.AllReduce}

// MaxFileBytes is the largest rank file (or communicator-group file)
// lfsim reads, 256 MiB: PyTorch's traces of a large model run to tens
// of MiB a rank.
const MaxFileBytes = 256 << 20

// maxMicros is the longest duration_micros sim.Time holds.
const maxMicros = uint64(math.MaxInt64 / int64(sim.Microsecond))

// JobGraph converts the trace into lfsim's job graph, named name and run
// iterations times. Each rank's nodes are listed in id order, so that
// the job's order (its ready nodes by list position) is the order its
// calls were matched in here. COMP, MEM_LOAD and MEM_STORE nodes are
// compute of duration_micros; METADATA and INVALID nodes are no work;
// a collective is the job's call on the communicator of its group
// (comm_size converted by NCCLTestsSize; BROADCAST and REDUCE rooted at
// the group's first rank, as Chakra names no root; REDUCE_SCATTER_BLOCK
// as REDUCE_SCATTER; BARRIER an ALL_REDUCE of BarrierBytes), and is no
// work in a group of one rank. GATHER and SCATTER, which NCCL has no
// call for, are sends of comm_size between the root (the group's first
// rank) and each other rank: at the root, one receive (GATHER) or send
// (SCATTER) per other rank, waiting on the node's dependencies, with the
// node itself done when they all are; at another rank, the node is its
// one send or receive. COMM_SEND and COMM_RECV are the job's sends and
// receives, of their comm_tag. No node waits for a resource: ASTRA-sim
// runs one GPU kernel, one CPU op and one communication at a time per
// NPU (workload/HardwareResource.cc), where the job graph runs whatever
// the dependencies let run.
func (j *Job) JobGraph(name string, iterations int) (*job.Job, error) {
	out := &job.Job{Name: name, Ranks: len(j.Ranks), Graphs: make([][]job.Node, len(j.Ranks)), Iterations: iterations}
	byNode := map[Ref]*job.Node{}
	extra := make([][]job.Node, len(j.Ranks))
	nextID := make([]uint64, len(j.Ranks))
	for r, t := range j.Ranks {
		nodes := make([]job.Node, len(t.Nodes))
		for i := range t.Nodes {
			n := &t.Nodes[i]
			jn := job.Node{ID: n.ID, Name: n.Name, Deps: n.Deps()}
			switch n.Type {
			case CompNode, MemLoadNode, MemStoreNode:
				if n.DurationMicros > maxMicros {
					return nil, nodeErr(t.File, n.ID, "duration_micros %d: expected at most %d (about 106 days)", n.DurationMicros, maxMicros)
				}
				jn.Kind, jn.Duration = job.Compute, sim.Time(n.DurationMicros)*sim.Microsecond
			case SendNode, RecvNode:
				if n.Comm.Size > math.MaxInt64 {
					return nil, nodeErr(t.File, n.ID, "comm_size %d: expected at most 2^63-1 bytes", n.Comm.Size)
				}
				jn.Kind, jn.Size, jn.Tag, jn.Peer = job.Send, int64(n.Comm.Size), int64(n.Comm.Tag), n.Comm.Dst
				if n.Type == RecvNode {
					jn.Kind, jn.Peer = job.Recv, n.Comm.Src
				}
			}
			nodes[i] = jn
			nextID[r] = max(nextID[r], n.ID+1)
		}
		slices.SortFunc(nodes, func(a, b job.Node) int { return cmpU64(a.ID, b.ID) })
		out.Graphs[r] = nodes
		for i := range nodes {
			byNode[Ref{r, nodes[i].ID}] = &out.Graphs[r][i]
		}
	}
	comms := map[string]int{}
	for ci, c := range j.Collectives {
		n := len(c.Ranks)
		if n < 2 {
			continue // a group of one rank moves nothing
		}
		lead := j.Ranks[c.Nodes[0].Rank]
		size := c.Type.NCCLTestsSize(c.Size, n)
		if c.Size > math.MaxInt64/uint64(n) {
			return nil, nodeErr(lead.File, c.Nodes[0].ID, "comm_size %d over %d ranks: expected at most 2^63-1 bytes in all", c.Size, n)
		}
		switch c.Type {
		case Gather, Scatter:
			tag := p2pTagBase + int64(ci)
			root := c.Ranks[0]
			// Each transfer waits on the node's own dependencies only,
			// taken before the loop adds the transfers to the root's node.
			base := slices.Clone(byNode[c.Nodes[0]].Deps)
			for i, ref := range c.Nodes {
				jn := byNode[ref]
				if i == 0 {
					continue
				}
				jn.Kind, jn.Size, jn.Tag, jn.Peer = job.Send, int64(c.Size), tag, root
				if c.Type == Scatter {
					jn.Kind = job.Recv
				}
				rootNode := byNode[c.Nodes[0]]
				if nextID[root] == 0 {
					return nil, nodeErr(lead.File, rootNode.ID, "no node id is left above this one for the transfers of its %s", c.Type)
				}
				p := job.Node{ID: nextID[root], Name: fmt.Sprintf("%s (rank %d)", rootNode.Name, ref.Rank), Kind: job.Recv,
					Deps: slices.Clone(base), Size: int64(c.Size), Tag: tag, Peer: ref.Rank}
				if c.Type == Scatter {
					p.Kind = job.Send
				}
				nextID[root]++
				extra[root] = append(extra[root], p)
				rootNode.Deps = append(rootNode.Deps, p.ID)
			}
			continue
		}
		comm, ok := comms[c.Group]
		if !ok {
			comm = len(out.Comms)
			comms[c.Group] = comm
			out.Comms = append(out.Comms, job.Comm{Name: c.Group, Ranks: slices.Clone(c.Ranks)})
		}
		op := ops[c.Type]
		for _, ref := range c.Nodes {
			jn := byNode[ref]
			jn.Kind, jn.Op, jn.Comm, jn.Size, jn.Root = job.Collective, op, comm, int64(size), 0
		}
	}
	for r := range out.Graphs {
		out.Graphs[r] = append(out.Graphs[r], extra[r]...)
	}
	return out, nil
}
