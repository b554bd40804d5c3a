package scenario

import (
	"reflect"

	"gopkg.in/yaml.v3"
)

// Ultra Ethernet's link layer (UEC 1.0, 2025), keys of the top-level
// switch block (resolve/uec.go): cbfc, credit-based flow control per
// traffic class on every Ethernet link, and llr, link-level retry, each
// true, false or a mapping of its parameters (a mapping turns it on);
// trim, packet trimming at a switch, is a boolean.

// CBFCV is switch.cbfc: false (the default), true, or {buffer: bytes}.
type CBFCV struct {
	On bool
	CBFCS
}

// CBFCS is switch.cbfc's parameters.
type CBFCS struct {
	meta
	// Buffer is each port's receive buffer per traffic class, whose
	// credits the link's sender spends (64-byte credits).
	Buffer SizeV `yaml:"buffer" min:"128" max:"1GiB"`
}

func (v *CBFCV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	v.On = onOrMapping(d, n, c, &v.CBFCS, "{buffer: 256KiB}")
}

func (*CBFCV) jsonSchema(g *schemaGen, _ reflect.StructTag) map[string]any {
	return anyOf(map[string]any{"type": "boolean"}, g.ref(reflect.TypeOf(CBFCS{})))
}

// onOrMapping decodes true, false or a mapping into into (a mapping is
// on), and reports whether the feature is on.
func onOrMapping(d *Decoder, n *yaml.Node, c ctx, into hasMeta, example string) bool {
	if n.Kind == yaml.MappingNode {
		d.decodeInto(n, into, c)
		return true
	}
	var b boolV
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		d.Errorf(d.pos(n), c.path, "expected true, false or a mapping such as %s, found %s", example, Describe(n))
		return false
	}
	b.decodeNode(d, n, c)
	into.metaPtr().Pos = d.pos(n)
	return b.V
}
