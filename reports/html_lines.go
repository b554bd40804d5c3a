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

// lines draws metric over time, one line per where (the largest maxLines)
// and per run, with zoom.
func (pg *page) lines(runs []*Run, metric, title, text string, peak bool) {
	type line struct {
		name string
		pts  []Point
		rank float64
	}
	var all []line
	var others []line // per run, the mean of the series not drawn
	var bands [][2][]Point
	total, shown := 0, 0
	perRun := maxLines
	if len(runs) > 1 {
		perRun = max(2, maxLines/len(runs))
	}
	for _, r := range runs {
		var ls []line
		for _, where := range r.Wheres[metric] {
			pts := r.Series[metric][where]
			rank := 0.0
			for _, p := range pts {
				if peak {
					rank = math.Max(rank, p.Value)
				} else {
					rank += p.Value
				}
			}
			name := seriesName(r, where)
			if len(runs) > 1 {
				name = r.Label + " · " + name
			}
			ls = append(ls, line{name, pts, rank})
		}
		total += len(ls)
		sort.SliceStable(ls, func(i, j int) bool { return ls[i].rank > ls[j].rank })
		if len(ls) > perRun {
			rest := make([][]Point, 0, len(ls)-perRun)
			for _, l := range ls[perRun:] {
				rest = append(rest, l.pts)
			}
			mean, lo, hi := spread(rest)
			name := fmt.Sprintf("others (%d)", len(rest))
			if len(runs) > 1 {
				name = r.Label + " · " + name
			}
			others = append(others, line{name: name, pts: mean})
			bands = append(bands, [2][]Point{lo, hi})
			ls = ls[:perRun]
		}
		shown += len(ls)
		all = append(all, ls...)
	}
	if len(all) == 0 {
		return
	}
	// Per-interval throughput zig-zags by a packet or two per sample; it
	// is drawn as a moving average over smoothWindow, the raw series a
	// click away in the legend.
	window := 1
	if metric == MetricFlowGbps || metric == MetricTxGbps {
		var mean []float64
		for _, l := range all {
			if n := len(l.pts); n > 0 {
				sum := 0.0
				for _, p := range l.pts {
					sum += p.Value
				}
				mean = append(mean, sum/float64(n))
			}
		}
		window = smoothingWindow(all[0].pts, mean, mtuOf(runs[0]))
	}
	if window > 1 {
		text += fmt.Sprintf("; drawn as the mean over %d samples (%s), the raw samples a click away in the legend", window, fmtNs(float64(window)*float64(interval(all[0].pts))))
	}
	if len(others) > 0 {
		text += fmt.Sprintf("; the %d largest series are drawn, the others as their mean (dashed) and, dotted, their least and largest", perRun)
	}
	if shown < total {
		pg.note(fmt.Sprintf("%s shows the %d largest of %d series, and the others' mean and range", strings.ToLower(title), shown, total))
	}
	pg.section(title, text)
	var legend []string
	hidden := map[string]bool{}
	for _, l := range all {
		legend = append(legend, l.name)
		if window > 1 {
			legend = append(legend, l.name+" (raw)")
			hidden[l.name+" (raw)"] = false
		}
	}
	for _, o := range others {
		legend = append(legend, o.name)
	}
	c := charts.NewLine()
	c.SetGlobalOptions(charts.WithInitializationOpts(pg.init(metric, "420px")),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "0", Data: legend, Selected: hidden}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "time (µs)", NameLocation: "middle", NameGap: 25, Scale: opts.Bool(true)}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: 0}), // every series is a rate, a size or a time: from zero, so that 0.3% looks small
		charts.WithDataZoomOpts(opts.DataZoom{Type: "slider", XAxisIndex: []int{0}}, opts.DataZoom{Type: "inside", XAxisIndex: []int{0}}),
		charts.WithGridOpts(opts.Grid{Top: "50", Bottom: "90", Left: "70", Right: "30"}),
		charts.WithAnimation(false))
	downsampled := false
	series := func(pts []Point) []opts.LineData {
		pts, ds := downsample(pts, maxPointsPerLine, peak)
		downsampled = downsampled || ds
		data := make([]opts.LineData, len(pts))
		for i, p := range pts {
			data[i] = opts.LineData{Value: []any{Round(float64(p.TimeNs)/1e3, 3), Round(p.Value, 4)}}
		}
		return data
	}
	plain := charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)})
	for _, l := range all {
		color := pg.color(l.name)
		style := []charts.SeriesOpts{plain, charts.WithItemStyleOpts(opts.ItemStyle{Color: color}), charts.WithLineStyleOpts(opts.LineStyle{Color: color})}
		c.AddSeries(l.name, series(movingMean(l.pts, window)), style...)
		if window > 1 {
			c.AddSeries(l.name+" (raw)", series(l.pts), plain, charts.WithItemStyleOpts(opts.ItemStyle{Color: color}),
				charts.WithLineStyleOpts(opts.LineStyle{Color: color, Width: 1, Opacity: opts.Float(0.5)}))
		}
	}
	for i, o := range others {
		// The others' range as two thin lines: an area between two
		// series needs stacking, which ECharts does not align on a
		// time (value) axis.
		const grey = "#888888"
		c.AddSeries(o.name, series(movingMean(o.pts, window)), plain, charts.WithItemStyleOpts(opts.ItemStyle{Color: grey}),
			charts.WithLineStyleOpts(opts.LineStyle{Color: grey, Type: "dashed"}))
		for j, edge := range bands[i] {
			c.AddSeries(o.name+[]string{" least", " largest"}[j], series(movingMean(edge, window)), plain,
				charts.WithItemStyleOpts(opts.ItemStyle{Color: grey}), charts.WithLineStyleOpts(opts.LineStyle{Color: grey, Type: "dotted", Width: 1, Opacity: opts.Float(0.6)}))
		}
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

// spread is, sample by sample, the mean, least and largest of series
// (over the samples they all have).
func spread(series [][]Point) (mean, lo, hi []Point) {
	n := len(series[0])
	for _, s := range series {
		n = min(n, len(s))
	}
	mean, lo, hi = make([]Point, n), make([]Point, n), make([]Point, n)
	for i := 0; i < n; i++ {
		t := series[0][i].TimeNs
		sum, mn, mx := 0.0, math.Inf(1), math.Inf(-1)
		for _, s := range series {
			v := s[i].Value
			sum, mn, mx = sum+v, math.Min(mn, v), math.Max(mx, v)
		}
		mean[i], lo[i], hi[i] = Point{t, sum / float64(len(series))}, Point{t, mn}, Point{t, mx}
	}
	return mean, lo, hi
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
