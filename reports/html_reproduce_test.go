package reports

import (
	"math"
	"strings"
	"testing"
)

// TestReproductionHTML: a reproduction's page has a chart per group of
// points (bounds, published value, lfsim's), every point in the table
// with its verdict, escaped, and opens offline (ECharts inlined).
func TestReproductionHTML(t *testing.T) {
	page := string(BuildReproductionHTML(ReproductionPage{Name: "toy", Paper: "A & B", Figure: "fig. 1", Setup: "s", OK: false, Rows: []ReproductionRow{
		{ID: "a", Chart: "one", Published: 1, Lo: 0.9, Hi: 1.1, Bounds: "1 ± 10%", Got: 1.05, GotText: "1.05", OK: true, Source: "S", Read: "R", Why: "W"},
		{ID: "b<c", Chart: "one", Published: math.NaN(), Lo: 0, Hi: 1, Bounds: "in [0, 1]", Got: 2, GotText: "2", Source: "S", Read: "R", Why: "W"},
		{ID: "d", Chart: "two", Published: 3, Lo: 3, Hi: 3, Bounds: "3 ± 0", Got: math.NaN(), GotText: "NaN", Source: "S", Read: "R", Why: "W"},
	}}))
	for _, want := range []string{"<b>toy</b>: at least one point FAILS", "A &amp; B", "<h2>one</h2>", "<h2>two</h2>",
		"<td>a</td><td>1 ± 10%</td><td>1.05</td><td>holds</td>", "<td>b&lt;c</td><td>in [0, 1]</td><td>2</td><td>FAILS</td>",
		"<td>d</td><td>3 ± 0</td><td>NaN</td><td>FAILS</td>", `"name":"low bound"`, `"name":"bounds width"`, `"name":"published"`, `"name":"lfsim"`} {
		if !strings.Contains(page, want) {
			t.Errorf("no %q in the page", want)
		}
	}
	// The tooltip lists series by name: the width bar (high minus low)
	// must not be called the bounds (review E, finding 11).
	if strings.Contains(page, `"name":"bounds"`) {
		t.Error(`a series is named "bounds": its tooltip value would read as the bounds`)
	}
	if n := strings.Count(page, "echarts.init("); n != 2 {
		t.Errorf("%d charts, want 2 (one per group)", n)
	}
	if strings.Contains(page, "<script src=") {
		t.Error("the page loads a script from elsewhere: it must open offline")
	}
}

// TestReproductionChartScales: a point's chart spans its bounds and
// values, not zero to them: perftest-write-edr's ceiling, lfsim's 99.37
// against bounds of 94.67 to 98.53, sat on an axis from 0 to 100 where
// the miss (2.9%) was a diamond touching the bar, read as a hit (seen in
// headless Chromium).
func TestReproductionChartScales(t *testing.T) {
	page := string(BuildReproductionHTML(ReproductionPage{Name: "toy", Paper: "P", Figure: "F", Setup: "s", Rows: []ReproductionRow{
		{ID: "write_bw ceiling", Chart: "bw", Published: 96.6, Lo: 94.668, Hi: 98.532, Bounds: "96.6 ± 2%", Got: 99.37, GotText: "99.37", Source: "S", Read: "R", Why: "W"},
	}}))
	y := chartSpec(t, page, "bw")["yAxis"].([]any)[0].(map[string]any)
	if y["scale"] != true {
		t.Errorf("the y axis is %v: want scale (not forced to include zero), so that a few percent outside the bounds shows", y)
	}
}
