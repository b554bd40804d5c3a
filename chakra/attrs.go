package chakra

import (
	"math"
	"slices"

	"github.com/lfsim/lfsim/chakra/etdef"
)

// The attributes lfsim reads, by their names in Chakra's feeder
// (src/feeder/et_feeder_node.cpp) and ASTRA-sim's Workload.
const (
	attrCommType     = "comm_type"
	attrCommSize     = "comm_size"
	attrCommSrc      = "comm_src"
	attrCommDst      = "comm_dst"
	attrCommTag      = "comm_tag"
	attrCommPriority = "comm_priority"
	attrPGName       = "pg_name"
	attrIsCPUOp      = "is_cpu_op"
	// attrInvolvedDim is the bool_list of ASTRA-sim's logical-topology
	// dimensions a collective runs over (Workload::issue_coll_comm);
	// lfsim has no logical dimensions, so only every one (all true,
	// ASTRA-sim's default when absent) is accepted.
	attrInvolvedDim = "involved_dim"
)

// ignoredAttrs are the attributes Chakra's tools write that change
// nothing lfsim models: num_ops and tensor_size (ASTRA-sim's roofline
// model and its remote memory; lfsim replays duration_micros), tensor_loc (Chakra's
// feeder), and the provenance the PyTorch converter records (rf_id,
// fw_parent, seq_id, scope, tid, fw_tid, op_schema, stream). Any other
// name is an error.
var ignoredAttrs = []string{"num_ops", "tensor_size", "tensor_loc",
	"rf_id", "fw_parent", "seq_id", "scope", "tid", "fw_tid", "op_schema", "stream"}

// known lists every attribute name Read accepts, for its errors.
func knownAttrs() []string {
	return append([]string{attrCommType, attrCommSize, attrCommSrc, attrCommDst, attrCommTag,
		attrCommPriority, attrPGName, attrIsCPUOp, attrInvolvedDim}, ignoredAttrs...)
}

// attrs are the attributes a node gave, read by name.
type attrs struct {
	ints map[string]uint64
	pg   *string
	cpu  bool
}

// readAttrs reads a node's attributes: integers of any of the schema's
// integer kinds (Chakra's tools write int64_val, the feeder reads
// int32_val for some), pg_name as a string, is_cpu_op as a bool.
func readAttrs(file string, id uint64, list []*etdef.AttributeProto) (attrs, error) {
	a := attrs{ints: map[string]uint64{}}
	seen := map[string]bool{}
	for _, at := range list {
		name := at.GetName()
		if seen[name] {
			return a, nodeErr(file, id, "attribute %s given twice: expected each attribute once", name)
		}
		seen[name] = true
		switch name {
		case attrCommType, attrCommSize, attrCommSrc, attrCommDst, attrCommTag, attrCommPriority:
			v, ok, neg := integer(at)
			if !ok {
				return a, nodeErr(file, id, "attribute %s is %s: expected an integer (int64_val as Chakra writes it)", name, kindOf(at))
			}
			if neg {
				return a, nodeErr(file, id, "attribute %s is negative: expected 0 or more", name)
			}
			a.ints[name] = v
		case attrPGName:
			s, ok := at.GetValue().(*etdef.AttributeProto_StringVal)
			if !ok {
				return a, nodeErr(file, id, "attribute pg_name is %s: expected a string (string_val)", kindOf(at))
			}
			a.pg = &s.StringVal
		case attrIsCPUOp:
			b, ok := at.GetValue().(*etdef.AttributeProto_BoolVal)
			if !ok {
				return a, nodeErr(file, id, "attribute is_cpu_op is %s: expected a bool (bool_val)", kindOf(at))
			}
			a.cpu = b.BoolVal
		case attrInvolvedDim:
			l, ok := at.GetValue().(*etdef.AttributeProto_BoolList)
			if !ok {
				return a, nodeErr(file, id, "attribute involved_dim is %s: expected a bool_list, as ASTRA-sim requires", kindOf(at))
			}
			if slices.Contains(l.BoolList.GetValues(), false) {
				return a, nodeErr(file, id, "involved_dim %v: lfsim has no logical dimensions; expected every dimension (all true), or a process group (pg_name) for a subset", l.BoolList.GetValues())
			}
		default:
			if !slices.Contains(ignoredAttrs, name) {
				return a, nodeErr(file, id, "unknown attribute %q: expected one of %s", name, joinOr(knownAttrs()))
			}
		}
	}
	return a, nil
}

// integer reads an attribute of any integer kind; neg says it is below 0.
func integer(at *etdef.AttributeProto) (v uint64, ok, neg bool) {
	signed := func(x int64) (uint64, bool, bool) {
		if x < 0 {
			return 0, true, true
		}
		return uint64(x), true, false
	}
	switch x := at.GetValue().(type) {
	case *etdef.AttributeProto_Int64Val:
		return signed(x.Int64Val)
	case *etdef.AttributeProto_Int32Val:
		return signed(int64(x.Int32Val))
	case *etdef.AttributeProto_Sint64Val:
		return signed(x.Sint64Val)
	case *etdef.AttributeProto_Sint32Val:
		return signed(int64(x.Sint32Val))
	case *etdef.AttributeProto_Sfixed64Val:
		return signed(x.Sfixed64Val)
	case *etdef.AttributeProto_Sfixed32Val:
		return signed(int64(x.Sfixed32Val))
	case *etdef.AttributeProto_Uint64Val:
		return x.Uint64Val, true, false
	case *etdef.AttributeProto_Uint32Val:
		return uint64(x.Uint32Val), true, false
	case *etdef.AttributeProto_Fixed64Val:
		return x.Fixed64Val, true, false
	case *etdef.AttributeProto_Fixed32Val:
		return uint64(x.Fixed32Val), true, false
	}
	return 0, false, false
}

// kindOf names the value an attribute holds, as the schema's oneof does.
func kindOf(at *etdef.AttributeProto) string {
	m := at.ProtoReflect()
	od := m.Descriptor().Oneofs().ByName("value")
	if fd := m.WhichOneof(od); fd != nil {
		return "a " + string(fd.Name())
	}
	return "empty"
}

// apply checks the attributes against the node's type and sets its Comm.
func (a attrs) apply(file string, n *Node) error {
	comm := n.Type == CollNode || n.Type == SendNode || n.Type == RecvNode
	if !comm {
		for _, name := range []string{attrCommType, attrCommSize, attrCommSrc, attrCommDst, attrCommTag} {
			if _, ok := a.ints[name]; ok {
				return nodeErr(file, n.ID, "a %s has attribute %s: expected it on COMM_COLL_NODE, COMM_SEND_NODE or COMM_RECV_NODE only", n.Type, name)
			}
		}
		return nil
	}
	if a.cpu {
		// ASTRA-sim's issue_comm: "Comm node should not be on CPU".
		return nodeErr(file, n.ID, "a %s with is_cpu_op true: expected communication on the GPU (is_cpu_op false), as ASTRA-sim requires", n.Type)
	}
	size, ok := a.ints[attrCommSize]
	if !ok {
		return nodeErr(file, n.ID, "a %s without comm_size: expected its size in bytes", n.Type)
	}
	c := &Comm{Size: size, Src: -1, Dst: -1, Tag: uint32(a.ints[attrCommTag]), Priority: uint32(a.ints[attrCommPriority])}
	if a.ints[attrCommTag] > math.MaxUint32 || a.ints[attrCommPriority] > math.MaxUint32 {
		return nodeErr(file, n.ID, "comm_tag or comm_priority over 2^32-1: expected a 32-bit value, as Chakra's feeder reads them")
	}
	if a.pg != nil {
		c.Group = *a.pg
	}
	for _, p := range [2]struct {
		name string
		to   *int
	}{{attrCommSrc, &c.Src}, {attrCommDst, &c.Dst}} {
		if v, ok := a.ints[p.name]; ok {
			if n.Type == CollNode {
				return nodeErr(file, n.ID, "a COMM_COLL_NODE has attribute %s: expected it on COMM_SEND_NODE or COMM_RECV_NODE only", p.name)
			}
			if v > math.MaxInt32 {
				return nodeErr(file, n.ID, "%s %d: expected a rank", p.name, v)
			}
			*p.to = int(v)
		}
	}
	switch n.Type {
	case CollNode:
		t, ok := a.ints[attrCommType]
		if !ok {
			return nodeErr(file, n.ID, "a COMM_COLL_NODE without comm_type: expected one of %s", commTypeList())
		}
		if _, known := etdef.CollectiveCommType_name[int32(t)]; !known || t > math.MaxInt32 {
			return nodeErr(file, n.ID, "comm_type %d is not a collective of et_def.proto: expected one of %s", t, commTypeList())
		}
		c.Type = CommType(t)
	case SendNode:
		if _, ok := a.ints[attrCommType]; ok {
			return nodeErr(file, n.ID, "a COMM_SEND_NODE has comm_type: expected it on COMM_COLL_NODE only")
		}
		if c.Dst < 0 {
			return nodeErr(file, n.ID, "a COMM_SEND_NODE without comm_dst: expected the receiving rank")
		}
	case RecvNode:
		if _, ok := a.ints[attrCommType]; ok {
			return nodeErr(file, n.ID, "a COMM_RECV_NODE has comm_type: expected it on COMM_COLL_NODE only")
		}
		if c.Src < 0 {
			return nodeErr(file, n.ID, "a COMM_RECV_NODE without comm_src: expected the sending rank")
		}
	}
	n.Comm = c
	return nil
}

func commTypeList() string {
	var s []string
	for i := range int32(len(etdef.CollectiveCommType_name)) {
		s = append(s, etdef.CollectiveCommType_name[i])
	}
	return joinOr(s)
}
