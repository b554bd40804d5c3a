package chakra

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/lfsim/lfsim/chakra/etdef"
)

// Trace is one rank's execution trace: a file of Chakra's ET format.
type Trace struct {
	// File is the name the trace was read under, for errors.
	File string
	// Version is the GlobalMetadata's version (ASTRA-sim's examples
	// write "0.0.4").
	Version string
	// Nodes are the nodes in the file's order.
	Nodes []Node
	index map[uint64]int
	calls []int // order's
}

// Node returns the node of the given id.
func (t *Trace) Node(id uint64) (*Node, bool) {
	i, ok := t.index[id]
	if !ok {
		return nil, false
	}
	return &t.Nodes[i], true
}

// Read decodes a Chakra ET file: a stream of messages, each preceded by
// its length as a varint (Chakra's protolib encodeMessage, its feeder's
// protoio), the first a GlobalMetadata and every other a Node. file
// names it in errors. A truncated stream, a field the schema does not
// have, a node type or comm_type outside the schema's enums, an
// attribute lfsim does not know or of the wrong kind, and two nodes of
// one id are errors; dependencies are checked by Check.
func Read(file string, data []byte) (*Trace, error) {
	t := &Trace{File: file, index: map[uint64]int{}}
	if len(data) == 0 {
		return nil, byteErr(file, 0, "the file is empty: expected a GlobalMetadata, then the nodes")
	}
	off, msgs := 0, 0
	var last *Node
	for off < len(data) {
		start := off
		n, w := protowire.ConsumeVarint(data[off:])
		where := "the GlobalMetadata"
		if msgs > 0 {
			where = fmt.Sprintf("message %d", msgs+1)
			if last != nil {
				where += fmt.Sprintf(" (after node %d)", last.ID)
			}
		}
		if w < 0 {
			if err := protowire.ParseError(w); !errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, byteErr(file, start, "%s: its length prefix (a varint) is over-long (%v): expected at most 10 bytes holding a 64-bit length", where, err)
			}
			return nil, byteErr(file, start, "%s: the file ends inside its length prefix (a varint): truncated", where)
		}
		off += w
		if n > uint64(len(data)-off) {
			return nil, byteErr(file, start, "%s: its length prefix says %d bytes but %d are left: the file is truncated", where, n, len(data)-off)
		}
		body := data[off : off+int(n)]
		off += int(n)
		if msgs == 0 {
			var md etdef.GlobalMetadata
			if err := proto.Unmarshal(body, &md); err != nil {
				return nil, byteErr(file, start, "the GlobalMetadata does not decode: %v", err)
			}
			if err := noUnknown(md.ProtoReflect()); err != nil {
				return nil, byteErr(file, start, "the GlobalMetadata: %v", err)
			}
			t.Version = md.GetVersion()
			msgs++
			continue
		}
		var pb etdef.Node
		if err := proto.Unmarshal(body, &pb); err != nil {
			return nil, byteErr(file, start, "%s does not decode as a Node: %v", where, err)
		}
		if err := noUnknown(pb.ProtoReflect()); err != nil {
			return nil, nodeErr(file, pb.GetId(), "%v", err)
		}
		node, err := fromProto(file, &pb)
		if err != nil {
			return nil, err
		}
		if i, dup := t.index[node.ID]; dup {
			return nil, nodeErr(file, node.ID, "a second node of this id (messages %d and %d): expected each node id once in a file", i+2, msgs+1)
		}
		t.index[node.ID] = len(t.Nodes)
		t.Nodes = append(t.Nodes, node)
		last = &t.Nodes[len(t.Nodes)-1]
		msgs++
	}
	return t, nil
}

// noUnknown fails on a field of m (or of a message in it) that the
// schema lfsim was built with does not have: a trace of a newer schema
// is refused rather than read in part.
func noUnknown(m protoreflect.Message) error {
	if u := m.GetUnknown(); len(u) > 0 {
		num, _, _ := protowire.ConsumeTag(u)
		return fmt.Errorf("%s has field %d, which et_def.proto (Chakra 21585d8) does not define", m.Descriptor().Name(), num)
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				err = noUnknown(l.Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsList() && !fd.IsMap():
			err = noUnknown(v.Message())
		}
		return err == nil
	})
	return err
}

// fromProto checks a decoded node and takes the fields and attributes
// lfsim reads.
func fromProto(file string, pb *etdef.Node) (Node, error) {
	n := Node{
		ID:             pb.GetId(),
		Name:           pb.GetName(),
		Type:           NodeType(pb.GetType()),
		CtrlDeps:       slices.Clone(pb.GetCtrlDeps()),
		DataDeps:       slices.Clone(pb.GetDataDeps()),
		DurationMicros: pb.GetDurationMicros(),
	}
	if _, ok := etdef.NodeType_name[int32(n.Type)]; !ok {
		return n, nodeErr(file, n.ID, "type %d is not a node type of et_def.proto: expected one of %s", int32(n.Type), nodeTypeList())
	}
	a, err := readAttrs(file, n.ID, pb.GetAttr())
	if err != nil {
		return n, err
	}
	if err := a.apply(file, &n); err != nil {
		return n, err
	}
	if n.Type == MetadataNode {
		if n.Groups, err = metadataGroups(file, n.ID, pb.GetInputs().GetValues()); err != nil {
			return n, err
		}
	}
	return n, nil
}

func nodeTypeList() string {
	var s []string
	for i := range int32(len(etdef.NodeType_name)) {
		s = append(s, etdef.NodeType_name[i])
	}
	return joinOr(s)
}

// joinOr lists names as "a, b or c".
func joinOr(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := s[0]
	for _, x := range s[1 : len(s)-1] {
		out += ", " + x
	}
	return out + " or " + s[len(s)-1]
}
