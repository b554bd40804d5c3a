package reports

import (
	"fmt"
	"html"
	"sort"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// heatMaps are the two heat maps of waiting: Ethernet's PFC pauses and
// InfiniBand's credit waits, each captioned in its fabric's words.
var heatMaps = map[string]struct{ title, what, text, full string }{
	MetricPaused: {"PFC pause heat map", "paused",
		"Fraction of each bucket of time that an egress queue (node:port:priority) was paused by PFC from its peer.", "paused all the bucket"},
	MetricCreditWait: {"Credit wait heat map", "credit-starved",
		"Fraction of each bucket of time that an InfiniBand port (node:port:VL) waited for credit: its peer's input buffer for the VL had no room for a largest packet.", "waited all the bucket"},
}

// heatmap draws metric's series (MetricPaused or MetricCreditWait):
// port (and priority or VL) × time.
func (pg *page) heatmap(r *Run, metric string, label bool) {
	hm := heatMaps[metric]
	title, what := hm.title, hm.what
	series := r.Series[metric]
	type row struct {
		where string
		total float64
	}
	var rows []row
	for _, where := range r.Wheres[metric] {
		s := 0.0
		for _, p := range series[where] {
			s += p.Value
		}
		if s > 0 {
			rows = append(rows, row{where, s})
		}
	}
	if len(rows) == 0 {
		return
	}
	if label {
		title += ": " + r.Label
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].total > rows[j].total })
	if len(rows) > maxHeatRows {
		pg.note(fmt.Sprintf("the heat map shows the %d most %s of %d %s queues", maxHeatRows, what, len(rows), what))
		rows = rows[:maxHeatRows]
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].where < rows[j].where })
	var tMax int64
	for _, rw := range rows {
		if pts := series[rw.where]; len(pts) > 0 {
			tMax = max(tMax, pts[len(pts)-1].TimeNs)
		}
	}
	cols := maxHeatCols
	nSamples := 0
	for _, rw := range rows {
		nSamples = max(nSamples, len(series[rw.where]))
	}
	if nSamples < cols {
		cols = max(1, nSamples)
	} else if nSamples > cols {
		pg.note(fmt.Sprintf("the %s averages %d samples into %d time buckets", strings.ToLower(hm.title), nSamples, cols))
	}
	pg.section(title, hm.text)
	var xs, ys []string
	for c := 0; c < cols; c++ {
		xs = append(xs, fmtNs(float64(tMax)*float64(c+1)/float64(cols)))
	}
	var data []opts.HeatMapData
	for y, rw := range rows {
		ys = append(ys, rw.where)
		sum := make([]float64, cols)
		cnt := make([]int, cols)
		for _, p := range series[rw.where] {
			c := 0
			if tMax > 0 {
				c = min(cols-1, int(float64(p.TimeNs)/float64(tMax)*float64(cols)-1e-9))
			}
			c = max(0, c)
			sum[c] += p.Value
			cnt[c]++
		}
		for c := range sum {
			if cnt[c] > 0 && sum[c] > 0 {
				data = append(data, opts.HeatMapData{Value: [3]any{c, y, Round(sum[c]/float64(cnt[c]), 3)}})
			}
		}
	}
	h := charts.NewHeatMap()
	height := fmt.Sprintf("%dpx", 140+14*len(rows))
	h.SetGlobalOptions(charts.WithInitializationOpts(pg.init("heatmap", height)),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Data: xs, Name: "time", NameLocation: "middle", NameGap: 25}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: ys}),
		charts.WithGridOpts(opts.Grid{Top: "58", Bottom: "45", Left: "110", Right: "30"}),
		// The colour scale is the legend: above the map on the right, clear
		// of the time axis, its ends labelled; no series legend, whose
		// swatch would be the theme's blue, not the map's colours.
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithVisualMapOpts(opts.VisualMap{Calculable: opts.Bool(true), Min: 0, Max: 1, Orient: "horizontal", Right: "30", Top: "0",
			Text: []string{hm.full, "never"}, InRange: &opts.VisualMapInRange{Color: []string{"#fff5eb", "#fd8d3c", "#7f2704"}}}),
		charts.WithAnimation(false))
	h.AddSeries(what+" fraction", data)
	pg.chart(h)
}

// spread draws pfc.csv: every PAUSE a port sent, one row per port in the
// order each first paused its peer, so that a storm's spread reads top to
// bottom.
func (pg *page) spread(r *Run, label bool) {
	sp := r.pfcSpread
	if sp == nil && len(r.PFC) > 0 {
		sp, _ = spreadOf(rowsOf(r.PFC)) // a Run made in memory
	}
	if sp == nil {
		return
	}
	order := sp.order
	if sp.ports > maxSpreadPorts {
		pg.note(fmt.Sprintf("the PFC spread shows the first %d of %d ports that sent PAUSE", maxSpreadPorts, sp.ports))
	}
	peer := map[string]string{}
	if r.Topo != nil {
		for _, l := range r.Topo.Links {
			peer[l.A], peer[l.B] = nodeOf(l.B), nodeOf(l.A)
		}
	}
	names := make([]string, len(order))
	for i, p := range order {
		names[i] = p
		if q, ok := peer[p]; ok {
			names[i] = p + " → " + q
		}
	}
	title := "PFC spread"
	if label {
		title += ": " + r.Label
	}
	pg.section(title, "Each PAUSE frame sent (from pfc.csv), one row per sending port → the peer it paused, ordered by each port's first PAUSE: read top to bottom to see congestion spread back towards the senders. Large dots mark each port's first PAUSE.")
	if sp.step > 1 {
		pg.note(fmt.Sprintf("the PFC spread draws every %dth of %d PAUSE frames", sp.step, sp.total))
	}
	var pauses []opts.ScatterData
	for _, d := range sp.dots {
		pauses = append(pauses, opts.ScatterData{Value: []any{Round(float64(d.timeNs)/1e3, 3), d.row}})
	}
	var firsts []opts.ScatterData
	for i := range order {
		firsts = append(firsts, opts.ScatterData{Value: []any{Round(float64(sp.first[i])/1e3, 3), i}, SymbolSize: 12})
	}
	s := charts.NewScatter()
	height := fmt.Sprintf("%dpx", 120+18*len(order))
	s.SetGlobalOptions(charts.WithInitializationOpts(pg.init("spread", height)),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true)}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "time (µs)", NameLocation: "middle", NameGap: 25, Scale: opts.Bool(true)}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: names, Inverse: opts.Bool(true)}),
		charts.WithGridOpts(opts.Grid{Top: "40", Bottom: "80", Left: "150", Right: "30"}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "slider", XAxisIndex: []int{0}}),
		charts.WithAnimation(false))
	s.AddSeries("PAUSE sent", pauses, charts.WithScatterChartOpts(opts.ScatterChart{SymbolSize: 4}))
	s.AddSeries("first PAUSE", firsts, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#d62728"}))
	pg.chart(s)
}

func (pg *page) deadlock(runs []*Run) {
	for _, r := range runs {
		d := r.Summary.Deadlock
		if !d.Detected {
			continue
		}
		title := "Deadlock"
		if len(runs) > 1 {
			title += ": " + r.Label
		}
		pg.section(title, "")
		fmt.Fprintf(&pg.b, "<p>A cycle of paused, non-empty queues held from %s: <b style=\"color:#e00000\">%s</b> (red in the topology).</p>\n",
			html.EscapeString(fmtNs(float64(d.AtNs))), html.EscapeString(strings.Join(append(d.Cycle, firstOr(d.Cycle)), " → ")))
	}
}

func firstOr(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
