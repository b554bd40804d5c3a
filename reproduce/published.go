package reproduce

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/scenarios"
)

// Published is a reproduction's published.yaml: the published points
// and, as defaults for every point, their source, how they were read
// and why their tolerance.
type Published struct {
	File   string
	Paper  string // the full references
	Figure string
	Points []Point
}

// Point is one published point and what lfsim's value must be to hold.
type Point struct {
	// ID names the point (Measure's key); Chart groups points into one
	// chart of the report, X is the point's place on it.
	ID, Chart string
	X         float64
	// Value is the published value (NaN for a range alone); Lo and Hi
	// the bounds lfsim's value must lie within, from the tolerance or
	// the range.
	Value, Lo, Hi float64
	// Tolerance is as written: "30%" (of the value), "0.05" (either
	// side), or "" for a range.
	Tolerance string
	// Source, Read and Why: where the point comes from (paper, figure),
	// how it was read (digitized, computed, stated in words), and why
	// the tolerance.
	Source, Read, Why string
	// Kind says whose number the published value is (Kinds): measured,
	// closed-form, statement or project.
	Kind string
	Line int // in published.yaml
}

// Kinds are what a point's published value can be, and what each means
// (review E, finding 4: a reader must see which points are the papers'
// numbers and which the project's own):
//   - measured: a number the source measured and printed or plotted (a
//     table, a figure, a number in its text);
//   - closed-form: computed for lfsim's setup from the source's own
//     formula or model (DCTCP's analysis, Mathis' formula, DCQCN's fluid
//     model);
//   - statement: the source's claim in words, or its range over its own
//     experiments, made a bound;
//   - project: the project's own derivation or bound, holding no number
//     of the cited source (a closed form the project wrote for its
//     topology, a bound taken from lfsim's own tests).
//
// A reproduction all of whose points are project's does not count
// toward issue 52's bar (TestRegistry).
var Kinds = []string{"measured", "closed-form", "statement", "project"}

// Holds says whether got lies within the point's bounds.
func (p Point) Holds(got float64) bool {
	const eps = 1e-9
	return !math.IsNaN(got) && got >= p.Lo-eps*math.Abs(p.Lo) && got <= p.Hi+eps*math.Abs(p.Hi)
}

// Bounds says the point's bounds in words: "17.28 ± 30%
// [12.10, 22.46]" or "in [0.40, 0.60]".
func (p Point) Bounds() string {
	if p.Tolerance == "" {
		return fmt.Sprintf("in [%s, %s]", num(p.Lo), num(p.Hi))
	}
	return fmt.Sprintf("%s ± %s [%s, %s]", num(p.Value), p.Tolerance, num(p.Lo), num(p.Hi))
}

// num writes a value with four significant digits, without an exponent
// from 1,000 to 10^9 (a queue's bytes), whole from 1,000 on.
func num(v float64) string { return Format(v) }

// Format is how lfsim reproduce writes a value: four significant
// digits, whole numbers from 1,000 to 10^9.
func Format(v float64) string {
	if a := math.Abs(v); a >= 1000 && a < 1e9 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// LoadPublished reads reproduction name's published.yaml; an error
// names the file, line and column, and what was expected.
func LoadPublished(name string) (*Published, error) {
	file, data, err := scenarios.ReproduceFile(name, "published.yaml")
	if err != nil {
		return nil, err
	}
	return ParsePublished(file, data)
}

// ParsePublished is LoadPublished on data; file names it in messages.
func ParsePublished(file string, data []byte) (*Published, error) {
	var errs scenario.Errors
	errAt := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, scenario.Diagnostic{File: file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)})
	}
	top, err := scenario.ParseMapping(file, data, "published.yaml is a mapping: paper, figure, source, read, why and points")
	if err != nil {
		return nil, err
	}
	pub := &Published{File: file}
	var defaults struct{ source, read, why, kind string }
	var pointsN *yaml.Node
	text := func(v *yaml.Node, key string) string {
		if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
			errAt(v, "%s: expected text, found %s", key, scenario.Describe(v))
			return ""
		}
		return strings.TrimSpace(v.Value)
	}
	topKeys := []string{"paper", "figure", "source", "read", "why", "kind", "points"}
	once := givenOnce(errAt)
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if !once(k) {
			continue
		}
		switch k.Value {
		case "paper":
			pub.Paper = text(v, k.Value)
		case "figure":
			pub.Figure = text(v, k.Value)
		case "source":
			defaults.source = text(v, k.Value)
		case "read":
			defaults.read = text(v, k.Value)
		case "why":
			defaults.why = text(v, k.Value)
		case "kind":
			defaults.kind = kindOf(v, errAt)
		case "points":
			pointsN = v
		default:
			errAt(k, "unknown key %s%s; published.yaml has %s", scenario.Show(k.Value), scenario.DidYouMean(k.Value, topKeys), strings.Join(topKeys, ", "))
		}
	}
	if pub.Paper == "" || pub.Figure == "" {
		errAt(top, "missing key paper or figure (the references, and what of them is reproduced)")
	}
	if pointsN == nil || pointsN.Kind != yaml.SequenceNode || len(pointsN.Content) == 0 {
		at := top
		if pointsN != nil {
			at = pointsN
		}
		errAt(at, "points: expected a list of published points, each {id, chart, x, value and tolerance, or range}")
		return nil, errs
	}
	seen := map[string]bool{}
	for _, pn := range pointsN.Content {
		p, ok := parsePoint(pn, errAt, text)
		if !ok {
			continue
		}
		if seen[p.ID] {
			errAt(pn, "points: two points have the id %s", scenario.Show(p.ID))
		}
		seen[p.ID] = true
		for _, f := range []struct {
			v    *string
			def  string
			name string
		}{{&p.Source, defaults.source, "source"}, {&p.Read, defaults.read, "read"}, {&p.Why, defaults.why, "why"}, {&p.Kind, defaults.kind, "kind (" + strings.Join(Kinds, ", ") + ")"}} {
			if *f.v == "" {
				*f.v = f.def
			}
			if *f.v == "" {
				errAt(pn, "point %s has no %s (give it the point's own, or the file's)", scenario.Show(p.ID), f.name)
			}
		}
		pub.Points = append(pub.Points, p)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return pub, nil
}

// KindCounts says how many of pub's points are of each kind, in Kinds'
// order: "2 measured, 1 project".
func KindCounts(pub *Published) string {
	var parts []string
	for _, k := range Kinds {
		n := 0
		for _, p := range pub.Points {
			if p.Kind == k {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(parts, ", ")
}

// kindOf reads a kind: one of Kinds.
func kindOf(v *yaml.Node, errAt func(*yaml.Node, string, ...any)) string {
	if v.Kind != yaml.ScalarNode || !slices.Contains(Kinds, v.Value) {
		errAt(v, "kind: expected one of %s, found %s", strings.Join(Kinds, ", "), scenario.Describe(v))
		return ""
	}
	return v.Value
}

// givenOnce returns a check that a mapping's key is new: a key given
// twice is an error at the second, naming where the first was, as the
// sweep loader's vary: does (without it the last would win silently, and
// a second tolerance: would widen a point unseen).
func givenOnce(errAt func(*yaml.Node, string, ...any)) func(k *yaml.Node) bool {
	first := map[string]scenario.Pos{}
	return func(k *yaml.Node) bool {
		here := scenario.Pos{Line: k.Line, Col: k.Column}
		if at, dup := first[k.Value]; dup {
			errAt(k, "key %s is given twice (first at %s)", scenario.Show(k.Value), scenario.FirstAt(at, here))
			return false
		}
		first[k.Value] = here
		return true
	}
}

// parsePoint reads one point of points:.
func parsePoint(pn *yaml.Node, errAt func(*yaml.Node, string, ...any), text func(*yaml.Node, string) string) (Point, bool) {
	p := Point{Value: math.NaN(), Line: pn.Line}
	if pn.Kind != yaml.MappingNode {
		errAt(pn, "points: expected a mapping {id, chart, x, value, tolerance} or {id, chart, x, range}, found %s", scenario.Describe(pn))
		return p, false
	}
	number := func(v *yaml.Node, key string) (float64, bool) {
		f, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			errAt(v, "%s: expected a number, found %s", key, scenario.Describe(v))
			return 0, false
		}
		return f, true
	}
	var tolN, rangeN, valueN, xN *yaml.Node
	ok := true
	keys := []string{"id", "chart", "x", "value", "tolerance", "range", "source", "read", "why", "kind"}
	once := givenOnce(errAt)
	for i := 0; i+1 < len(pn.Content); i += 2 {
		k, v := pn.Content[i], pn.Content[i+1]
		if !once(k) {
			ok = false
			continue
		}
		switch k.Value {
		case "id":
			p.ID = text(v, "id")
		case "chart":
			p.Chart = text(v, "chart")
		case "x":
			xN = v
			p.X, _ = number(v, "x")
		case "value":
			valueN = v
			f, good := number(v, "value")
			p.Value, ok = f, ok && good
		case "tolerance":
			tolN = v
		case "range":
			rangeN = v
		case "source":
			p.Source = text(v, "source")
		case "read":
			p.Read = text(v, "read")
		case "why":
			p.Why = text(v, "why")
		case "kind":
			p.Kind = kindOf(v, errAt)
		default:
			errAt(k, "unknown key %s%s; a point has %s", scenario.Show(k.Value), scenario.DidYouMean(k.Value, keys), strings.Join(keys, ", "))
			ok = false
		}
	}
	if p.ID == "" || p.Chart == "" {
		errAt(pn, "a point needs an id and a chart")
		return p, false
	}
	if xN == nil {
		// Not 0 silently: every message names x as a point's key.
		errAt(pn, "point %s: missing key x (its place on its chart, a number)", scenario.Show(p.ID))
		ok = false
	}
	switch {
	case rangeN != nil && (valueN != nil || tolN != nil):
		errAt(rangeN, "point %s: give value and tolerance, or range, not both", scenario.Show(p.ID))
		return p, false
	case rangeN != nil:
		if rangeN.Kind != yaml.SequenceNode || len(rangeN.Content) != 2 {
			errAt(rangeN, "range: expected [low, high], found %s", scenario.Describe(rangeN))
			return p, false
		}
		lo, ok1 := number(rangeN.Content[0], "range")
		hi, ok2 := number(rangeN.Content[1], "range")
		if !ok1 || !ok2 {
			return p, false
		}
		if lo > hi {
			errAt(rangeN, "range: low %s is above high %s", num(lo), num(hi))
			return p, false
		}
		p.Lo, p.Hi = lo, hi
	case valueN != nil && tolN != nil:
		if !ok {
			return p, false
		}
		p.Tolerance = strings.TrimSpace(tolN.Value)
		pct, isPct := strings.CutSuffix(p.Tolerance, "%")
		t, err := strconv.ParseFloat(pct, 64)
		if tolN.Kind != yaml.ScalarNode || err != nil || t < 0 || math.IsInf(t, 0) || math.IsNaN(t) {
			errAt(tolN, "tolerance: expected a share of the value such as 30%% or an absolute amount such as 0.05, found %s", scenario.Describe(tolN))
			return p, false
		}
		if isPct {
			t = math.Abs(p.Value) * t / 100
		}
		p.Lo, p.Hi = p.Value-t, p.Value+t
	default:
		errAt(pn, "point %s: expected value and tolerance, or range", scenario.Show(p.ID))
		return p, false
	}
	return p, ok
}
