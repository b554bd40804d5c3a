package scenario

import (
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// The schema of topology: (see schema.go): the kinds of topology, their
// keys, and the explicit kind's hosts, switches, links and pinned routes.

// ---- topology

// TopologyV reads kind: first and then the keys of that kind.
type TopologyV struct {
	Kind  StrV
	Pos   Pos // the topology key
	Spec  any // *starS, *dumbbellS, ... (nil when kind is missing or wrong)
	Route *topoRouting
}

// topologySpec is a kind's keys (StarS, ...), each embedding the keys
// every kind shares.
type topologySpec interface{ routing() *topoRouting }

// topologyTable is the kinds of topology, each once: its name (kind:'s
// value) and its keys; decoding, the JSON Schema and a sweep's paths read
// it. The generators are fabric's (fabric.Star, ...), called by the
// assembly.
var topologyTable = []struct {
	name string
	new  func() topologySpec
}{
	{"star", func() topologySpec { return &StarS{} }},
	{"dumbbell", func() topologySpec { return &DumbbellS{} }},
	{"leaf-spine", func() topologySpec { return &LeafSpineS{} }},
	{"fat-tree", func() topologySpec { return &FatTreeS{} }},
	{"ring", func() topologySpec { return &RingS{} }},
	{"explicit", func() topologySpec { return &ExplicitS{} }},
}

// topologyKinds are the kinds' names, in the table's order.
var topologyKinds = func() []string {
	var out []string
	for _, k := range topologyTable {
		out = append(out, k.name)
	}
	return out
}()

// topologyKeys is the keys of the kind named name (nil for none).
func topologyKeys(name string) reflect.Type {
	for _, k := range topologyTable {
		if k.name == name {
			return reflect.TypeOf(k.new()).Elem()
		}
	}
	return nil
}

func (t *TopologyV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	t.Pos = c.key
	if n.Kind != yaml.MappingNode {
		d.Errorf(d.pos(n), c.path, "expected a mapping (key: value, ...), found %s", Describe(n))
		return
	}
	for _, p := range d.pairs(n, c) {
		if p.key.Value == "kind" {
			kc := c.child("kind", d.pos(p.key), reflect.StructTag(`enum:"`+strings.Join(topologyKinds, "|")+`"`))
			d.decodeInto(p.val, &t.Kind, kc)
			break
		}
	}
	if !t.Kind.Set {
		if !hasKey(d, n, c, "kind") {
			d.Errorf(c.key, c.path, "missing key kind (one of %s)", strings.Join(topologyKinds, ", "))
		}
		return
	}
	var spec topologySpec
	for _, k := range topologyTable {
		if k.name == t.Kind.V {
			spec = k.new()
		}
	}
	if spec != nil {
		t.Route = spec.routing()
	}
	t.Spec = spec
	c.section = "for kind " + t.Kind.V
	d.decodeInto(n, spec, c)
}

// SizeKey is the key that sets the topology's size, where it is and its
// path (a fat tree's k, a star's hosts, a leaf-spine's leaves, a ring's
// switches), for a message that the topology is too large; the topology
// key itself for a kind without one.
func (t *TopologyV) SizeKey() (Pos, string) {
	if s, ok := t.Spec.(interface{ sizeKey() (Pos, string) }); ok {
		return s.sizeKey()
	}
	return t.Pos, "topology"
}

func (s *FatTreeS) sizeKey() (Pos, string)   { return s.K.Pos, "topology.k" }
func (s *StarS) sizeKey() (Pos, string)      { return s.Hosts.Pos, "topology.hosts" }
func (s *LeafSpineS) sizeKey() (Pos, string) { return s.Leaves.Pos, "topology.leaves" }
func (s *RingS) sizeKey() (Pos, string)      { return s.Switches.Pos, "topology.switches" }

func hasKey(d *Decoder, n *yaml.Node, c ctx, key string) bool {
	for _, p := range d.pairs(n, c) {
		if p.key.Value == key {
			return true
		}
	}
	return false
}

// LinkS is a link profile; missing fields come from the enclosing default
// (100Gbps and 1us at the outermost).
type LinkS struct {
	meta
	Rate  RateV `yaml:"rate"`
	Delay TimeV `yaml:"delay"`
}

// topoRouting holds the keys every kind shares after its own.
type topoRouting struct {
	Routing StrV    `yaml:"routing" enum:"ecmp|shortest|updown"`
	Routes  routesV `yaml:"routes"`
}

// routing returns the shared keys of a kind's spec (each embeds them).
func (r *topoRouting) routing() *topoRouting { return r }

type StarS struct {
	meta
	Kind  StrV  `yaml:"kind"`
	Hosts IntV  `yaml:"hosts" required:"" min:"2"`
	Link  LinkS `yaml:"link"`
	topoRouting
}

type DumbbellS struct {
	meta
	Kind       StrV  `yaml:"kind"`
	Left       IntV  `yaml:"left" required:"" min:"1"`
	Right      IntV  `yaml:"right" required:"" min:"1"`
	Link       LinkS `yaml:"link"`
	Bottleneck LinkS `yaml:"bottleneck"`
	topoRouting
}

type LeafSpineS struct {
	meta
	Kind         StrV  `yaml:"kind"`
	Leaves       IntV  `yaml:"leaves" required:"" min:"1"`
	Spines       IntV  `yaml:"spines" required:"" min:"1"`
	HostsPerLeaf IntV  `yaml:"hosts_per_leaf" required:"" min:"1"`
	Link         LinkS `yaml:"link"`
	HostLink     LinkS `yaml:"host_link"`
	FabricLink   LinkS `yaml:"fabric_link"`
	topoRouting
}

type FatTreeS struct {
	meta
	Kind StrV  `yaml:"kind"`
	K    IntV  `yaml:"k" required:"" min:"2"`
	Link LinkS `yaml:"link"`
	topoRouting
}

type RingS struct {
	meta
	Kind           StrV  `yaml:"kind"`
	Switches       IntV  `yaml:"switches" required:"" min:"3"`
	HostsPerSwitch IntV  `yaml:"hosts_per_switch" min:"1"`
	Link           LinkS `yaml:"link"`
	topoRouting
}

type ExplicitS struct {
	meta
	Kind     StrV          `yaml:"kind"`
	Hosts    []hostDeclV   `yaml:"hosts" required:""`
	Switches []switchDeclV `yaml:"switches"`
	Link     LinkS         `yaml:"link"`
	Links    []LinkItemV   `yaml:"links" required:""`
	topoRouting
}

// hostDeclS is a host with its own HCA settings.
type hostDeclS struct {
	meta
	Name StrV `yaml:"name" required:""`
	HCA  HCAS `yaml:"hca"`
}

// hostDeclV is "a" or {name: a, hca: {...}}.
type hostDeclV struct {
	hostDeclS
	Pos  Pos
	Path string
}

func (h *hostDeclV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	h.Pos, h.Path = d.pos(n), c.path
	d.nodeDecl(n, c, &h.hostDeclS, &h.Name, "a host name or {name: ..., hca: {...}}")
}

// nodeDecl decodes a node's declaration: a mapping into decl, or a bare
// name into name (what: the expected forms, for the error).
func (d *Decoder) nodeDecl(n *yaml.Node, c ctx, decl any, name *StrV, what string) {
	if n.Kind == yaml.MappingNode {
		c.key = d.pos(n)
		d.decodeInto(n, decl, c)
		return
	}
	c.tag = ""
	if d.scalar(n, c, what) {
		name.decodeNode(d, n, c)
	}
}

type switchDeclS struct {
	meta
	Name   StrV    `yaml:"name" required:""`
	Switch SwitchS `yaml:"switch"`
}

// switchDeclV is "s1" or {name: s1, switch: {...}}.
type switchDeclV struct {
	switchDeclS
	Pos  Pos
	Path string
}

func (s *switchDeclV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	s.Pos, s.Path = d.pos(n), c.path
	d.nodeDecl(n, c, &s.switchDeclS, &s.Name, "a switch name or {name: ..., switch: {...}}")
}

type linkItemS struct {
	meta
	A     StrV  `yaml:"a" required:""`
	B     StrV  `yaml:"b" required:""`
	Rate  RateV `yaml:"rate"`
	Delay TimeV `yaml:"delay"`
}

// LinkItemV is [a, b] or {a: x, b: y, rate: ..., delay: ...}.
type LinkItemV struct {
	linkItemS
	Pos  Pos
	Path string
	OK   bool
}

func (l *LinkItemV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	l.Pos, l.Path = d.pos(n), c.path
	c.tag = ""
	switch n.Kind {
	case yaml.MappingNode:
		c.key = l.Pos
		d.decodeInto(n, &l.linkItemS, c)
	case yaml.SequenceNode:
		if len(n.Content) != 2 {
			d.Errorf(l.Pos, c.path, "a link is [a, b] or {a: x, b: y, rate: ..., delay: ...}; this list has %d items", len(n.Content))
			return
		}
		d.decodeInto(n.Content[0], &l.A, c.index(0, d.pos(n.Content[0])))
		d.decodeInto(n.Content[1], &l.B, c.index(1, d.pos(n.Content[1])))
	default:
		d.Errorf(l.Pos, c.path, "expected a link, [a, b] or {a: x, b: y, rate: ..., delay: ...}, found %s", Describe(n))
		return
	}
	l.OK = l.A.Set && l.B.Set
}

// routeV is one pinned next hop: at switch At, traffic for host Dst goes
// to neighbour Via.
type routeV struct {
	At, Dst, Via StrV
	Path         string
}

// routesV is {switch: {host: next-hop, ...}, ...}.
type routesV struct {
	Items []routeV
	Pos   Pos // the routes key
	Set   bool
}

func (r *routesV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	r.Pos, r.Set = c.key, true
	if isNull(n) {
		return
	}
	mapping := func(n *yaml.Node, c ctx, what string) []pair {
		if n.Kind != yaml.MappingNode {
			d.Errorf(d.pos(n), c.path, "expected a mapping of %s, found %s", what, Describe(n))
			return nil
		}
		ps := d.pairs(n, c)
		seen := map[string]Pos{}
		out := ps[:0:0]
		for _, p := range ps {
			if first, dup := seen[p.key.Value]; dup {
				if !p.merged {
					d.Errorf(d.pos(p.key), c.path, "key %s is given twice (first at %s)", Show(p.key.Value), FirstAt(first, d.pos(p.key)))
				}
				continue
			}
			seen[p.key.Value] = d.pos(p.key)
			out = append(out, p)
		}
		return out
	}
	for _, sw := range mapping(n, c, "switches to {destination host: next hop}") {
		sc := c.child(sw.key.Value, d.pos(sw.key), "")
		at := StrV{V: sw.key.Value, Pos: d.pos(sw.key), Set: true}
		v := d.resolve(sw.val)
		if v == nil || !d.spend(v) {
			continue
		}
		for _, dst := range mapping(v, sc, "destination hosts to next hops") {
			dc := sc.child(dst.key.Value, d.pos(dst.key), "")
			var via StrV
			d.decodeInto(dst.val, &via, dc)
			if via.Set {
				r.Items = append(r.Items, routeV{At: at, Dst: StrV{V: dst.key.Value, Pos: d.pos(dst.key), Set: true}, Via: via, Path: dc.path})
			}
		}
	}
}
