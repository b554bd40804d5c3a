package scenario

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// A Path names a key of a scenario file, as a sweep's vary: does:
// "switch.ecn.kmin" or "traffic[0].poisson.load". It is checked against
// the schema (Check) and puts a value into a file's YAML tree (Set).
type Path []pathSeg

type pathSeg struct {
	key   string
	index int // -1: a key
}

var pathSegRE = regexp.MustCompile(`^([A-Za-z0-9_-]+)((?:\[[0-9]+\])*)$`)

// ParsePath splits "traffic[0].poisson.load" (or traffic.0.poisson.load)
// into segments.
func ParsePath(p string) (Path, error) {
	if p == "" {
		return nil, fmt.Errorf("empty path")
	}
	var out Path
	for _, part := range strings.Split(p, ".") {
		m := pathSegRE.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("%s is not a path such as switch.ecn.kmin or traffic[0].poisson.load", Show(p))
		}
		if n, err := strconv.Atoi(m[1]); err == nil {
			out = append(out, pathSeg{index: n})
		} else {
			out = append(out, pathSeg{key: m[1], index: -1})
		}
		for _, ix := range regexp.MustCompile(`\[([0-9]+)\]`).FindAllStringSubmatch(m[2], -1) {
			n, _ := strconv.Atoi(ix[1])
			out = append(out, pathSeg{index: n})
		}
	}
	return out, nil
}

// String is the path in its canonical form, "traffic[0].poisson.load".
func (s Path) String() string {
	var b strings.Builder
	for i, x := range s {
		if x.index >= 0 {
			fmt.Fprintf(&b, "[%d]", x.index)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(x.key)
	}
	return b.String()
}

// schemaKeys returns the keys a schema type takes (with their types), or
// nil for a leaf. Types that read their node themselves are looked into:
// their struct fields that hold keys (ecn's kmin, xoff's alpha) count.
func schemaKeys(t reflect.Type) map[string]reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	out := map[string]reflect.Type{}
	si := schemaOf(t)
	for _, f := range si.fields {
		if f.section != nil {
			out[f.name] = f.section // a table's kind: its parameters
			continue
		}
		out[f.name] = t.FieldByIndex(f.index).Type
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		_, kinds := f.Tag.Lookup("kinds")
		if _, tagged := f.Tag.Lookup("yaml"); tagged || kinds || f.Type == metaType || f.Type.Kind() != reflect.Struct {
			continue
		}
		if f.Anonymous && schemaOf(f.Type).fields != nil {
			continue // already flattened by schemaOf
		}
		for k, v := range schemaKeys(f.Type) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func keyNames(m map[string]reflect.Type) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Check resolves a path against the schema: topology's keys are those of
// the kind topoKind, traffic[i]'s the generator names and then that
// generator's keys.
func (segs Path) Check(topoKind string) error {
	t := reflect.TypeOf(File{})
	for i, s := range segs {
		at := segs[:i].String()
		switch {
		case t == reflect.TypeOf(TopologyV{}):
			var keys map[string]reflect.Type
			if kt := topologyKeys(topoKind); kt != nil {
				keys = schemaKeys(kt)
			}
			if keys == nil {
				return fmt.Errorf("the base's topology has no valid kind")
			}
			if s.index >= 0 {
				return fmt.Errorf("%s is a mapping, not a list", at)
			}
			kt, ok := keys[s.key]
			if !ok {
				names := keyNames(keys)
				return fmt.Errorf("unknown key %s in %s for kind %s%s; allowed keys are %s", Show(s.key), at, topoKind, DidYouMean(s.key, names), strings.Join(names, ", "))
			}
			t = kt
		case t == reflect.TypeOf(TrafficV{}):
			var names []string
			for _, g := range generators {
				names = append(names, g.name)
				if g.name == s.key {
					t = reflect.TypeOf(g.new()).Elem()
				}
			}
			if t == reflect.TypeOf(TrafficV{}) {
				return fmt.Errorf("unknown generator %s in %s%s; expected one of %s", Show(s.key), at, DidYouMean(s.key, names), strings.Join(names, ", "))
			}
		case t.Kind() == reflect.Slice:
			if s.index < 0 {
				return fmt.Errorf("%s is a list: give an index, as %s[0]", at, at)
			}
			t = t.Elem()
		default:
			keys := schemaKeys(t)
			if s.index >= 0 {
				return fmt.Errorf("%s is not a list", at)
			}
			if keys == nil {
				return fmt.Errorf("%s is a value, it has no key %s", at, Show(s.key))
			}
			kt, ok := keys[s.key]
			if !ok {
				names := keyNames(keys)
				where := "at the top level"
				if at != "" {
					where = "in " + at
				}
				return fmt.Errorf("unknown key %s %s%s; allowed keys are %s", Show(s.key), where, DidYouMean(s.key, names), strings.Join(names, ", "))
			}
			t = kt
		}
	}
	return nil
}

// Name is the path's last key, or the whole path where it ends in an
// index ("kmin", "traffic[0]").
func (s Path) Name() string {
	last := s[len(s)-1]
	if last.index >= 0 {
		return s.String()
	}
	return last.key
}

// TopologyKind is topology.kind in a scenario file's YAML tree (root, as
// ParseYAML returns it), "" where it has none.
func TopologyKind(root *yaml.Node) string {
	if root == nil || len(root.Content) == 0 {
		return ""
	}
	if t := mapGet(root.Content[0], "topology"); t != nil {
		if k := mapGet(t, "kind"); k != nil {
			return k.Value
		}
	}
	return ""
}

// mapGet returns a mapping's value for key (not following merge keys).
func mapGet(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// NodeText is a value as one line of YAML (flow style).
func NodeText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	c := copyNode(n)
	setFlow(c)
	out, err := yaml.Marshal(c)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

func setFlow(n *yaml.Node) {
	n.Style |= yaml.FlowStyle
	for _, c := range n.Content {
		setFlow(c)
	}
}

// copyNode deep-copies a node (aliases resolved to copies of their
// targets), so that edits never reach a node shared through an anchor.
func copyNode(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		c := copyNode(n.Alias)
		c.Anchor = ""
		return c
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = copyNode(x)
	}
	return &c
}

// at positions a copied value where the node it replaces was, so that the
// loader's messages point into the base file.
func placeAt(n *yaml.Node, line, col int) {
	n.Line, n.Column = line, col
	for _, c := range n.Content {
		placeAt(c, line, col)
	}
}

// Set puts val at the path in the document's mapping (doc), making
// mappings on the way where keys are missing.
func (segs Path) Set(doc *yaml.Node, val *yaml.Node) error {
	cur := doc
	for i, s := range segs {
		last := i == len(segs)-1
		if cur.Kind == yaml.AliasNode {
			return fmt.Errorf("%s is an alias in the base; vary what it refers to", segs[:i].String())
		}
		if s.index >= 0 {
			if cur.Kind != yaml.SequenceNode || s.index >= len(cur.Content) {
				n := 0
				if cur.Kind == yaml.SequenceNode {
					n = len(cur.Content)
				}
				return fmt.Errorf("the base's %s has %d items; there is no [%d]", segs[:i].String(), n, s.index)
			}
			if cur.Content[s.index].Kind == yaml.AliasNode {
				cur.Content[s.index] = copyNode(cur.Content[s.index])
			}
			if last {
				v := copyNode(val)
				placeAt(v, cur.Content[s.index].Line, cur.Content[s.index].Column)
				cur.Content[s.index] = v
				return nil
			}
			cur = cur.Content[s.index]
			continue
		}
		if cur.Kind == yaml.ScalarNode {
			// A value where the path needs a mapping (ecn: off, an empty
			// key) gives way to a mapping with the key: the schema check
			// has already said that the key belongs there.
			cur.Kind, cur.Tag, cur.Value, cur.Style = yaml.MappingNode, "!!map", "", 0
		}
		if cur.Kind != yaml.MappingNode {
			return fmt.Errorf("the base's %s is %s, not a mapping with key %s", segs[:i].String(), Describe(cur), s.key)
		}
		var next *yaml.Node
		for j := 0; j+1 < len(cur.Content); j += 2 {
			if cur.Content[j].Value == s.key {
				if cur.Content[j+1].Kind == yaml.AliasNode {
					cur.Content[j+1] = copyNode(cur.Content[j+1])
				}
				if last {
					v := copyNode(val)
					placeAt(v, cur.Content[j+1].Line, cur.Content[j+1].Column)
					cur.Content[j+1] = v
					return nil
				}
				next = cur.Content[j+1]
				break
			}
		}
		if next == nil {
			k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s.key, Line: cur.Line, Column: cur.Column}
			if last {
				next = copyNode(val)
				placeAt(next, cur.Line, cur.Column)
			} else {
				next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: cur.Line, Column: cur.Column}
			}
			cur.Content = append(cur.Content, k, next)
			if last {
				return nil
			}
		}
		cur = next
	}
	return nil
}
