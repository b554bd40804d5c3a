package chakra

import (
	"testing"

	"github.com/lfsim/lfsim/chakra/etdef"
)

// encode is Encode, failing the test on an error.
func encode(t testing.TB, nodes ...*etdef.Node) []byte {
	t.Helper()
	out, err := Encode(nodes...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func i64(name string, v int64) *etdef.AttributeProto {
	return &etdef.AttributeProto{Name: name, Value: &etdef.AttributeProto_Int64Val{Int64Val: v}}
}

func str(name, v string) *etdef.AttributeProto {
	return &etdef.AttributeProto{Name: name, Value: &etdef.AttributeProto_StringVal{StringVal: v}}
}

func bools(name string, v ...bool) *etdef.AttributeProto {
	return &etdef.AttributeProto{Name: name, Value: &etdef.AttributeProto_BoolList{BoolList: &etdef.BoolList{Values: v}}}
}

func comp(id, micros uint64, deps ...uint64) *etdef.Node {
	return &etdef.Node{Id: id, Name: "comp", Type: etdef.NodeType_COMP_NODE, DurationMicros: micros, DataDeps: deps}
}

func coll(id uint64, typ CommType, size int64, deps ...uint64) *etdef.Node {
	return &etdef.Node{Id: id, Name: "coll", Type: etdef.NodeType_COMM_COLL_NODE, DataDeps: deps,
		Attr: []*etdef.AttributeProto{i64("comm_type", int64(typ)), i64("comm_size", size)}}
}

func send(id uint64, dst int64, tag int64, size int64, deps ...uint64) *etdef.Node {
	return &etdef.Node{Id: id, Name: "send", Type: etdef.NodeType_COMM_SEND_NODE, CtrlDeps: deps,
		Attr: []*etdef.AttributeProto{i64("comm_dst", dst), i64("comm_tag", tag), i64("comm_size", size)}}
}

func recv(id uint64, src int64, tag int64, size int64, deps ...uint64) *etdef.Node {
	return &etdef.Node{Id: id, Name: "recv", Type: etdef.NodeType_COMM_RECV_NODE, CtrlDeps: deps,
		Attr: []*etdef.AttributeProto{i64("comm_src", src), i64("comm_tag", tag), i64("comm_size", size)}}
}

func attrNode(id uint64, a ...*etdef.AttributeProto) *etdef.Node {
	return &etdef.Node{Id: id, Name: "comp", Type: etdef.NodeType_COMP_NODE, Attr: a}
}

func collAttrs(id uint64, a ...*etdef.AttributeProto) *etdef.Node {
	return &etdef.Node{Id: id, Name: "coll", Type: etdef.NodeType_COMM_COLL_NODE, Attr: a}
}
