package assembly

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// peakLiveHeap runs sc to stopAt and returns the largest live heap seen
// (after a forced GC every 2^20 events), in bytes.
func peakLiveHeap(t *testing.T, sc *Scenario, stopAt sim.Time) uint64 {
	sc.Stop.At = stopAt
	n, err := Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	var peak uint64
	var ms runtime.MemStats
	sample := func() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	n.Run(func(sim.Time, uint64) { sample() })
	sample()
	return peak
}

// The HPCC-320 bench scenario's memory grows with packets in flight, not
// with time simulated: the peak live heap of a 4 ms run is within 20% of
// a 2 ms run's. Slow (10-20 s on 2 cores): set LFSIM_SLOW=1; CI does.
func TestHPCC320MemoryFlat(t *testing.T) {
	if os.Getenv("LFSIM_SLOW") == "" || testing.Short() {
		t.Skip("slow: set LFSIM_SLOW=1 (and no -short) to run")
	}
	load := func() *Scenario {
		sc, err := Load(filepath.Join("..", "bench", "hpcc-320.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	a := peakLiveHeap(t, load(), 2*sim.Millisecond)
	b := peakLiveHeap(t, load(), 4*sim.Millisecond)
	t.Logf("peak live heap: 2 ms %.1f MiB, 4 ms %.1f MiB (%+.1f%%)", float64(a)/(1<<20), float64(b)/(1<<20), (float64(b)/float64(a)-1)*100)
	if float64(b) > 1.2*float64(a) || float64(a) > 1.2*float64(b) {
		t.Fatalf("peak memory differs by more than 20%%: %d vs %d bytes", a, b)
	}
}

// TestBenchScenariosLoad: the performance suite's scenarios (bench/) and
// the diagnostic ones (bench/diag/) load, and each k16-busy-N permutes
// among N hosts, so that the curve docs/PERFORMANCE.md reads off them
// (ninth round) keeps its meaning.
func TestBenchScenariosLoad(t *testing.T) {
	suite, _ := filepath.Glob(filepath.Join("..", "bench", "*.yaml"))
	diag, _ := filepath.Glob(filepath.Join("..", "bench", "diag", "*.yaml"))
	if len(suite) < 5 || len(diag) < 5 {
		t.Fatalf("found %d suite and %d diagnostic scenarios, want at least 5 of each", len(suite), len(diag))
	}
	for _, f := range append(suite, diag...) {
		sc, err := Load(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		var busy int
		if _, err := fmt.Sscanf(filepath.Base(f), "k16-busy-%d.yaml", &busy); err == nil && len(sc.Flows) != busy {
			t.Errorf("%s: %d flows, want %d", f, len(sc.Flows), busy)
		}
	}
}
