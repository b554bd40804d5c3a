package scenarios

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// A sweep file (SCENARIO.md, "Sweeps") names a base scenario and the
// parameters to vary by path:
//
//	base: incast-8to1.yaml        # a file (relative to the sweep file) or an example's name
//	vary:
//	  switch.ecn.kmin: [20KiB, 50KiB, 100KiB]
//	  hca.dcqcn.rpg_ai_rate: [5Mbps, 40Mbps]
//	repeat: 3                     # seeds per point: seed, seed+1, ...
//
// Each path is checked against the scenario schema when the sweep file is
// read (an unknown key is an error at its file:line:column, with a "did
// you mean"), and each value by loading the base with that value alone.
// A point's scenario is the base's YAML tree with the point's values put
// at their paths, loaded by the same strict loader.

// Sweep is a loaded sweep file.
type Sweep struct {
	File string
	// Name is the sweep file's base name without extension.
	Name string
	// BaseFile names the base scenario in messages (a path, or
	// examples/NAME.yaml).
	BaseFile string
	// BaseArg is base: as given, BaseData the base scenario's text.
	BaseArg  string
	BaseData []byte
	// Params are the varied paths, sorted by path.
	Params []SweepParam
	// Repeat is how many seeds each combination runs, default 1.
	Repeat int
	// Points are every combination, in order: the first param varies
	// slowest, the repeat fastest.
	Points []SweepPoint
}

// SweepParam is one varied path with its values.
type SweepParam struct {
	Path   string
	Pos    Pos // the path's key in the sweep file
	segs   []pathSeg
	values []*yaml.Node
	// Values are the values as written (flow style for mappings).
	Values []string
}

// SweepPoint is one run of a sweep.
type SweepPoint struct {
	Index int
	// Values holds, per param (in Sweep.Params order), the value's index
	// in that param's list.
	Values []int
	// Repeat is the seed offset, 0..Repeat-1.
	Repeat int
}

type pathSeg struct {
	key   string
	index int // -1: a key
}

var pathSegRE = regexp.MustCompile(`^([A-Za-z0-9_-]+)((?:\[[0-9]+\])*)$`)

// parsePath splits "traffic[0].poisson.load" (or traffic.0.poisson.load)
// into segments.
func parsePath(p string) ([]pathSeg, error) {
	if p == "" {
		return nil, fmt.Errorf("empty path")
	}
	var out []pathSeg
	for _, part := range strings.Split(p, ".") {
		m := pathSegRE.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("%s is not a path such as switch.ecn.kmin or traffic[0].poisson.load", show(p))
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

func segsString(s []pathSeg) string {
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
		out[f.name] = t.FieldByIndex(f.index).Type
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if _, tagged := f.Tag.Lookup("yaml"); tagged || f.Type == metaType || f.Type.Kind() != reflect.Struct {
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

// checkPath resolves a path against the schema: topology's keys are those
// of the base's kind, traffic[i]'s the generator names and then that
// generator's keys.
func checkPath(segs []pathSeg, topoKind string) error {
	t := reflect.TypeOf(fileS{})
	for i, s := range segs {
		at := segsString(segs[:i])
		switch {
		case t == reflect.TypeOf(topologyV{}):
			var keys map[string]reflect.Type
			for _, k := range []struct {
				kind string
				v    any
			}{{"star", starS{}}, {"dumbbell", dumbbellS{}}, {"leaf-spine", leafSpineS{}}, {"fat-tree", fatTreeS{}}, {"ring", ringS{}}, {"explicit", explicitS{}}} {
				if k.kind == topoKind {
					keys = schemaKeys(reflect.TypeOf(k.v))
				}
			}
			if keys == nil {
				return fmt.Errorf("the base's topology has no valid kind")
			}
			t = reflect.TypeOf(strV{})
			if s.index >= 0 {
				return fmt.Errorf("%s is a mapping, not a list", at)
			}
			kt, ok := keys[s.key]
			if !ok {
				names := keyNames(keys)
				return fmt.Errorf("unknown key %s in %s for kind %s%s; allowed keys are %s", show(s.key), at, topoKind, didYouMean(s.key, names), strings.Join(names, ", "))
			}
			t = kt
		case t == reflect.TypeOf(trafficV{}):
			var names []string
			for _, g := range generators {
				names = append(names, g.name)
				if g.name == s.key {
					t = reflect.TypeOf(g.new()).Elem()
				}
			}
			if t == reflect.TypeOf(trafficV{}) {
				return fmt.Errorf("unknown generator %s in %s%s; expected one of %s", show(s.key), at, didYouMean(s.key, names), strings.Join(names, ", "))
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
				return fmt.Errorf("%s is a value, it has no key %s", at, show(s.key))
			}
			kt, ok := keys[s.key]
			if !ok {
				names := keyNames(keys)
				where := "at the top level"
				if at != "" {
					where = "in " + at
				}
				return fmt.Errorf("unknown key %s %s%s; allowed keys are %s", show(s.key), where, didYouMean(s.key, names), strings.Join(names, ", "))
			}
			t = kt
		}
	}
	return nil
}

// LoadSweep reads a sweep file, its base scenario, and checks every path
// and value. Errors name the sweep file's line and column.
func LoadSweep(path string) (*Sweep, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSweep(path, data)
}

// ParseSweep is LoadSweep on data; file names the source, and base: is
// relative to its folder.
func ParseSweep(file string, data []byte) (*Sweep, error) {
	sw := &Sweep{File: file, Name: defaultName(file), Repeat: 1}
	var errs Errors
	errAt := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, Diagnostic{File: file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)})
	}
	root, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	if root == nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, Errors{{File: file, Line: 1, Col: 1, Msg: "a sweep file is a mapping: base:, vary: and repeat:"}}
	}
	top := root.Content[0]
	var baseN, varyN *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		switch k.Value {
		case "base":
			baseN = v
		case "vary":
			varyN = v
		case "repeat":
			n, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || n < 1 || n > 100000 {
				errAt(v, "repeat: expected a whole number from 1 to 100000, found %s", describe(v))
			} else {
				sw.Repeat = n
			}
		default:
			errAt(k, "unknown key %s%s; a sweep file has base, vary and repeat", show(k.Value), didYouMean(k.Value, []string{"base", "vary", "repeat"}))
		}
	}
	if baseN == nil {
		errAt(top, "missing key base (the scenario to vary: a file or an example's name)")
	}
	if varyN == nil {
		errAt(top, "missing key vary (paths such as switch.ecn.kmin, each with a list of values)")
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if baseN.Kind != yaml.ScalarNode || baseN.Value == "" {
		return nil, Errors{{File: file, Line: baseN.Line, Col: baseN.Column, Msg: "base: expected a scenario file or an example's name, found " + describe(baseN)}}
	}
	sw.BaseArg = baseN.Value
	bpath := baseN.Value
	if !filepath.IsAbs(bpath) {
		bpath = filepath.Join(filepath.Dir(file), bpath)
	}
	if st, err := os.Stat(bpath); err == nil && !st.IsDir() {
		sw.BaseFile = bpath
		sw.BaseData, err = os.ReadFile(bpath)
		if err != nil {
			return nil, err
		}
	} else if src, err := ExampleSource(baseN.Value); err == nil {
		sw.BaseFile, sw.BaseData = "examples/"+strings.TrimSuffix(baseN.Value, ".yaml")+".yaml", src
	} else {
		return nil, Errors{{File: file, Line: baseN.Line, Col: baseN.Column, Msg: fmt.Sprintf("base: no file %s and no example named %s", show(bpath), show(baseN.Value))}}
	}
	if _, err := Parse(sw.BaseFile, sw.BaseData); err != nil {
		return nil, err
	}
	topoKind := ""
	if bt, _ := parseYAML(sw.BaseFile, sw.BaseData); bt != nil {
		if t := mapGet(bt.Content[0], "topology"); t != nil {
			if k := mapGet(t, "kind"); k != nil {
				topoKind = k.Value
			}
		}
	}
	if varyN.Kind != yaml.MappingNode || len(varyN.Content) == 0 {
		return nil, Errors{{File: file, Line: varyN.Line, Col: varyN.Column, Msg: "vary: expected a mapping of paths to lists of values, such as switch.ecn.kmin: [20KiB, 50KiB]"}}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(varyN.Content); i += 2 {
		k, v := varyN.Content[i], varyN.Content[i+1]
		segs, err := parsePath(k.Value)
		if err == nil {
			err = checkPath(segs, topoKind)
		}
		if err != nil {
			errAt(k, "vary: %v", err)
			continue
		}
		canon := segsString(segs)
		if seen[canon] {
			errAt(k, "vary: %s is given twice", canon)
			continue
		}
		seen[canon] = true
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			errAt(v, "vary: %s: expected a list of values, such as [20KiB, 50KiB], found %s", canon, describe(v))
			continue
		}
		p := SweepParam{Path: canon, Pos: Pos{file, k.Line, k.Column}, segs: segs, values: v.Content}
		for _, val := range v.Content {
			p.Values = append(p.Values, nodeText(val))
		}
		sw.Params = append(sw.Params, p)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	sort.Slice(sw.Params, func(i, j int) bool { return sw.Params[i].Path < sw.Params[j].Path })
	// Each value alone must load.
	for pi, p := range sw.Params {
		for vi, val := range p.values {
			vals := make([]int, len(sw.Params))
			for j := range vals {
				vals[j] = -1
			}
			vals[pi] = vi
			if _, _, err := sw.scenario(vals, 0); err != nil {
				errs = append(errs, Diagnostic{File: file, Line: val.Line, Col: val.Column, Msg: fmt.Sprintf("vary: %s = %s: %v", p.Path, p.Values[vi], err)})
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	total := sw.Repeat
	for _, p := range sw.Params {
		total *= len(p.values)
		if total > 1_000_000 {
			return nil, Errors{{File: file, Line: varyN.Line, Col: varyN.Column, Msg: "vary: more than 1000000 points"}}
		}
	}
	for i := 0; i < total; i++ {
		pt := SweepPoint{Index: i, Values: make([]int, len(sw.Params)), Repeat: i % sw.Repeat}
		rest := i / sw.Repeat
		for j := len(sw.Params) - 1; j >= 0; j-- {
			n := len(sw.Params[j].values)
			pt.Values[j] = rest % n
			rest /= n
		}
		sw.Points = append(sw.Points, pt)
	}
	return sw, nil
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

// nodeText is a value as one line of YAML (flow style).
func nodeText(n *yaml.Node) string {
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

// setPath puts val at segs in the document's mapping, making mappings on
// the way where keys are missing.
func setPath(doc *yaml.Node, segs []pathSeg, val *yaml.Node) error {
	cur := doc
	for i, s := range segs {
		last := i == len(segs)-1
		if cur.Kind == yaml.AliasNode {
			return fmt.Errorf("%s is an alias in the base; vary what it refers to", segsString(segs[:i]))
		}
		if s.index >= 0 {
			if cur.Kind != yaml.SequenceNode || s.index >= len(cur.Content) {
				n := 0
				if cur.Kind == yaml.SequenceNode {
					n = len(cur.Content)
				}
				return fmt.Errorf("the base's %s has %d items; there is no [%d]", segsString(segs[:i]), n, s.index)
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
			return fmt.Errorf("the base's %s is %s, not a mapping with key %s", segsString(segs[:i]), describe(cur), s.key)
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

// PointScenario returns point p's scenario, and its YAML text (the base
// with the point's values and seed) for the run's scenario.yaml.
func (sw *Sweep) PointScenario(p SweepPoint) (*Scenario, []byte, error) {
	return sw.scenario(p.Values, p.Repeat)
}

// scenario applies values (an index per param, -1 for none) and the
// seed offset to the base.
func (sw *Sweep) scenario(values []int, repeat int) (*Scenario, []byte, error) {
	root, err := parseYAML(sw.BaseFile, sw.BaseData)
	if err != nil {
		return nil, nil, err
	}
	doc := root.Content[0]
	for i, vi := range values {
		if vi < 0 {
			continue
		}
		p := sw.Params[i]
		if err := setPath(doc, p.segs, p.values[vi]); err != nil {
			return nil, nil, err
		}
	}
	sc, err := parseNode(sw.BaseFile, root, defaultLimits)
	if err != nil {
		return nil, nil, err
	}
	if repeat > 0 {
		sc.Seed += uint64(repeat)
		seed := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(sc.Seed, 10)}
		if err := setPath(doc, []pathSeg{{key: "seed", index: -1}}, seed); err != nil {
			return nil, nil, err
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, nil, err
	}
	enc.Close()
	return sc, b.Bytes(), nil
}

// PointName is a point's folder name: its index and values, as
// "0003_kmin=20KiB_rpg_ai_rate=5Mbps_r1" (the last path element of each
// param; _rN for the N-th extra seed), with characters other than
// letters, digits and .=_- replaced.
func (sw *Sweep) PointName(p SweepPoint) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%04d", p.Index)
	for i, vi := range p.Values {
		segs := sw.Params[i].segs
		last := segs[len(segs)-1]
		name := last.key
		if last.index >= 0 {
			name = segsString(segs)
		}
		fmt.Fprintf(&b, "_%s=%s", name, sw.Params[i].Values[vi])
	}
	if sw.Repeat > 1 {
		fmt.Fprintf(&b, "_r%d", p.Repeat)
	}
	out := []byte(b.String())
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '=' || c == '_' || c == '-') {
			out[i] = '-'
		}
	}
	if len(out) > 200 {
		out = out[:200]
	}
	return string(out)
}
