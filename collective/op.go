package collective

import "strings"

// Op is a collective operation, as NCCL names them (ncclAllReduce, ...).
type Op uint8

// The operations.
const (
	AllReduce Op = iota
	ReduceScatter
	AllGather
	AllToAll
	Broadcast
	Reduce
)

var opNames = [...]string{"all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast", "reduce"}

// Ops lists the operations' names, in order.
func Ops() []string { return opNames[:] }

func (o Op) String() string { return opNames[o] }

// ParseOp reads an operation's name.
func ParseOp(s string) (Op, bool) {
	for i, n := range opNames {
		if n == s {
			return Op(i), true
		}
	}
	return 0, false
}

// Rooted reports whether the operation has a root (broadcast, reduce).
func (o Op) Rooted() bool { return o == Broadcast || o == Reduce }

// BusFactor is nccl-tests' correction from algorithm to bus bandwidth
// for n ranks (its doc/PERFORMANCE.md, "Summary"; src/*.cu's GetBw):
// all_reduce 2(n-1)/n; reduce_scatter, all_gather and all_to_all
// (n-1)/n; broadcast and reduce 1.
func (o Op) BusFactor(n int) float64 {
	switch o {
	case AllReduce:
		return 2 * float64(n-1) / float64(n)
	case ReduceScatter, AllGather, AllToAll:
		return float64(n-1) / float64(n)
	}
	return 1
}

// Algorithm is how a collective moves its data.
type Algorithm uint8

// The algorithms: NCCL's ring and double binary tree, MPI's and Gloo's
// halving-doubling (Rabenseifner's; not NCCL's), and direct sends to
// every peer (NCCL's all-to-all, grouped ncclSend/ncclRecv).
const (
	Ring Algorithm = iota
	Tree
	HalvingDoubling
	Direct
)

var algoNames = [...]string{"ring", "tree", "halving_doubling", "direct"}

// Algorithms lists the algorithms' names, in order.
func Algorithms() []string { return algoNames[:] }

func (a Algorithm) String() string { return algoNames[a] }

// ParseAlgorithm reads an algorithm's name.
func ParseAlgorithm(s string) (Algorithm, bool) {
	for i, n := range algoNames {
		if n == s {
			return Algorithm(i), true
		}
	}
	return 0, false
}

// Supports says whether algorithm a runs operation o, as NCCL's tuning
// allows them (src/graph/tuning.cc: tree for all_reduce only; broadcast
// and reduce on rings only; all_to_all as point-to-point sends), and
// halving-doubling as MPICH and Gloo run it (all_reduce; its two
// halves, reduce_scatter and all_gather). DefaultAlgorithm is o's
// default.
func (a Algorithm) Supports(o Op) bool {
	switch a {
	case Ring:
		return o != AllToAll
	case Tree:
		return o == AllReduce
	case HalvingDoubling:
		return o == AllReduce || o == ReduceScatter || o == AllGather
	case Direct:
		return o == AllToAll
	}
	return false
}

// DefaultAlgorithm is the algorithm an operation runs unless told:
// direct for all_to_all, ring for the others.
func DefaultAlgorithm(o Op) Algorithm {
	if o == AllToAll {
		return Direct
	}
	return Ring
}

// Uses says whether algorithm a runs on protocol p: NCCL's ring and
// tree on all three (src/graph/tuning.cc); its point-to-point sends,
// direct, on LL or Simple only (src/enqueue.cc, the p2p task's
// "protocol[dir] = protoLL[dir] ? NCCL_PROTO_LL : NCCL_PROTO_SIMPLE");
// halving-doubling, MPI's and Gloo's, on Simple only (neither has LL).
func (a Algorithm) Uses(p Protocol) bool {
	switch a {
	case HalvingDoubling:
		return p == Simple
	case Direct:
		return p != LL128
	}
	return true
}

// ProtocolsOf lists the protocols a runs on, by their key's names.
func ProtocolsOf(a Algorithm) string {
	var s []string
	for i, n := range Protocols() {
		if a.Uses(Protocol(i)) {
			s = append(s, n)
		}
	}
	return strings.Join(s, ", ")
}

// SupportedBy lists the algorithms that run o, by name.
func SupportedBy(o Op) string {
	var s []string
	for i := range algoNames {
		if Algorithm(i).Supports(o) {
			s = append(s, algoNames[i])
		}
	}
	return strings.Join(s, ", ")
}
