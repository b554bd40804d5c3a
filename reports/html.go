package reports

import (
	"bytes"
	_ "embed"
	"fmt"
	"html"
	"html/template"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/render"
	"github.com/go-echarts/go-echarts/v2/templates"
)

// echartsJS is Apache ECharts 5.4.3 (assets/README.md), inlined into every
// report so that it opens offline.
//
//go:embed assets/echarts.min.js
var echartsJS string

// Limits that keep a report small whatever the run's size: the page says
// when it drew less than the run recorded.
const (
	maxPointsPerLine = 400 // samples per line (bucket means; maxima for queues)
	maxLines         = 16  // lines per chart, the largest first
	maxHeatRows      = 64  // ports in the pause heat map, the most paused first
	maxHeatCols      = 200 // time buckets in the heat map
	maxSpreadPorts   = 64  // ports in the PFC spread timeline
	maxCDFPoints     = 400
)

// page accumulates the report's sections.
type page struct {
	b     strings.Builder
	notes []string // what was downsampled
	n     int      // charts, for ids
	// colors gives each series name one colour on the whole page, in the
	// order names first appear, so that a flow or port looks the same in
	// every chart.
	colors map[string]string
}

// seriesPalette is ECharts' default palette and its darker half, for
// series coloured by name.
var seriesPalette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc",
	"#2f4b9a", "#5a8f3c", "#c29a1c", "#b53b3b", "#3e8fb0", "#22704a", "#c25a26", "#6b3f86", "#b04f98"}

// color is name's colour on this page.
func (pg *page) color(name string) string {
	if pg.colors == nil {
		pg.colors = map[string]string{}
	}
	c, ok := pg.colors[name]
	if !ok {
		c = seriesPalette[len(pg.colors)%len(seriesPalette)]
		pg.colors[name] = c
	}
	return c
}

// seriesName is how a chart names a series: a flow as its hosts and id
// ("h0→h8 #3", from flows.csv), anything else as recorded.
func seriesName(r *Run, where string) string {
	id, ok := strings.CutPrefix(where, "flow:")
	if !ok {
		return where
	}
	if n, err := strconv.Atoi(id); err == nil && strconv.Itoa(n) == id {
		if name, ok := r.Flows.Name(n); ok {
			return name
		}
	}
	return where
}

func (pg *page) section(title, text string) {
	fmt.Fprintf(&pg.b, "<h2>%s</h2>\n", html.EscapeString(title))
	if text != "" {
		fmt.Fprintf(&pg.b, "<p class=\"note\">%s</p>\n", html.EscapeString(text))
	}
}

func (pg *page) note(s string) { pg.notes = append(pg.notes, s) }

// chart renders a go-echarts chart without its script host: the element
// and the script that draws it, from go-echarts' own templates as its
// RenderSnippet does, less two passes over the output that were about
// half of report.html's build (0.13 s of 0.28 s for a 64-host incast): a
// third rendering of the chart's options, which the page does not use,
// and a regular expression that strips the markers of JavaScript
// functions, which lfsim's charts do not have (a snippet that has one
// still gets it).
func (pg *page) chart(c interface{ Validate() }) {
	c.Validate()
	for _, tpl := range chartTemplates() {
		var buf bytes.Buffer
		if err := tpl.ExecuteTemplate(&buf, render.ModChart, c); err != nil {
			panic(err) // as RenderSnippet: the templates are go-echarts' own
		}
		b := buf.Bytes()
		if bytes.Contains(b, []byte("__f__")) {
			b = funcMarkers.ReplaceAll(b, nil)
		}
		pg.b.Write(b)
		pg.b.WriteString("\n")
	}
}

// chartTemplates are go-echarts' element and script templates, parsed
// once for every chart of every report.
var chartTemplates = sync.OnceValue(func() [2]*template.Template {
	var t [2]*template.Template
	for i, part := range [...]string{templates.BaseElementTpl, templates.BaseScriptTpl} {
		t[i] = render.MustTemplate(render.ModChart, []string{templates.BaseTpl, part})
	}
	return t
})

// funcMarkers is go-echarts' pattern for the markers around JavaScript
// functions in a chart's options (render/engine.go).
var funcMarkers = regexp.MustCompile(`(__f__")|("__f__)|(__f__)`)

func (pg *page) init(title string, height string) opts.Initialization {
	pg.n++
	return opts.Initialization{Width: "100%", Height: height, ChartID: fmt.Sprintf("chart%d", pg.n), PageTitle: title, AssetsHost: "./"}
}

// BuildHTML renders report.html for one run, or for several overlaid
// (one line per run in each chart, labelled by what differs between
// them). The page needs no network: ECharts is inlined.
func BuildHTML(runs []*Run) []byte {
	LabelRuns(runs)
	return buildHTML(runs, nil)
}

// buildHTML renders the page of labelled runs; extra, when not nil, adds
// its sections first (a sweep's comparison).
func buildHTML(runs []*Run, extra func(*page)) []byte {
	pg := &page{}
	body := pg.build(runs, extra)
	var out strings.Builder
	title := "lfsim report: " + runs[0].Summary.Scenario
	if len(runs) > 1 {
		title = fmt.Sprintf("lfsim report: %d runs", len(runs))
	}
	fmt.Fprintf(&out, "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n", html.EscapeString(title))
	out.WriteString("<style>body{font-family:sans-serif;margin:1em 2em;color:#222} table{border-collapse:collapse;margin:.5em 0} td,th{border:1px solid #ccc;padding:2px 8px;text-align:right} th{background:#f4f4f4} td:first-child,th:first-child{text-align:left} .note{color:#555;font-size:90%} h2{margin-top:1.5em;border-bottom:1px solid #ddd} .container{margin:0} .item{margin:0}</style>\n")
	out.WriteString("<script type=\"text/javascript\">\n")
	out.WriteString(echartsJS)
	out.WriteString("\n</script>\n</head>\n<body>\n")
	fmt.Fprintf(&out, "<h1>%s</h1>\n", html.EscapeString(title))
	if len(pg.notes) > 0 {
		out.WriteString("<p class=\"note\"><b>Downsampled to keep this page small:</b> ")
		out.WriteString(html.EscapeString(strings.Join(pg.notes, "; ")))
		out.WriteString(". The run's CSV files hold every sample.</p>\n")
	}
	out.WriteString(body)
	out.WriteString("</body>\n</html>\n")
	return []byte(out.String())
}

func (pg *page) build(runs []*Run, extra func(*page)) string {
	if extra != nil {
		extra(pg)
	}
	pg.summaryTable(runs)
	pg.topology(runs[0])
	pg.lines(runs, MetricFlowGbps, "Throughput per flow", "Gb/s delivered per sampling interval", false)
	pg.lines(runs, MetricTxGbps, "Throughput per link", "Gb/s sent by each port per sampling interval", false)
	pg.uplinks(runs)
	pg.lines(runs, MetricQueueBytes, "Queue depth", "egress queue bytes (node:port:priority) at each sample", true)
	pg.lines(runs, MetricBufferBytes, "Shared buffer use", "bytes of each switch's shared buffer in use", true)
	for _, r := range runs {
		pg.heatmap(r, len(runs) > 1)
	}
	for _, r := range runs {
		pg.spread(r, len(runs) > 1)
	}
	pg.deadlock(runs)
	pg.events(runs)
	pg.cdfs(runs)
	pg.fctBuckets(runs)
	rateTitle, rateAxis := "DCQCN current rate", "reaction point's current rate Rc, Gb/s"
	for _, r := range runs {
		switch {
		case len(r.Wheres[MetricCCTI]) > 0:
			rateTitle, rateAxis = "IB congestion control: sending rate", "source's rate from its CCT index, Gb/s"
		case len(r.Wheres[MetricRTGbps]) == 0:
			rateTitle, rateAxis = "Reaction point's current rate", "sending rate the congestion control allows, Gb/s"
		}
	}
	pg.lines(runs, "rc_gbps", rateTitle, rateAxis, false)
	pg.lines(runs, "window_bytes", "Congestion window (HPCC, DCTCP, TCP)", "bytes the sender may have in flight", false)
	pg.lines(runs, "rtt_us", "Round-trip time (TCP's SRTT, TIMELY's samples)", "the RTT the sender reacts to, µs", false)
	pg.lines(runs, "ccti", "IB congestion control: CCT index", "source's Congestion Control Table index (CCTI)", false)
	pg.lines(runs, "rt_gbps", "DCQCN target rate", "reaction point's target rate Rt, Gb/s", false)
	pg.lines(runs, "alpha", "Alpha (DCQCN, DCTCP)", "reaction point's alpha", false)
	return pg.b.String()
}

func (pg *page) summaryTable(runs []*Run) {
	// A wide table (many runs) scrolls inside its box, not the page.
	pg.b.WriteString("<h2>Summary</h2>\n<div style=\"overflow-x:auto;max-width:100%\">\n<table>\n<tr><th></th>")
	for _, r := range runs {
		fmt.Fprintf(&pg.b, "<th>%s</th>", html.EscapeString(r.Label))
	}
	pg.b.WriteString("</tr>\n")
	row := func(name string, f func(s *Summary) string) {
		fmt.Fprintf(&pg.b, "<tr><td>%s</td>", html.EscapeString(name))
		for _, r := range runs {
			fmt.Fprintf(&pg.b, "<td>%s</td>", html.EscapeString(f(&r.Summary)))
		}
		pg.b.WriteString("</tr>\n")
	}
	row("scenario", func(s *Summary) string { return s.Scenario })
	row("seed", func(s *Summary) string { return fmt.Sprint(s.Seed) })
	row("complete / stopped by", func(s *Summary) string { return fmt.Sprintf("%v / %s", s.Complete, s.StopReason) })
	row("simulated time", func(s *Summary) string { return fmtNs(float64(s.SimTimeNs)) })
	row("wall time, events", func(s *Summary) string { return fmt.Sprintf("%.2fs, %d", s.WallSeconds, s.Events) })
	row("flows completed", func(s *Summary) string { return fmt.Sprintf("%d of %d", s.Flows.Completed, s.Flows.Total) })
	row("bytes offered / delivered / dropped", func(s *Summary) string {
		return fmt.Sprintf("%d / %d / %d", s.Bytes.Offered, s.Bytes.Delivered, s.Bytes.Dropped)
	})
	row("packets sent / dropped / retransmitted", func(s *Summary) string {
		return fmt.Sprintf("%d / %d / %d", s.Packets.Sent, s.Packets.Dropped, s.Packets.Retransmitted)
	})
	row("FCT p50 / p99", func(s *Summary) string { return fmtNs(float64(s.FCT.P50Ns)) + " / " + fmtNs(float64(s.FCT.P99Ns)) })
	row("slowdown mean / p99", func(s *Summary) string { return fmt.Sprintf("%.3f / %.3f", s.FCT.MeanSlowdown, s.FCT.P99Slowdown) })
	row("fairness (Jain)", func(s *Summary) string { return fmt.Sprintf("%.3f", s.Throughput.Fairness) })
	row("PFC pause / resume frames", func(s *Summary) string { return fmt.Sprintf("%d / %d", s.PFC.PauseFrames, s.PFC.ResumeFrames) })
	row("paused in total", func(s *Summary) string { return fmtNs(float64(s.PFC.PausedNs)) })
	row("ECN marked / CNPs", func(s *Summary) string { return fmt.Sprintf("%d / %d", s.ECN.Marked, s.ECN.CNPs) })
	if hasUplinks(runs) {
		row("uplink imbalance (busiest / mean)", func(s *Summary) string {
			if s.Uplinks == nil {
				return "no uplinks"
			}
			return fmt.Sprintf("%.2f (%d uplinks)", s.Uplinks.Imbalance, s.Uplinks.Count)
		})
	}
	for _, r := range runs {
		if r.Summary.Connections != nil {
			row("rdma_cm connections, set-up mean / max", func(s *Summary) string {
				c := s.Connections
				if c == nil {
					return "none"
				}
				return fmt.Sprintf("%d of %d, %s / %s", c.Established, c.Requested, fmtNs(float64(c.SetupMeanNs)), fmtNs(float64(c.SetupMaxNs)))
			})
			break
		}
	}
	row("deadlock", func(s *Summary) string {
		if !s.Deadlock.Detected {
			return "none"
		}
		return fmt.Sprintf("at %s: %s", fmtNs(float64(s.Deadlock.AtNs)), strings.Join(s.Deadlock.Cycle, " → "))
	})
	row("expect", func(s *Summary) string {
		var parts []string
		for _, c := range s.Expect {
			mark := "ok"
			if !c.OK {
				mark = "FAIL"
			}
			parts = append(parts, mark+" "+c.Check)
		}
		return strings.Join(parts, ", ")
	})
	pg.b.WriteString("</table>\n</div>\n")
	pg.warnings(runs)
}

// warnings lists the runs' warnings, each text once: with the run it
// came from, or how many runs gave it.
func (pg *page) warnings(runs []*Run) {
	var order []string
	by := map[string][]string{} // looked up; order kept in order
	for _, r := range runs {
		for _, w := range r.Summary.Warnings {
			if _, seen := by[w]; !seen {
				order = append(order, w)
			}
			by[w] = append(by[w], r.Label)
		}
	}
	for _, w := range order {
		who := by[w][0]
		switch n := len(by[w]); {
		case n == len(runs) && n > 1:
			who = fmt.Sprintf("all %d runs", n)
		case n > 1:
			who = fmt.Sprintf("%d runs: %s", n, strings.Join(by[w], "; "))
		}
		if who == "" {
			fmt.Fprintf(&pg.b, "<p class=\"note\">warning: %s</p>\n", html.EscapeString(w))
			continue
		}
		fmt.Fprintf(&pg.b, "<p class=\"note\">warning (%s): %s</p>\n", html.EscapeString(who), html.EscapeString(w))
	}
}

// pausedByPort is each port's mean paused fraction over the run, the
// largest over its priorities.
func pausedByPort(r *Run) map[string]float64 {
	out := map[string]float64{}
	for where, pts := range r.Series[MetricPaused] {
		port := where
		if i := strings.LastIndexByte(where, ':'); i >= 0 {
			port = where[:i]
		}
		sum := 0.0
		for _, p := range pts {
			sum += p.Value
		}
		if len(pts) > 0 {
			out[port] = math.Max(out[port], sum/float64(len(pts)))
		}
	}
	return out
}

func nodeOf(port string) string {
	if i := strings.LastIndexByte(port, ':'); i >= 0 {
		return port[:i]
	}
	return port
}

// topology draws the nodes in layers (hosts at the bottom, then switches
// by their distance from a host) and colours each link by the fraction of
// the run its more paused end spent paused; the deadlock cycle is red.
func (pg *page) topology(r *Run) {
	if r.Topo == nil || len(r.Topo.Nodes) == 0 {
		return
	}
	t := r.Topo
	if len(t.Nodes) <= maxTopoNodes {
		pg.section("Topology", "Links are coloured by the fraction of the run their more paused end spent paused (grey: never; orange to dark red: more); a deadlock cycle is drawn in red, thick. Hover for details.")
	}
	adj := map[string][]string{}
	for _, l := range t.Links {
		a, b := nodeOf(l.A), nodeOf(l.B)
		adj[a] = append(adj[a], b)
		adj[b] = append(adj[b], a)
	}
	level := map[string]int{}
	var queue []string
	for _, n := range t.Nodes {
		if n.Kind == "host" {
			level[n.Name] = 0
			queue = append(queue, n.Name)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range adj[n] {
			if _, ok := level[m]; !ok {
				level[m] = level[n] + 1
				queue = append(queue, m)
			}
		}
	}
	byLevel := map[int][]string{}
	maxLevel := 0
	for _, n := range t.Nodes {
		l, ok := level[n.Name]
		if !ok {
			l = 1
		}
		byLevel[l] = append(byLevel[l], n.Name)
		maxLevel = max(maxLevel, l)
	}
	if len(t.Nodes) > maxTopoNodes {
		pg.topologySummary(r, level, maxLevel)
		return
	}
	width := 1000.0
	var nodes []opts.GraphNode
	for l := 0; l <= maxLevel; l++ {
		names := byLevel[l]
		for i, name := range names {
			x := 10 + width*(float64(i)+0.5)/float64(len(names))
			y := 10 + 100*float64(maxLevel-l)
			sym, color, size := "circle", "#5470c6", 10
			if l > 0 {
				sym, color, size = "rect", "#91cc75", 16
			}
			nodes = append(nodes, opts.GraphNode{Name: name, X: float32(x), Y: float32(y), Symbol: sym, SymbolSize: size, ItemStyle: &opts.ItemStyle{Color: color}})
		}
	}
	paused := pausedByPort(r)
	inCycle := map[string]bool{}
	for _, p := range r.Summary.Deadlock.Cycle {
		inCycle[p] = true
	}
	var links []opts.GraphLink
	for _, l := range t.Links {
		f := math.Max(paused[l.A], paused[l.B])
		style := &opts.LineStyle{Color: "#bbb", Width: 1}
		if f > 0 {
			style = &opts.LineStyle{Color: heatColor(f), Width: 2 + float32(4*f)}
		}
		if inCycle[l.A] || inCycle[l.B] {
			style = &opts.LineStyle{Color: "#e00000", Width: 5}
		}
		links = append(links, opts.GraphLink{Source: nodeOf(l.A), Target: nodeOf(l.B), Value: float32(Round(f, 4)), LineStyle: style})
	}
	g := charts.NewGraph()
	height := fmt.Sprintf("%dpx", 160+100*maxLevel)
	g.SetGlobalOptions(charts.WithInitializationOpts(pg.init("topology", height)),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Formatter: "{b}: paused fraction {c}"}),
		charts.WithAnimation(false))
	g.AddSeries("topology", nodes, links, charts.WithGraphChartOpts(opts.GraphChart{Layout: "none", Roam: opts.Bool(true)}),
		charts.WithLabelOpts(opts.Label{Show: opts.Bool(len(nodes) <= 64), Position: "right", FontSize: 10}))
	pg.chart(g)
}

// heatColor maps 0..1 to light orange .. dark red.
func heatColor(f float64) string {
	f = math.Max(0, math.Min(1, f))
	r := int(255 - 120*f)
	g := int(180 - 180*f)
	return fmt.Sprintf("#%02x%02x20", r, g)
}

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
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Scale: opts.Bool(true)}),
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

// heatmap draws the paused series: port (and priority) × time.
func (pg *page) heatmap(r *Run, label bool) {
	metric, title, what := MetricPaused, "PFC pause heat map", "paused"
	if len(r.Wheres[MetricCreditWait]) > 0 {
		// InfiniBand: the ports and VLs short of credit, where Ethernet's
		// are paused.
		metric, title, what = MetricCreditWait, "Credit wait heat map (InfiniBand: port:VL × time, short of credit)", "credit-starved"
	}
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
		pg.note(fmt.Sprintf("the pause heat map averages %d samples into %d time buckets", nSamples, cols))
	}
	pg.section(title, "Fraction of each bucket of time that an egress queue (node:port:priority) was paused by PFC from its peer.")
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
			Text: []string{"paused all the bucket", "never"}, InRange: &opts.VisualMapInRange{Color: []string{"#fff5eb", "#fd8d3c", "#7f2704"}}}),
		charts.WithAnimation(false))
	h.AddSeries("paused fraction", data)
	pg.chart(h)
}

// spread draws pfc.csv: every PAUSE a port sent, one row per port in the
// order each first paused its peer, so that a storm's spread reads top to
// bottom.
func (pg *page) spread(r *Run, label bool) {
	first := map[string]int64{}
	var order []string
	for _, p := range r.PFC {
		if p.Quanta == 0 {
			continue
		}
		if _, ok := first[p.Port]; !ok {
			first[p.Port] = p.TimeNs
			order = append(order, p.Port)
		}
	}
	if len(order) == 0 {
		return
	}
	sort.SliceStable(order, func(i, j int) bool { return first[order[i]] < first[order[j]] })
	if len(order) > maxSpreadPorts {
		pg.note(fmt.Sprintf("the PFC spread shows the first %d of %d ports that sent PAUSE", maxSpreadPorts, len(order)))
		order = order[:maxSpreadPorts]
	}
	peer := map[string]string{}
	if r.Topo != nil {
		for _, l := range r.Topo.Links {
			peer[l.A], peer[l.B] = nodeOf(l.B), nodeOf(l.A)
		}
	}
	names := make([]string, len(order))
	idx := map[string]int{}
	for i, p := range order {
		names[i] = p
		if q, ok := peer[p]; ok {
			names[i] = p + " → " + q
		}
		idx[p] = i
	}
	title := "PFC spread"
	if label {
		title += ": " + r.Label
	}
	pg.section(title, "Each PAUSE frame sent (from pfc.csv), one row per sending port → the peer it paused, ordered by each port's first PAUSE: read top to bottom to see congestion spread back towards the senders. Large dots mark each port's first PAUSE.")
	var pauses []opts.ScatterData
	const maxDots = 4000
	total := 0
	for _, p := range r.PFC {
		if _, ok := idx[p.Port]; ok && p.Quanta > 0 {
			total++
		}
	}
	step := max(1, total/maxDots)
	if step > 1 {
		pg.note(fmt.Sprintf("the PFC spread draws every %dth of %d PAUSE frames", step, total))
	}
	k := 0
	for _, p := range r.PFC {
		i, ok := idx[p.Port]
		if !ok || p.Quanta == 0 {
			continue
		}
		if k%step == 0 {
			pauses = append(pauses, opts.ScatterData{Value: []any{Round(float64(p.TimeNs)/1e3, 3), i}})
		}
		k++
	}
	var firsts []opts.ScatterData
	for i, p := range order {
		firsts = append(firsts, opts.ScatterData{Value: []any{Round(float64(first[p])/1e3, 3), i}, SymbolSize: 12})
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

// cdfs draws the completed flows' FCT and slowdown distributions, and
// for flows connected by rdma_cm their connection set-up's.
func (pg *page) cdfs(runs []*Run) {
	for _, which := range []string{"connect", "fct", "slowdown"} {
		drawn := false
		c := charts.NewLine()
		name, text := "FCT CDF", "completion time of the completed flows (µs)"
		xname := "FCT (µs)"
		switch which {
		case "slowdown":
			name, text, xname = "Slowdown CDF", "each completed flow's FCT divided by its ideal on an empty network", "slowdown"
		case "connect":
			name, text, xname = "Connection set-up CDF", "each flow's rdma_cm connection set-up (flows.csv connect_ns), from its start to ESTABLISHED at its source (ms): a FIFO of QP commands on each HCA makes it a ramp when many connect at once", "set-up (ms)"
		}
		c.SetGlobalOptions(charts.WithInitializationOpts(pg.init(which, "360px")),
			charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
			charts.WithLegendOpts(opts.Legend{Show: opts.Bool(len(runs) > 1), Type: "scroll"}),
			// The axis name under the axis, where any length fits.
			charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: xname, Scale: opts.Bool(true), NameLocation: "middle", NameGap: 25}),
			charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: 0, Max: 1, Name: "fraction of flows"}),
			charts.WithGridOpts(opts.Grid{Top: "50", Bottom: "55", Left: "60", Right: "40"}),
			charts.WithAnimation(false))
		for _, r := range runs {
			sample := &r.Flows.FCT
			switch which {
			case "connect":
				sample = &r.Flows.Connect
			case "slowdown":
				sample = &r.Flows.Slowdown
			}
			if sample.N == 0 {
				continue
			}
			xs := sample.Sorted()
			if sample.Sampled() {
				of := ""
				if len(runs) > 1 {
					of = " of " + r.Label
				}
				pg.note(fmt.Sprintf("the %s%s draws a uniform sample of %d of its %d flows (the least and greatest exact)", name, of, len(xs), sample.N))
			}
			drawn = true
			step := max(1, len(xs)/maxCDFPoints)
			var data []opts.LineData
			for i := 0; i < len(xs); i += step {
				data = append(data, opts.LineData{Value: []any{Round(xs[i], 4), Round(float64(i+1)/float64(len(xs)), 4)}})
			}
			if (len(xs)-1)%step != 0 {
				data = append(data, opts.LineData{Value: []any{Round(xs[len(xs)-1], 4), 1}})
			}
			c.AddSeries(r.Label, data, charts.WithLineChartOpts(opts.LineChart{Step: "end", ShowSymbol: opts.Bool(len(xs) < 50)}))
		}
		if !drawn {
			continue
		}
		pg.section(name, text)
		pg.chart(c)
	}
}

// fctBuckets draws summary.json's fct_buckets: the median and 99th
// percentile slowdown of each 5% of the completed flows, by size.
func (pg *page) fctBuckets(runs []*Run) {
	n := 0
	for _, r := range runs {
		n = max(n, len(r.Summary.FCTBuckets))
	}
	if n < 2 {
		return
	}
	var xs []string
	for i := 0; i < n; i++ {
		xs = append(xs, fmt.Sprintf("%.0f%%", float64(i+1)*100/float64(n)))
	}
	c := charts.NewLine()
	c.SetGlobalOptions(charts.WithInitializationOpts(pg.init("fct_buckets", "360px")),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "flows by size"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "log", Name: "slowdown"}),
		charts.WithGridOpts(opts.Grid{Top: "50", Bottom: "40", Left: "60", Right: "100"}),
		charts.WithAnimation(false))
	c.SetXAxis(xs)
	for _, r := range runs {
		if len(r.Summary.FCTBuckets) < 2 {
			continue
		}
		for _, which := range []string{"p50", "p99"} {
			var data []opts.LineData
			for _, b := range r.Summary.FCTBuckets {
				v := b.P50Slowdown
				if which == "p99" {
					v = b.P99Slowdown
				}
				data = append(data, opts.LineData{Value: v, Name: fmt.Sprintf("flows up to %d B (%d flows)", b.SizeMax, b.Count)})
			}
			name := which
			if len(runs) > 1 {
				name = r.Label + " · " + which
			}
			c.AddSeries(name, data)
		}
	}
	pg.section("Slowdown by flow size", "median and 99th-percentile slowdown of each 5% of the completed flows, sorted by size (summary.json's fct_buckets; hover for each bucket's largest size)")
	pg.chart(c)
}

// fmtNs prints nanoseconds in the unit that reads best.
func fmtNs(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.3gs", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.4gms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.4gµs", ns/1e3)
	}
	return fmt.Sprintf("%.4gns", ns)
}

// hasUplinks reports whether some run measured its uplinks.
func hasUplinks(runs []*Run) bool {
	for _, r := range runs {
		if r.Summary.Uplinks != nil {
			return true
		}
	}
	return false
}

// uplinks draws each run's uplinks (uplinks.csv) from the busiest to the
// idlest, each as its bytes over the run's mean: a flat line at 1 is a
// perfectly even fabric; per-flow ECMP's collisions show as a few
// uplinks far above it and many below.
func (pg *page) uplinks(runs []*Run) {
	c := charts.NewLine()
	c.SetGlobalOptions(charts.WithInitializationOpts(pg.init("uplinks", "360px")),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(len(runs) > 1), Type: "scroll"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Min: 0, Max: 100, Name: "uplinks, busiest first (%)"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: 0, Name: "bytes sent / mean"}),
		charts.WithGridOpts(opts.Grid{Top: "50", Bottom: "40", Left: "60", Right: "80"}),
		charts.WithAnimation(false))
	drawn := false
	for _, r := range runs {
		n := len(r.Uplinks)
		if n == 0 {
			continue
		}
		loads := make([]float64, n)
		var total float64
		for i, u := range r.Uplinks {
			loads[i] = float64(u.Bytes)
			total += loads[i]
		}
		if total == 0 {
			continue
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(loads)))
		mean := total / float64(n)
		step := max(1, n/maxCDFPoints)
		var data []opts.LineData
		for i := 0; i < n; i += step {
			data = append(data, opts.LineData{Value: []any{Round(float64(i)*100/float64(n), 3), Round(loads[i]/mean, 4)}})
		}
		if (n-1)%step != 0 {
			data = append(data, opts.LineData{Value: []any{Round(float64(n-1)*100/float64(n), 3), Round(loads[n-1]/mean, 4)}})
		}
		c.AddSeries(r.Label, data, charts.WithLineChartOpts(opts.LineChart{Step: "end", ShowSymbol: opts.Bool(n < 50)}))
		drawn = true
	}
	if !drawn {
		return
	}
	pg.section("Uplink load", "bytes each uplink (a switch's port toward the core) sent over the run, over the mean, busiest first: flat at 1 is an even spread (switch.load_balance); uplinks.csv holds every port")
	pg.chart(c)
}
