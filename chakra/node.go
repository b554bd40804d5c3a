package chakra

import "github.com/lfsim/lfsim/chakra/etdef"

// NodeType is a node's type, as et_def.proto's NodeType numbers them.
type NodeType int32

// The node types of et_def.proto.
const (
	InvalidNode  = NodeType(etdef.NodeType_INVALID_NODE)   // 0: no work; ASTRA-sim skips it
	MetadataNode = NodeType(etdef.NodeType_METADATA_NODE)  // 1: no work here
	MemLoadNode  = NodeType(etdef.NodeType_MEM_LOAD_NODE)  // 2: a load from remote memory
	MemStoreNode = NodeType(etdef.NodeType_MEM_STORE_NODE) // 3: a store to remote memory
	CompNode     = NodeType(etdef.NodeType_COMP_NODE)      // 4: compute, duration_micros long
	SendNode     = NodeType(etdef.NodeType_COMM_SEND_NODE) // 5: a point-to-point send
	RecvNode     = NodeType(etdef.NodeType_COMM_RECV_NODE) // 6: its receive
	CollNode     = NodeType(etdef.NodeType_COMM_COLL_NODE) // 7: a collective
)

func (t NodeType) String() string {
	if n, ok := etdef.NodeType_name[int32(t)]; ok {
		return n
	}
	return "node type " + itoa(int64(t))
}

// CommType is a collective's type, as et_def.proto's
// CollectiveCommType numbers them (the comm_type attribute).
type CommType int32

// The collective types of et_def.proto.
const (
	AllReduce          = CommType(etdef.CollectiveCommType_ALL_REDUCE)
	Reduce             = CommType(etdef.CollectiveCommType_REDUCE)
	AllGather          = CommType(etdef.CollectiveCommType_ALL_GATHER)
	Gather             = CommType(etdef.CollectiveCommType_GATHER)
	Scatter            = CommType(etdef.CollectiveCommType_SCATTER)
	Broadcast          = CommType(etdef.CollectiveCommType_BROADCAST)
	AllToAll           = CommType(etdef.CollectiveCommType_ALL_TO_ALL)
	ReduceScatter      = CommType(etdef.CollectiveCommType_REDUCE_SCATTER)
	ReduceScatterBlock = CommType(etdef.CollectiveCommType_REDUCE_SCATTER_BLOCK)
	Barrier            = CommType(etdef.CollectiveCommType_BARRIER)
)

func (c CommType) String() string {
	if n, ok := etdef.CollectiveCommType_name[int32(c)]; ok {
		return n
	}
	return "comm type " + itoa(int64(c))
}

// Node is one node of a rank's trace, with the attributes lfsim reads.
type Node struct {
	ID   uint64
	Name string
	Type NodeType
	// CtrlDeps and DataDeps are the ids of the nodes (of the same rank)
	// that must finish before this one starts; both are honoured alike,
	// as ASTRA-sim's feeder resolves both.
	CtrlDeps, DataDeps []uint64
	// DurationMicros is duration_micros: how long a COMP node (and a MEM
	// node, which lfsim has no memory model for) takes, in µs.
	DurationMicros uint64
	// Comm is the communication of a COMM_* node, nil otherwise.
	Comm *Comm
	// Groups are the process groups a METADATA node declares.
	Groups []ProcessGroup
}

// Deps lists the node's data and control dependencies, data first, each
// id once.
func (n *Node) Deps() []uint64 {
	out := make([]uint64, 0, len(n.DataDeps)+len(n.CtrlDeps))
	seen := make(map[uint64]bool, cap(out))
	for _, list := range [2][]uint64{n.DataDeps, n.CtrlDeps} {
		for _, d := range list {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// Comm is what a COMM_COLL, COMM_SEND or COMM_RECV node moves, from its
// attributes (ASTRA-sim's Workload::issue_coll_comm, issue_send_comm and
// issue_recv_comm read the same).
type Comm struct {
	// Type is comm_type, a COMM_COLL node's collective.
	Type CommType
	// Size is comm_size in bytes, per NPU as ASTRA-sim takes it: the
	// buffer each rank puts in (CommType.NCCLTestsSize converts it).
	Size uint64
	// Src and Dst are comm_src and comm_dst, the ranks of a SEND or
	// RECV (a SEND's comm_src defaults to its own rank, a RECV's
	// comm_dst to its own, as in ASTRA-sim).
	Src, Dst int
	// Tag is comm_tag, which tells apart the transfers of one pair
	// (0 when not given).
	Tag uint32
	// Priority is comm_priority (0 when not given).
	Priority uint32
	// Group is pg_name, the process group of a collective: "" or "0"
	// is every rank, another name a group of the communicator-group
	// file.
	Group string
}
