package reports

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
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

// TestFlowSeriesNamesAndColours: a flow's series is named by its hosts
// and id (h0→h8 #3, not flow:3), and has the same colour in every chart
// of the page (its throughput and its reaction point's rate here).
func TestFlowSeriesNamesAndColours(t *testing.T) {
	r := &Run{Summary: Summary{Scenario: "s", Complete: true}, Series: map[string]map[string][]Point{}, Wheres: map[string][]string{}}
	for id, src := range []string{"h0", "h1", "h2"} {
		r.Flows.Add(&FlowRow{ID: id, Src: src, Dst: "h8"})
		for _, m := range []string{MetricFlowGbps, MetricRCGbps} {
			where := fmt.Sprintf("flow:%d", id)
			if r.Series[m] == nil {
				r.Series[m] = map[string][]Point{}
			}
			// Ranks differ between the charts: flow 2 is first in one,
			// last in the other, so the charts add the series in
			// different orders.
			v := float64(id + 1)
			if m == MetricRCGbps {
				v = float64(10 - id)
			}
			r.Series[m][where] = []Point{{TimeNs: 1000, Value: v}, {TimeNs: 2000, Value: v}}
			r.Wheres[m] = append(r.Wheres[m], where)
		}
	}
	page := string(BuildHTML([]*Run{r}))
	re := regexp.MustCompile(`"name":"(h[0-9]→h8 #[0-9])","type":"line".*?"itemStyle":\{"color":"(#[0-9a-f]+)"\}`)
	colours := map[string]map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(page, -1) {
		if colours[m[1]] == nil {
			colours[m[1]] = map[string]bool{}
		}
		colours[m[1]][m[2]] = true
	}
	if len(colours) != 3 {
		t.Fatalf("flow series found: %v; want h0→h8 #0, h1→h8 #1, h2→h8 #2", colours)
	}
	seen := map[string]string{}
	for name, cs := range colours {
		if len(cs) != 1 {
			t.Errorf("%s has colours %v; want one", name, cs)
		}
		for c := range cs {
			if other, dup := seen[c]; dup {
				t.Errorf("%s and %s share colour %s", name, other, c)
			}
			seen[c] = name
		}
	}
	if strings.Contains(page, `"name":"flow:`) {
		t.Error("a series is still named flow:N")
	}
}

// TestEventsRoundTrip: events.csv survives the round trip, and the
// report gains the events' timeline and table.
func TestEventsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rows := []EventRow{{100_000, "h0", "IBV_EVENT_PORT_ERR", 10, "port 1"}, {300_000, "h0", "IBV_EVENT_PORT_ACTIVE", 9, "port 1"},
		{4_856, "h1", "IBV_EVENT_QP_ACCESS_ERR", 3, "qp 0x000002 flow 0 responder"}}
	if err := WriteRun(dir, &Results{Summary: &Summary{Scenario: "ev", Complete: true}, Events: rows}); err != nil {
		t.Fatal(err)
	}
	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Events, rows) {
		t.Fatalf("events.csv read back as %+v, want %+v", r.Events, rows)
	}
	page := string(BuildHTML([]*Run{r}))
	for _, want := range []string{"<h2>Asynchronous events</h2>", `"name":"IBV_EVENT_PORT_ERR","type":"scatter"`, "<td>IBV_EVENT_QP_ACCESS_ERR (3)</td><td>qp 0x000002 flow 0 responder</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// TestThroughputSmoothingAndOthers: a link whose throughput alternates
// between 1 and 2 Gb/s sample by sample (a packet more or less per 10 us
// interval) is drawn as its moving mean, near 1.5, over enough samples
// for 20 packets at the median link's rate (the raw samples are in
// timeseries.csv, no longer a "(raw)" legend entry each); past the 8
// largest links the others are their mean and a band from their least
// to their largest.
func TestThroughputSmoothingAndOthers(t *testing.T) {
	r := &Run{Summary: Summary{Scenario: "s", Complete: true}, Series: map[string]map[string][]Point{MetricTxGbps: {}},
		Wheres: map[string][]string{}, Params: map[string]string{"hca.mtu": "4096"}}
	for id := range 12 {
		where := fmt.Sprintf("s0:p%d", id)
		var pts []Point
		for i := range 1000 {
			v := 1.0 + float64((i+id)%2) + float64(id)/1000 // ranks differ a little
			pts = append(pts, Point{TimeNs: int64(i+1) * 10_000, Value: v})
		}
		r.Series[MetricTxGbps][where] = pts
		r.Wheres[MetricTxGbps] = append(r.Wheres[MetricTxGbps], where)
	}
	page := string(BuildHTML([]*Run{r}))
	// 1.5 Gb/s for 10 us is 1875 bytes: 20 packets of 4 KiB need 44 samples.
	for _, want := range []string{"drawn as the mean over 44 samples (440µs)", `"name":"others (4): mean"`, `"name":"others (4): least to largest","type":"custom"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if strings.Contains(page, "(raw)") {
		t.Error("the report still draws raw series")
	}
	i := strings.Index(page, `"name":"s0:p11","type":"line"`)
	if i < 0 {
		t.Fatal("no s0:p11 series")
	}
	seg := page[i+10:]
	seg = seg[:strings.Index(seg, `"name":`)]
	vals := regexp.MustCompile(`"value":\[[0-9.]+,([0-9.]+)\]`).FindAllStringSubmatch(seg, -1)
	if len(vals) < 300 {
		t.Fatalf("s0:p11 has %d points", len(vals))
	}
	for _, v := range vals[30:300] {
		if x, _ := strconv.ParseFloat(v[1], 64); x < 1.45 || x > 1.56 {
			t.Fatalf("a smoothed sample is %v, want about 1.5", x)
		}
	}
}

// fatTreeTopo is a k-ary fat tree as topology.json names it: k pods of
// k/2 edge and k/2 aggregation switches, (k/2)² cores, k³/4 hosts.
func fatTreeTopo(k int) *Topo {
	t := &Topo{}
	sw := 0
	port := map[string]int{}
	link := func(a, b string) {
		t.Links = append(t.Links, TopoLink{A: fmt.Sprintf("%s:p%d", a, port[a]), B: fmt.Sprintf("%s:p%d", b, port[b]), RateGbps: 100})
		port[a]++
		port[b]++
	}
	newSwitch := func() string {
		n := fmt.Sprintf("s%d", sw)
		sw++
		t.Nodes = append(t.Nodes, TopoNode{Name: n, Kind: "switch"})
		return n
	}
	var cores []string
	for i := 0; i < k*k/4; i++ {
		cores = append(cores, newSwitch())
	}
	host := 0
	for p := 0; p < k; p++ {
		var edges, aggs []string
		for i := 0; i < k/2; i++ {
			edges = append(edges, newSwitch())
			aggs = append(aggs, newSwitch())
		}
		for i, a := range aggs {
			for _, e := range edges {
				link(e, a)
			}
			for j := 0; j < k/2; j++ {
				link(a, cores[i*k/2+j])
			}
		}
		for _, e := range edges {
			for j := 0; j < k/2; j++ {
				h := fmt.Sprintf("h%d", host)
				host++
				t.Nodes = append(t.Nodes, TopoNode{Name: h, Kind: "host"})
				link(h, e)
			}
		}
	}
	return t
}

// TestLargeTopologySummarised: a fat tree past maxTopoNodes draws as one
// node per pod and the cores as one node, with the links between them
// merged, so the picture can be read and the page stays small (issue:
// under 10 MB at k=64); a small fabric is still drawn node by node.
func TestLargeTopologySummarised(t *testing.T) {
	for _, tc := range []struct {
		k          int
		summarised bool
	}{{4, false}, {8, false}, {16, true}, {64, true}} {
		r := &Run{Summary: Summary{Scenario: "s", Complete: true}, Topo: fatTreeTopo(tc.k)}
		page := string(BuildHTML([]*Run{r}))
		if got := strings.Contains(page, "Topology (summarised)"); got != tc.summarised {
			t.Errorf("k=%d (%d nodes): summarised %v, want %v", tc.k, len(r.Topo.Nodes), got, tc.summarised)
			continue
		}
		if !tc.summarised {
			if !strings.Contains(page, `"name":"h15"`) || strings.Count(page, `"source":"`) != len(r.Topo.Links) {
				t.Errorf("k=%d: not drawn node by node", tc.k)
			}
			continue
		}
		// k pods of k/2 edge + k/2 agg switches and k²/4 hosts each.
		pod := fmt.Sprintf("%d switches, %d hosts", tc.k, tc.k*tc.k/4)
		if n := strings.Count(page, pod); n != tc.k {
			t.Errorf("k=%d: %d groups read %q, want %d", tc.k, n, pod, tc.k)
		}
		cores := fmt.Sprintf("%d top-tier switches", tc.k*tc.k/4)
		if tc.k*tc.k/4 > maxTopSwitches && !strings.Contains(page, cores) {
			t.Errorf("k=%d: no %q node", tc.k, cores)
		}
		// Each pod's k²/4 uplinks are one line to the cores, or to
		// each of the k²/4 cores when they are drawn one by one.
		links := tc.k
		if tc.k*tc.k/4 <= maxTopSwitches {
			links = tc.k * tc.k * tc.k / 4
		}
		if n := strings.Count(page, `"source":"`); n != links {
			t.Errorf("k=%d: %d links drawn, want %d", tc.k, n, links)
		}
		if len(page) > 10<<20 {
			t.Errorf("k=%d: page is %d bytes, want under 10 MB", tc.k, len(page))
		}
	}
}

// TestHeatmapLegend: the pause heat map's legend is its colour scale,
// above the map and labelled at both ends, with no series legend (whose
// swatch would be the theme's blue, not the map's colours).
func TestHeatmapLegend(t *testing.T) {
	r := &Run{Summary: Summary{Scenario: "s", Complete: true}, Series: map[string]map[string][]Point{MetricPaused: {
		"s0:p1:3": {{TimeNs: 1000, Value: 1}, {TimeNs: 2000, Value: 0.5}},
	}}, Wheres: map[string][]string{MetricPaused: {"s0:p1:3"}}}
	page := string(BuildHTML([]*Run{r}))
	i := strings.Index(page, `"type":"heatmap"`)
	if i < 0 {
		t.Fatal("no heat map")
	}
	start := strings.LastIndex(page[:i], `"legend":`)
	end := strings.Index(page[i:], `"visualMap":`)
	if end < 0 {
		t.Fatal("no colour scale")
	}
	opt := page[start : i+end+300]
	for _, want := range []string{`"legend":{"show":false}`, `"text":["paused all the bucket","never"]`, `"top":"0"`} {
		if !strings.Contains(opt, want) {
			t.Errorf("heat map options lack %s:\n%.600s", want, opt)
		}
	}
}

// TestConnectionSetupCDF: flows connected by rdma_cm get a CDF of their
// set-up times, before the FCT's; a run without has none.
func TestConnectionSetupCDF(t *testing.T) {
	r := &Run{Summary: Summary{Scenario: "s", Complete: true}, Series: map[string]map[string][]Point{}, Wheres: map[string][]string{}}
	for i := 0; i < 3; i++ {
		r.Flows.Add(&FlowRow{ID: i, Src: "h0", Dst: "h1", SizeBytes: 1, DeliveredBytes: 1, FCTNs: 2e6, Slowdown: 9, Status: "success",
			CM: true, ConnectNs: int64(i+1) * 1e6})
	}
	page := string(BuildHTML([]*Run{r}))
	c, f := strings.Index(page, "<h2>Connection set-up CDF</h2>"), strings.Index(page, "<h2>FCT CDF</h2>")
	if c < 0 || f < c || !strings.Contains(page, `"value":[3,1]`) {
		t.Errorf("set-up CDF at %d, FCT CDF at %d; the last point (3 ms, 1) present: %v", c, f, strings.Contains(page, `"value":[3,1]`))
	}
	r.Flows = FlowStats{}
	for i := 0; i < 3; i++ {
		r.Flows.Add(&FlowRow{ID: i, Src: "h0", Dst: "h1", SizeBytes: 1, DeliveredBytes: 1, FCTNs: 2e6, Slowdown: 9, Status: "success"})
	}
	if strings.Contains(string(BuildHTML([]*Run{r})), "Connection set-up CDF") {
		t.Error("a set-up CDF without rdma_cm flows")
	}
}

// TestGPUsUnderTheirRails: a topology with GPU servers draws its hosts
// under the switch each is linked to (a rail-optimized fabric's GPU g of
// every server under rail g), not server by server; a topology without
// servers keeps its node order.
func TestGPUsUnderTheirRails(t *testing.T) {
	topo := &Topo{Nodes: []TopoNode{{Name: "rail0", Kind: "switch"}, {Name: "rail1", Kind: "switch"}}}
	for s := range 2 {
		var gpus []string
		for g := range 2 {
			name := fmt.Sprintf("s%d/g%d", s, g)
			gpus = append(gpus, name)
			topo.Nodes = append(topo.Nodes, TopoNode{Name: name, Kind: "host"})
			topo.Links = append(topo.Links, TopoLink{A: fmt.Sprintf("rail%d:p%d", g, s), B: name + ":p0", RateGbps: 400})
		}
		topo.Servers = append(topo.Servers, TopoServer{Name: fmt.Sprintf("s%d", s), GPUs: gpus, NVLinkGbps: 3600, NVLinkDelayNs: 600})
	}
	for _, c := range []struct {
		servers bool
		want    []string
	}{{true, []string{"s0/g0", "s1/g0", "s0/g1", "s1/g1"}}, {false, []string{"s0/g0", "s0/g1", "s1/g0", "s1/g1"}}} {
		tp := *topo
		if !c.servers {
			tp.Servers = nil
		}
		page := string(BuildHTML([]*Run{{Summary: Summary{Scenario: "s", Complete: true}, Topo: &tp}}))
		at := -1
		for _, name := range c.want {
			i := strings.Index(page, `"name":"`+name+`"`)
			if i < at {
				t.Errorf("servers %v: %s drawn before the host left of it; want the order %v", c.servers, name, c.want)
			}
			at = i
		}
	}
}
