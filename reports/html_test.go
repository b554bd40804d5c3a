package reports

import (
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// TestChartAsRenderSnippet: page.chart renders a chart from go-echarts'
// own templates without RenderSnippet's passes over the output; what it
// writes must be RenderSnippet's element and script, for a chart like the
// report's and for one with a JavaScript function, whose markers only
// the regular expression strips.
func TestChartAsRenderSnippet(t *testing.T) {
	for _, withFunc := range []bool{false, true} {
		build := func() *charts.Line {
			c := charts.NewLine()
			tip := opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}
			if withFunc {
				tip.Formatter = opts.FuncOpts("function (p) { return p[0].name + '<b>' + p[0].value + '</b>'; }")
			}
			c.SetGlobalOptions(charts.WithInitializationOpts(opts.Initialization{Width: "100%", Height: "300px", ChartID: "chart7", AssetsHost: "./"}),
				charts.WithTooltipOpts(tip), charts.WithAnimation(false))
			c.SetXAxis([]float64{0, 1, 2}).AddSeries("s0:p1 \"q\" <&>", []opts.LineData{{Value: []float64{0, 1}}, {Value: []float64{1, 2.5}}})
			return c
		}
		snip := build().Renderer.RenderSnippet()
		want := snip.Element + "\n" + snip.Script + "\n"
		pg := &page{}
		pg.chart(build())
		if got := pg.b.String(); got != want {
			t.Errorf("with a function %v: page.chart wrote\n%s\nRenderSnippet gives\n%s", withFunc, got, want)
		}
	}
}
