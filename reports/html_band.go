package reports

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// bandFlows is how many flows of a run the per-flow throughput chart
// draws one by one; with more, it draws their mean and a band (issue 51:
// eight flows sharing a link drew eight lines crossing each other at
// every sample, a zig-zag nobody could read).
const bandFlows = 4

// percentileFlows is how many flows make the band their 10th to 90th
// percentile rather than their least to largest: with fewer, a
// percentile is one of the few flows anyway.
const percentileFlows = 20

// band is a run's series drawn as their mean and a band: all its flows
// (all), or the series past the largest maxLines.
type band struct {
	run                *Run
	series             [][]Point
	all                bool
	meanName, bandName string
}

// percentiles says whether the band spans the 10th to 90th percentile.
func (g *band) percentiles() bool { return g.all && len(g.series) >= percentileFlows }

// what says what the band spans, for the chart's text.
func (g *band) what() string {
	if g.percentiles() {
		return "the flows' 10th to 90th percentile"
	}
	return "the flows' least to largest"
}

// name sets the legend's names of the mean and the band, with the run's
// label in front when the chart has several runs.
func (g *band) name(label bool) {
	n := len(g.series)
	switch {
	case !g.all:
		g.meanName, g.bandName = fmt.Sprintf("others (%d): mean", n), fmt.Sprintf("others (%d): least to largest", n)
	case g.percentiles():
		g.meanName, g.bandName = fmt.Sprintf("mean of %d flows", n), fmt.Sprintf("p10 to p90 of %d flows", n)
	default:
		g.meanName, g.bandName = fmt.Sprintf("mean of %d flows", n), fmt.Sprintf("least to largest of %d flows", n)
	}
	if label {
		g.meanName, g.bandName = g.run.Label+" · "+g.meanName, g.run.Label+" · "+g.bandName
	}
}

// spread is, at each time any series has a sample, the mean of the
// series sampled then and the band's edges: their least and largest, or
// their 10th and 90th percentile (nearest rank). Series on the sampler's
// one grid that start or stop at different times (a flow's RTT from its
// first ACK) are thus taken at the same times; index by index, cut to
// the shortest, they were averaged across times and ended early.
func (g *band) spread(series [][]Point) (mean, lo, hi []Point) {
	pct := g.percentiles()
	next := make([]int, len(series)) // each series' next sample
	vals := make([]float64, 0, len(series))
	for {
		t, found := int64(0), false
		for k, s := range series {
			if next[k] < len(s) && (!found || s[next[k]].TimeNs < t) {
				t, found = s[next[k]].TimeNs, true
			}
		}
		if !found {
			return mean, lo, hi
		}
		vals = vals[:0]
		sum, mn, mx := 0.0, math.Inf(1), math.Inf(-1)
		for k, s := range series {
			if next[k] < len(s) && s[next[k]].TimeNs == t {
				v := s[next[k]].Value
				vals = append(vals, v)
				sum, mn, mx = sum+v, math.Min(mn, v), math.Max(mx, v)
				next[k]++
			}
		}
		if pct {
			sort.Float64s(vals)
			mn, mx = vals[nearestRank(len(vals), 0.10)], vals[nearestRank(len(vals), 0.90)]
		}
		mean, lo, hi = append(mean, Point{t, sum / float64(len(vals))}), append(lo, Point{t, mn}), append(hi, Point{t, mx})
	}
}

// nearestRank is the index of the q-quantile of n sorted values (the
// nearest-rank method: ceil(q n), from 1).
func nearestRank(n int, q float64) int {
	return max(0, min(n-1, int(math.Ceil(q*float64(n)))-1))
}

// countAll is how many series the groups that stand for all of a run's
// flows hold (drawn, in their band).
func countAll(groups []band) int {
	n := 0
	for _, g := range groups {
		if g.all {
			n += len(g.series)
		}
	}
	return n
}

// legendRoom is the room the time charts leave on their right for the
// legend, which stands there in a column: at most maxLines lines and two
// entries per band, so it fits the chart's height without pages.
const legendRoom = "230"

// legendChars is how many characters of a name the legend shows: a
// longer one keeps its start and its end (with several runs, the run's
// label first and the series' own name last) about an ellipsis; the
// tooltip has it whole.
const legendChars = 30

// legendOpts is a time chart's legend: a column on the right, each name
// cut to legendChars (legendFormatter).
func legendOpts(names []string) charts.GlobalOpts {
	return charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Orient: "vertical", Right: "0", Top: "20", Bottom: "90",
		Data: names, Formatter: legendFormatter})
}

var legendFormatter = opts.FuncOpts(fmt.Sprintf("function (n) { return n.length > %d ? n.slice(0, %d) + '…' + n.slice(-%d) : n; }", legendChars, legendChars/2-3, legendChars/2+2))

// bandSeries draws a band between lo and hi (sample by sample, at the
// same times) as ECharts' custom series: a quadrilateral per pair of
// neighbouring samples, each data item [t0, lo0, hi0, t1, lo1, hi1] (µs,
// then values), or with steps a rectangle per sample over its interval
// (intervalStart). ECharts' stacking, the usual way to fill between two
// lines, stacks the first numeric dimension on a value (time) axis, the
// time, not the value.
func bandSeries(name, color string, lo, hi []Point, peak, steps bool, downsampled *bool) charts.SingleSeries {
	lo, ds := downsample(lo, maxPointsPerLine, peak)
	hi, _ = downsample(hi, maxPointsPerLine, peak)
	*downsampled = *downsampled || ds
	data := make([][]float64, 0, len(lo))
	for i := 0; steps && i < len(lo) && i < len(hi); i++ {
		t0, t1 := Round(float64(intervalStart(lo, i))/1e3, 3), Round(float64(lo[i].TimeNs)/1e3, 3)
		l, h := Round(lo[i].Value, 4), Round(hi[i].Value, 4)
		data = append(data, []float64{t0, l, h, t1, l, h})
	}
	for i := 0; !steps && i+1 < len(lo) && i+1 < len(hi); i++ {
		data = append(data, []float64{Round(float64(lo[i].TimeNs)/1e3, 3), Round(lo[i].Value, 4), Round(hi[i].Value, 4),
			Round(float64(lo[i+1].TimeNs)/1e3, 3), Round(lo[i+1].Value, 4), Round(hi[i+1].Value, 4)})
	}
	return charts.SingleSeries{Name: name, Type: "custom", Data: data, RenderItem: bandRender,
		Encode: &opts.Encode{X: []int{0, 3}, Y: []int{1, 2, 4, 5}}, ItemStyle: &opts.ItemStyle{Color: color}}
}

// bandRender draws one item of a bandSeries, clipped to the chart's grid
// (when zoomed in, an item can reach past it).
var bandRender = opts.FuncOpts(strings.Join([]string{
	"function (params, api) {",
	"  var cs = params.coordSys;",
	"  var pts = [api.coord([api.value(0), api.value(1)]), api.coord([api.value(3), api.value(4)]),",
	"             api.coord([api.value(3), api.value(5)]), api.coord([api.value(0), api.value(2)])];",
	"  return {type: 'polygon', silent: true, shape: {points: echarts.graphic.clipPointsByRect(pts, {x: cs.x, y: cs.y, width: cs.width, height: cs.height})},",
	"          style: {fill: api.visual('color'), opacity: 0.25, stroke: null}};",
	"}"}, "\n"))

// bandTooltip is the time charts' tooltip: each series' value at the
// time pointed at, a band's (bandSeries) as its two edges.
var bandTooltip = opts.FuncOpts(strings.Join([]string{
	"function (ps) {",
	"  var out = [];",
	"  ps.forEach(function (p) {",
	"    var v = p.value[1];",
	"    if (p.seriesType === 'custom') { v = p.value[1] + ' to ' + p.value[2]; }",
	"    out.push(p.marker + echarts.format.encodeHTML(p.seriesName) + ': <b>' + v + '</b>');",
	"  });",
	"  return (ps.length ? ps[0].axisValueLabel + ' µs<br>' : '') + out.join('<br>');",
	"}"}, "\n"))
