package reports

import (
	"reflect"
	"strings"
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

// TestUplinkLoad: uplinks.csv survives the round trip, and the report
// gains the summary's imbalance row and the uplink load chart, busiest
// uplink first, over the mean.
func TestUplinkLoad(t *testing.T) {
	dir := t.TempDir()
	rows := []UplinkRow{{"s0:p2", "s4:p0", 300}, {"s0:p3", "s5:p0", 100}, {"s1:p2", "s4:p1", 0}, {"s1:p3", "s5:p1", 400}}
	s := &Summary{Scenario: "lb", Complete: true, Uplinks: &Uplinks{Count: 4, MeanBytes: 200, MaxBytes: 400, Imbalance: 2}}
	if err := WriteRun(dir, &Results{Summary: s, Uplinks: rows}); err != nil {
		t.Fatal(err)
	}
	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Uplinks, rows) {
		t.Fatalf("uplinks.csv read back as %+v, want %+v", r.Uplinks, rows)
	}
	page := string(BuildHTML([]*Run{r}))
	for _, want := range []string{"<h2>Uplink load</h2>", "uplink imbalance (busiest / mean)", "2.00 (4 uplinks)", "[0,2]", "[75,0]"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// A run without uplinks has neither.
	dir = t.TempDir()
	if err := WriteRun(dir, &Results{Summary: &Summary{Scenario: "star", Complete: true}}); err != nil {
		t.Fatal(err)
	}
	r, _ = LoadRun(dir)
	if page := string(BuildHTML([]*Run{r})); strings.Contains(page, "Uplink load") || strings.Contains(page, "uplink imbalance") {
		t.Error("a run without uplinks has an uplink section")
	}
}
