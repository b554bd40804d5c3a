package scenario

import (
	"reflect"
	"strings"

	"github.com/lfsim/lfsim/kind"
	"gopkg.in/yaml.v3"
)

// The schema of topology: (see schema.go): the kinds of topology, their
// keys, and the explicit kind's hosts, switches, links and pinned routes.

// ---- topology

// TopologyV reads kind: first and then the keys of that kind.
type TopologyV struct {
	Kind StrV
	Pos  Pos // the topology key
	// Spec is the kind's keys as decoded: *ExplicitS for the explicit
	// kind, a pointer to a generated kind's struct (topologyStruct)
	// otherwise; nil when kind is missing or wrong.
	Spec  any
	Route *topoRouting
}

// The kinds of topology: the generators registered in the table
// (kind.Topologies: each one's name and keys), then explicit, the
// format's own (ExplicitS). Decoding, the JSON Schema and a sweep's
// paths read them.

// explicitKind is the explicit kind's name.
const explicitKind = "explicit"

// topologyKinds are the kinds' names: the table's, then explicit.
func topologyKinds() []string {
	var out []string
	for _, k := range kind.Topologies() {
		out = append(out, k.Name)
	}
	return append(out, explicitKind)
}

// topologyKeys is the keys of the kind named name (nil for none).
func topologyKeys(name string) reflect.Type {
	if name == explicitKind {
		return reflect.TypeOf(ExplicitS{})
	}
	if row, ok := kind.LookupTopology(name); ok {
		return topologyStruct(row)
	}
	return nil
}

// topologyStruct is a schema struct for a generated kind's keys: meta,
// kind, then one field per key of its row (paramFields), then the keys
// every kind shares (topoRouting, flattened).
func topologyStruct(row kind.Topology) reflect.Type {
	fields := []reflect.StructField{{Name: "Meta", Type: metaType}, {Name: "Kind", Type: reflect.TypeOf(StrV{}), Tag: `yaml:"kind"`}}
	fields = append(fields, paramFields(row.Params)...)
	fields = append(fields, reflect.StructField{Name: "TopoRouting", Type: reflect.TypeOf(topoRouting{}), Anonymous: true})
	return reflect.StructOf(fields)
}

// topologyFirstKey is the index of a topologyStruct's first key of the
// row's (after meta and kind).
const topologyFirstKey = 2

// topologyDefName is a generated kind's struct's name in the JSON
// Schema's $defs: its name in camel case, then S (leaf-spine's
// LeafSpineS).
func topologyDefName(name string) string {
	var b strings.Builder
	for _, w := range strings.Split(name, "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String() + "S"
}

func (t *TopologyV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	t.Pos = c.key
	if n.Kind != yaml.MappingNode {
		d.Errorf(d.pos(n), c.path, "expected a mapping (key: value, ...), found %s", Describe(n))
		return
	}
	kinds := topologyKinds()
	for _, p := range d.pairs(n, c) {
		if p.key.Value == "kind" {
			kc := c.child("kind", d.pos(p.key), reflect.StructTag(`enum:"`+strings.Join(kinds, "|")+`"`))
			d.decodeInto(p.val, &t.Kind, kc)
			break
		}
	}
	if !t.Kind.Set {
		if !hasKey(d, n, c, "kind") {
			d.Errorf(c.key, c.path, "missing key kind (one of %s)", strings.Join(kinds, ", "))
		}
		return
	}
	var spec any
	switch kt := topologyKeys(t.Kind.V); {
	case kt == nil:
	case t.Kind.V == explicitKind:
		e := &ExplicitS{}
		spec, t.Route = e, &e.topoRouting
	default:
		v := reflect.New(kt)
		spec, t.Route = v.Interface(), v.Elem().Field(kt.NumField()-1).Addr().Interface().(*topoRouting)
	}
	t.Spec = spec
	c.section = "for kind " + t.Kind.V
	d.decodeInto(n, spec, c)
}

// TopologyKeysS is a generated kind's keys as the file gives them.
type TopologyKeysS struct {
	meta // the topology mapping's (Has, KeyPos)
	// Row is the kind's row of the table.
	Row kind.Topology
	// Keys are the row's keys (Params), in its order: each with its
	// value (the Go value of its kind.Type) when the file gives a usable
	// one, nil otherwise; a link's is its *LinkS, given or not. Pos is
	// where the value is.
	Keys []GivenParam
}

// Generated is the topology's keys when its kind is a generated one (a
// row of the table), nil otherwise (explicit, or no usable kind).
func (t *TopologyV) Generated() *TopologyKeysS {
	row, ok := kind.LookupTopology(t.Kind.V)
	if !ok || t.Spec == nil {
		return nil
	}
	st := reflect.ValueOf(t.Spec).Elem()
	if st.Type() != topologyStruct(row) {
		return nil
	}
	out := &TopologyKeysS{meta: *st.Field(0).Addr().Interface().(*meta), Row: row}
	for i, p := range row.Params {
		f := st.Field(topologyFirstKey + i)
		g := GivenParam{Param: p}
		switch {
		case p.Type == kind.TypeLink:
			g.V, g.Pos = f.Addr().Interface().(*LinkS), f.Addr().Interface().(*LinkS).Pos
		default:
			g.Pos = f.FieldByName("Pos").Interface().(Pos)
			if f.FieldByName("Set").Bool() {
				g.V = f.FieldByName("V").Interface()
			}
		}
		out.Keys = append(out.Keys, g)
	}
	return out
}

// SizeKey is the key that sets the topology's size, where it is and its
// path (a fat tree's k, a star's hosts, a leaf-spine's leaves, a ring's
// switches: the row's SizeKey), for a message that the topology is too
// large; the topology key itself for a kind without one.
func (t *TopologyV) SizeKey() (Pos, string) {
	if g := t.Generated(); g != nil && g.Row.SizeKey != "" {
		for _, k := range g.Keys {
			if k.Param.Key == g.Row.SizeKey {
				return k.Pos, "topology." + k.Param.Key
			}
		}
	}
	return t.Pos, "topology"
}

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

type ExplicitS struct {
	meta
	Kind     StrV          `yaml:"kind"`
	Hosts    []hostDeclV   `yaml:"hosts" required:""`
	Switches []switchDeclV `yaml:"switches"`
	Link     LinkS         `yaml:"link"`
	Links    []LinkItemV   `yaml:"links" required:""`
	Servers  []serverDeclV `yaml:"servers"`
	topoRouting
}

// serverDeclS is a GPU server of an explicit topology (issue 48): its
// GPUs, hosts declared under hosts, in GPU order, and the scale-up
// domain (NVLink) between them.
type serverDeclS struct {
	meta
	Name   StrV   `yaml:"name" required:""`
	GPUs   []StrV `yaml:"gpus" required:""`
	NVLink LinkS  `yaml:"nvlink"`
}

// serverDeclV is {name: s0, gpus: [a, b], nvlink: {...}}.
type serverDeclV struct {
	serverDeclS
	Pos  Pos
	Path string
}

func (s *serverDeclV) decodeNode(d *Decoder, n *yaml.Node, c ctx) {
	s.Pos, s.Path = d.pos(n), c.path
	if n.Kind != yaml.MappingNode {
		d.Errorf(s.Pos, c.path, "expected a server, {name: ..., gpus: [hosts...], nvlink: {rate, delay}}, found %s", Describe(n))
		return
	}
	c.key = s.Pos
	d.decodeInto(n, &s.serverDeclS, c)
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
