package reproduce

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/scenarios"
	"github.com/lfsim/lfsim/sweep"
)

// Options say how to run a reproduction.
type Options struct {
	// Dir is the reproduction's folder: its points under points/ (as
	// lfsim sweep writes them), points.csv and report.html.
	Dir string
	// Workers is how many points run at once (0: GOMAXPROCS).
	Workers int
	// Resume skips points whose run is complete (by default every point
	// runs again: a verdict is the binary's at hand).
	Resume bool
	// Set lays "path=value" over every run, as a sweep's one-value vary
	// does (a test moves a model parameter so).
	Set []string
	// Log, if not nil, gets a line per point started or done.
	Log io.Writer
}

// Outcome is a reproduction's verdict, point by point.
type Outcome struct {
	Reproduction Reproduction
	Published    *Published
	Rows         []Row
	// OK says every point holds.
	OK bool
}

// Row is one published point beside lfsim's value.
type Row struct {
	Point Point
	// Got is lfsim's value (NaN when the measure gave none).
	Got float64
	OK  bool
	// Miss is why the point is a known miss of the reproduction
	// (Reproduction.Misses), or "".
	Miss string
}

// Run runs reproduction r's sweep into opt.Dir, measures, judges every
// point, and writes points.csv and report.html there. An error is a
// reproduction that could not run or be measured; a point that fails is
// the Outcome's.
func Run(ctx context.Context, r Reproduction, opt Options) (*Outcome, error) {
	pub, err := LoadPublished(r.Name)
	if err != nil {
		return nil, err
	}
	sw, err := LoadSweep(r.Name, opt.Set)
	if err != nil {
		return nil, err
	}
	if _, _, err := sweep.Run(ctx, sw, nil, sweep.Options{Dir: opt.Dir, Workers: opt.Workers, Force: !opt.Resume, Log: opt.Log}); err != nil {
		return nil, err
	}
	got, err := r.Measure(RunsOf(sw, opt.Dir))
	if err != nil {
		return nil, fmt.Errorf("reproduction %s: measuring: %w", r.Name, err)
	}
	out := Judge(r, pub, got)
	if err := reports.WriteFileAtomic(opt.Dir, "points.csv", out.CSV()); err != nil {
		return nil, err
	}
	if err := reports.WriteFileAtomic(opt.Dir, "report.html", reports.BuildReproductionHTML(out.Page())); err != nil {
		return nil, err
	}
	return out, nil
}

// Judge sets each published point beside lfsim's value.
func Judge(r Reproduction, pub *Published, got map[string]float64) *Outcome {
	out := &Outcome{Reproduction: r, Published: pub, OK: true}
	for _, p := range pub.Points {
		v, ok := got[p.ID]
		if !ok {
			v = math.NaN()
		}
		row := Row{Point: p, Got: v, OK: p.Holds(v), Miss: r.MissOf(p.ID)}
		out.OK = out.OK && row.OK
		out.Rows = append(out.Rows, row)
	}
	return out
}

// Verdict is "holds", "FAILS", or "FAILS (known miss)" for a point the
// reproduction names among its misses.
func (r Row) Verdict() string {
	switch {
	case r.OK:
		return "holds"
	case r.Miss != "":
		return "FAILS (known miss)"
	}
	return "FAILS"
}

// CSV is points.csv: a row per published point. Its numbers are at full
// precision (the shortest text that reads back as the same float64), not
// Format's four digits: a value just outside a bound (0.27504 against
// 0.275) would print equal to it, beside FAILS.
func (o *Outcome) CSV() []byte {
	var b strings.Builder
	b.WriteString("id,chart,x,published,low,high,tolerance,lfsim,verdict,kind\n")
	q := func(s string) string {
		if strings.ContainsAny(s, ",\"\n") {
			return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
		return s
	}
	full := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, r := range o.Rows {
		pubv := ""
		if !math.IsNaN(r.Point.Value) {
			pubv = full(r.Point.Value)
		}
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", q(r.Point.ID), q(r.Point.Chart), full(r.Point.X), pubv,
			full(r.Point.Lo), full(r.Point.Hi), q(r.Point.Tolerance), full(r.Got), q(r.Verdict()), r.Point.Kind)
	}
	return []byte(b.String())
}

// Page is the report's content.
func (o *Outcome) Page() reports.ReproductionPage {
	r := o.Reproduction
	pg := reports.ReproductionPage{Name: r.Name, Paper: o.Published.Paper, Figure: o.Published.Figure, Setup: r.Setup, OK: o.OK}
	for _, row := range o.Rows {
		p := row.Point
		pg.Rows = append(pg.Rows, reports.ReproductionRow{ID: p.ID, Chart: p.Chart, X: p.X, Published: p.Value, Lo: p.Lo, Hi: p.Hi,
			Bounds: p.Bounds(), Got: row.Got, GotText: Format(row.Got), OK: row.OK, Source: p.Source, Read: p.Read, Why: p.Why, Miss: row.Miss, Kind: p.Kind})
	}
	return pg
}

// LoadSweep reads reproduction name's sweep.yaml, with set's
// "path=value" added to its vary: as one-value lists. An error in the
// file is at its line and column; one in a --set names the argument
// (the sweep file is parsed as written, and the parameters added to what
// it parsed to: a position in a rewritten file would be one the user
// never sees).
func LoadSweep(name string, set []string) (*sweep.Sweep, error) {
	file, data, err := scenarios.ReproduceFile(name, "sweep.yaml")
	if err != nil {
		return nil, err
	}
	var extra []sweep.Extra
	for _, s := range set {
		arg := "--set " + s
		path, value, ok := strings.Cut(s, "=")
		if !ok || path == "" {
			return nil, fmt.Errorf("%s: expected path=value, such as switch.ecn.kmin=40KB", arg)
		}
		var v yaml.Node
		if err := yaml.Unmarshal([]byte(value), &v); err != nil || len(v.Content) != 1 {
			return nil, fmt.Errorf("%s: the value is not YAML", arg)
		}
		extra = append(extra, sweep.Extra{Name: arg, Path: path, Value: v.Content[0]})
	}
	sw, err := sweep.ParseWith(file, data, extra)
	if err != nil {
		return nil, err
	}
	sw.Name = name
	return sw, nil
}

// RunsOf lists the sweep's points as runs in dir.
func RunsOf(sw *sweep.Sweep, dir string) Runs {
	var out Runs
	for _, p := range sw.Points {
		r := PointRun{Base: sw.Bases[0].Name, Values: map[string]string{}, Dir: sweep.PointDir(dir, sw, p)}
		for i, pi := range p.Values {
			prm := sw.Params[i]
			if prm.Path == "base" && len(sw.Bases) > 1 && i == 0 {
				r.Base = prm.Values[pi]
				continue
			}
			r.Values[prm.Path] = prm.Values[pi]
		}
		out = append(out, r)
	}
	return out
}

// DefaultDir is where `lfsim reproduce NAME` writes without -o.
func DefaultDir(name string) string { return filepath.Join("lfsim-out", "reproduce", name) }
