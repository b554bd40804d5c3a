package assembly

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// runBare builds src for workers workers without observers and runs it to
// its stop time, then describes what it did in lines that must not
// depend on the workers: every flow's outcome, every link's frames and
// every port's bytes, the drops and the totals.
func runBare(t testing.TB, src string, workers int) (lines []string, n *Network) {
	t.Helper()
	s, err := Parse("bare.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n, err = buildWorkers(s, workers, true)
	if err != nil {
		t.Fatal(err)
	}
	if workers > 1 && n.Group == nil {
		t.Fatalf("%d workers: serial: %s", workers, n.Serial)
	}
	var events uint64
	if n.Group != nil {
		n.runGroup(s.Stop.At)
		events = n.Group.Events()
	} else {
		n.Eng.Run(s.Stop.At, nil)
		events = n.Eng.Events()
	}
	for _, fr := range n.Flows {
		st, done, rexmit := fr.outcome()
		lines = append(lines, fmt.Sprintf("flow %d: %v at %v, %d retransmits, %d delivered", fr.Flow.ID, st, done, rexmit, fr.delivered()))
	}
	for i, l := range n.Fabric.Links {
		lines = append(lines, fmt.Sprintf("link %d: %d frames, %d in flight", i, l.Packets(), l.InFlight()))
	}
	for id, ports := range n.Fabric.Ports {
		for _, p := range ports {
			lines = append(lines, fmt.Sprintf("port %d/%d: tx %d B, rx %d B, busy %v", id, p.Index, p.Stats.TxBytes, p.Stats.RxBytes, p.Stats.Busy))
		}
	}
	var drops int64
	for _, sw := range n.Switches {
		if sw != nil {
			for _, d := range sw.Stats.Drops {
				drops += d
			}
		}
	}
	lines = append(lines, fmt.Sprintf("events %d, switch drops %d, packets out of the pools %d", events, drops, n.Fabric.PoolsLive()))
	return lines, n
}

// TestCutRunMatchesOneWorker: issue 31's determinism with the real
// models. A k=4 and a k=8 fat tree's permutation of RC WRITEs (PFC, then
// DCQCN with ECN, then HPCC with INT) cut into 2, 3 and 8 partitions run
// exactly as on one engine: every flow's outcome and time, every link's
// frames and every port's bytes, the event count. The observers are not
// in these runs yet (they act across partitions; serialReason).
func TestCutRunMatchesOneWorker(t *testing.T) {
	cases := []struct{ name, src string }{
		{"k4 pfc", "topology: {kind: fat-tree, k: 4}\nstop: {at: 300us}\nhca: {cc: none}\ntraffic:\n  - permutation: {hosts: all, size: 256KiB}\n"},
		{"k8 dcqcn", "topology: {kind: fat-tree, k: 8}\nstop: {at: 200us}\nhca: {cc: dcqcn}\ntraffic:\n  - permutation: {hosts: all, size: 1MiB}\n"},
		{"k4 hpcc all-to-all", "topology: {kind: fat-tree, k: 4}\nstop: {at: 150us}\nhca: {cc: hpcc}\ntraffic:\n  - all_to_all: {size: 64KiB}\n"},
	}
	if testing.Short() {
		cases = cases[:1]
	}
	for _, c := range cases {
		want, one := runBare(t, c.src, 1)
		if one.Eng.Lookahead() != sim.Microsecond {
			t.Fatalf("%s: lookahead %v, want the links' 1 us", c.name, one.Eng.Lookahead())
		}
		for _, w := range []int{2, 3, 8} {
			got, n := runBare(t, c.src, w)
			if !slices.Equal(got, want) {
				for i := range got {
					if i >= len(want) || got[i] != want[i] {
						t.Fatalf("%s, %d workers (%v): first difference at line %d:\n%s\nwant\n%s", c.name, w, n.plan, i, got[i], want[min(i, len(want)-1)])
					}
				}
			}
			if n.Group.Windows() == 0 || n.plan.parts < 2 {
				t.Errorf("%s, %d workers: %d windows, plan %v", c.name, w, n.Group.Windows(), n.plan)
			}
		}
		t.Logf("%s: %s", c.name, strings.Join(want[len(want)-1:], ""))
	}
}

// BenchmarkCutRun: the suite's k=16 permutation (bench/
// fattree-k16-permutation.yaml) for its first millisecond, without
// observers, on 1 and 2 workers (issue 31's goal: 2 workers at least 1.6
// times as fast). Compare the ns/op of the two, alternated (-count).
func BenchmarkCutRun(b *testing.B) {
	src := "topology: {kind: fat-tree, k: 16, link: {rate: 100Gbps, delay: 1us}}\nstop: {at: 1ms}\ntraffic:\n  - permutation: {hosts: all, size: 8MB}\n"
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s, err := Parse("k16.yaml", []byte(src))
				if err != nil {
					b.Fatal(err)
				}
				n, err := buildWorkers(s, w, true)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if n.Group != nil {
					n.runGroup(s.Stop.At)
				} else {
					n.Eng.Run(s.Stop.At, nil)
				}
			}
		})
	}
}
