package reports

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// SweepAxis is one setting a sweep varies: its dotted path and its
// values as the sweep file gives them, in that order.
type SweepAxis struct {
	Path   string
	Values []string
}

// SweepPoint is one complete point of a sweep: the index of its value on
// each axis (in SweepAxis order), and its run.
type SweepPoint struct {
	Values []int
	Run    *Run
}

// BuildSweepHTML is BuildHTML for a sweep's complete points, with a
// section first that compares them: each headline metric charted against
// each varied setting, one line per combination of the other settings'
// values, and the spread over the seeds (repeat:) as a band from the
// least to the largest value around the mean.
func BuildSweepHTML(axes []SweepAxis, points []SweepPoint) []byte {
	runs := make([]*Run, len(points))
	for i, p := range points {
		runs[i] = p.Run
	}
	labelByAxes(axes, points)
	return buildHTML(runs, func(pg *page) { pg.compare(axes, points) })
}

// labelByAxes labels a sweep's runs by the settings it varied (those with
// more than one value; a base by its name), and by seed where seeds are
// what tells two runs apart: never by what merely follows from a base.
func labelByAxes(axes []SweepAxis, points []SweepPoint) {
	seen := map[string]int{}
	for _, p := range points {
		var parts []string
		for i, a := range axes {
			if len(a.Values) > 1 {
				parts = append(parts, a.Path+"="+a.Values[p.Values[i]])
			}
		}
		p.Run.Label = strings.Join(parts, " ")
		seen[p.Run.Label]++
	}
	for _, p := range points {
		if seen[p.Run.Label] > 1 {
			p.Run.Label = strings.TrimSpace(p.Run.Label + " seed=" + strconv.FormatUint(p.Run.Summary.Seed, 10))
		}
	}
}

// sweepMetric is a headline number of a run, for the comparison charts;
// ok is false when the run has none (no flow completed).
type sweepMetric struct {
	title, axis, text string // axis: a short name with the unit; text says what it is
	get               func(r *Run) (v float64, ok bool)
}

var sweepMetrics = []sweepMetric{
	{"Mean FCT slowdown", "slowdown", "the completed flows' mean slowdown (FCT over the ideal FCT)", func(r *Run) (float64, bool) {
		return r.Summary.FCT.MeanSlowdown, r.Summary.Flows.Completed > 0
	}},
	{"p99 FCT slowdown", "slowdown", "the completed flows' 99th-percentile slowdown", func(r *Run) (float64, bool) {
		return r.Summary.FCT.P99Slowdown, r.Summary.Flows.Completed > 0
	}},
	{"Small flows: p99 slowdown", "slowdown", "the 99th-percentile slowdown of the smallest 5% of the completed flows (summary fct_buckets)", func(r *Run) (float64, bool) {
		b := r.Summary.FCTBuckets
		if len(b) < 2 {
			return 0, false
		}
		return b[0].P99Slowdown, true
	}},
	{"Large flows: median slowdown", "slowdown", "the median slowdown of the largest 5% of the completed flows", func(r *Run) (float64, bool) {
		b := r.Summary.FCTBuckets
		if len(b) < 2 {
			return 0, false
		}
		return b[len(b)-1].P50Slowdown, true
	}},
	{"Goodput", "Gb/s", "payload delivered over the run's simulated time", func(r *Run) (float64, bool) {
		s := &r.Summary
		if s.SimTimeNs <= 0 {
			return 0, false
		}
		return float64(s.Bytes.Delivered) * 8 / float64(s.SimTimeNs), true
	}},
	{"Fairness", "Jain's index", "Jain's index of the completed flows' throughputs (1: all equal)", func(r *Run) (float64, bool) {
		return r.Summary.Throughput.Fairness, r.Summary.Flows.Completed > 0
	}},
	{"PFC pause", "run times", "time paused, summed over every port and priority, over the run's simulated time", func(r *Run) (float64, bool) {
		s := &r.Summary
		if s.SimTimeNs <= 0 {
			return 0, false
		}
		return float64(s.PFC.PausedNs) / float64(s.SimTimeNs), true
	}},
	{"Mean queue", "KB", "the deepest switch egress queue, time-averaged over the run (summary queues.mean_bytes)", func(r *Run) (float64, bool) {
		if r.Summary.Queues == nil {
			return 0, false
		}
		return r.Summary.Queues.MeanBytes / 1e3, true
	}},
	{"Peak queue", "KB", "the largest egress queue at any sample (observe.interval)", func(r *Run) (float64, bool) {
		peak, any := 0.0, false
		for _, pts := range r.Series[MetricQueueBytes] {
			for _, p := range pts {
				peak, any = math.Max(peak, p.Value), true
			}
		}
		return peak / 1e3, any
	}},
	{"ECN marks", "packets", "packets marked CE", func(r *Run) (float64, bool) { return float64(r.Summary.ECN.Marked), true }},
	{"Drops", "packets", "packets dropped", func(r *Run) (float64, bool) { return float64(r.Summary.Packets.Dropped), true }},
}

// comparePalette colours the lines of a comparison chart and their
// bands (ECharts' default palette, so the page reads as the others).
var comparePalette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"}

// compare writes the comparison section: per varied setting, a chart of
// each metric that some point has and that is not zero everywhere.
func (pg *page) compare(axes []SweepAxis, points []SweepPoint) {
	if len(axes) == 0 || len(points) == 0 {
		return
	}
	pg.section("Comparison", "each headline number of the sweep's points against each varied setting: a line per combination of the other settings' values, "+
		"the mean over the seeds, with a band from the least to the largest seed's value when the sweep repeats (along a setting of names, a bar at each of its values)")
	var flat []string
	for ai, ax := range axes {
		for _, m := range sweepMetrics {
			if !pg.compareChart(axes, points, ai, m) {
				flat = append(flat, m.title)
			}
		}
		_ = ax
	}
	if len(flat) > 0 {
		pg.b.WriteString("<p class=\"note\">Not charted, being zero or absent in every point: " + strings.Join(dedupe(flat), ", ") + ".</p>\n")
	}
}

// compareChart draws metric m against axis ai, its y axis from zero (a
// ratio between points reads true), joining the points by a line when
// the axis's values are quantities (orderedValues); false when every
// point's value is zero or missing. The seeds' spread is a band along
// quantities, a bar per value along names (seedWhiskers).
func (pg *page) compareChart(axes []SweepAxis, points []SweepPoint, ai int, m sweepMetric) bool {
	ax := axes[ai]
	type cell struct{ vals []float64 }
	groups := map[string][]cell{} // looked up; order kept in names
	var names []string
	nonzero := false
	for _, p := range points {
		v, ok := m.get(p.Run)
		if !ok {
			continue
		}
		nonzero = nonzero || v != 0
		var parts []string
		for j, other := range axes {
			if j != ai {
				parts = append(parts, shortPath(other.Path)+"="+other.Values[p.Values[j]])
			}
		}
		name := strings.Join(parts, ", ")
		if name == "" {
			name = m.title
		}
		g, seen := groups[name]
		if !seen {
			g = make([]cell, len(ax.Values))
			names = append(names, name)
		}
		g[p.Values[ai]].vals = append(g[p.Values[ai]].vals, v)
		groups[name] = g
	}
	if !nonzero {
		return false
	}
	ordered := orderedValues(ax.Values)
	tooltip := opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}
	if !ordered {
		tooltip.Formatter = whiskerTooltip
	}
	c := charts.NewLine()
	c.SetGlobalOptions(charts.WithInitializationOpts(pg.init("cmp", "340px")),
		charts.WithTitleOpts(opts.Title{Title: m.title + " against " + ax.Path, Subtitle: m.text, TitleStyle: &opts.TextStyle{FontSize: 14}}),
		charts.WithTooltipOpts(tooltip),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "42", Data: names}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: shortPath(ax.Path), NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: m.axis, NameLocation: "middle", NameGap: 50, Min: 0}),
		charts.WithGridOpts(opts.Grid{Top: "75", Bottom: "50", Left: "75", Right: "30"}),
		charts.WithAnimation(false))
	c.SetXAxis(ax.Values)
	for gi, name := range names {
		color := comparePalette[gi%len(comparePalette)]
		mean, lo, span := make([]opts.LineData, len(ax.Values)), make([]opts.LineData, len(ax.Values)), make([]opts.LineData, len(ax.Values))
		banded := false
		for x, cl := range groups[name] {
			if len(cl.vals) == 0 {
				mean[x], lo[x], span[x] = opts.LineData{Value: "-"}, opts.LineData{Value: "-"}, opts.LineData{Value: "-"}
				continue
			}
			sum, mn, mx := 0.0, math.Inf(1), math.Inf(-1)
			for _, v := range cl.vals {
				sum, mn, mx = sum+v, math.Min(mn, v), math.Max(mx, v)
			}
			mean[x] = opts.LineData{Value: Round(sum/float64(len(cl.vals)), 4)}
			lo[x], span[x] = opts.LineData{Value: Round(mn, 4)}, opts.LineData{Value: Round(mx-mn, 4)}
			banded = banded || mx > mn
		}
		line := opts.LineStyle{Color: color, Width: 2}
		if !ordered {
			line.Opacity = opts.Float(0) // categories: a dot per value, no line between them
		}
		c.AddSeries(name, mean, charts.WithItemStyleOpts(opts.ItemStyle{Color: color}), charts.WithLineStyleOpts(line),
			charts.WithLineChartOpts(opts.LineChart{SymbolSize: 8, ShowSymbol: opts.Bool(true)}))
		if banded && !ordered {
			c.MultiSeries = append(c.MultiSeries, seedWhiskers(name+" (seeds: least to largest)", color, lo, span))
		} else if banded {
			stack := fmt.Sprintf("band%d", gi)
			c.AddSeries(name+" (seed min)", lo, charts.WithLineChartOpts(opts.LineChart{Stack: stack, ShowSymbol: opts.Bool(false)}),
				charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0)}), charts.WithAreaStyleOpts(opts.AreaStyle{Opacity: opts.Float(0)}))
			c.AddSeries(name+" (seed max − min)", span, charts.WithLineChartOpts(opts.LineChart{Stack: stack, ShowSymbol: opts.Bool(false)}),
				charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0)}), charts.WithAreaStyleOpts(opts.AreaStyle{Color: color, Opacity: opts.Float(0.2)}))
		}
	}
	pg.chart(c)
	return true
}

// quantity is a value with an order: a number with an optional unit
// (5KB, 40Mbps, 1.5us, 10%, 4096).
var quantity = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?\s*[A-Za-zµ%/]*$`)

// orderedValues says whether a sweep axis's values are quantities, whose
// points a line may join; others (transports, congestion controls, a map
// of ECN settings) are categories, drawn as dots, since a line between
// them would read as a trend along an axis they do not have (issue 51:
// a sweep over four transports joined by lines).
func orderedValues(values []string) bool {
	for _, v := range values {
		if !quantity.MatchString(strings.TrimSpace(v)) {
			return false
		}
	}
	return true
}

// shortPath is a dotted path's last key ("switch.ecn.kmin" -> "kmin"),
// or the whole path when the last key is an index.
func shortPath(p string) string {
	i := strings.LastIndexByte(p, '.')
	if i < 0 || strings.HasSuffix(p, "]") {
		return p
	}
	return p[i+1:]
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
