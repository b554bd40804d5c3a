package reports

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// lines draws metric over time, with zoom: per run, the largest maxLines
// series one by one and the others as their mean and a band from their
// least to their largest; a run's flows, when it has more than
// bandFlows, only as their mean and band (a line per flow made a
// zig-zag of many colours; issue 51). The time axis starts at zero, so
// that what came before the first sample (a deadlock within it) has its
// place, and a deadlock is marked where it was detected.
func (pg *page) lines(runs []*Run, metric, title, text string, peak bool) {
	type line struct {
		name string
		pts  []Point
		rank float64
	}
	var all []line
	var groups []band // per run, what is drawn as a mean and a band
	total, shown := 0, 0
	perRun := maxLines
	if len(runs) > 1 {
		perRun = max(2, maxLines/len(runs))
	}
	for _, r := range runs {
		var ls []line
		for _, where := range r.Wheres[metric] {
			pts := r.Series[metric][where]
			rank := seriesRank(metric, pts, peak)
			name := seriesName(r, where)
			if len(runs) > 1 {
				name = r.Label + " · " + name
			}
			ls = append(ls, line{name, pts, rank})
		}
		total += len(ls)
		sort.SliceStable(ls, func(i, j int) bool { return ls[i].rank > ls[j].rank })
		keep := perRun
		if metric == MetricFlowGbps && len(ls) > bandFlows {
			keep = 0
		}
		if len(ls) > keep+1 || keep == 0 { // one series past the largest is drawn as itself
			g := band{run: r}
			for _, l := range ls[keep:] {
				g.series = append(g.series, l.pts)
			}
			g.all = keep == 0
			groups = append(groups, g)
			ls = ls[:keep]
		}
		shown += len(ls)
		all = append(all, ls...)
	}
	if len(all) == 0 && len(groups) == 0 {
		return
	}
	var first []Point // a series, for the sampling interval
	if len(all) > 0 {
		first = all[0].pts
	} else {
		first = groups[0].series[0]
	}
	// Per-interval throughput zig-zags by a packet or two per sample; it
	// is drawn as a moving average over smoothWindow.
	window := 1
	if metric == MetricFlowGbps || metric == MetricTxGbps {
		var mean []float64
		add := func(pts []Point) {
			if n := len(pts); n > 0 {
				sum := 0.0
				for _, p := range pts {
					sum += p.Value
				}
				mean = append(mean, sum/float64(n))
			}
		}
		for _, l := range all {
			add(l.pts)
		}
		for _, g := range groups {
			for _, pts := range g.series {
				add(pts)
			}
		}
		window = smoothingWindow(first, mean, mtuOf(runs[0]))
	}
	if window > 1 {
		text += fmt.Sprintf("; drawn as the mean over %d samples (%s); timeseries.csv holds every sample", window, fmtNs(float64(window)*float64(interval(first))))
	}
	for _, g := range groups {
		if g.all {
			text += "; " + g.what() + " (the shaded band), the line their mean"
			break
		}
	}
	largest := "the %d largest series" // drawn one by one (seriesRank)
	if stateMetrics[metric] {
		largest = "the %d series farthest from their first value"
	}
	if len(all) > 0 && len(groups) > 0 && !groups[0].all {
		text += "; " + fmt.Sprintf(largest, perRun) + " are drawn, the others as their mean (dashed) and a band from their least to their largest"
	}
	if shown+countAll(groups) < total {
		pg.note(fmt.Sprintf("%s shows %s of %d, and the others' mean and range", strings.ToLower(title), fmt.Sprintf(largest, shown), total))
	}
	pg.section(title, text)
	var legend []string
	for _, l := range all {
		legend = append(legend, l.name)
	}
	for i := range groups {
		groups[i].name(len(runs) > 1)
		legend = append(legend, groups[i].meanName, groups[i].bandName)
	}
	c := charts.NewLine()
	c.SetGlobalOptions(charts.WithInitializationOpts(pg.init(metric, "420px")),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", Formatter: bandTooltip}),
		legendOpts(legend),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "time (µs)", NameLocation: "middle", NameGap: 25, Min: 0}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: 0}), // every series is a rate, a size or a time: from zero, so that 0.3% looks small
		charts.WithDataZoomOpts(opts.DataZoom{Type: "slider", XAxisIndex: []int{0}}, opts.DataZoom{Type: "inside", XAxisIndex: []int{0}}),
		charts.WithGridOpts(opts.Grid{Top: "35", Bottom: "90", Left: "70", Right: legendRoom}),
		charts.WithAnimation(false))
	downsampled := false
	// A rate per sampling interval is the rate over the interval that
	// ends at its time: drawn as a step over that interval, the first
	// from the interval's start (the first interval of a run from 0, so
	// a deadlock within it shows inside the rate it ended).
	steps := metric == MetricFlowGbps || metric == MetricTxGbps
	series := func(pts []Point) []opts.LineData {
		pts, ds := downsample(pts, maxPointsPerLine, peak)
		downsampled = downsampled || ds
		data := make([]opts.LineData, 0, len(pts)+1)
		if steps && len(pts) > 0 {
			data = append(data, opts.LineData{Value: []any{Round(float64(intervalStart(pts, 0))/1e3, 3), 0}})
		}
		for _, p := range pts {
			data = append(data, opts.LineData{Value: []any{Round(float64(p.TimeNs)/1e3, 3), Round(p.Value, 4)}})
		}
		return data
	}
	plain := charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)})
	if steps {
		plain = charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), Step: "start"})
	}
	for _, l := range all {
		color := pg.color(l.name)
		c.AddSeries(l.name, series(movingMean(l.pts, window)), plain, charts.WithItemStyleOpts(opts.ItemStyle{Color: color}), charts.WithLineStyleOpts(opts.LineStyle{Color: color}))
	}
	for _, g := range groups {
		color := "#888888" // the others beside lines of their own
		if g.all {
			color = pg.color(g.meanName)
		}
		var smoothed [][]Point
		for _, pts := range g.series {
			smoothed = append(smoothed, movingMean(pts, window))
		}
		mean, lo, hi := g.spread(smoothed)
		style := opts.LineStyle{Color: color, Width: 2}
		if !g.all {
			style.Type = "dashed"
		}
		c.AddSeries(g.meanName, series(mean), plain, charts.WithItemStyleOpts(opts.ItemStyle{Color: color}), charts.WithLineStyleOpts(style))
		c.MultiSeries = append(c.MultiSeries, bandSeries(g.bandName, color, lo, hi, peak, steps, &downsampled))
	}
	// A deadlock, marked at its time on the first series of its run.
	for _, r := range runs {
		if !r.Summary.Deadlock.Detected {
			continue
		}
		name := "deadlock"
		if len(runs) > 1 {
			name = r.Label + " · deadlock"
		}
		c.AddSeries(name, nil, charts.WithMarkLineNameXAxisItemOpts(opts.MarkLineNameXAxisItem{Name: name, XAxis: Round(float64(r.Summary.Deadlock.AtNs)/1e3, 3)}),
			charts.WithMarkLineStyleOpts(opts.MarkLineStyle{Symbol: []string{"none", "none"}, LineStyle: &opts.LineStyle{Color: "#c00000", Type: "dashed"},
				Label: &opts.Label{Show: opts.Bool(true), Formatter: "{b} at {c} µs"}}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: "#c00000"}))
	}
	if downsampled {
		how := "bucket means"
		if peak {
			how = "bucket maxima"
		}
		pg.note(fmt.Sprintf("%s draws at most %d points per line (%s)", strings.ToLower(title), maxPointsPerLine, how))
	}
	pg.chart(c)
}

// smoothPackets is how many packets a smoothed sample averages over, at
// the typical series' rate: a packet more or less in an interval moves a
// per-interval rate by a whole packet's worth, and over 20 packets by 5%
// (an incast of many flows, each a few packets per interval, then reads
// as flat lines; one flow at line rate is left as it is).
const smoothPackets = 20

// interval is a series' sampling period (observe.interval, doubled when
// the series was decimated), 0 with fewer than two samples.
func interval(pts []Point) int64 {
	if len(pts) < 2 {
		return 0
	}
	return pts[1].TimeNs - pts[0].TimeNs
}

// intervalStart is when the interval of pts[i] began: the sample before
// it, or for the first one interval before it (never before 0). A lone
// sample's interval is the run's start to it (the sampler's first sample
// is one interval in): without a second sample there is no interval to
// take, and the rate was drawn over no time at all.
func intervalStart(pts []Point, i int) int64 {
	if i > 0 {
		return pts[i-1].TimeNs
	}
	if len(pts) < 2 {
		return 0
	}
	return max(0, pts[0].TimeNs-interval(pts))
}

// smoothingWindow is how many samples of pts (Gb/s per interval) hold
// smoothPackets packets of mtu bytes at the median of the series' mean
// rates, at most a twentieth of the samples; 1 is no smoothing.
func smoothingWindow(pts []Point, means []float64, mtu int) int {
	dt := interval(pts)
	if dt <= 0 || len(means) == 0 {
		return 1
	}
	sort.Float64s(means)
	perSample := means[len(means)/2] * 1e9 / 8 * float64(dt) / 1e9 // bytes
	if perSample <= 0 {
		return 1
	}
	w := int(math.Ceil(smoothPackets * float64(mtu) / perSample))
	return max(1, min(w, len(pts)/20))
}

// mtuOf is a run's MTU (hca.mtu; 4096, the default, when not given).
func mtuOf(r *Run) int {
	if m, err := strconv.Atoi(r.Params["hca.mtu"]); err == nil && m > 0 {
		return m
	}
	return 4096
}

// movingMean is pts averaged over a centred window of w samples (fewer at
// the ends).
func movingMean(pts []Point, w int) []Point {
	if w <= 1 || len(pts) == 0 {
		return pts
	}
	sum := make([]float64, len(pts)+1)
	for i, p := range pts {
		sum[i+1] = sum[i] + p.Value
	}
	out := make([]Point, len(pts))
	for i, p := range pts {
		lo, hi := max(0, i-w/2), min(len(pts), i-w/2+w)
		out[i] = Point{TimeNs: p.TimeNs, Value: (sum[hi] - sum[lo]) / float64(hi-lo)}
	}
	return out
}

// downsample reduces pts to at most n points: each bucket's mean (or
// maximum, for peak) at the bucket's last time.
func downsample(pts []Point, n int, peak bool) ([]Point, bool) {
	if len(pts) <= n {
		return pts, false
	}
	out := make([]Point, 0, n)
	for b := 0; b < n; b++ {
		lo, hi := b*len(pts)/n, (b+1)*len(pts)/n
		if lo >= hi {
			continue
		}
		v := 0.0
		for _, p := range pts[lo:hi] {
			if peak {
				v = math.Max(v, p.Value)
			} else {
				v += p.Value
			}
		}
		if !peak {
			v /= float64(hi - lo)
		}
		out = append(out, Point{pts[hi-1].TimeNs, v})
	}
	return out, true
}
