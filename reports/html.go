package reports

import (
	"bytes"
	_ "embed"
	"fmt"
	"html"
	"html/template"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/render"
	"github.com/go-echarts/go-echarts/v2/templates"
	"github.com/lfsim/lfsim/kind"
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
	maxLines         = 8   // lines per chart, the largest first (the legend fits a column)
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
	pg.programs(runs)
	pg.timeline(runs)
	pg.jobs(runs)
	pg.classes(runs)
	pg.topology(runs[0])
	pg.lines(runs, MetricFlowGbps, "Throughput per flow", "Gb/s delivered per sampling interval", false)
	pg.lines(runs, MetricTxGbps, "Throughput per link", "Gb/s sent by each port per sampling interval", false)
	pg.uplinks(runs)
	queue := "priority"
	switch eth, ib := anyFabric(runs, func(f *Fabric) bool { return f.Ethernet }), anyFabric(runs, func(f *Fabric) bool { return f.InfiniBand }); {
	case eth && ib:
		queue = "priority or VL"
	case ib:
		queue = "VL"
	}
	pg.lines(runs, MetricQueueBytes, "Queue depth", "egress queue bytes (node:port:"+queue+") at each sample", true)
	pg.lines(bufferRuns(runs), MetricBufferBytes, "Shared buffer use", "bytes of each switch's shared buffer in use", true)
	for _, r := range runs {
		pg.heatmap(r, MetricPaused, len(runs) > 1)
		pg.heatmap(r, MetricCreditWait, len(runs) > 1)
	}
	for _, r := range runs {
		pg.spread(r, len(runs) > 1)
	}
	pg.deadlock(runs)
	pg.events(runs)
	pg.cdfs(runs)
	pg.fctBuckets(runs)
	rateTitle, rateAxis := drawnBy(MetricRTGbps, "%s")+" current rate", "reaction point's current rate Rc, Gb/s"
	for _, r := range runs {
		switch {
		case len(r.Wheres[MetricCCTI]) > 0:
			rateTitle, rateAxis = "IB congestion control: sending rate", "source's rate from its CCT index, Gb/s"
		case len(r.Wheres[MetricRTGbps]) == 0:
			rateTitle, rateAxis = "Reaction point's current rate", "sending rate the congestion control allows, Gb/s"
		}
	}
	pg.lines(runs, "rc_gbps", rateTitle, rateAxis, false)
	// iWARP's TCP keeps a window and an SRTT whichever control it runs.
	pg.lines(runs, "window_bytes", "Congestion window ("+drawnBy(MetricWindowBytes, "%s")+", TCP)", "bytes the sender may have in flight", false)
	pg.lines(runs, "rtt_us", "Round-trip time (TCP's SRTT, "+drawnBy(MetricRTTUs, "%s's samples")+")", "the RTT the sender reacts to, µs", false)
	pg.lines(runs, "ccti", "IB congestion control: CCT index", "source's Congestion Control Table index (CCTI)", false)
	pg.lines(runs, "rt_gbps", drawnBy(MetricRTGbps, "%s")+" target rate", "reaction point's target rate Rt, Gb/s", false)
	pg.lines(runs, "alpha", "Alpha ("+drawnBy(MetricAlpha, "%s")+")", "reaction point's alpha", false)
	return pg.b.String()
}

func (pg *page) summaryTable(runs []*Run) {
	// A wide table (many runs) scrolls inside its box, not the page.
	pg.b.WriteString("<h2>Summary</h2>\n<div style=\"overflow-x:auto;max-width:100%\">\n<table>\n<tr><th></th>")
	for _, r := range runs {
		if len(r.Settings) > 0 {
			// The label names the settings this run sets, by their short
			// names; hovering shows every differing setting in full.
			fmt.Fprintf(&pg.b, "<th title=\"%s\">%s</th>", html.EscapeString(strings.Join(r.Settings, "\n")), html.EscapeString(r.Label))
			continue
		}
		fmt.Fprintf(&pg.b, "<th>%s</th>", html.EscapeString(r.Label))
	}
	pg.b.WriteString("</tr>\n")
	runRow := func(name string, f func(r *Run) string) {
		fmt.Fprintf(&pg.b, "<tr><td>%s</td>", html.EscapeString(name))
		for _, r := range runs {
			fmt.Fprintf(&pg.b, "<td>%s</td>", html.EscapeString(f(r)))
		}
		pg.b.WriteString("</tr>\n")
	}
	row := func(name string, f func(s *Summary) string) {
		runRow(name, func(r *Run) string { return f(&r.Summary) })
	}
	completed := func(name string, f func(s *Summary) string) {
		runRow(name, func(r *Run) string { return completedOr(r, f) })
	}
	row("scenario", func(s *Summary) string { return s.Scenario })
	row("seed", func(s *Summary) string { return fmt.Sprint(s.Seed) })
	row("complete / stopped by", func(s *Summary) string { return fmt.Sprintf("%v / %s", s.Complete, s.StopReason) })
	row("simulated time", func(s *Summary) string { return fmtNs(float64(s.SimTimeNs)) })
	row("wall time, events", func(s *Summary) string { return fmt.Sprintf("%.2fs, %d", s.WallSeconds, s.Events) })
	row("flows completed", func(s *Summary) string {
		if s.Flows.Total == 0 {
			return "no flows" // programs or collectives alone
		}
		return fmt.Sprintf("%d of %d", s.Flows.Completed, s.Flows.Total)
	})
	row("bytes offered / delivered / dropped", func(s *Summary) string {
		return fmt.Sprintf("%d / %d / %d", s.Bytes.Offered, s.Bytes.Delivered, s.Bytes.Dropped)
	})
	row("packets sent / dropped / retransmitted", func(s *Summary) string {
		return fmt.Sprintf("%d / %d / %d", s.Packets.Sent, s.Packets.Dropped, s.Packets.Retransmitted)
	})
	completed("FCT p50 / p99", func(s *Summary) string { return fmtNs(float64(s.FCT.P50Ns)) + " / " + fmtNs(float64(s.FCT.P99Ns)) })
	completed("slowdown mean / p99", func(s *Summary) string { return fmt.Sprintf("%.3f / %.3f", s.FCT.MeanSlowdown, s.FCT.P99Slowdown) })
	completed("fairness (Jain)", func(s *Summary) string {
		if s.Flows.Completed < s.Flows.Total {
			// Jain's index is over the completed flows' throughputs: say
			// so, or 1.000 reads as fair while flows never finished.
			return fmt.Sprintf("%.3f over the %d completed (%d did not complete)", s.Throughput.Fairness, s.Flows.Completed, s.Flows.Total-s.Flows.Completed)
		}
		return fmt.Sprintf("%.3f", s.Throughput.Fairness)
	})
	for _, r := range runs {
		if len(clientUsecPerIter(r.Programs)) > 0 {
			runRow("pingpong usec/iter (client)", func(r *Run) string {
				if v := clientUsecPerIter(r.Programs); len(v) > 0 {
					return strings.Join(v, ", ")
				}
				return "none"
			})
			break
		}
	}
	pg.fabricRows(runs, runRow)
	if hasUplinks(runs) {
		row("uplink imbalance (busiest / mean)", func(s *Summary) string {
			if s.Uplinks == nil {
				return "no uplinks"
			}
			if s.Uplinks.Count == 1 {
				return fmt.Sprintf("%.2f (1 uplink)", s.Uplinks.Imbalance)
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

// drawnBy names the congestion controls whose flows have metric's time
// series (kind.CC.Metrics), each as format writes its title, in the
// table's order, joined by commas.
func drawnBy(metric, format string) string {
	var out []string
	for _, c := range kind.CCs() {
		if slices.Contains(c.Metrics, metric) {
			out = append(out, fmt.Sprintf(format, c.Title))
		}
	}
	return strings.Join(out, ", ")
}
