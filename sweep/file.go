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

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/scenarios"
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
	// Bases are the base scenarios, in the order given: one, or several
	// to compare (then Params[0] is "base", whose values are theirs).
	Bases []Base
	// Params are the varied paths, sorted by path (after "base").
	Params []Param
	// Repeat is how many seeds each combination runs, default 1.
	Repeat int
	// Points are every combination, in order: the first param varies
	// slowest, the repeat fastest.
	Points []Point
}

// Base is one base scenario of a sweep.
type Base struct {
	// Arg is base: as given; Name its file name without extension (the
	// base param's value, e.g. "lossless-or-not-iwarp-cubic").
	Arg, Name string
	// File names the scenario in messages (a path, or
	// examples/NAME.yaml); Data is its text.
	File string
	Data []byte
	// Library says the base is a scenario of the embedded library (an
	// example's name): what it names comes from the library where not
	// on disk (resolve.ParseLibrary).
	Library bool
}

// isBase says whether param i is the choice of base.
func (sw *Sweep) isBase(i int) bool { return i == 0 && len(sw.Bases) > 1 }

// Param is one varied path with its values.
type Param struct {
	Path string
	Pos  scenario.Pos // the path's key in the sweep file
	// arg names an Extra's parameter in messages ("" for the file's).
	arg    string
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

// Load reads a sweep file (or, when there is no such file, the built-in
// sweep of its name), its base scenario, and checks every path and
// value. Errors name the sweep file's line and column.
func Load(path string) (*Sweep, error) {
	if _, err := os.Stat(path); err != nil {
		// Not a file: a built-in sweep of that name (lossless-or-not),
		// also when a cluster's task names it by an absolute path.
		if file, data, ok := scenarios.SweepExample(filepath.Base(path)); ok {
			sw, err := Parse(file, data)
			if sw != nil {
				sw.Name = strings.TrimSuffix(filepath.Base(path), ".yaml")
			}
			return sw, err
		}
	}
	data, err := scenario.ReadFile(path, "sweep file", scenario.MaxScenarioBytes)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse is Load on data; file names the source, and base: is
// relative to its folder.
func Parse(file string, data []byte) (*Sweep, error) { return ParseWith(file, data, nil) }

// Extra is a parameter added to a sweep from outside its file, with one
// value (lfsim reproduce's --set). It is checked as vary:'s are, and an
// error names it by Name, as the user gave it, in place of a file
// position: it has none in the file.
type Extra struct {
	// Name is how the user gave it ("--set hca.dma_latency=1us").
	Name  string
	Path  string
	Value *yaml.Node
}

// ParseWith is Parse with extra parameters laid over the file's vary:,
// each as a one-value list.
func ParseWith(file string, data []byte, extra []Extra) (*Sweep, error) {
	sw := &Sweep{File: file, Name: scenario.DefaultName(file), Repeat: 1}
	var errs scenario.Errors
	errAt := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, scenario.Diagnostic{File: file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)})
	}
	top, err := scenario.ParseMapping(file, data, "a sweep file is a mapping: base:, vary: and repeat:")
	if err != nil {
		return nil, err
	}
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
	if varyN == nil && len(extra) == 0 && (baseN == nil || baseN.Kind != yaml.SequenceNode) {
		errAt(top, "missing key vary (paths such as switch.ecn.kmin, each with a list of values)")
	}
	if len(errs) > 0 {
		return nil, errs
	}
	var baseNs []*yaml.Node
	switch {
	case baseN.Kind == yaml.SequenceNode && len(baseN.Content) > 0:
		baseNs = baseN.Content
	case baseN.Kind == yaml.ScalarNode && baseN.Value != "":
		baseNs = []*yaml.Node{baseN}
	default:
		return nil, scenario.Errors{{File: file, Line: baseN.Line, Col: baseN.Column, Msg: "base: expected a scenario file or an example's name, or a list of them, found " + scenario.Describe(baseN)}}
	}
	for _, n := range baseNs {
		b, err := loadBase(file, n)
		if err != nil {
			return nil, err
		}
		for _, o := range sw.Bases {
			if o.Name == b.Name {
				return nil, scenario.Errors{{File: file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf("base: two bases are named %s (%s and %s); a point names its base by its file name", scenario.Show(b.Name), scenario.Show(o.Arg), scenario.Show(b.Arg))}}
			}
		}
		sw.Bases = append(sw.Bases, b)
	}
	if varyN != nil && (varyN.Kind != yaml.MappingNode || len(varyN.Content) == 0) {
		return nil, scenario.Errors{{File: file, Line: varyN.Line, Col: varyN.Column, Msg: "vary: expected a mapping of paths to lists of values, such as switch.ecn.kmin: [20KiB, 50KiB]"}}
	}
	if varyN == nil {
		varyN = &yaml.Node{Kind: yaml.MappingNode} // the bases alone are compared
	}
	topoKinds := map[string]bool{}
	var kinds []string
	for _, b := range sw.Bases {
		bt, _ := scenario.ParseYAML(b.File, b.Data)
		if k := scenario.TopologyKind(bt); !topoKinds[k] {
			topoKinds[k] = true
			kinds = append(kinds, k)
		}
	}
	// The file's vary: entries, then the extras, each with where an
	// error about it points.
	type entry struct {
		k, v *yaml.Node
		arg  string // Extra.Name, or "" for the file's
	}
	var entries []entry
	for i := 0; i+1 < len(varyN.Content); i += 2 {
		entries = append(entries, entry{k: varyN.Content[i], v: varyN.Content[i+1]})
	}
	for _, x := range extra {
		entries = append(entries, entry{k: &yaml.Node{Kind: yaml.ScalarNode, Value: x.Path},
			v: &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{x.Value}}, arg: x.Name})
	}
	errOf := func(e entry, n *yaml.Node, format string, args ...any) {
		if e.arg != "" {
			errs = append(errs, scenario.Diagnostic{File: e.arg, Msg: fmt.Sprintf(format, args...)})
			return
		}
		errAt(n, "vary: "+format, args...)
	}
	seen := map[string]string{} // where each path was given first
	for _, e := range entries {
		k, v := e.k, e.v
		segs, err := scenario.ParsePath(k.Value)
		for _, kind := range kinds {
			if err == nil {
				err = segs.Check(kind)
			}
		}
		if err != nil {
			errOf(e, k, "%v", err)
			continue
		}
		canon := segs.String()
		if first, dup := seen[canon]; dup {
			if e.arg == "" {
				errAt(k, "vary: %s is given twice", canon)
			} else {
				errOf(e, k, "%s is given twice (first %s)", canon, first)
			}
			continue
		}
		seen[canon] = "by " + e.arg
		if e.arg == "" {
			seen[canon] = "in vary: at " + scenario.Pos{File: file, Line: k.Line, Col: k.Column}.String()
		}
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			errOf(e, v, "%s: expected a list of values, such as [20KiB, 50KiB], found %s", canon, scenario.Describe(v))
			continue
		}
		p := Param{Path: canon, Pos: scenario.Pos{File: file, Line: k.Line, Col: k.Column}, arg: e.arg, path: segs, values: v.Content}
		if e.arg != "" {
			p.Pos = scenario.Pos{File: e.arg}
		}
		for _, val := range v.Content {
			p.Values = append(p.Values, scenario.NodeText(val))
		}
		sw.Params = append(sw.Params, p)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	sort.Slice(sw.Params, func(i, j int) bool { return sw.Params[i].Path < sw.Params[j].Path })
	if len(sw.Bases) > 1 {
		// The bases are the first param, varying slowest.
		bp := Param{Path: "base", Pos: scenario.Pos{File: file, Line: baseN.Line, Col: baseN.Column}, values: baseNs}
		for _, b := range sw.Bases {
			bp.Values = append(bp.Values, b.Name)
		}
		sw.Params = append([]Param{bp}, sw.Params...)
	}
	// Each value alone must load, on every base.
	for pi, p := range sw.Params {
		if sw.isBase(pi) {
			continue
		}
		for vi, val := range p.values {
			for bi := range sw.Bases {
				vals := make([]int, len(sw.Params))
				for j := range vals {
					vals[j] = -1
				}
				vals[pi] = vi
				on := ""
				if sw.isBase(0) {
					vals[0] = bi
					on = " on base " + sw.Bases[bi].Name
				}
				if _, _, err := sw.scenario(vals, 0); err != nil {
					d := scenario.Diagnostic{File: file, Line: val.Line, Col: val.Column, Msg: fmt.Sprintf("vary: %s = %s%s: %v", p.Path, p.Values[vi], on, err)}
					if p.arg != "" {
						d = scenario.Diagnostic{File: p.arg, Msg: fmt.Sprintf("%s = %s%s: %v", p.Path, p.Values[vi], on, err)}
					}
					errs = append(errs, d)
				}
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
func (sw *Sweep) PointScenario(p Point) (*resolve.Scenario, []byte, error) {
	return sw.scenario(p.Values, p.Repeat)
}

// scenario applies values (an index per param, -1 for none) and the
// seed offset to the base.
func (sw *Sweep) scenario(values []int, repeat int) (*resolve.Scenario, []byte, error) {
	base := &sw.Bases[0]
	if sw.isBase(0) && values[0] >= 0 {
		base = &sw.Bases[values[0]]
	}
	root, err := scenario.ParseYAML(base.File, base.Data)
	if err != nil {
		return nil, nil, err
	}
	doc := root.Content[0]
	for i, vi := range values {
		if vi < 0 || sw.isBase(i) {
			continue
		}
		p := sw.Params[i]
		if err := p.path.Set(doc, p.values[vi]); err != nil {
			return nil, nil, err
		}
	}
	sc, err := resolve.ParseNode(base.File, root, base.Library)
	if err != nil {
		return nil, nil, err
	}
	// The point's folder holds copies of the files it names (RunPoint),
	// those from outside the base's folder in inputs/, named so here.
	if _, moved := scenario.RunCopies(sc.Inputs, reports.IsRunFile); !scenario.Relocate(root, moved) {
		return nil, nil, fmt.Errorf("%s: cannot point the files it names at their copies in the point's folder", base.File)
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
		name := "base"
		if !sw.isBase(i) {
			name = sw.Params[i].path.Name()
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

// loadBase reads one base: a file (relative to the sweep file's folder)
// or an example's name; n is its node in the sweep file (for messages).
func loadBase(file string, n *yaml.Node) (Base, error) {
	errAt := func(msg string) (Base, error) {
		return Base{}, scenario.Errors{{File: file, Line: n.Line, Col: n.Column, Msg: msg}}
	}
	if n.Kind != yaml.ScalarNode || n.Value == "" {
		return errAt("base: expected a scenario file or an example's name, found " + scenario.Describe(n))
	}
	b := Base{Arg: n.Value, Name: scenario.DefaultName(n.Value)}
	bpath := n.Value
	if !filepath.IsAbs(bpath) {
		bpath = filepath.Join(filepath.Dir(file), bpath)
	}
	if st, err := os.Stat(bpath); err == nil && !st.IsDir() {
		b.File = bpath
		b.Data, err = scenario.ReadFile(bpath, "scenario file", scenario.MaxScenarioBytes)
		if err != nil {
			return Base{}, err
		}
	} else if name, src, err := scenarios.ExampleFile(n.Value); err == nil {
		b.File, b.Data, b.Library = name, src, true
	} else {
		return errAt(fmt.Sprintf("base: no file %s and no example named %s", scenario.Show(bpath), scenario.Show(n.Value)))
	}
	if root, err := scenario.ParseYAML(b.File, b.Data); err == nil && root != nil && (len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode) {
		// Some other file: said so, and nothing of it is shown (a
		// scenario's messages quote what they find).
		return errAt(fmt.Sprintf("base: %s is not a scenario file: its top level is not a mapping of keys such as topology and traffic (nothing of it is shown)", scenario.Show(bpath)))
	}
	parse := resolve.Parse
	if b.Library {
		parse = resolve.ParseLibrary
	}
	if _, err := parse(b.File, b.Data); err != nil {
		return Base{}, err
	}
	return b, nil
}
