package scenario

import (
	"reflect"

	"gopkg.in/yaml.v3"
)

// OverlayS is hca.overlay: the adapter as the tunnel endpoint of a
// virtual network (fabric.Overlay), as Alibaba Cloud's eRDMA adapter is
// of its VPC.
type OverlayS struct {
	meta
	// Encap is the encapsulation: vxlan (RFC 7348) or geneve (RFC 8926).
	Encap StrV `yaml:"encap" kinds:"encap" required:""`
	// VNI is the virtual network's 24-bit identifier.
	VNI IntV `yaml:"vni" min:"0" max:"16777215" required:""`
	// SourcePort is the outer UDP source port: hash (the inner flow's,
	// the default) or a constant.
	SourcePort sourcePortV `yaml:"source_port"`
	// Options is the bytes of Geneve options, a multiple of 4.
	Options IntV `yaml:"options" min:"0" max:"252"`
	// UnderlayMTU is the largest IP packet the underlay carries.
	UnderlayMTU IntV `yaml:"underlay_mtu" min:"576" max:"65535"`
}

// sourcePortV is hash, or a UDP port 1..65535.
type sourcePortV struct {
	Hash bool
	Port IntV
}

func (s *sourcePortV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	if keyword(n, "hash") {
		s.Hash = true
		return
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!int" {
		d.Errorf(d.pos(n), c.path, "expected hash or a UDP port 1..65535, found %s%s", Describe(n), d.Suggest(n.Value, []string{"hash"}))
		return
	}
	s.Port.decodeNode(d, n, ctx{path: c.path, key: c.key, tag: `min:"1" max:"65535"`})
}

func (*sourcePortV) jsonSchema(*schemaGen, reflect.StructTag) map[string]any {
	return anyOf(constant("hash"), map[string]any{"type": "integer", "minimum": 1, "maximum": 65535})
}
