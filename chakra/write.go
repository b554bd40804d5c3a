package chakra

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/lfsim/lfsim/chakra/etdef"
)

// Encode writes a rank's trace as Chakra's protolib encodeMessage does,
// what Read reads: a GlobalMetadata of the schema version the examples
// carry (0.0.4), then the nodes, each message after its length as a
// varint. For tests and tools that build traces by hand.
func Encode(nodes ...*etdef.Node) ([]byte, error) {
	msgs := []proto.Message{&etdef.GlobalMetadata{Version: "0.0.4"}}
	for _, n := range nodes {
		msgs = append(msgs, n)
	}
	var out []byte
	for _, m := range msgs {
		b, err := proto.Marshal(m)
		if err != nil {
			return nil, err
		}
		out = append(protowire.AppendVarint(out, uint64(len(b))), b...)
	}
	return out, nil
}
