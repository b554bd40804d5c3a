package reports

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestSweepComparison: a 2 × 3 sweep repeated twice draws each metric
// that some point has against each axis: a line per value of the other
// axis, at the mean of the two seeds, with a band (min, max − min)
// where they differ; metrics zero in every point are named, not drawn.
func TestSweepComparison(t *testing.T) {
	axes := []SweepAxis{{Path: "hca.cc", Values: []string{"dcqcn", "none"}}, {Path: "switch.ecn.kmin", Values: []string{"5KB", "50KB", "100KB"}}}
	var points []SweepPoint
	for cc := range 2 {
		for k := range 3 {
			for seed := range 2 {
				s := Summary{Scenario: "s", Complete: true, SimTimeNs: 1000, Flows: FlowCounts{Total: 4, Completed: 4}}
				// Mean slowdown: 1 + cc + k, seeds ±0.5 apart only for kmin=5KB.
				s.FCT.MeanSlowdown = float64(1 + cc + k)
				if k == 0 {
					s.FCT.MeanSlowdown += float64(seed) - 0.5
				}
				s.Bytes.Delivered = 1000 // 8 Gb/s over 1 us
				points = append(points, SweepPoint{Values: []int{cc, k}, Run: &Run{Summary: s, Label: "p"}})
			}
		}
	}
	page := string(BuildSweepHTML(axes, points))
	for _, want := range []string{"<h2>Comparison</h2>", "Mean FCT slowdown against hca.cc", "Mean FCT slowdown against switch.ecn.kmin",
		"Goodput against hca.cc", "kmin=5KB", "cc=dcqcn", "Not charted, being zero or absent in every point: "} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	for _, absent := range []string{"Drops against", "ECN marks against", "Peak queue against"} {
		if strings.Contains(page, absent) {
			t.Errorf("the report charts %q, zero or absent everywhere", absent)
		}
	}
	// Against hca.cc (names), the line for kmin=5KB has means 1 and 2 and
	// a bar at each from 0.5 to 1.5 and 2.5; the kmin=50KB line (2, 3) has
	// none. Against kmin (quantities), the seeds' spread at 5KB is a band
	// (min, max − min).
	for _, want := range []string{`"name":"kmin=5KB","type":"line"`, `"name":"kmin=5KB (seeds: least to largest)","type":"custom"`,
		`"name":"cc=dcqcn (seed min)"`, `"name":"cc=dcqcn (seed max − min)"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %s", want)
		}
	}
	if strings.Contains(page, `"name":"kmin=50KB (seeds`) {
		t.Error("a bar for kmin=50KB, whose seeds agree")
	}
	if m := regexp.MustCompile(`"name":"kmin=5KB","type":"line".*?"data":\[(.*?)\]`).FindStringSubmatch(page); m == nil || !strings.Contains(m[1], `{"value":1}`) || !strings.Contains(m[1], `{"value":2}`) {
		t.Errorf("kmin=5KB's means: %v, want 1 and 2", m)
	}
}

// TestSweepLabels: a sweep's runs are labelled by the settings it varied
// (a setting with one value is left out), and by seed only where the
// settings alone do not tell two runs apart; never by what a base
// implies (its name, its other keys).
func TestSweepLabels(t *testing.T) {
	axes := []SweepAxis{{"base", []string{"roce", "iwarp"}}, {"hca.mtu", []string{"4096"}}}
	run := func(seed uint64) *Run {
		return &Run{Label: "dir", Summary: Summary{Seed: seed}, Params: map[string]string{"name": "x", "hca.transport": "iwarp"}}
	}
	pts := []SweepPoint{{[]int{0, 0}, run(1)}, {[]int{0, 0}, run(2)}, {[]int{1, 0}, run(1)}}
	labelByAxes(axes, pts)
	var got []string
	for _, p := range pts {
		got = append(got, p.Run.Label)
	}
	if want := "base=roce seed=1|base=roce seed=2|base=iwarp"; strings.Join(got, "|") != want {
		t.Errorf("labels %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestChartsReadAtAGlance: issue 51's charts. A sweep's comparison
// charts start their y axis at zero (values of 9.38 to 9.41 drawn on an
// axis from 9.38 made 0.3% look large), join the points by a line only
// along an axis of quantities (kmin's 5KB, 50KB, 100KB), and draw a
// dot per category along one of names (hca.cc's dcqcn and none: a line
// between them read as a trend); the run's time series start at zero
// too (per-flow throughput of 9.5 to 13 Gb/s drawn from 9.5 was a
// zig-zag band).
func TestChartsReadAtAGlance(t *testing.T) {
	axes := []SweepAxis{{Path: "hca.cc", Values: []string{"dcqcn", "none"}}, {Path: "switch.ecn.kmin", Values: []string{"5KB", "50KB", "100KB"}}}
	var points []SweepPoint
	for cc := range 2 {
		for k := range 3 {
			s := Summary{Scenario: "s", Complete: true, SimTimeNs: 1000, Flows: FlowCounts{Total: 4, Completed: 4}}
			s.FCT.MeanSlowdown = 9.38 + 0.01*float64(cc+k)
			r := &Run{Summary: s, Label: "p", Series: map[string]map[string][]Point{MetricFlowGbps: {"flow:0": {{TimeNs: 1000, Value: 9.5}, {TimeNs: 2000, Value: 13}}}}, Wheres: map[string][]string{MetricFlowGbps: {"flow:0"}}}
			points = append(points, SweepPoint{Values: []int{cc, k}, Run: r})
		}
	}
	page := string(BuildSweepHTML(axes, points))
	chart := func(title string) string {
		i := strings.Index(page, `"text":"`+title)
		if i < 0 {
			t.Fatalf("no chart %q", title)
		}
		j := strings.LastIndex(page[:i], "echarts.init(")
		k := strings.Index(page[i:], "echarts.init(")
		if k < 0 {
			k = len(page) - i
		}
		return page[j : i+k]
	}
	cc, kmin := chart("Mean FCT slowdown against hca.cc"), chart("Mean FCT slowdown against switch.ecn.kmin")
	for name, c := range map[string]string{"against hca.cc": cc, "against kmin": kmin} {
		if !strings.Contains(c, `"yAxis":[{"name":"slowdown","nameLocation":"middle","nameGap":50,"type":"value","min":0}]`) {
			t.Errorf("%s: the y axis does not start at zero: %s", name, regexp.MustCompile(`"yAxis":\[[^]]*\]`).FindString(c))
		}
	}
	if !strings.Contains(cc, `"lineStyle":{"color":"#5470c6","width":2,"opacity":0}`) {
		t.Error("against hca.cc (categories) the points are joined by a line")
	}
	if strings.Contains(kmin, `"opacity":0}`) || !strings.Contains(kmin, `"lineStyle":{"color":"#5470c6","width":2}`) {
		t.Error("against kmin (quantities) the points are not joined by a line")
	}
	flows := page[strings.Index(page, "<h2>Throughput per flow</h2>"):]
	if !strings.Contains(flows[:strings.Index(flows, "</script>")], `"yAxis":[{"type":"value","min":0}]`) {
		t.Error("throughput per flow: the y axis does not start at zero")
	}
	for _, c := range []struct {
		values []string
		want   bool
	}{{[]string{"5KB", "50KB"}, true}, {[]string{"4096", "1.5us", "10%", "40Mbps"}, true}, {[]string{"rocev2", "iwarp"}, false}, {[]string{"{kmin: 2KB, kmax: 20KB}"}, false}} {
		if got := orderedValues(c.values); got != c.want {
			t.Errorf("orderedValues(%q) = %v, want %v", c.values, got, c.want)
		}
	}
}

// compareSpec is the ECharts option of the comparison chart titled
// title, parsed (its functions read as null).
func compareSpec(t *testing.T, page, title string) map[string]any {
	t.Helper()
	i := strings.Index(page, `"text":"`+title+`"`)
	if i < 0 {
		t.Fatalf("no chart %q", title)
	}
	j := strings.LastIndex(page[:i], "let option_")
	rest := page[j:]
	rest = rest[strings.Index(rest, "= ")+2:]
	rest = rest[:strings.Index(rest, "setOption(")]
	rest = stripFunctions(strings.TrimRight(rest[:strings.LastIndex(rest, "}")+1], " \n;"))
	var spec map[string]any
	if err := json.Unmarshal([]byte(rest), &spec); err != nil {
		t.Fatalf("%s: %v in %.300s", title, err, rest)
	}
	return spec
}

// TestCategoricalSeedBars: review J's finding 9. A sweep over three
// transports repeated with three seeds shows each transport's seeds as a
// bar from their least to their largest value at that transport (a
// custom series of [category, least, largest]), not as a filled area
// stacked from one transport to the next, which read as a trend along an
// axis of names. A sweep over a quantity keeps its band.
func TestCategoricalSeedBars(t *testing.T) {
	axes := []SweepAxis{{Path: "hca.transport", Values: []string{"rocev2", "iwarp", "ib"}}}
	var points []SweepPoint
	for x := range 3 {
		for seed := range 3 { // repeat: 3
			s := Summary{Scenario: "s", Complete: true, SimTimeNs: 1000, Flows: FlowCounts{Total: 4, Completed: 4}, Seed: uint64(seed + 1)}
			s.FCT.MeanSlowdown = float64(2*(x+1)) + 0.5*float64(seed) // transport x: 2(x+1), +0.5, +1
			points = append(points, SweepPoint{Values: []int{x}, Run: &Run{Summary: s, Label: "p"}})
		}
	}
	spec := compareSpec(t, string(BuildSweepHTML(axes, points)), "Mean FCT slowdown against hca.transport")
	var bars []any
	for _, s := range spec["series"].([]any) {
		m := s.(map[string]any)
		if m["stack"] != nil || m["areaStyle"] != nil {
			t.Errorf("%v is a stacked area between transports", m["name"])
		}
		if m["type"] == "custom" {
			bars = m["data"].([]any)
		}
	}
	if got := strings.Join(seriesOf(spec), "|"); got != "line:Mean FCT slowdown|custom:Mean FCT slowdown (seeds: least to largest)" {
		t.Errorf("series %s, want the means and a bar per transport", got)
	}
	want := [][]float64{{0, 2, 3}, {1, 4, 5}, {2, 6, 7}}
	if len(bars) != len(want) {
		t.Fatalf("bars %v, want %v", bars, want)
	}
	for i, b := range bars {
		for k, v := range b.([]any) {
			if v.(float64) != want[i][k] {
				t.Errorf("bar %d: %v, want %v", i, b, want[i])
				break
			}
		}
	}
}
