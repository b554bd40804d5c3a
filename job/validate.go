package job

import (
	"fmt"
	"math"
	"slices"

	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/sim"
)

// Validate checks the job against hosts, the hosts it runs on (one
// rank a host; 0 skips that check), and returns each rank's graph. It
// refuses, naming the rank and node: a rank count other than the
// hosts', an unknown or repeated node id, a dependency cycle, a
// communicator or peer outside the job's ranks, a collective at a rank
// not in its communicator or of an unknown operation, a compute node
// whose FLOPs or rate are not finite numbers or whose time does not fit
// the engine's clock (about 106 days), a communicator that the
// collective generator would refuse (negative channels or chunk, QPs
// outside 0 to 65535, an unknown algorithm or protocol, a protocol one
// of its algorithms does not run on, halving_doubling over other than a
// power of two of ranks), and communication that does not match across
// ranks (the k-th calls of a communicator differ in operation, size or
// root, or a rank makes fewer; a Send without its Recv), and a loop of
// waits across the ranks (crossCycle: each rank's graph acyclic, the
// ranks waiting for each other through their sends, receives and
// calls, in the calls' order). A compute node
// of neither a duration nor FLOPs takes no time (Chakra's traces have
// such nodes).
func (j *Job) Validate(hosts int) ([]*Graph, error) {
	switch {
	case j.Ranks < 1:
		return nil, j.errorf(-1, nil, "has %d ranks; a job needs at least one", j.Ranks)
	case len(j.Graphs) != j.Ranks:
		return nil, j.errorf(-1, nil, "has %d ranks but %d graphs; each rank needs its graph", j.Ranks, len(j.Graphs))
	case hosts > 0 && hosts != j.Ranks:
		return nil, j.errorf(-1, nil, "has %d ranks but runs on %d hosts; one host a rank", j.Ranks, hosts)
	case j.Iterations < 1:
		return nil, j.errorf(-1, nil, "iterations is %d; at least 1", j.Iterations)
	}
	if err := j.checkOps(); err != nil {
		return nil, err
	}
	for c := range j.Comms {
		if err := j.checkComm(c); err != nil {
			return nil, err
		}
	}
	graphs := make([]*Graph, j.Ranks)
	for r := range j.Graphs {
		for i := range j.Graphs[r] {
			if err := j.checkNode(r, &j.Graphs[r][i]); err != nil {
				return nil, err
			}
		}
		g, err := j.Graph(r)
		if err != nil {
			return nil, err
		}
		graphs[r] = g
	}
	if err := j.matchCollectives(graphs); err != nil {
		return nil, err
	}
	if err := j.matchP2P(graphs); err != nil {
		return nil, err
	}
	if err := j.crossCycle(graphs); err != nil {
		return nil, err
	}
	return graphs, nil
}

// CommName is "communicator c" and its name, for errors.
func (j *Job) CommName(c int) string {
	if n := j.Comms[c].Name; n != "" {
		return fmt.Sprintf("communicator %d (%s)", c, n)
	}
	return fmt.Sprintf("communicator %d", c)
}

func (j *Job) checkComm(c int) error {
	cm := &j.Comms[c]
	if len(cm.Ranks) < 2 {
		return j.errorf(-1, nil, "%s has %d ranks; a collective needs at least 2", j.CommName(c), len(cm.Ranks))
	}
	seen := map[int]bool{}
	for _, r := range cm.Ranks {
		switch {
		case r < 0 || r >= j.Ranks:
			return j.errorf(-1, nil, "%s names rank %d; the job's ranks are 0 to %d", j.CommName(c), r, j.Ranks-1)
		case seen[r]:
			return j.errorf(-1, nil, "%s names rank %d twice", j.CommName(c), r)
		}
		seen[r] = true
	}
	switch {
	case cm.Channels < 0 || cm.Channels > maxChannels:
		return j.errorf(-1, nil, "%s has %d channels; 1 to %d, or 0 for the default (2)", j.CommName(c), cm.Channels, maxChannels)
	case cm.QPs < 0 || cm.QPs > MaxQPs:
		return j.errorf(-1, nil, "%s has %d QPs a connection; 1 to %d, or 0 for the default (1)", j.CommName(c), cm.QPs, MaxQPs)
	case cm.Chunk < 0:
		return j.errorf(-1, nil, "%s's chunk is %d bytes; it must not be negative (0 is NCCL's)", j.CommName(c), cm.Chunk)
	case cm.AlgorithmSet && int(cm.Algorithm) >= len(collective.Algorithms()):
		return j.errorf(-1, nil, "%s has algorithm %d; the algorithms are %v", j.CommName(c), cm.Algorithm, collective.Algorithms())
	case cm.ProtocolSet && int(cm.Protocol) >= len(collective.Protocols()):
		return j.errorf(-1, nil, "%s has protocol %d; the protocols are %v", j.CommName(c), cm.Protocol, collective.Protocols())
	}
	for _, r := range cm.Ranks {
		for i := range j.Graphs[r] {
			n := &j.Graphs[r][i]
			if n.Kind != Collective || n.Comm != c {
				continue
			}
			a := collective.DefaultAlgorithm(n.Op)
			if cm.AlgorithmSet {
				a = cm.Algorithm
			}
			switch nr := len(cm.Ranks); {
			case !a.Supports(n.Op):
				return j.errorf(r, n, "%s does not run %s; %s runs on %s", a, n.Op, n.Op, collective.SupportedBy(n.Op))
			case cm.ProtocolSet && !a.Uses(cm.Protocol):
				return j.errorf(r, n, "%s of %s is %s, which does not run on %s; %s runs on %s", n.Op, j.CommName(c), a, collective.Protocols()[cm.Protocol], a, collective.ProtocolsOf(a))
			case a == collective.HalvingDoubling && nr&(nr-1) != 0:
				return j.errorf(r, n, "%s of %s is halving_doubling, which needs a power of two of ranks, not %d (MPICH's and Gloo's steps for the others are not modelled)", n.Op, j.CommName(c), nr)
			}
		}
	}
	return nil
}

// maxChannels is the collective generator's bound on channels (its
// channels key, 1 to 64: NCCL's MAXCHANNELS).
const maxChannels = 64

// MaxQPs bounds a communicator's QPs a connection: the collectives'
// runner packs a QP's index into a work request's id in 16 bits
// (assembly's collEnd).
const MaxQPs = 0xFFFF

// maxComputeSeconds is the longest compute node, in seconds: the
// engine's clock, an int64 of picoseconds, holds about 106 days.
const maxComputeSeconds = float64(math.MaxInt64) / float64(sim.Second)

// checkOps refuses a collective node of an unknown operation, before
// anything prints one.
func (j *Job) checkOps() error {
	for r := range j.Graphs {
		for i := range j.Graphs[r] {
			if n := &j.Graphs[r][i]; n.Kind == Collective && int(n.Op) >= len(collective.Ops()) {
				return j.errorf(r, n, "a collective of operation %d; the operations are %v", n.Op, collective.Ops())
			}
		}
	}
	return nil
}

func (j *Job) checkNode(r int, n *Node) error {
	switch n.Kind {
	case None:
	case Compute:
		switch {
		case n.Duration < 0:
			return j.errorf(r, n, "a compute node's duration is %v; it must not be negative", n.Duration)
		case math.IsNaN(n.FLOPs) || math.IsInf(n.FLOPs, 0) || math.IsNaN(n.Rate) || math.IsInf(n.Rate, 0):
			return j.errorf(r, n, "a compute node of %g FLOPs at %g FLOP/s; both must be finite numbers", n.FLOPs, n.Rate)
		case n.Duration == 0 && n.FLOPs != 0 && (n.FLOPs < 0 || n.Rate <= 0):
			return j.errorf(r, n, "a compute node of FLOPs needs FLOPs >= 0 and a rate > 0 (FLOP/s), not %g at %g", n.FLOPs, n.Rate)
		case n.Duration == 0 && n.FLOPs/n.Rate > maxComputeSeconds:
			return j.errorf(r, n, "a compute node of %g FLOPs at %g FLOP/s takes %.3g s; at most %.3g s (about 106 days) fit the engine's clock (is the rate in FLOP/s?)", n.FLOPs, n.Rate, n.FLOPs/n.Rate, maxComputeSeconds)
		}
	case Collective:
		if n.Comm < 0 || n.Comm >= len(j.Comms) {
			return j.errorf(r, n, "names communicator %d; the job has %d", n.Comm, len(j.Comms))
		}
		cm := &j.Comms[n.Comm]
		if !slices.Contains(cm.Ranks, r) {
			return j.errorf(r, n, "is a collective of %s, which rank %d is not in (its ranks: %v)", j.CommName(n.Comm), r, cm.Ranks)
		}
		if n.Size < 0 {
			return j.errorf(r, n, "a collective of %d bytes; the size must not be negative", n.Size)
		}
		if n.Op.Rooted() && (n.Root < 0 || n.Root >= len(cm.Ranks)) {
			return j.errorf(r, n, "%s's root is %d; it must be a rank of %s, 0 to %d", n.Op, n.Root, j.CommName(n.Comm), len(cm.Ranks)-1)
		}
	case Send, Recv:
		switch {
		case n.Peer < 0 || n.Peer >= j.Ranks:
			return j.errorf(r, n, "a %s with peer rank %d; the job's ranks are 0 to %d", n.Kind, n.Peer, j.Ranks-1)
		case n.Peer == r:
			return j.errorf(r, n, "a %s to its own rank", n.Kind)
		case n.Size < 0:
			return j.errorf(r, n, "a %s of %d bytes; the size must not be negative", n.Kind, n.Size)
		}
	default:
		return j.errorf(r, n, "has kind %d; the kinds are none, compute, collective, send and recv", n.Kind)
	}
	return nil
}

// Collectives is rank r's collective nodes of communicator c, in the
// rank's order: the k-th is the communicator's k-th call.
func (j *Job) Collectives(g *Graph, r, c int) []int32 {
	var out []int32
	for _, i := range g.Order {
		if n := &j.Graphs[r][i]; n.Kind == Collective && n.Comm == c {
			out = append(out, i)
		}
	}
	return out
}

// matchCollectives: every rank of a communicator makes the same calls
// in the same order (NCCL's rule for a communicator).
func (j *Job) matchCollectives(graphs []*Graph) error {
	for c := range j.Comms {
		ranks := j.Comms[c].Ranks
		first := j.Collectives(graphs[ranks[0]], ranks[0], c)
		for _, r := range ranks[1:] {
			calls := j.Collectives(graphs[r], r, c)
			for k := range min(len(first), len(calls)) {
				a, b := &j.Graphs[ranks[0]][first[k]], &j.Graphs[r][calls[k]]
				if a.Op != b.Op || a.Size != b.Size || (a.Op.Rooted() && a.Root != b.Root) {
					return j.errorf(r, b, "call %d of %s is %s of %d bytes, but rank %d's (node %d) is %s of %d bytes; every rank of a communicator makes the same calls in the same order",
						k, j.CommName(c), b.Op, b.Size, ranks[0], a.ID, a.Op, a.Size)
				}
			}
			if len(first) != len(calls) {
				short, long, rs := r, ranks[0], first
				if len(calls) > len(first) {
					short, long, rs = ranks[0], r, calls
				}
				return j.errorf(short, nil, "makes %d calls of %s, rank %d makes %d (its call %d is node %d); every rank of a communicator makes the same calls",
					min(len(first), len(calls)), j.CommName(c), long, max(len(first), len(calls)), min(len(first), len(calls)), j.Graphs[long][rs[min(len(first), len(calls))]].ID)
			}
		}
	}
	return nil
}

// P2PKey is a Send's or Recv's match: sender, receiver and tag.
type P2PKey struct {
	From, To int
	Tag      int64
}

// P2P is the job's sends matched with their receives: for each key,
// the sends in the sender's order and the receives in the receiver's.
type P2P struct {
	Keys  []P2PKey // in the order first met (rank by rank)
	Sends map[P2PKey][]int32
	Recvs map[P2PKey][]int32
}

// Matches lists the job's sends and receives by key.
func (j *Job) Matches(graphs []*Graph) *P2P {
	p := &P2P{Sends: map[P2PKey][]int32{}, Recvs: map[P2PKey][]int32{}}
	for r, g := range graphs {
		for _, i := range g.Order {
			n := &j.Graphs[r][i]
			var k P2PKey
			var m map[P2PKey][]int32
			switch n.Kind {
			case Send:
				k, m = P2PKey{r, n.Peer, n.Tag}, p.Sends
			case Recv:
				k, m = P2PKey{n.Peer, r, n.Tag}, p.Recvs
			default:
				continue
			}
			if _, ok := p.Sends[k]; !ok {
				if _, ok := p.Recvs[k]; !ok {
					p.Keys = append(p.Keys, k)
				}
			}
			m[k] = append(m[k], i)
		}
	}
	return p
}

func (j *Job) matchP2P(graphs []*Graph) error {
	p := j.Matches(graphs)
	for _, k := range p.Keys {
		s, rv := p.Sends[k], p.Recvs[k]
		for i := range min(len(s), len(rv)) {
			a, b := &j.Graphs[k.From][s[i]], &j.Graphs[k.To][rv[i]]
			if a.Size != b.Size {
				return j.errorf(k.To, b, "receives %d bytes from rank %d (tag %d), but its send (node %d) sends %d", b.Size, k.From, k.Tag, a.ID, a.Size)
			}
		}
		switch {
		case len(s) > len(rv):
			n := &j.Graphs[k.From][s[len(rv)]]
			return j.errorf(k.From, n, "a send to rank %d with tag %d that rank %d never receives (%d sends, %d receives); each send needs a recv of the same peer and tag", k.To, k.Tag, k.To, len(s), len(rv))
		case len(rv) > len(s):
			n := &j.Graphs[k.To][rv[len(s)]]
			return j.errorf(k.To, n, "a recv from rank %d with tag %d that rank %d never sends (%d sends, %d receives); each recv needs a send of the same peer and tag", k.From, k.Tag, k.From, len(s), len(rv))
		}
	}
	return nil
}
