package collective

import "testing"

// TestTune: NCCL's choice of protocol by size for a ring all-reduce over
// 8 single-GPU nodes of 100 Gb/s NICs (12.25 GB/s of goodput, 2
// channels), worked by hand from tuning.cc's tables (Hopper, Intel):
// LL: bw min(20.4, 6.1)·8/14 = 3.5 GB/s, latency 6.6 + 14·5.0 = 76.6 µs;
// LL128: min(11.3, 73.4)·8/14 = 6.44 GB/s, 14 + 14·8.5 = 133 µs;
// Simple: 12.25·8/14 = 7 GB/s, (8.4 + 14·14)·1.4 = 286.2 µs. LL wins
// below 432 KB (where LL128's bandwidth pays for its 56.4 µs more
// latency), LL128 below 12.3 MB, Simple beyond.
func TestTune(t *testing.T) {
	m := Model{Ranks: 8, Nodes: 8, Channels: 2, BusBw: 12.25}
	for _, c := range []struct {
		size int64
		want Protocol
	}{
		{1 << 10, LL}, {64 << 10, LL}, {256 << 10, LL}, {512 << 10, LL128}, {1 << 20, LL128},
		{8 << 20, LL128}, {16 << 20, Simple}, {64 << 20, Simple}, {1 << 30, Simple},
	} {
		if got := m.Tune(AllReduce, Ring, c.size); got != c.want {
			t.Errorf("%d bytes: %s (LL %.1f, LL128 %.1f, Simple %.1f µs), want %s", c.size, got,
				m.Predict(AllReduce, Ring, LL, c.size), m.Predict(AllReduce, Ring, LL128, c.size), m.Predict(AllReduce, Ring, Simple, c.size), c.want)
		}
	}
	want := 76.6 + float64(1<<20)/(1000*min(20.4, 12.25*0.5)*8/14)
	if got := m.Predict(AllReduce, Ring, LL, 1<<20); got < want-0.01 || got > want+0.01 {
		t.Errorf("LL at 1 MiB: %.3f µs, want %.3f", got, want)
	}
}
