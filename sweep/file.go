package sweep

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/scenario"
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
	Params []Param
	// Repeat is how many seeds each combination runs, default 1.
	Repeat int
	// Points are every combination, in order: the first param varies
	// slowest, the repeat fastest.
	Points []Point
}

// Param is one varied path with its values.
type Param struct {
	Path   string
	Pos    scenario.Pos // the path's key in the sweep file
	path   scenario.Path
	values []*yaml.Node
	// Values are the values as written (flow style for mappings).
	Values []string
}

// Point is one run of a sweep.
type Point struct {
	Index int
	// Values holds, per param (in Sweep.Params order), the value's index
	// in that param's list.
	Values []int
	// Repeat is the seed offset, 0..Repeat-1.
	Repeat int
}

// Load reads a sweep file, its base scenario, and checks every path
// and value. Errors name the sweep file's line and column.
func Load(path string) (*Sweep, error) {
	data, err := scenario.ReadFile(path, "sweep file", scenario.MaxScenarioBytes)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse is Load on data; file names the source, and base: is
// relative to its folder.
func Parse(file string, data []byte) (*Sweep, error) {
	sw := &Sweep{File: file, Name: scenario.DefaultName(file), Repeat: 1}
	var errs scenario.Errors
	errAt := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, scenario.Diagnostic{File: file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)})
	}
	root, err := scenario.ParseYAML(file, data)
	if err != nil {
		return nil, err
	}
	if root == nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, scenario.Errors{{File: file, Line: 1, Col: 1, Msg: "a sweep file is a mapping: base:, vary: and repeat:"}}
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
				errAt(v, "repeat: expected a whole number from 1 to 100000, found %s", scenario.Describe(v))
			} else {
				sw.Repeat = n
			}
		default:
			errAt(k, "unknown key %s%s; a sweep file has base, vary and repeat", scenario.Show(k.Value), scenario.DidYouMean(k.Value, []string{"base", "vary", "repeat"}))
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
		return nil, scenario.Errors{{File: file, Line: baseN.Line, Col: baseN.Column, Msg: "base: expected a scenario file or an example's name, found " + scenario.Describe(baseN)}}
	}
	sw.BaseArg = baseN.Value
	bpath := baseN.Value
	if !filepath.IsAbs(bpath) {
		bpath = filepath.Join(filepath.Dir(file), bpath)
	}
	if st, err := os.Stat(bpath); err == nil && !st.IsDir() {
		sw.BaseFile = bpath
		sw.BaseData, err = scenario.ReadFile(bpath, "scenario file", scenario.MaxScenarioBytes)
		if err != nil {
			return nil, err
		}
	} else if name, src, err := scenario.ExampleFile(baseN.Value); err == nil {
		sw.BaseFile, sw.BaseData = name, src
	} else {
		return nil, scenario.Errors{{File: file, Line: baseN.Line, Col: baseN.Column, Msg: fmt.Sprintf("base: no file %s and no example named %s", scenario.Show(bpath), scenario.Show(baseN.Value))}}
	}
	if root, err := scenario.ParseYAML(sw.BaseFile, sw.BaseData); err == nil && root != nil && (len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode) {
		// Some other file: said so, and nothing of it is shown (a
		// scenario's messages quote what they find).
		return nil, scenario.Errors{{File: file, Line: baseN.Line, Col: baseN.Column,
			Msg: fmt.Sprintf("base: %s is not a scenario file: its top level is not a mapping of keys such as topology and traffic (nothing of it is shown)", scenario.Show(bpath))}}
	}
	if _, err := assembly.Parse(sw.BaseFile, sw.BaseData); err != nil {
		return nil, err
	}
	bt, _ := scenario.ParseYAML(sw.BaseFile, sw.BaseData)
	topoKind := scenario.TopologyKind(bt)
	if varyN.Kind != yaml.MappingNode || len(varyN.Content) == 0 {
		return nil, scenario.Errors{{File: file, Line: varyN.Line, Col: varyN.Column, Msg: "vary: expected a mapping of paths to lists of values, such as switch.ecn.kmin: [20KiB, 50KiB]"}}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(varyN.Content); i += 2 {
		k, v := varyN.Content[i], varyN.Content[i+1]
		segs, err := scenario.ParsePath(k.Value)
		if err == nil {
			err = segs.Check(topoKind)
		}
		if err != nil {
			errAt(k, "vary: %v", err)
			continue
		}
		canon := segs.String()
		if seen[canon] {
			errAt(k, "vary: %s is given twice", canon)
			continue
		}
		seen[canon] = true
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			errAt(v, "vary: %s: expected a list of values, such as [20KiB, 50KiB], found %s", canon, scenario.Describe(v))
			continue
		}
		p := Param{Path: canon, Pos: scenario.Pos{File: file, Line: k.Line, Col: k.Column}, path: segs, values: v.Content}
		for _, val := range v.Content {
			p.Values = append(p.Values, scenario.NodeText(val))
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
				errs = append(errs, scenario.Diagnostic{File: file, Line: val.Line, Col: val.Column, Msg: fmt.Sprintf("vary: %s = %s: %v", p.Path, p.Values[vi], err)})
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
			return nil, scenario.Errors{{File: file, Line: varyN.Line, Col: varyN.Column, Msg: "vary: more than 1000000 points"}}
		}
	}
	for i := 0; i < total; i++ {
		pt := Point{Index: i, Values: make([]int, len(sw.Params)), Repeat: i % sw.Repeat}
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

// seedPath is seed:, which a repeat's point sets.
var seedPath, _ = scenario.ParsePath("seed")

// PointScenario returns point p's scenario, and its YAML text (the base
// with the point's values and seed) for the run's scenario.yaml.
func (sw *Sweep) PointScenario(p Point) (*assembly.Scenario, []byte, error) {
	return sw.scenario(p.Values, p.Repeat)
}

// scenario applies values (an index per param, -1 for none) and the
// seed offset to the base.
func (sw *Sweep) scenario(values []int, repeat int) (*assembly.Scenario, []byte, error) {
	root, err := scenario.ParseYAML(sw.BaseFile, sw.BaseData)
	if err != nil {
		return nil, nil, err
	}
	doc := root.Content[0]
	for i, vi := range values {
		if vi < 0 {
			continue
		}
		p := sw.Params[i]
		if err := p.path.Set(doc, p.values[vi]); err != nil {
			return nil, nil, err
		}
	}
	sc, err := assembly.ParseNode(sw.BaseFile, root)
	if err != nil {
		return nil, nil, err
	}
	if repeat > 0 {
		sc.Seed += uint64(repeat)
		seed := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(sc.Seed, 10)}
		if err := seedPath.Set(doc, seed); err != nil {
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
func (sw *Sweep) PointName(p Point) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%04d", p.Index)
	for i, vi := range p.Values {
		fmt.Fprintf(&b, "_%s=%s", sw.Params[i].path.Name(), sw.Params[i].Values[vi])
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
