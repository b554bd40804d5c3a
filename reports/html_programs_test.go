package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pingpongOutput is perftest.txt of lab first-verbs-program's
// rc-pingpong (its lines as ibv_rc_pingpong prints them).
const pingpongOutput = `# traffic[0] pingpong rc h0 -> h1: ibv_rc_pingpong -s 64 -n 1000 -r 500
# h0 (client):
128000 bytes in 0.01 seconds = 149.56 Mbit/sec
1000 iters in 0.01 seconds = 6.85 usec/iter
# h1 (server):
128000 bytes in 0.01 seconds = 149.64 Mbit/sec
1000 iters in 0.01 seconds = 6.84 usec/iter
`

// TestReportShowsPrograms: a run of programs alone (issue 51: the
// first-verbs-program lab's report said "0 of 0" flows, and nowhere its
// usec/iter, the lab's one figure) shows what the programs printed, its
// client's usec/iter in the summary table and "no flows" for its flows,
// whether the page is built from the run's folder or rebuilt; a run
// without perftest.txt has neither.
func TestReportShowsPrograms(t *testing.T) {
	dir := t.TempDir()
	sum := Summary{Scenario: "first-rc-pingpong", Complete: true, SimTimeNs: 6847000, StopReason: "flows-done"}
	if err := WriteSummary(dir, SummaryJSON(&sum)); err != nil {
		t.Fatal(err)
	}
	bare, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "perftest.txt"), []byte(pingpongOutput), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	page := string(BuildHTML([]*Run{r}))
	for _, want := range []string{
		"<h2>Programs (perftest.txt)</h2>",
		"1000 iters in 0.01 seconds = 6.85 usec/iter\n# h1 (server):",
		"<tr><td>pingpong usec/iter (client)</td><td>6.85 usec/iter</td></tr>",
		"<tr><td>flows completed</td><td>no flows</td></tr>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	if strings.Contains(page, "0 of 0") {
		t.Error(`the page still says "0 of 0"`)
	}
	page = string(BuildHTML([]*Run{bare}))
	if strings.Contains(page, "Programs (perftest.txt)") || strings.Contains(page, "usec/iter") {
		t.Error("a run without perftest.txt has a programs section or row")
	}
	if got := clientUsecPerIter(pingpongOutput + "# traffic[1] perftest ib_write_bw\n# h2 (client):\n 65536 1000 97.5 97.4 0.185\n"); strings.Join(got, "|") != "6.85 usec/iter" {
		t.Errorf("client usec/iter %q, want the pingpong client's alone", got)
	}
}

// TestFairnessSaysOverWhat: Jain's index is over the completed flows'
// throughputs, so a run where some never finished says so beside it
// (issue 51: the infiniband lab without PFC showed "fairness 1.000"
// while three flows failed); a run where all finished shows the index
// alone.
func TestFairnessSaysOverWhat(t *testing.T) {
	for _, c := range []struct {
		completed, total int
		want             string
	}{
		{5, 8, "<tr><td>fairness (Jain)</td><td>1.000 over the 5 completed (3 did not complete)</td></tr>"},
		{8, 8, "<tr><td>fairness (Jain)</td><td>1.000</td></tr>"},
	} {
		s := Summary{Scenario: "s", Complete: true, Flows: FlowCounts{Total: c.total, Completed: c.completed}}
		s.Throughput.Fairness = 1
		if page := string(BuildHTML([]*Run{{Summary: s, Label: "r"}})); !strings.Contains(page, c.want) {
			t.Errorf("%d of %d completed: no %q", c.completed, c.total, c.want)
		}
	}
}
