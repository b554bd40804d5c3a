package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const base = `name: tiny
stop: {at: 2ms, when: flows-done}
topology: {kind: star, hosts: 3}
switch: {ecn: {kmin: 10KiB, kmax: 100KiB}}
hca: {cc: none}
traffic:
  - incast: {to: h2, from: [h0, h1], size: 512KiB}
`

const sweepFile = `base: tiny.yaml
vary:
  switch.ecn.kmin: [5KiB, 20KiB, 50KiB]
  hca.cc: [none, dcqcn]
repeat: 2
`

// lineCounter cancels the sweep once n points have finished.
type lineCounter struct {
	mu     sync.Mutex
	done   int
	n      int
	cancel func()
}

func (l *lineCounter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done += strings.Count(string(p), " done (")
	if l.n > 0 && l.done >= l.n {
		l.cancel()
	}
	return len(p), nil
}

// A 3×2×2 sweep runs its points two at a time; stopped after 3 points
// (as a kill would), running it again redoes none of the finished points
// and completes the rest; sweep.csv then has all 12.
func TestSweepParallelResume(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tiny.yaml"), []byte(base), 0o644)
	os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(sweepFile), 0o644)
	sw, err := Load(filepath.Join(dir, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Points) != 12 {
		t.Fatalf("%d points, want 12", len(sw.Points))
	}
	var running, peak atomic.Int32
	testHook = func(start bool) {
		if start {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond) // let the other worker start
		} else {
			running.Add(-1)
		}
	}
	defer func() { testHook = nil }()
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	lc := &lineCounter{n: 3, cancel: cancel}
	ran, skipped, err := Run(ctx, sw, nil, Options{Dir: out, Workers: 2, Log: lc})
	if err == nil || ran < 3 || ran >= 12 || skipped != 0 {
		t.Fatalf("first run: ran %d, skipped %d, err %v; want it stopped after 3 or 4", ran, skipped, err)
	}
	if peak.Load() != 2 {
		t.Fatalf("at most %d points ran at once, want 2", peak.Load())
	}
	finished := map[string]time.Time{}
	for _, p := range sw.Points {
		d := PointDir(out, sw, p)
		if Done(d) {
			st, _ := os.Stat(filepath.Join(d, "summary.json"))
			finished[d] = st.ModTime()
		}
	}
	if len(finished) != ran {
		t.Fatalf("%d complete point folders, %d reported", len(finished), ran)
	}
	ran2, skipped2, err := Run(context.Background(), sw, nil, Options{Dir: out, Workers: 2})
	if err != nil || skipped2 != ran || ran2 != 12-ran {
		t.Fatalf("second run: ran %d, skipped %d, err %v", ran2, skipped2, err)
	}
	for d, mt := range finished {
		st, _ := os.Stat(filepath.Join(d, "summary.json"))
		if !st.ModTime().Equal(mt) {
			t.Errorf("%s was run again", d)
		}
	}
	complete, missing, err := Collect(sw, out)
	if err != nil || complete != 12 || missing != 0 {
		t.Fatalf("collect: %d complete, %d missing, %v", complete, missing, err)
	}
	csv, _ := os.ReadFile(filepath.Join(out, "sweep.csv"))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 13 || !strings.HasPrefix(lines[0], "point,hca.cc,switch.ecn.kmin,seed,complete,") {
		t.Fatalf("sweep.csv:\n%s", csv)
	}
	if !strings.HasPrefix(lines[1], "0,none,5KiB,1,true,") || !strings.HasPrefix(lines[12], "11,dcqcn,50KiB,2,true,") {
		t.Fatalf("sweep.csv rows out of order:\n%s", csv)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Fatal(err)
	}
	// A point's scenario.yaml holds its values.
	y, _ := os.ReadFile(filepath.Join(PointDir(out, sw, sw.Points[11]), "scenario.yaml"))
	if !strings.Contains(string(y), "kmin: 50KiB") || !strings.Contains(string(y), "cc: dcqcn") || !strings.Contains(string(y), "seed: 2") {
		t.Fatalf("scenario.yaml of point 11:\n%s", y)
	}
}

// TestRunNegativeWorkers: Workers below 0 is refused before any point
// runs (issue 45: lfsim sweep -j -1 ran the sweep on GOMAXPROCS workers
// where lfsim run --workers -1 is refused).
func TestRunNegativeWorkers(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tiny.yaml"), []byte(base), 0o644)
	os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(sweepFile), 0o644)
	sw, err := Load(filepath.Join(dir, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	ran, skipped, err := Run(context.Background(), sw, sw.Points[:1], Options{Dir: out, Workers: -1})
	if err == nil || err.Error() != "-1 workers: want 1 or more (0: GOMAXPROCS)" || ran != 0 || skipped != 0 {
		t.Errorf("ran %d, skipped %d, err %v; want a refusal", ran, skipped, err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was made: a point ran", out)
	}
}
