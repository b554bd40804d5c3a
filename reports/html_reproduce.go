package reports

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// ReproductionPage is what a reproduction's report.html shows: the
// reproduction, and each published point beside lfsim's value.
type ReproductionPage struct {
	Name, Paper, Figure, Setup string
	// OK says every point holds.
	OK   bool
	Rows []ReproductionRow
}

// ReproductionRow is one published point and lfsim's value of it.
type ReproductionRow struct {
	ID, Chart string
	X         float64
	// Published is the published value (NaN for a range alone); Lo and
	// Hi the bounds lfsim's value must lie within; Bounds says them in
	// words.
	Published, Lo, Hi float64
	Bounds            string
	// Got is lfsim's value (NaN when none was measured), GotText as
	// lfsim reproduce prints it.
	Got               float64
	GotText           string
	OK                bool
	Source, Read, Why string
	// Miss is why the point is a known miss of lfsim's, or "".
	Miss string
	// Kind is whose number the published value is: measured,
	// closed-form, statement or project (the project's own).
	Kind string
}

// BuildReproductionHTML renders a reproduction's report.html: a chart
// per group of points, the published values and their bounds (a band)
// overlaid by lfsim's, then the table of every point with its source,
// how it was read and why its tolerance. It opens offline.
func BuildReproductionHTML(rp ReproductionPage) []byte {
	pg := &page{}
	verdict := "every point holds"
	if !rp.OK {
		verdict = "at least one point FAILS"
	}
	fmt.Fprintf(&pg.b, "<p><b>%s</b>: %s.<br>%s<br>Setup: %s</p>\n", html.EscapeString(rp.Name), verdict,
		html.EscapeString(rp.Paper+"; "+rp.Figure), html.EscapeString(rp.Setup))
	var order []string
	groups := map[string][]ReproductionRow{}
	for _, r := range rp.Rows {
		if _, ok := groups[r.Chart]; !ok {
			order = append(order, r.Chart)
		}
		groups[r.Chart] = append(groups[r.Chart], r)
	}
	for _, name := range order {
		pg.section(name, "the published value (circle), the bounds lfsim's value must lie within (bar), lfsim's value (diamond)")
		pg.reproductionChart(groups[name])
	}
	pg.section("Points", "")
	pg.b.WriteString("<table><tr><th>point</th><th>published</th><th>lfsim</th><th>verdict</th><th>kind</th><th>source</th><th>how read</th><th>why this tolerance</th></tr>\n")
	for _, r := range rp.Rows {
		v := "FAILS"
		switch {
		case r.OK:
			v = "holds"
		case r.Miss != "":
			v = "FAILS (known miss: " + r.Miss + ")"
		}
		fmt.Fprintf(&pg.b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td style=\"text-align:left\">%s</td><td style=\"text-align:left\">%s</td><td style=\"text-align:left\">%s</td></tr>\n",
			html.EscapeString(r.ID), html.EscapeString(r.Bounds), html.EscapeString(r.GotText), html.EscapeString(v), html.EscapeString(r.Kind),
			html.EscapeString(r.Source), html.EscapeString(r.Read), html.EscapeString(r.Why))
	}
	pg.b.WriteString("</table>\n")
	var out strings.Builder
	title := "lfsim reproduce " + rp.Name
	fmt.Fprintf(&out, "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n", html.EscapeString(title))
	out.WriteString("<style>body{font-family:sans-serif;margin:1em 2em;color:#222} table{border-collapse:collapse;margin:.5em 0} td,th{border:1px solid #ccc;padding:2px 8px;text-align:right;vertical-align:top} th{background:#f4f4f4} td:first-child,th:first-child{text-align:left} .note{color:#555;font-size:90%} h2{margin-top:1.5em;border-bottom:1px solid #ddd} .container{margin:0} .item{margin:0}</style>\n")
	out.WriteString("<script type=\"text/javascript\">\n")
	out.WriteString(echartsJS)
	out.WriteString("\n</script>\n</head>\n<body>\n")
	fmt.Fprintf(&out, "<h1>%s</h1>\n", html.EscapeString(title))
	out.WriteString(pg.b.String())
	out.WriteString("</body>\n</html>\n")
	return []byte(out.String())
}

// reproductionChart draws one group of points, x being each point's
// id: the bounds as a floating bar (an invisible bar up to the low
// bound, a light one from it to the high), the published value and
// lfsim's as symbols over it. The axis tooltip lists each series by
// name, so the two bars are named for what they hold: "low bound", and
// "bounds width" (high minus low), not "bounds". The y axis spans the
// bounds and the values (ECharts' scale), not zero to them: a point a
// few percent outside its bounds must show as outside.
func (pg *page) reproductionChart(rows []ReproductionRow) {
	var xs []string
	n := len(rows)
	lo, span := make([]opts.BarData, n), make([]opts.BarData, n)
	pub, got := make([]opts.LineData, n), make([]opts.LineData, n)
	val := func(v float64) any {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "-"
		}
		return Round(v, 6)
	}
	for i, r := range rows {
		xs = append(xs, r.ID)
		lo[i], span[i] = opts.BarData{Value: val(r.Lo)}, opts.BarData{Value: val(r.Hi - r.Lo)}
		pub[i], got[i] = opts.LineData{Value: val(r.Published)}, opts.LineData{Value: val(r.Got)}
	}
	const published, ours = "#5470c6", "#ee6666"
	b := charts.NewBar()
	b.SetGlobalOptions(charts.WithInitializationOpts(pg.init("reproduce", "340px")),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "0", Data: []string{"bounds width", "published", "lfsim"}}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Scale: opts.Bool(true)}),
		charts.WithGridOpts(opts.Grid{Top: "40", Bottom: "40", Left: "80", Right: "30"}),
		charts.WithAnimation(false))
	b.SetXAxis(xs)
	b.AddSeries("low bound", lo, charts.WithBarChartOpts(opts.BarChart{Stack: "bounds", BarWidth: "30%"}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: "rgba(0,0,0,0)"}))
	b.AddSeries("bounds width", span, charts.WithBarChartOpts(opts.BarChart{Stack: "bounds", BarWidth: "30%"}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: "rgba(84,112,198,0.25)"}))
	none := opts.LineStyle{Opacity: opts.Float(0)}
	l := charts.NewLine()
	l.SetXAxis(xs)
	l.AddSeries("published", pub, charts.WithLineChartOpts(opts.LineChart{Symbol: "circle", SymbolSize: 10}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: published}), charts.WithLineStyleOpts(none))
	l.AddSeries("lfsim", got, charts.WithLineChartOpts(opts.LineChart{Symbol: "diamond", SymbolSize: 13}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: ours}), charts.WithLineStyleOpts(none))
	b.Overlap(l)
	pg.chart(b)
}
