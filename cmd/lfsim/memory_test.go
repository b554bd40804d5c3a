package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/resolve"
)

// liveHeap is the live heap after a collection, in bytes.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestMaxMemoryRefusesLMC7: --max-memory below what a k=8 fat tree with
// LMC 7 really needs (the heap its parse, network and run hold with
// their results, measured here) refuses the run at the generator that
// takes it over, with the estimate; a limit above the estimate and the
// need runs it.
// The estimate had been 2.6 MiB while the run held an 85 MB dump of its
// forwarding tables, so a limit below the need let it run.
func TestMaxMemoryRefusesLMC7(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "lmc7.yaml")
	src := "stop: {at: 5us}\ntopology: {kind: fat-tree, k: 8}\nswitch: {link_layer: infiniband}\nsubnet_manager: {lmc: 7}\ntraffic:\n  - permutation: {size: 8MiB}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	before := liveHeap()
	sc, err := resolve.Parse(file, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n, err := assembly.Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	res := n.Run(nil)
	need := liveHeap() - before
	runtime.KeepAlive(n)
	runtime.KeepAlive(res)
	t.Logf("need %.2f MiB, estimate %.2f MiB", float64(need)/(1<<20), float64(sc.MemoryEstimate)/(1<<20))

	below := fmt.Sprintf("%dKiB", need*4/5>>10)
	code, _, stderr := lfsim(t, "run", file, "-o", filepath.Join(dir, "below"), "-q", "--max-memory", below)
	if code != exitFailed || !strings.Contains(stderr, "lmc7.yaml:6:5: traffic[0].permutation: with this generator's flows the scenario needs about") || !strings.Contains(stderr, "over the memory limit of") {
		t.Errorf("--max-memory %s (below the need): exit %d, %s", below, code, stderr)
	}
	above := fmt.Sprintf("%dKiB", max(need, sc.MemoryEstimate)*3/2>>10)
	if code, _, stderr := lfsim(t, "run", file, "-o", filepath.Join(dir, "above"), "-q", "--max-memory", above); code != exitOK {
		t.Errorf("--max-memory %s (above the estimate): exit %d, %s", above, code, stderr)
	}
	resolve.SetMemoryLimit(0)
}
