package reports

import (
	"reflect"
	"strings"
	"testing"
)

// TestTimelineSection: timeline.csv survives the round trip to the
// picosecond, summary.json's timeline sums the critical stages by name
// (not the ACK's, not the total's), and the report draws a bar per
// message and the table of the critical path by stage, its shares of the
// iteration; a run without timeline.csv has no such section.
func TestTimelineSection(t *testing.T) {
	rows := []TimelineRow{
		{"iteration", "total", "h0", 0, 4000_000, true},
		{"ping", "doorbell", "h0", 0, 200_000, true},
		{"ping", "serialization", "h0:p0", 200_000, 211_680, true},
		{"ping", "propagation", "h0:p0>h1:p0", 211_680, 1_211_680, true},
		{"ping_ack", "serialization", "h1:p0", 1_211_680, 1_218_561, false},
		{"pong", "serialization", "h1:p0", 1_211_680, 1_223_360, true},
		{"pong", "propagation", "h1:p0>h0:p0", 1_223_360, 4000_000, true},
	}
	sum := TimelineSummary(0, 2, 7, rows)
	want := map[string]float64{"doorbell": 200, "serialization": 23.36, "propagation": 3776.64}
	if !reflect.DeepEqual(sum.Stages, want) || sum.TotalNs != 4000 || sum.StartNs != 0.007 {
		t.Errorf("summary %+v, want stages %v and 4000 ns in all", sum, want)
	}
	dir := t.TempDir()
	if err := WriteRun(dir, &Results{Summary: &Summary{Scenario: "tl", Complete: true, Timeline: sum},
		Extra: map[string][]byte{"timeline.csv": TimelineCSV(rows)}}); err != nil {
		t.Fatal(err)
	}
	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Iteration, rows) {
		t.Fatalf("timeline.csv read back as %+v, want %+v", r.Iteration, rows)
	}
	page := string(BuildHTML([]*Run{r}))
	for _, w := range []string{"<h2>One iteration, stage by stage</h2>", `"type":"category","data":["pong","ping_ack","ping"]`,
		"serialization at h1:p0", "<td>23.360</td><td>0.6%</td>", "<td>3776.640</td><td>94.4%</td>", "<th>iteration</th><th>4000.000</th>", `"name":"next iteration","xAxis":4000`} {
		if !strings.Contains(page, w) {
			t.Errorf("report.html lacks %q", w)
		}
	}
	dir = t.TempDir()
	if err := WriteRun(dir, &Results{Summary: &Summary{Scenario: "none", Complete: true}}); err != nil {
		t.Fatal(err)
	}
	r, _ = LoadRun(dir)
	if page := string(BuildHTML([]*Run{r})); strings.Contains(page, "stage by stage") {
		t.Error("a run without timeline.csv has a timeline section")
	}
}

// TestTimelineStageCauses: the report's table says what each stage can
// hold in the model, not one cause of it. Measured (review I, finding 1):
// a ping's tx_wait of 23,131 ns with its port idle under
// hca.host_bandwidth 1Gbps (the host interface reading the previous
// payload) and 10,749 ns behind a permutation's other QP and PFC pauses;
// switch_pipeline 175.36 ns for a 4 KiB frame through InfiniBand's
// cut-through switch, not switch.latency's 500; rx_pipeline 33,624 ns
// under hca.rx_rate 1Gbps, of which 200 is hca.rx_pkt_latency.
func TestTimelineStageCauses(t *testing.T) {
	what := map[string]string{}
	for _, s := range timelineStages {
		what[s.name] = s.what
	}
	for _, c := range []struct {
		stage string
		names []string
	}{
		{"tx_wait", []string{"ACK", "another QP", "PFC pause", "credits", "rate", "hca.host_bandwidth"}},
		{"switch_pipeline", []string{"switch.latency", "cut-through"}},
		{"rx_pipeline", []string{"hca.rx_pkt_latency", "hca.rx_rate"}},
	} {
		for _, n := range c.names {
			if !strings.Contains(what[c.stage], n) {
				t.Errorf("%s is described as %q, which does not name %q", c.stage, what[c.stage], n)
			}
		}
	}
}
