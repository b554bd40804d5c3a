package assembly

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lfsim/lfsim/sim"
)

// heapNow is the live heap after a collection, in bytes.
func heapNow() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc)
}

// TestMemoryEstimate: the estimate is within 40% of the heap a scenario
// takes to parse and build, or to run 30 µs (the more of the two), over a calibration set where each
// term leads in turn: routing tables and switch ports (fat trees), one
// switch of many ports (its egress FIFOs), many flows. The per-unit
// costs in memory.go were measured this way; a change to the models'
// structures that moves them fails here until they are measured again.
func TestMemoryEstimate(t *testing.T) {
	for _, src := range []string{
		"topology: {kind: fat-tree, k: 8}\ntraffic:\n  - permutation: {size: 1MiB}\n",
		"topology: {kind: fat-tree, k: 16}\ntraffic:\n  - permutation: {size: 1MiB}\n",
		"topology: {kind: fat-tree, k: 16}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1MiB}\n",
		"topology: {kind: leaf-spine, leaves: 32, spines: 16, hosts_per_leaf: 16}\ntraffic:\n  - permutation: {size: 1MiB}\n",
		"topology: {kind: star, hosts: 400}\nswitch: {buffer: 1GiB}\ntraffic:\n  - permutation: {size: 1MiB}\n",
		"topology: {kind: star, hosts: 150}\nswitch: {buffer: 1GiB}\ntraffic:\n  - all_to_all: {size: 1KiB}\n",
	} {
		before := heapNow()
		sc, err := Parse("m.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		n, err := Build(sc)
		if err != nil {
			t.Fatal(err)
		}
		built := heapNow() - before
		n.Scenario.Stop.At = 30 * sim.Microsecond
		n.Run(nil)
		used := max(built, heapNow()-before) // flows that finish let go of their QPs
		runtime.KeepAlive(n)
		est := float64(sc.MemoryEstimate)
		name := strings.ReplaceAll(src[:min(len(src), 60)], "\n", " ")
		t.Logf("%s: estimate %.1f MiB, measured %.1f MiB", name, est/(1<<20), used/(1<<20))
		if est < used/1.4 || est > used*1.4 {
			t.Errorf("%s: estimate %.1f MiB, measured %.1f MiB: more than 40%% apart", name, est/(1<<20), used/(1<<20))
		}
	}
}

// TestMemoryLimitRefusesEarly: a scenario over the memory limit is
// refused at the key that drives it, with the estimate, before what would
// not fit is made: a k=64 fat tree (3.6 GiB of routing tables, ports and
// FIFOs) is refused in well under the seconds and gigabytes its routes
// take, and an all-to-all's flows at its generator.
func TestMemoryLimitRefusesEarly(t *testing.T) {
	SetMemoryLimit(1 << 30)
	defer SetMemoryLimit(0)
	for _, c := range []struct{ src, want string }{
		{"topology: {kind: fat-tree, k: 64}\ntraffic:\n  - permutation: {size: 1MiB}\n",
			"m.yaml:1:31: topology.k: this topology needs about 3.6 GiB (2.7 GiB routing tables (5120 switches × 65536 hosts)"},
		{"topology: {kind: star, hosts: 1000}\nswitch: {buffer: 1GiB}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB}\n  - all_to_all: {size: 1KiB}\n",
			"m.yaml:5:5: traffic[1].all_to_all: with this generator's flows the scenario needs about 2.7 GiB (2.6 GiB flows (999001)"},
		{"topology: {kind: star, hosts: 64}\ntraffic:\n  - poisson: {load: 90%, sizes: 1000, until: 10s}\n",
			"m.yaml:3:5: traffic[0].poisson: with this generator's flows the scenario needs about"},
	} {
		start, before := time.Now(), heapNow()
		_, err := Parse("m.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "over the memory limit of 1.0 GiB") {
			t.Errorf("got %v\nwant %s", err, c.want)
		}
		if d, m := time.Since(start), heapNow()-before; d > 2*time.Second || m > 200<<20 {
			t.Errorf("%.40q: refused after %v and %.0f MiB", c.src, d, m/(1<<20))
		}
	}
	if _, err := LoadExample("incast-8to1"); err != nil {
		t.Errorf("an example under the limit: %v", err)
	}
}
