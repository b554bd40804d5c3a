// Package bench holds BenchmarkSuite, which runs the performance suite's
// scenarios (scenarios/bench/*.yaml, which `lfsim bench` runs as separate
// processes to measure each one's peak memory) as Go benchmarks
// (docs/PERFORMANCE.md, "The performance suite").
package bench

import (
	"flag"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

var stopAt = flag.String("stop-at", "", "cut every suite scenario at this simulated time (e.g. 1ms), as lfsim bench --stop-at does")

// suite returns the suite's scenarios, as lfsim bench finds them: the
// *.yaml files of scenarios/bench/, in name order.
func suite(tb testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("..", "scenarios", "bench", "*.yaml"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no suite scenarios in ../scenarios/bench (%v)", err)
	}
	return files
}

// BenchmarkSuite runs each suite scenario per iteration, the network's
// construction excluded from the time as lfsim bench excludes it, and
// reports what lfsim bench prints but peak memory (which only a process
// of its own measures): events, packet-hops and simulated time per wall
// second. With -benchmem, allocations per run: a run allocates for its
// set-up and its packet and event pools, not per packet (DESIGN.md,
// rule 5). The lfsim binary is built with cmd/lfsim/default.pgo and a
// test binary is not, unless given it with -pgo, as below (about 7%,
// docs/PERFORMANCE.md, sixth round):
//
//	go test -pgo=cmd/lfsim/default.pgo -run XXX -bench Suite -benchmem ./bench/
//	go test -run XXX -bench Suite/hpcc-320 -count 5 ./bench/ -args -stop-at 1ms
func BenchmarkSuite(b *testing.B) {
	var cut sim.Time
	if *stopAt != "" {
		t, err := sim.ParseTime(*stopAt)
		if err != nil {
			b.Fatalf("-stop-at: %v", err)
		}
		cut = t
	}
	for _, file := range suite(b) {
		b.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(b *testing.B) {
			sc, err := resolve.Load(file)
			if err != nil {
				b.Fatal(err)
			}
			if cut > 0 {
				sc.Stop.At = cut
			}
			b.ReportAllocs()
			var events, hops, simNs int64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				net, err := assembly.Build(sc)
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC() // the build's garbage, as lfsim bench drops it
				b.StartTimer()
				sum := net.Run(nil).Summary
				events += int64(sum.Events)
				hops += sum.PacketHops
				simNs += sum.SimTimeNs
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(events)/sec, "events/s")
			b.ReportMetric(float64(hops)/sec, "packet-hops/s")
			b.ReportMetric(float64(simNs)/1e6/sec, "sim-ms/s")
			b.ReportMetric(float64(hops)/float64(b.N), "packet-hops/op")
		})
	}
}

// TestSuiteScenariosRun: every suite scenario builds and moves packets
// in its first 20 µs, so that BenchmarkSuite and lfsim bench, which no
// test runs, cannot rot unnoticed.
func TestSuiteScenariosRun(t *testing.T) {
	for _, file := range suite(t) {
		sc, err := resolve.Load(file)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		sc.Stop.At = 20 * sim.Microsecond
		net, err := assembly.Build(sc)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if sum := net.Run(nil).Summary; sum.PacketHops == 0 || sum.Events == 0 {
			t.Errorf("%s: %d events, %d packet-hops in 20 µs; want some of each", file, sum.Events, sum.PacketHops)
		}
	}
}
