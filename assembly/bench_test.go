package assembly

import (
	"testing"

	"github.com/lfsim/lfsim/scenario"
)

// benchmarkExample runs an example scenario per iteration and reports the
// simulator's speed as DESIGN.md measures it: packet-hops (a frame crossing
// one link) and events per wall second.
func benchmarkExample(b *testing.B, name string) {
	sc, err := LoadExample(name)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var hops, events int64
	for i := 0; i < b.N; i++ {
		n, err := Build(sc)
		if err != nil {
			b.Fatal(err)
		}
		sum := n.Run(nil).Summary
		hops += sum.PacketHops
		events += int64(sum.Events)
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(hops)/sec, "packet-hops/s")
	b.ReportMetric(float64(events)/sec, "events/s")
	b.ReportMetric(float64(hops)/float64(b.N), "packet-hops/op")
}

// BenchmarkRunIncast8to1 is the default scenario: 8 × 4 MiB into one port.
func BenchmarkRunIncast8to1(b *testing.B) { benchmarkExample(b, scenario.DefaultExample) }

// BenchmarkRunFatTreeK4AllToAll has 56 flows over 36 switches' worth of
// ECMP paths.
func BenchmarkRunFatTreeK4AllToAll(b *testing.B) { benchmarkExample(b, "fat-tree-k4-all-to-all") }

// BenchmarkRunLeafSpinePermutation crosses 400 Gb/s fabric links.
func BenchmarkRunLeafSpinePermutation(b *testing.B) { benchmarkExample(b, "leaf-spine-permutation") }
