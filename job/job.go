package job

import (
	"math"

	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/sim"
)

// Kind is what a node does.
type Kind uint8

// The node kinds.
const (
	// None does nothing: it is done when its dependencies are (a phase
	// of the job that does not involve the rank, a trace's marker).
	None Kind = iota
	// Compute takes the rank's time, Duration or FLOPs at Rate, and no
	// network; a rank's compute nodes that are ready at once overlap
	// (no GPU is modelled: chain them with Deps to run them one after
	// the other).
	Compute
	// Collective is a call of a collective on communicator Comm: it
	// starts at the rank when its dependencies are done (and the rank's
	// previous call on the communicator is, as one CUDA stream runs
	// NCCL's kernels), and is done when the rank's part of the call is.
	Collective
	// Send sends Size bytes to rank Peer, matched with the Recv there of
	// the same Tag; it is done when the network has delivered them and
	// the receiver acknowledged (the work request's completion).
	Send
	// Recv receives the bytes of the matching Send: done when its
	// dependencies are and the bytes have landed.
	Recv
)

var kindNames = [...]string{"none", "compute", "collective", "send", "recv"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// Node is one node of a rank's graph.
type Node struct {
	// ID names the node in its rank's graph (unique there; a Chakra
	// node's id).
	ID uint64
	// Name is what the timeline shows ("" shows the kind).
	Name string
	Kind Kind
	// Deps are the IDs of the rank's nodes this one waits for.
	Deps []uint64

	// Compute: Duration, or FLOPs (floating-point operations) at Rate
	// (FLOP/s) when Duration is 0.
	Duration    sim.Time
	FLOPs, Rate float64

	// Collective: Op over communicator Comms[Comm], Size bytes (as
	// nccl-tests' size: the whole buffer, per rank for all_gather,
	// reduce_scatter and all_to_all as collective.CallSize takes it),
	// Root the communicator's rank of a broadcast's or reduce's root.
	Op   collective.Op
	Comm int
	Root int

	// Size is the bytes of a collective, a Send or a Recv.
	Size int64

	// Send, Recv: the peer rank and the tag that matches them.
	Peer int
	Tag  int64
}

// ComputeTime is a Compute node's time: Duration, else FLOPs / Rate
// seconds, rounded to the engine's picosecond (0 for neither; Validate
// refuses FLOPs or a rate that are not finite, and a time beyond the
// engine's clock).
func (n *Node) ComputeTime() sim.Time {
	if n.Duration > 0 || n.FLOPs == 0 || n.Rate <= 0 {
		return n.Duration
	}
	return sim.Time(math.Round(n.FLOPs / n.Rate * float64(sim.Second)))
}

// Label is the node's name, or its kind's.
func (n *Node) Label() string {
	if n.Name != "" {
		return n.Name
	}
	if n.Kind == Collective {
		return n.Op.String()
	}
	return n.Kind.String()
}

// Comm is a communicator (a process group): the job's ranks it spans,
// in its rank order, and how NCCL runs its calls.
type Comm struct {
	// Name is the process group's name (a Chakra pg_name), for errors.
	Name  string
	Ranks []int
	// Algorithm is used for every call when AlgorithmSet; else each
	// operation's default (collective.DefaultAlgorithm).
	Algorithm    collective.Algorithm
	AlgorithmSet bool
	// Protocol is forced when ProtocolSet; else NCCL's tuning chooses.
	Protocol    collective.Protocol
	ProtocolSet bool
	// Channels (1 to 64) and QPs (NCCL_IB_QPS_PER_CONNECTION, 1 to
	// MaxQPs); 0 takes the collective generator's defaults (2 and 1).
	// Chunk, in bytes: 0 is NCCL's.
	Channels, QPs int
	Chunk         int64
	// RailAware and PXN, on GPU servers (the runner's default when
	// NoRail is false: both true, NCCL's).
	NoRailAware, NoPXN bool
}

// Job is a training job: its ranks' graphs, run Iterations times.
type Job struct {
	Name string
	// Ranks is how many ranks the job has; Graphs[r] is rank r's nodes.
	Ranks      int
	Graphs     [][]Node
	Comms      []Comm
	Iterations int
}

// Uniform is a job whose every rank runs the same nodes (SPMD): Send
// and Recv nodes must then be given per rank, so Uniform is for jobs of
// compute and collectives; nodes is copied per rank.
func Uniform(name string, ranks int, nodes []Node, comms []Comm, iterations int) *Job {
	j := &Job{Name: name, Ranks: ranks, Comms: comms, Iterations: iterations}
	for range ranks {
		j.Graphs = append(j.Graphs, append([]Node(nil), nodes...))
	}
	return j
}
