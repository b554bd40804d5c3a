package reproduce

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/scenarios"
)

// TestRegistry: every reproduction has its folder with a sweep that
// loads (each base resolves) and published points that parse, each with
// its source, how it was read and why its tolerance; every folder is a
// registered reproduction; at least six are listed outside the long ones
// (issue 52's bar). No run: the default test tier stays fast.
func TestRegistry(t *testing.T) {
	short := 0
	for _, r := range All() {
		if r.Paper == "" || r.Figure == "" || r.Setup == "" || r.RunTime == "" {
			t.Errorf("%s: paper %q, figure %q, setup %q, run time %q: want each", r.Name, r.Paper, r.Figure, r.Setup, r.RunTime)
		}
		pub, err := LoadPublished(r.Name)
		if err != nil {
			t.Errorf("%s: %v", r.Name, err)
			continue
		}
		if !r.Long && countsTowardBar(r, pub) {
			short++
		}
		for _, m := range r.Misses {
			i := slices.IndexFunc(pub.Points, func(p Point) bool { return p.ID == m.ID })
			if m.Why == "" || i < 0 || pub.Points[i].Holds(m.Was) {
				t.Errorf("%s: known miss %q: want a point of that id in published.yaml, why, and the value it was recorded at (Was %g), outside the point's bounds", r.Name, m.ID, m.Was)
			}
		}
		for _, p := range pub.Points {
			if p.Source == "" || p.Read == "" || p.Why == "" || !(p.Lo <= p.Hi) || !slices.Contains(Kinds, p.Kind) {
				t.Errorf("%s: point %s: source %q, read %q, why %q, kind %q, bounds [%g, %g]", r.Name, p.ID, p.Source, p.Read, p.Why, p.Kind, p.Lo, p.Hi)
			}
		}
		sw, err := LoadSweep(r.Name, nil)
		if err != nil {
			t.Errorf("%s: %v", r.Name, err)
			continue
		}
		if len(sw.Points) == 0 {
			t.Errorf("%s: the sweep has no point", r.Name)
		}
	}
	if short < 6 {
		t.Errorf("%d reproductions outside the long ones hold a number of their source's, issue 52 wants at least six", short)
	}
	for _, f := range scenarios.ReproduceFolders() {
		if _, ok := Lookup(f); !ok {
			t.Errorf("scenarios/reproduce/%s has no registered reproduction", f)
		}
	}
}

// countsTowardBar says whether r counts toward issue 52's six: it has
// a point of its source's (measured, a closed form of the source's, or
// its statement) that it is meant to hold. One made of the project's own
// bounds does not, nor one whose every such point is a known miss (it
// reproduces nothing: nccl-tests-ndr's one point; review J, finding 6).
func countsTowardBar(r Reproduction, pub *Published) bool {
	return slices.ContainsFunc(pub.Points, func(p Point) bool { return p.Kind != "project" && r.MissOf(p.ID) == "" })
}

// TestCountsTowardBar: a source's point counts, a project's does not,
// and neither does a source's point that is a known miss.
func TestCountsTowardBar(t *testing.T) {
	pub, err := ParsePublished("p.yaml", []byte("paper: P\nfigure: F\nsource: S\nread: R\nwhy: W\npoints:\n"+
		"  - {id: a, chart: c, x: 1, range: [0, 1], kind: statement}\n"+
		"  - {id: b, chart: c, x: 2, range: [0, 1], kind: project}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		misses []Miss
		want   bool
	}{
		{nil, true},
		{[]Miss{{ID: "b", Why: "w", Was: 2}}, true},
		{[]Miss{{ID: "a", Why: "w", Was: 2}}, false},
	} {
		if got := countsTowardBar(Reproduction{Name: "x", Misses: c.misses}, pub); got != c.want {
			t.Errorf("misses %v: counts %v, want %v", c.misses, got, c.want)
		}
	}
}

// TestParsePublishedErrors: a published.yaml that is wrong says where and
// what was expected.
func TestParsePublishedErrors(t *testing.T) {
	head := "paper: P\nfigure: F\nsource: S\nread: R\nwhy: W\nkind: measured\n"
	for _, c := range []struct{ src, want string }{
		{head + "points:\n  - {id: a, chart: c, x: 1, value: 2, tolerance: 30 percent}\n", "p.yaml:8:50: tolerance: expected a share of the value such as 30% or an absolute amount"},
		{head + "points:\n  - {id: a, chart: c, x: 1, range: [2, 1]}\n", "p.yaml:8:36: range: low 2 is above high 1"},
		{head + "points:\n  - {id: a, chart: c, x: 1, value: 2}\n", "p.yaml:8:5: point a: expected value and tolerance, or range"},
		{head + "points:\n  - {id: a, chart: c, x: 1, value: 2, tolerance: 1, range: [1, 3]}\n", "p.yaml:8:60: point a: give value and tolerance, or range, not both"},
		{head + "points:\n  - {id: a, chart: c, x: 1, valeu: 2, tolerance: 1}\n", `p.yaml:8:29: unknown key valeu (did you mean value?)`},
		{"paper: P\nfigure: F\npoints:\n  - {id: a, chart: c, x: 1, range: [0, 1]}\n", "p.yaml:4:5: point a has no source"},
		{head + "points:\n  - {id: a, chart: c, x: 1, range: [0, 1]}\n  - {id: a, chart: c, x: 2, range: [0, 1]}\n", "p.yaml:9:5: points: two points have the id a"},
		{head, "p.yaml:1:1: points: expected a list of published points"},
		{head + "points:\n  - {id: a, chart: c, value: 2, tolerance: 1}\n", "p.yaml:8:5: point a: missing key x (its place on its chart, a number)"},
		// A key given twice is an error at the second, not the last
		// winning: a second tolerance would widen the point unseen, a
		// second points: would drop the first list's points.
		{head + "points:\n  - {id: a, chart: c, x: 1, value: 2, tolerance: 10%, tolerance: 50%}\n", "p.yaml:8:55: key tolerance is given twice (first at column 39)"},
		{head + "points:\n  - {id: a, chart: c, x: 1, range: [0, 1]}\npoints:\n  - {id: b, chart: c, x: 1, range: [0, 1]}\n", "p.yaml:9:1: key points is given twice (first at line 7)"},
		// Every point says whose number it is (review E, finding 4).
		{"paper: P\nfigure: F\nsource: S\nread: R\nwhy: W\npoints:\n  - {id: a, chart: c, x: 1, range: [0, 1]}\n", "p.yaml:7:5: point a has no kind (measured, closed-form, statement, project)"},
		{head + "points:\n  - {id: a, chart: c, x: 1, range: [0, 1], kind: ours}\n", "p.yaml:8:50: kind: expected one of measured, closed-form, statement, project, found \"ours\""},
		{head + "why: W2\npoints:\n  - {id: a, chart: c, x: 1, range: [0, 1]}\n", "p.yaml:7:1: key why is given twice (first at line 5)"},
	} {
		_, err := ParsePublished("p.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

// TestLoadSweepSet: a --set that does not fit names the argument, not a
// line and column of a sweep.yaml rewritten with it (sweep.yaml:6:5 of a
// 4-line file, before); one that fits is a one-value parameter.
func TestLoadSweepSet(t *testing.T) {
	for _, c := range []struct {
		name string
		set  []string
		want string
	}{
		{"perftest-connectx", []string{"hca.nope=1"}, "--set hca.nope=1: unknown key nope in hca"},
		{"perftest-connectx", []string{"traffic[0].perftest.size=64"}, "--set traffic[0].perftest.size=64: traffic[0].perftest.size is given twice (first in vary: at reproduce/perftest-connectx/sweep.yaml:4:3)"},
		{"dctcp-queue", []string{"hca.dctcp.g=2"}, "--set hca.dctcp.g=2: hca.dctcp.g = 2 on base n2: "},
		{"dctcp-queue", []string{"hca.mtu=1024", "hca.mtu=2048"}, "--set hca.mtu=2048: hca.mtu is given twice (first by --set hca.mtu=1024)"},
		{"dctcp-queue", []string{"hca.mtu"}, "--set hca.mtu: expected path=value"},
	} {
		_, err := LoadSweep(c.name, c.set)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "sweep.yaml:5:") {
			t.Errorf("%s --set %v:\n got %v\nwant %s", c.name, c.set, err, c.want)
		}
	}
	sw, err := LoadSweep("perftest-connectx", []string{"hca.dma_latency=1us"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sw.Params); n != 2 || sw.Params[0].Path != "hca.dma_latency" || !slices.Equal(sw.Params[0].Values, []string{"1us"}) || len(sw.Points) != 4 {
		t.Errorf("--set hca.dma_latency=1us: params %+v, %d points; want hca.dma_latency [1us] beside the sizes, 4 points", sw.Params, len(sw.Points))
	}
}

// TestCSV: points.csv writes every number at full precision, so a value
// that fails just outside its bound never prints equal to it (at four
// digits pfc-unfairness's moved h1, 0.27504164, printed as 0.275 beside
// its high of 0.275, FAILS).
func TestCSV(t *testing.T) {
	pub, err := ParsePublished("p.yaml", []byte("paper: P\nfigure: F\nsource: S\nread: R\nwhy: W\nkind: measured\npoints:\n"+
		"  - {id: h1, chart: c, x: 2, value: 0.25, tolerance: 10%}\n"+
		"  - {id: q, chart: c, x: 3, range: [1.2345, 1.8515]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := string(Judge(Reproduction{Name: "x"}, pub, map[string]float64{"h1": 0.27504163692600525, "q": 1.8516}).CSV())
	for _, want := range []string{
		"h1,c,2,0.25,0.225,0.275,10%,0.27504163692600525,FAILS,measured\n",
		"q,c,3,,1.2345,1.8515,,1.8516,FAILS,measured\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in points.csv:\n%s", want, got)
		}
	}
}

// TestJudge: a point holds within its bounds, at them, and not outside
// them or without a value.
func TestJudge(t *testing.T) {
	pub, err := ParsePublished("p.yaml", []byte("paper: P\nfigure: F\nsource: S\nread: R\nwhy: W\nkind: measured\npoints:\n"+
		"  - {id: rel, chart: c, x: 1, value: 100, tolerance: 30%}\n"+
		"  - {id: abs, chart: c, x: 2, value: 1, tolerance: 0}\n"+
		"  - {id: range, chart: c, x: 3, range: [0.4, 0.6]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		got  map[string]float64
		want []bool
	}{
		{map[string]float64{"rel": 70, "abs": 1, "range": 0.6}, []bool{true, true, true}},
		{map[string]float64{"rel": 130.01, "abs": 0, "range": 0.39}, []bool{false, false, false}},
		{map[string]float64{"rel": math.NaN()}, []bool{false, false, false}},
	} {
		o := Judge(Reproduction{Name: "x"}, pub, c.got)
		var ok []bool
		for _, r := range o.Rows {
			ok = append(ok, r.OK)
		}
		if !slices.Equal(ok, c.want) || o.OK != !slices.Contains(c.want, false) {
			t.Errorf("%v: verdicts %v (all %v), want %v", c.got, ok, o.OK, c.want)
		}
	}
}

// moved are the model parameters each reproduction depends on, moved
// so that it must fail: a reproduction that still held would be one
// that cannot fail.
var moved = map[string][]string{
	// g = 1: alpha is the last window's marked fraction alone, so each
	// mark halves the window and the sawtooth is no longer DCTCP's.
	"dctcp-queue": {"hca.dctcp.g=1"},
	// Spraying every packet with direct placement removes the
	// collisions: every flow near line rate.
	"ecmp-collisions": {"switch.load_balance=spray", "hca.placement=direct"},
	// No congestion control: the victim stays held back.
	"ibcc-victim": {"hca.cc=none"},
	// No PFC: nothing pauses, so no deadlock and no storm spreads.
	"pfc-deadlock": {"switch.pfc.priorities=[]"},
	// Pmax 10%: the same marking probability at a tenth of the queue.
	"dcqcn-fluid": {"switch.ecn.pmax=10%"},
	// The host interface at 50 Gb/s: half EDR's rate, so both the
	// ceiling and the 2 MiB latency move by half (50 Gb/s and 337 us).
	"perftest-write-edr": {"hca.host_bandwidth=50Gbps"},
	// NCCL's LL protocol at every size: half of each 8-byte line is its
	// flag, and LL's steps are small, so busbw at 256 MiB falls to 7.1
	// GB/s: the reproduction depends on lfsim choosing Simple there.
	"nccl-tests-ndr": {"traffic[0].nccl_tests.protocol=ll"},
	// NVLink at an H100's 450 GB/s a direction instead of the H800's
	// stated 164.8: NVLink, which bounds the rail rings with PXN (every
	// GPU sends the whole busbw over it), no longer does, and the
	// plateau moves up to the four NICs' bound (4 x 49.7 GB/s): 193.7 and
	// 196.1 GB/s at 128 and 256 MiB against highs of 173.0 and 175.4, and
	// every point from 4 MiB up fails (4 and 8 MiB at 102.6 and 146.9
	// against highs of 89.0 and 116.8: each channel's share of NVLink is
	// larger, so its steps are shorter; 2026-12-06, with each channel's
	// pace); the known miss at 2 MiB moves by less than its bounds are
	// wide (53.36 to 56.73).
	"nccl-tests-h800": {"topology.nvlink.rate=3.6Tbps"},
	// IRN without its BDP flow control (1 GiB caps nothing), its
	// selective repeat kept: drops go from 393 to 1,635 and the mean and
	// p99 FCT ratios to 0.947 and 0.951, outside (2026-12-05). BDP-FC is
	// one of IRN's two changes (Mittal et al., section 3.2, cap auto: the
	// path's BDP, as the paper sets it). The other, selective repeat, is
	// not one the reproduction depends on, and says so: with go-back-N
	// and the cap it holds at 0.83, 0.83 and 0.81, since only 0.036% of
	// packets drop (docs/REPRODUCE.md).
	"irn-vs-pfc": {"hca.bdp_cap=1GiB"},
	// The payload's DMA read 1 us instead of 300 ns: every message not
	// sent inline takes 0.7 us longer each way.
	"perftest-connectx": {"hca.dma_latency=1us"},
	// DCQCN's per-flow rates move the shares toward a third each: over
	// the reproduction's own 3 ms every point fails (0.4430, 0.2819 and
	// 0.27504, the last above its bound of 0.275 by 0.015%; 2026-12-05).
	// A longer run is not needed: the run length is no model parameter.
	"pfc-unfairness": {"hca.cc=dcqcn"},
	// NewReno's own recovery, without SACK: lost retransmissions and
	// several losses a window wait for the 200 ms RTO (3.9 and 0.89 Gb/s,
	// 2026-12-05).
	"iwarp-mathis": {"hca.tcp.sack=false"},
	// eta 70%: HPCC aims every link at 70% of its rate, so the long
	// flows, which the points at 70% and more of the sizes follow, are
	// slower. Run on the 30 ms setup (2026-12-05, 724 s of CPU) ten of
	// twenty points fail, each measured (no NaN), the five of the
	// largest flows at each load: at 30% p50 85-90% 2.83 and 95-100%
	// 3.38, p95 70-75% 5.07, 85-90% 7.23, 95-100% 7.64 (+31% to +76% of
	// the published values); at 50% p50 6.05 and 8.58, p95 9.45, 21.17
	// and 19.12 (+32% to +129%). The nearest to its bound is 30% p95
	// 70-75%, 9% above its high of 4.651; the smaller flows hold. (These
	// with the ideal FCT before 2026-12-06, which left out the NICs'
	// latencies; not run again since.)
	"hpcc-websearch": {"hca.hpcc.eta=0.7"},
	// eta 70%, as hpcc-websearch's: HPCC aims every link at 70% of its
	// rate, so the long flows are slower and the queues shorter. Run on
	// its setup (2026-12-06, 1,030 s of CPU) seven of twenty points fail,
	// each measured: the largest 5%'s p95 at 30% 6.26 (+54%), at 50% its
	// p50 4.68 (+37%) and p95 23.74 (+189%), and at 50% the four smaller
	// bins' p95 below their bounds (1.42, 1.42, 2.16, 2.80: -25% to -23%;
	// the nearest 2.80 against a low of 2.89). The largest flows' p50 at
	// 30% rises to 2.34, just within its high of 2.36. (With the ideal
	// FCT before 2026-12-06; not run again since.)
	"hpcc-hadoop": {"hca.hpcc.eta=0.7"},
}

// movedFails judges a run with a model parameter moved against the
// run as it is (base): it must fail as a model that depends on the
// parameter does, with at least one point whose measured value lies
// outside its bounds. A point without a value (NaN: a flow that did not
// complete, a file not written) fails too, but says only that the moved
// run broke, not that the model moved, so it does not count. A known
// miss (Reproduction.Misses) fails unmoved already, so it counts only if
// the move takes its value farther than its bounds are wide (Hi - Lo)
// and leaves it outside them. failed lists each failing point with its
// value.
func movedFails(o, base *Outcome) (failed []string, err error) {
	measured := 0
	for i, row := range o.Rows {
		if row.OK {
			continue
		}
		failed = append(failed, fmt.Sprintf("%s %s against %s", row.Point.ID, Format(row.Got), row.Point.Bounds()))
		switch {
		case math.IsNaN(row.Got):
		case row.Miss == "":
			measured++
		case i < len(base.Rows) && math.Abs(row.Got-base.Rows[i].Got) >= row.Point.Hi-row.Point.Lo:
			measured++
		}
	}
	switch {
	case len(failed) == 0:
		return nil, fmt.Errorf("every point still holds: the reproduction does not depend on the moved parameters")
	case measured == 0:
		return failed, fmt.Errorf("no point fails with a measured value that moved (%s): the moved run gave no value, or only a known miss failed as it does unmoved, which says nothing of the model", strings.Join(failed, "; "))
	}
	return failed, nil
}

// TestMovedFails: movedFails takes only a point measured outside its
// bounds as the reproduction failing; every point holding, or points
// failing only for want of a value (Judge makes a missing one NaN), are
// errors.
func TestMovedFails(t *testing.T) {
	pub, err := ParsePublished("p.yaml", []byte("paper: P\nfigure: F\nsource: S\nread: R\nwhy: W\nkind: measured\npoints:\n"+
		"  - {id: a, chart: c, x: 1, value: 1, tolerance: 10%}\n"+
		"  - {id: b, chart: c, x: 2, range: [0.4, 0.6]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  map[string]float64
		want string // in the error; "" for none
	}{
		{"every point holds", map[string]float64{"a": 1, "b": 0.5}, "every point still holds"},
		{"no value at all", map[string]float64{}, "no point fails with a measured value"},
		{"a NaN and a holding point", map[string]float64{"a": math.NaN(), "b": 0.5}, "no point fails with a measured value"},
		{"one measured outside", map[string]float64{"a": 1.2, "b": 0.5}, ""},
		{"one measured outside, one NaN", map[string]float64{"a": 0.5, "b": math.NaN()}, ""},
	} {
		failed, err := movedFails(Judge(Reproduction{Name: "x"}, pub, c.got), Judge(Reproduction{Name: "x"}, pub, map[string]float64{"a": 1, "b": 0.5}))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want no error", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		case c.want == "" && len(failed) == 0:
			t.Errorf("%s: no failing point listed", c.name)
		}
	}
	// A known miss: point a fails unmoved at 1.15 (its bounds are [0.9,
	// 1.1], 0.2 wide). Moved to 1.2 it has moved less than its bounds are
	// wide, which says nothing; moved to 1.4, or to 0.5 below its bounds,
	// it counts.
	r := Reproduction{Name: "x", Misses: []Miss{{ID: "a", Why: "w"}}}
	base := Judge(r, pub, map[string]float64{"a": 1.15, "b": 0.5})
	for _, c := range []struct {
		a    float64
		want string
	}{
		{1.2, "no point fails with a measured value that moved"},
		{1.4, ""},
		{0.5, ""},
	} {
		_, err := movedFails(Judge(r, pub, map[string]float64{"a": c.a, "b": 0.5}), base)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("known miss moved from 1.15 to %g: error %v, want %q", c.a, err, c.want)
		}
	}
}

// rowProblem is what is wrong with a point of an unmoved run, or "": a
// point that fails and is no known miss; a known miss without a value,
// one that now holds, or one whose value has moved from the one it was
// recorded at (Miss.Was) by as much as its bounds are wide, which a miss
// failing "as expected" would otherwise hide.
func rowProblem(r Reproduction, row Row) string {
	m, isMiss := r.miss(row.Point.ID)
	switch {
	case !row.OK && !isMiss:
		return fmt.Sprintf("point %s fails (lfsim %.4g against %s)", row.Point.ID, row.Got, row.Point.Bounds())
	case !row.OK && math.IsNaN(row.Got):
		return fmt.Sprintf("known miss %s has no value: the run broke", row.Point.ID)
	case row.OK && isMiss:
		return fmt.Sprintf("known miss %s now holds (lfsim %.4g against %s): take it out of Misses, and out of the docs", row.Point.ID, row.Got, row.Point.Bounds())
	case isMiss && math.Abs(row.Got-m.Was) >= row.Point.Hi-row.Point.Lo:
		return fmt.Sprintf("known miss %s moved from %.4g, as recorded, to %.4g, by as much as its bounds (%s) are wide: a model changed; find why before recording the new value", row.Point.ID, m.Was, row.Got, row.Point.Bounds())
	}
	return ""
}

// TestRowProblem: an unmoved run's point is a problem when it fails and
// is no known miss, and a known miss is one when it has no value, holds,
// or has moved from its recorded value by its bounds' width or more (a
// regression that a miss would hide: nccl-tests-ndr's only point is a
// miss, so without this its busbw could fall from 48.13 to 10 GB/s and
// TestReproductions pass).
func TestRowProblem(t *testing.T) {
	pub, err := ParsePublished("p.yaml", []byte("paper: P\nfigure: F\nsource: S\nread: R\nwhy: W\nkind: measured\npoints:\n"+
		"  - {id: a, chart: c, x: 1, range: [46, 48]}\n"+
		"  - {id: b, chart: c, x: 2, value: 1, tolerance: 10%}\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := Reproduction{Name: "x", Misses: []Miss{{ID: "a", Why: "w", Was: 48.13}}}
	for _, c := range []struct {
		a, b float64
		want string // in the problem of the row it names; "" for none
	}{
		{48.13, 1, ""},
		{49.5, 1.05, ""},
		{48.13, 1.2, "point b fails"},
		{47, 1, "known miss a now holds"},
		{math.NaN(), 1, "known miss a has no value"},
		{10, 1, "known miss a moved from 48.13, as recorded, to 10"},
		{50.2, 1, "known miss a moved from 48.13, as recorded, to 50.2"},
	} {
		var got []string
		for _, row := range Judge(r, pub, map[string]float64{"a": c.a, "b": c.b}).Rows {
			if p := rowProblem(r, row); p != "" {
				got = append(got, p)
			}
		}
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("a %g, b %g: %q, want no problem", c.a, c.b, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
			t.Errorf("a %g, b %g: %q, want one problem with %q", c.a, c.b, got, c.want)
		}
	}
}

// TestReproductions runs every reproduction but the long (CI's slow
// tier: LFSIM_SLOW=1): each point must hold but the reproduction's
// known misses, which must fail (a miss that holds is a note to take
// out); and again with a model parameter it depends on moved (moved),
// when it must fail. 51 s of CPU and 232 s of wall time on a shared
// 2-core machine with the eleven reproductions (measured 2026-12-05;
// dcqcn-fluid's and nccl-tests-ndr's runs are most of it); the twelfth,
// nccl-tests-h800, adds 7.5 s of wall time for its two runs.
func TestReproductions(t *testing.T) {
	if os.Getenv("LFSIM_SLOW") == "" {
		t.Skip("runs every reproduction twice: set LFSIM_SLOW=1")
	}
	for _, r := range All() {
		if r.Long {
			continue
		}
		t.Run(r.Name, func(t *testing.T) { holdsThenFails(t, r) })
	}
}

// TestLongReproductions is TestReproductions for the long reproductions
// (hpcc-websearch, hpcc-hadoop), outside CI: LFSIM_LONG=1 and a -timeout
// above twice their run time (docs/REPRODUCE.md gives the command).
// hpcc-websearch must hold all twenty points and fail ten with eta 0.7
// (moved); hpcc-hadoop eighteen, its two known misses failing as
// recorded, and fail seven moved. About two hours of
// wall time for both on a shared 2-core machine; -run
// TestLongReproductions/hpcc-hadoop runs one. On their setup as it is
// since 2026-12-06 (no fixed NIC or switch latency, as the authors'
// simulator; the ideal FCT counting the NICs' latencies) hpcc-websearch
// holds all twenty (593 s of CPU) and hpcc-hadoop 18 (717 s): its small
// flows' p95 at 30% load (1.185 and 1.180) fall below their lows of
// 1.200 and 1.202, as they did with lfsim's default latencies (1.198
// and 1.193), and are recorded as known misses (reproduce/hpcchadoop.go,
// docs/REPRODUCE.md).
// The moved runs were last measured on the former setup (lfsim's
// default latencies, the former ideal): 724 s (2026-12-05) and 1,030 s
// (2026-12-06).
func TestLongReproductions(t *testing.T) {
	if os.Getenv("LFSIM_LONG") == "" {
		t.Skip("runs the long reproductions twice, about 55 minutes of CPU: set LFSIM_LONG=1")
	}
	for _, r := range All() {
		if r.Long {
			t.Run(r.Name, func(t *testing.T) { holdsThenFails(t, r) })
		}
	}
}

// holdsThenFails runs r and wants every point to hold but its known
// misses, then runs it with its moved parameters and wants it to fail
// (movedFails).
func holdsThenFails(t *testing.T, r Reproduction) {
	o, err := Run(context.Background(), r, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range o.Rows {
		t.Logf("%s: %s, lfsim %.4g: %s", row.Point.ID, row.Point.Bounds(), row.Got, row.Verdict())
		if p := rowProblem(r, row); p != "" {
			t.Errorf("%s: %s", r.Name, p)
		}
	}
	base := o
	set, ok := moved[r.Name]
	if !ok {
		t.Fatalf("%s: no parameter to move (moved)", r.Name)
	}
	o, err = Run(context.Background(), r, Options{Dir: t.TempDir(), Set: set})
	if err != nil {
		t.Fatal(err)
	}
	failed, err := movedFails(o, base)
	t.Logf("with %v: %d of %d points fail: %s", set, len(failed), len(o.Rows), strings.Join(failed, "; "))
	if err != nil {
		t.Errorf("%s with %v: %v", r.Name, set, err)
	}
}
