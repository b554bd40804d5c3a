package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/scenarios"
)

// TestTuningDCQCNLabSweep: the sweep in the tuning-dcqcn lab's README
// runs as written (its base a lab scenario), and shows what the lab
// says: at each rpg_ai_rate the time-averaged queue rises from the
// aggressive marking to the paper's, and the latest marking holds the
// deepest queue and the most PFC pause; the report has its comparison.
func TestTuningDCQCNLabSweep(t *testing.T) {
	readme, err := scenarios.LabREADME("tuning-dcqcn")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(readme, "```yaml\n")
	src, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 || !strings.Contains(src, "base: labs/tuning-dcqcn/default") {
		t.Fatalf("no sweep in the README:\n%s", readme)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "tuning.sweep.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sw, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if _, _, err := Run(context.Background(), sw, nil, Options{Dir: out, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	if complete, missing, err := Collect(sw, out); err != nil || complete != 8 || missing != 0 {
		t.Fatalf("collect: %d complete, %d missing, %v", complete, missing, err)
	}
	ecn := -1
	for i, p := range sw.Params {
		if p.Path == "switch.ecn" {
			ecn = i
		}
	}
	// meanQ[rate][ecn value], paused[rate][ecn value]
	meanQ, paused := map[int][]float64{}, map[int][]int64{}
	for _, p := range sw.Points {
		s, err := readSummary(PointDir(out, sw, p))
		if err != nil || s.Queues == nil {
			t.Fatalf("point %d: %v", p.Index, err)
		}
		rate := p.Values[1-ecn]
		if meanQ[rate] == nil {
			meanQ[rate], paused[rate] = make([]float64, 4), make([]int64, 4)
		}
		meanQ[rate][p.Values[ecn]] = s.Queues.MeanBytes
		paused[rate][p.Values[ecn]] = s.PFC.PausedNs
	}
	for rate, q := range meanQ {
		if !(q[0] < q[1] && q[1] < q[3] && q[2] < q[3]) || paused[rate][3] <= 10*max(paused[rate][1], paused[rate][2]) {
			t.Errorf("rpg_ai_rate %s: mean queues %v bytes, paused %v ns; want the aggressive marking lowest, the latest deepest and pausing most",
				sw.Params[1-ecn].Values[rate], q, paused[rate])
		}
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(page), "Mean queue against switch.ecn") {
		t.Errorf("the sweep's report has no mean-queue comparison (%v)", err)
	}
}
