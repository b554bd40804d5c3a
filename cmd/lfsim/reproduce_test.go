package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lfsim/lfsim/reproduce"
)

// TestReproduceCommand: without a name lfsim reproduce lists every
// reproduction with its paper and run time; a wrong name is a usage
// error that lists them, and so is a --set that fits no run;
// perftest-connectx (under a second) runs, prints
// each point with its bounds and verdict, writes points.csv and
// report.html, and exits 0; with a parameter it depends on moved
// (--set), it prints FAILS and exits 1; a known miss (perftest-write-edr's
// ceiling) is printed as one, with why, and exits 1.
func TestReproduceCommand(t *testing.T) {
	code, out, _ := lfsim(t, "reproduce")
	for _, want := range []string{"dctcp-queue", "Alizadeh et al., SIGCOMM 2010", "ecmp-collisions", "ibcc-victim", "pfc-deadlock", "dcqcn-fluid", "irn-vs-pfc", "perftest-connectx", "perftest-write-edr", "nccl-tests-ndr", "nccl-tests-h800", "pfc-unfairness", "iwarp-mathis", "setup: ", "known miss: write_bw ceiling: lfsim's ib_write_bw runs at the wire's ceiling"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("lfsim reproduce: exit %d, no %q in\n%s", code, want, out)
		}
	}
	code, _, errs := lfsim(t, "reproduce", "dctcp-queu")
	if code != exitUsage || !strings.Contains(errs, `no reproduction named "dctcp-queu" (did you mean dctcp-queue?)`) {
		t.Errorf("a wrong name: exit %d, %s", code, errs)
	}
	code, _, errs = lfsim(t, "reproduce", "perftest-connectx", "-q", "-o", t.TempDir(), "--set", "hca.nope=1")
	if code != exitUsage || !strings.Contains(errs, "--set hca.nope=1: unknown key nope in hca") || !strings.Contains(errs, "--set hca.nope=1 does not fit perftest-connectx's runs") {
		t.Errorf("a wrong --set: exit %d, %s", code, errs)
	}
	dir := t.TempDir()
	code, out, errs = lfsim(t, "reproduce", "perftest-connectx", "-q", "-o", dir)
	if code != exitOK || !strings.Contains(out, "32 B    0.83 ± 15% [0.7055, 0.9545]") || !strings.Contains(out, "perftest-connectx holds: 4 of 4 points hold") {
		t.Errorf("exit %d:\n%s%s", code, out, errs)
	}
	for _, f := range []string{"points.csv", "report.html", "points/0000_size=32/perftest.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	code, out, errs = lfsim(t, "reproduce", "perftest-connectx", "-q", "-o", t.TempDir(), "--set", "hca.dma_latency=1us")
	if code != exitFailed || !strings.Contains(out, "FAILS") || !strings.Contains(out, "perftest-connectx FAILS") {
		t.Errorf("with the DMA read at 1 us: exit %d:\n%s%s", code, out, errs)
	}
	// A known miss still fails the reproduction (exit 1), says so beside
	// its verdict, and says why; the other point holds.
	code, out, errs = lfsim(t, "reproduce", "perftest-write-edr", "-q", "-o", t.TempDir())
	for _, want := range []string{"FAILS (known miss)", "known miss write_bw ceiling: lfsim's ib_write_bw runs at the wire's ceiling", "perftest-write-edr FAILS: 1 of 2 points hold"} {
		if code != exitFailed || !strings.Contains(out, want) {
			t.Errorf("perftest-write-edr: exit %d, no %q in\n%s%s", code, want, out, errs)
		}
	}
}

// TestReproduceLong: a long reproduction is listed as one ("long: not in
// all"), all leaves it out, and it is chosen by its name. A toy is
// registered for the test (review E, finding 14: the branch was never
// run), beside hpcc-websearch and hpcc-hadoop, the long reproductions
// today.
func TestReproduceLong(t *testing.T) {
	defer reproduce.Register(reproduce.Reproduction{Name: "toy-long", Paper: "P", Figure: "F", Setup: "S", RunTime: "an hour", Long: true,
		Measure: func(reproduce.Runs) (map[string]float64, error) { return nil, nil }})()
	code, out, _ := lfsim(t, "reproduce")
	if code != exitOK || !strings.Contains(out, "toy-long  (an hour, long: not in all)") {
		t.Errorf("the listing: exit %d, no toy-long marked long in\n%s", code, out)
	}
	all, err := chooseReproductions([]string{"all"})
	long := 0
	for _, r := range reproduce.All() {
		if r.Long {
			long++
		}
	}
	if err != nil || long < 2 || len(all) != len(reproduce.All())-long || slices.ContainsFunc(all, func(r reproduce.Reproduction) bool { return r.Long }) {
		t.Errorf("all: %d reproductions of %d, %d long (%v), want every one but the long (toy-long, hpcc-websearch, hpcc-hadoop)", len(all), len(reproduce.All()), long, err)
	}
	byName, err := chooseReproductions([]string{"toy-long"})
	if err != nil || len(byName) != 1 || byName[0].Name != "toy-long" {
		t.Errorf("by name: %v, %v", byName, err)
	}
	// A reproduction asked for twice runs once: the second run would
	// overwrite the first's folder (review J, finding 7).
	twice, err := chooseReproductions([]string{"toy-long", "all", "toy-long"})
	if err != nil || len(twice) != len(all)+1 || twice[0].Name != "toy-long" {
		t.Errorf("toy-long, all, toy-long: %d reproductions (%v), want toy-long and all's %d, each once, toy-long first", len(twice), err, len(all))
	}
}

// TestReproduceInterrupted: lfsim reproduce stopped by SIGTERM while
// its runs go exits 4 (exitInterrupted), not 1 as a failing point does
// (review E, finding 14). nccl-tests-ndr's run takes several seconds;
// the signal comes after one.
func TestReproduceInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts lfsim and waits a second")
	}
	code := lfsimAt(t, time.Second, syscall.SIGTERM, "reproduce", "nccl-tests-ndr", "-q", "-o", t.TempDir())
	if code != exitInterrupted {
		t.Errorf("exit %d, want %d (interrupted)", code, exitInterrupted)
	}
}
