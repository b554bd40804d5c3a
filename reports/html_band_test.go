package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// chartSpec is the ECharts option of the chart under the page's section
// title, parsed: the page's JavaScript functions (the time charts'
// tooltip, legend formatter and band renderer) read as null.
func chartSpec(t *testing.T, page, title string) map[string]any {
	t.Helper()
	i := strings.Index(page, "<h2>"+title+"</h2>")
	if i < 0 {
		t.Fatalf("no section %q", title)
	}
	rest := page[i:]
	j := strings.Index(rest, "let option_")
	if j < 0 {
		t.Fatalf("%s: no chart", title)
	}
	rest = rest[j:]
	rest = rest[strings.Index(rest, "= ")+2:]
	rest = rest[:strings.Index(rest, "setOption(")]
	rest = strings.TrimRight(rest[:strings.LastIndex(rest, "}")+1], " \n;")
	rest = stripFunctions(rest)
	var spec map[string]any
	if err := json.Unmarshal([]byte(rest), &spec); err != nil {
		t.Fatalf("%s: %v in %.300s", title, err, rest)
	}
	return spec
}

// stripFunctions replaces each JavaScript function in an option, from
// "function" to its matching brace, by null (the page's functions quote
// with ' and hold no brace in a string).
func stripFunctions(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "function (")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		depth, j := 0, strings.IndexByte(s[i:], '{')+i
		for ; j < len(s); j++ {
			if s[j] == '{' {
				depth++
			} else if s[j] == '}' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		b.WriteString("null")
		s = s[j+1:]
	}
}

// seriesOf lists a chart's series as "type:name".
func seriesOf(spec map[string]any) []string {
	var out []string
	for _, s := range spec["series"].([]any) {
		m := s.(map[string]any)
		out = append(out, fmt.Sprint(m["type"], ":", m["name"]))
	}
	return out
}

// legendOf lists a chart's legend entries.
func legendOf(spec map[string]any) []string {
	var out []string
	for _, d := range spec["legend"].(map[string]any)["data"].([]any) {
		out = append(out, d.(string))
	}
	return out
}

// zigzagRun is a run of n flows, each alternating between two rates
// sample by sample (a packet more or less per interval), at 10 us
// samples, and of links ports tx_gbps series.
func zigzagRun(n, samples, links int) *Run {
	r := &Run{Summary: Summary{Scenario: "s", Complete: true}, Series: map[string]map[string][]Point{MetricFlowGbps: {}, MetricTxGbps: {}},
		Wheres: map[string][]string{}, Params: map[string]string{"hca.mtu": "4096"}}
	for id := range n {
		where := fmt.Sprintf("flow:%d", id)
		var pts []Point
		for i := range samples {
			v := 11.5 + float64((i+id)%2) + float64(id)/1000 // 11.5 to 12.5 Gb/s, out of step
			pts = append(pts, Point{TimeNs: int64(i+1) * 10_000, Value: v})
		}
		r.Series[MetricFlowGbps][where] = pts
		r.Wheres[MetricFlowGbps] = append(r.Wheres[MetricFlowGbps], where)
	}
	for l := range links {
		where := fmt.Sprintf("s0:p%d", l)
		var pts []Point
		for i := range samples {
			pts = append(pts, Point{TimeNs: int64(i+1) * 10_000, Value: float64(100 - l)})
		}
		r.Series[MetricTxGbps][where] = pts
		r.Wheres[MetricTxGbps] = append(r.Wheres[MetricTxGbps], where)
	}
	return r
}

// TestPerFlowThroughputBand: issue 51's zig-zag. Eight flows sharing a
// link, each between 11.5 and 12.5 Gb/s out of step with the others,
// were eight crossing lines and a paged legend with a "(raw)" entry
// each; the chart now draws their mean (a line, about 12 once smoothed)
// and their least to largest, once smoothed, as a band (ECharts' custom series), and a
// legend of those two. Twenty flows make the band their p10 to p90;
// three flows are drawn one by one.
func TestPerFlowThroughputBand(t *testing.T) {
	for _, c := range []struct {
		flows  int
		series []string
	}{
		{8, []string{"line:mean of 8 flows", "custom:least to largest of 8 flows"}},
		{20, []string{"line:mean of 20 flows", "custom:p10 to p90 of 20 flows"}},
		{3, []string{"line:flow:2", "line:flow:1", "line:flow:0"}},
	} {
		page := string(BuildHTML([]*Run{zigzagRun(c.flows, 300, 0)}))
		if strings.Contains(page, "(raw)") {
			t.Errorf("%d flows: the page still has raw series", c.flows)
		}
		spec := chartSpec(t, page, "Throughput per flow")
		if got := strings.Join(seriesOf(spec), "|"); got != strings.Join(c.series, "|") {
			t.Errorf("%d flows: series %s, want %s", c.flows, got, strings.Join(c.series, "|"))
		}
		var names []string
		for _, s := range c.series {
			names = append(names, s[strings.Index(s, ":")+1:])
		}
		if got := legendOf(spec); strings.Join(got, "|") != strings.Join(names, "|") {
			t.Errorf("%d flows: legend %q, want %q", c.flows, got, names)
		}
		if c.flows < bandFlows {
			continue
		}
		s := spec["series"].([]any)
		mean := s[0].(map[string]any)["data"].([]any)
		for _, d := range mean[20 : len(mean)-20] {
			if v := d.(map[string]any)["value"].([]any)[1].(float64); math.Abs(v-12) > 0.05 {
				t.Fatalf("%d flows: the mean is %v at a sample, want 12 ± 0.05", c.flows, v)
			}
		}
		band := s[1].(map[string]any)["data"].([]any)
		if len(band) != 300 {
			t.Fatalf("%d flows: band of %d items, want one per sample (300)", c.flows, len(band))
		}
		item := band[100].([]any)
		lo, hi := item[1].(float64), item[2].(float64)
		// Smoothed, each flow is near 12 (its ids' thousandths apart).
		if lo < 11.95 || hi > 12.05 || hi <= lo {
			t.Errorf("%d flows: the band at a sample is %v to %v, want within 11.95 to 12.05 and not empty", c.flows, lo, hi)
		}
	}
}

// TestLegendsFit: a chart of twelve links draws the eight largest, the
// other four as their mean and band: a legend of ten entries in a
// column (no pages of "(raw)" entries; issue 51), a long name cut to its
// start and end in the legend.
func TestLegendsFit(t *testing.T) {
	page := string(BuildHTML([]*Run{zigzagRun(1, 100, 12)}))
	spec := chartSpec(t, page, "Throughput per link")
	legend := legendOf(spec)
	want := "s0:p0|s0:p1|s0:p2|s0:p3|s0:p4|s0:p5|s0:p6|s0:p7|others (4): mean|others (4): least to largest"
	if strings.Join(legend, "|") != want {
		t.Errorf("legend %q, want %q", strings.Join(legend, "|"), want)
	}
	l := spec["legend"].(map[string]any)
	if l["orient"] != "vertical" {
		t.Errorf("legend %v, want a column", l)
	}
	if !strings.Contains(page, `"formatter":function (n) { return n.length > 30 ? n.slice(0, 12) + '…' + n.slice(-17) : n; }`) {
		t.Error("the legend does not cut long names")
	}
}

// TestTimeChartsIncludeTheDeadlock: issue 51's "throughput charts start
// after the deadlock". ib-credit-loop deadlocks at 8.665 us, before its
// first 10 us sample; the time axis began near the first sample, so the
// chart started after the deadlock. Now every time axis starts at 0, a
// rate per interval is a step over its interval (the first from 0), and
// the deadlock is marked at its time.
func TestTimeChartsIncludeTheDeadlock(t *testing.T) {
	r := zigzagRun(2, 5, 3)
	r.Summary.Deadlock.Detected, r.Summary.Deadlock.AtNs = true, 8665
	page := string(BuildHTML([]*Run{r}))
	for _, title := range []string{"Throughput per flow", "Throughput per link"} {
		spec := chartSpec(t, page, title)
		x := spec["xAxis"].([]any)[0].(map[string]any)
		if x["min"] != 0.0 {
			t.Errorf("%s: the time axis starts at %v, want 0", title, x["min"])
		}
		var marked bool
		for _, s := range spec["series"].([]any) {
			m := s.(map[string]any)
			if ml, ok := m["markLine"].(map[string]any); ok {
				d := ml["data"].([]any)[0].(map[string]any)
				marked = d["xAxis"] == 8.665 && d["name"] == "deadlock"
				continue
			}
			if m["step"] != "start" {
				t.Errorf("%s: %v is not drawn as steps", title, m["name"])
			}
			first := m["data"].([]any)[0].(map[string]any)["value"].([]any)
			if first[0] != 0.0 {
				t.Errorf("%s: %v starts at %v µs, want 0 (its first interval's start)", title, m["name"], first[0])
			}
		}
		if !marked {
			t.Errorf("%s: the deadlock at 8.665 µs is not marked", title)
		}
	}
}

// TestCDFAxes: an FCT CDF's x axis starts at zero (eight flows finishing
// within 3 µs of each other at 2.745 ms were drawn across the whole
// chart; issue 51), and is logarithmic when the FCTs span a factor of
// cdfLogSpread or more.
func TestCDFAxes(t *testing.T) {
	for _, c := range []struct {
		fcts []int64 // ns
		want string
	}{
		{[]int64{2_744_000, 2_745_000, 2_747_000}, `{"min":0,"type":"value"}`},
		{[]int64{1_000, 50_000, 10_000_000}, `{"type":"log"}`},
	} {
		r := &Run{Summary: Summary{Scenario: "s", Complete: true, Flows: FlowCounts{Total: 3, Completed: 3}}}
		for i, f := range c.fcts {
			r.Flows.Add(&FlowRow{ID: i, Src: "h0", Dst: "h1", SizeBytes: 1000, DeliveredBytes: 1000, Status: "success", FCTNs: f, Slowdown: 1})
		}
		spec := chartSpec(t, string(BuildHTML([]*Run{r})), "FCT CDF")
		x := spec["xAxis"].([]any)[0].(map[string]any)
		delete(x, "name")
		delete(x, "nameLocation")
		delete(x, "nameGap")
		got, _ := json.Marshal(x)
		if string(got) != c.want {
			t.Errorf("FCTs %v ns: x axis %s, want %s", c.fcts, got, c.want)
		}
	}
}

// TestOneSampleFromZero: a run that stopped after one sample (15 us at a
// 10 us interval) has one rate per series, over 0 to 10 us; it was drawn
// from 10 us to 10 us, a vertical stroke at the chart's right edge, and
// the band of eight flows had no width at all (intervalStart took the
// interval from the first two samples, and with one there is none).
func TestOneSampleFromZero(t *testing.T) {
	for _, flows := range []int{2, 8} { // lines, then a band
		page := string(BuildHTML([]*Run{zigzagRun(flows, 1, 3)}))
		for _, title := range []string{"Throughput per flow", "Throughput per link"} {
			spec := chartSpec(t, page, title)
			for _, s := range spec["series"].([]any) {
				m := s.(map[string]any)
				data := m["data"].([]any)
				if len(data) == 0 {
					t.Errorf("%d flows, %s: %v has no data", flows, title, m["name"])
					continue
				}
				var t0 any
				switch d := data[0].(type) {
				case []any: // a band's item: [t0, lo, hi, t1, lo, hi]
					t0 = d[0]
				case map[string]any:
					t0 = d["value"].([]any)[0]
				}
				if t0 != 0.0 {
					t.Errorf("%d flows, %s: %v starts at %v µs, want 0 (the one sample's interval is the run's first)", flows, title, m["name"], t0)
				}
			}
		}
	}
}

// TestOthersBandAlignsByTime: series that start at different times (a
// flow's RTT from its first ACK, as rtt_us, rc_gbps and window_bytes are
// sampled) make the others' mean and band at each time of the series
// that have a sample then. They were taken index by index and cut to the
// shortest: four flows starting at 320 and 470 us (the 8 largest drawn
// apart), sampled to 600 us, gave a band from 320 to 450 us that averaged
// the first two flows' samples with the last two's taken 150 us later
// (seen in Chromium on an iWARP incast's RTT chart).
func TestOthersBandAlignsByTime(t *testing.T) {
	r := &Run{Summary: Summary{Scenario: "s", Complete: true}, Series: map[string]map[string][]Point{"rtt_us": {}},
		Wheres: map[string][]string{}, Params: map[string]string{}}
	add := func(where string, from int64, v float64) {
		var pts []Point
		for ts := from; ts <= 600_000; ts += 10_000 {
			pts = append(pts, Point{TimeNs: ts, Value: v})
		}
		r.Series["rtt_us"][where] = pts
		r.Wheres["rtt_us"] = append(r.Wheres["rtt_us"], where)
	}
	for i := range 8 {
		add(fmt.Sprintf("flow:%d", i), 10_000, 100) // the largest, drawn apart
	}
	add("flow:8", 320_000, 10)
	add("flow:9", 320_000, 12)
	add("flow:10", 470_000, 20)
	add("flow:11", 470_000, 22)
	spec := chartSpec(t, string(BuildHTML([]*Run{r})), "Round-trip time (TCP&#39;s SRTT, TIMELY&#39;s samples)")
	var mean []any
	for _, s := range spec["series"].([]any) {
		if m := s.(map[string]any); m["name"] == "others (4): mean" {
			mean = m["data"].([]any)
		}
	}
	if len(mean) == 0 {
		t.Fatalf("no others' mean among %v", seriesOf(spec))
	}
	at := map[float64]float64{}
	for _, d := range mean {
		v := d.(map[string]any)["value"].([]any)
		at[v[0].(float64)] = v[1].(float64)
	}
	first, last := mean[0].(map[string]any)["value"].([]any)[0], mean[len(mean)-1].(map[string]any)["value"].([]any)[0]
	if first != 320.0 || last != 600.0 {
		t.Errorf("the others' mean runs from %v to %v µs, want 320 to 600 (every sample of theirs)", first, last)
	}
	for _, c := range []struct{ us, want float64 }{{320, 11}, {460, 11}, {470, 16}, {600, 16}} {
		if got, ok := at[c.us]; !ok || got != c.want {
			t.Errorf("the others' mean at %v µs is %v (drawn %v), want %v: the mean of the series sampled then", c.us, got, ok, c.want)
		}
	}
}
