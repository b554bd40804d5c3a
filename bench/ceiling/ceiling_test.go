package ceiling

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// permutation is the suite's k=16 permutation
// (scenarios/bench/fattree-k16-permutation.yaml) at another k, with egress
// FIFOs, the queueing the kernel has.
func permutation(t testing.TB, k int) *resolve.Scenario {
	t.Helper()
	src := fmt.Sprintf(`name: k%d-permutation
stop: {at: 20ms, when: flows-done}
topology: {kind: fat-tree, k: %d, link: {rate: 100Gbps, delay: 1us}}
switch: {egress_fifo: true}
observe: {interval: 100us, queues: none, flows: none, links: none}
traffic:
  - permutation: {hosts: all, size: 8MB}
`, k, k)
	sc, err := resolve.Parse(fmt.Sprintf("k%d.yaml", k), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestAgainstLfsim holds the kernel to lfsim on the same file: the same
// flows over the same fabric must cross as many links (data and ACK
// packet-hops are fixed by the flows' paths' lengths and the ACK
// coalescing; PFC frames differ with the ECMP choices, which hash other
// UDP source ports) and take about as long (ECMP collisions differ, and
// the kernel leaves out the NIC's transmit side, so the time is held
// loosely).
func TestAgainstLfsim(t *testing.T) {
	sc := permutation(t, 4)
	n, err := assembly.Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := n.Run(nil).Summary
	if want.StopReason != "flows-done" {
		t.Fatalf("lfsim stopped for %s", want.StopReason)
	}
	k, err := New(permutation(t, 4))
	if err != nil {
		t.Fatal(err)
	}
	got := k.Run(sim.Never)
	if !k.Completed() {
		t.Fatal("the kernel's flows did not all complete")
	}
	if d := math.Abs(float64(got.PacketHops)/float64(want.PacketHops) - 1); d > 0.02 {
		t.Errorf("packet-hops: kernel %d, lfsim %d (%.1f%% apart, want within 2%%)", got.PacketHops, want.PacketHops, 100*d)
	}
	lfsimEnd := sim.Time(want.SimTimeNs) * sim.Nanosecond
	if d := math.Abs(float64(got.Simulated)/float64(lfsimEnd) - 1); d > 0.25 {
		t.Errorf("completion: kernel %v, lfsim %v (%.0f%% apart, want within 25%%)", got.Simulated, lfsimEnd, 100*d)
	}
	// Three events a hop in both.
	if r := float64(got.Events) / float64(got.PacketHops); r < 2.95 || r > 3.05 {
		t.Errorf("kernel: %.2f events per packet-hop, want 3", r)
	}
	t.Logf("kernel: %d hops, %d events, %v; lfsim: %d hops, %d events, %v",
		got.PacketHops, got.Events, got.Simulated, want.PacketHops, want.Events, lfsimEnd)
}

// TestLayout pins the record sizes the package comment and
// docs/PERFORMANCE.md's fifth round state.
func TestLayout(t *testing.T) {
	for _, c := range []struct {
		what       string
		got, bytes uintptr
	}{
		{"packet", unsafe.Sizeof(packet{}), 32},
		{"port", unsafe.Sizeof(port{}), 64},
		{"event", unsafe.Sizeof(item{}), 16},
	} {
		if c.got != c.bytes {
			t.Errorf("a %s is %d bytes, want %d", c.what, c.got, c.bytes)
		}
	}
}

// TestRefuses checks that what the kernel does not model is refused, not
// run wrongly.
func TestRefuses(t *testing.T) {
	for _, extra := range []string{
		"hca: {cc: dcqcn}\n",
		"switch: {pfc: {xoff: {alpha: 0.125}, xon: {offset: 8KiB}}}\n",
		"switch: {forwarding: cut-through}\n",
	} {
		src := "topology: {kind: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}\n" + extra +
			"traffic:\n  - incast: {to: h2, from: [h0, h1], op: write, size: 64KiB}\n"
		sc, err := resolve.Parse("refuse.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", extra, err)
		}
		if _, err := New(sc); err == nil {
			t.Errorf("%q: accepted", extra)
		}
	}
}

// BenchmarkCeiling runs the kernel on the suite's permutation at k=8 and
// at k=16 (LFSIM_SLOW=1: 1,024 hosts, about 1.5 s a run) and reports
// packet-hops per second, the suite's measure.
func BenchmarkCeiling(b *testing.B) {
	ks := []int{8}
	if os.Getenv("LFSIM_SLOW") != "" {
		ks = append(ks, 16)
	}
	for _, k := range ks {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			last := runKernel(b, permutation(b, k), sim.Never)
			b.ReportMetric(float64(last.Simulated)/float64(sim.Microsecond), "simulated-us")
			b.ReportMetric(float64(last.MaxQueued), "max-queued")
		})
	}
}

// BenchmarkCeilingBusy runs the kernel on the k=16 fabric with 256, 512
// and 1024 busy hosts (scenarios/bench/diag/k16-busy-N.yaml, with egress
// FIFOs, the queueing the kernel has; LFSIM_SLOW=1, about 15 s) and
// reports packet-hops per second: the curve `lfsim bench --dir
// scenarios/bench/diag` gives for lfsim, from a layout whose state is a
// few times smaller (docs/PERFORMANCE.md, ninth round).
func BenchmarkCeilingBusy(b *testing.B) {
	if os.Getenv("LFSIM_SLOW") == "" {
		b.Skip("slow: set LFSIM_SLOW=1")
	}
	for _, n := range []int{128, 256, 512, 1024} {
		b.Run(fmt.Sprintf("busy=%d", n), func(b *testing.B) {
			sc, err := resolve.Load(filepath.Join("..", "diag", fmt.Sprintf("k16-busy-%d.yaml", n)))
			if err != nil {
				b.Fatal(err)
			}
			sc.Switch.EgressFIFO = true
			runKernel(b, sc, sc.Stop.At)
		})
	}
}

// runKernel runs the kernel on sc until until, once per benchmark
// iteration (the network's build untimed), reports packet-hops per
// second and returns the last run's result.
func runKernel(b *testing.B, sc *resolve.Scenario, until sim.Time) Result {
	var hops int64
	var last Result
	for b.Loop() {
		b.StopTimer()
		s, err := New(sc)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		last = s.Run(until)
		hops += last.PacketHops
	}
	b.ReportMetric(float64(hops)/b.Elapsed().Seconds(), "packet-hops/s")
	return last
}
