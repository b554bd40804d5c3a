package assembly

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
)

// heapNow is the live heap after a collection, in bytes.
func heapNow() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc)
}

// TestMemoryEstimate: the estimate is within 25% of the heap a scenario
// takes to parse, build and run 100 µs (the more of the two, with the
// results held; the estimate less its garbage, memGarbage), over a
// calibration set where each term leads in turn: routing tables and
// switch ports (fat trees, Ethernet and InfiniBand, with LMC 0, 2 and
// 7), one switch of many ports (its egress FIFOs), many flows of each
// transport (RC, UD over rdma_cm, iWARP's TCP, a hundred work requests
// each), a multicast group, lash's lanes. The per-unit costs in
// memory.go were measured on the structures; a change to the models'
// structures that moves them fails here until they are measured again.
// Without LMC's forwarding tables streamed to lfts.txt, LMC 7 on k=8
// held 85 MB more than its estimate; without the transports' own
// costs, iWARP's flows were 4 times theirs; without the collectives'
// connections, an all_to_all of 61,440 QPs was estimated at 0.2 MiB.
func TestMemoryEstimate(t *testing.T) {
	const ib = "switch: {link_layer: infiniband}\n"
	star := "topology: {kind: star, hosts: 64}\ntraffic:\n  - flow: {from: h0, to: h1, count: 2000"
	for _, c := range []struct {
		src   string
		short bool // in -short mode too
	}{
		{"topology: {kind: fat-tree, k: 8}\ntraffic:\n  - permutation: {size: 8MiB}\n", true},
		{"topology: {kind: fat-tree, k: 12}\ntraffic:\n  - permutation: {size: 8MiB}\n", true},
		{"topology: {kind: fat-tree, k: 16}\ntraffic:\n  - permutation: {size: 8MiB}\n", false},
		{"topology: {kind: fat-tree, k: 8}\n" + ib + "traffic:\n  - permutation: {size: 8MiB}\n", true},
		{"topology: {kind: fat-tree, k: 8}\n" + ib + "subnet_manager: {lmc: 7}\ntraffic:\n  - permutation: {size: 8MiB}\n", true},
		{"topology: {kind: fat-tree, k: 16}\n" + ib + "subnet_manager: {lmc: 2}\ntraffic:\n  - permutation: {size: 8MiB}\n", false},
		{"topology: {kind: fat-tree, k: 8}\n" + ib + "subnet_manager: {routing: lash}\ntraffic:\n  - permutation: {size: 8MiB}\n", true},
		{"topology: {kind: leaf-spine, leaves: 32, spines: 16, hosts_per_leaf: 16}\ntraffic:\n  - permutation: {size: 8MiB}\n", false},
		{"topology: {kind: star, hosts: 400}\nswitch: {buffer: 1GiB}\ntraffic:\n  - permutation: {size: 8MiB}\n", true},
		{"topology: {kind: star, hosts: 150}\nswitch: {buffer: 1GiB}\ntraffic:\n  - all_to_all: {size: 1KiB}\n", true},
		{star + ", size: 1GiB}\n", true},
		{star + ", qp: ud, op: send, size: 4KiB, connect: cm}\n", true},
		{star + ", size: 1GiB, messages: 100}\n", true},
		{"hca: {transport: iwarp}\n" + star + ", size: 1GiB}\n", true},
		{"topology: {kind: fat-tree, k: 8}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB}\n  - mckey: {sender: h0, receivers: all, count: 100, size: 1KiB, settle: 1us}\n", true},
		// Collectives: their connections' QPs (resolve/memory_collective.go).
		{"topology: {kind: star, hosts: 16}\ntraffic:\n  - collective: {op: all_to_all, size: 1MiB, channels: 16, qps: 4}\n", true},
		{"topology: {kind: star, hosts: 32}\ntraffic:\n  - collective: {op: all_reduce, algorithm: tree, size: 1MiB, channels: 32, qps: 8}\n", true},
		{"topology: {kind: rail-optimized, servers: 8, gpus_per_server: 4, spines: 2}\ntraffic:\n  - collective: {op: all_to_all, size: 1MiB, channels: 8, qps: 4}\n", true},
	} {
		if testing.Short() && !c.short {
			continue
		}
		name := strings.ReplaceAll(c.src[:min(len(c.src), 90)], "\n", " ")
		before := heapNow()
		sc, err := resolve.Parse("m.yaml", []byte("stop: {at: 100us}\n"+c.src))
		if err != nil {
			t.Fatal(err)
		}
		n, err := Build(sc)
		if err != nil {
			t.Fatal(err)
		}
		built := heapNow() - before
		res := n.Run(nil)
		used := max(built, heapNow()-before) // flows that finish let go of their QPs
		runtime.KeepAlive(n)
		runtime.KeepAlive(res)
		est := float64(sc.MemoryEstimate) / (1 + resolve.MemGarbage)
		t.Logf("%s: estimate %.2f MiB live, measured %.2f MiB", name, est/(1<<20), used/(1<<20))
		if est < used/1.25 || est > used*1.25 {
			t.Errorf("%s: estimate %.2f MiB live, measured %.2f MiB: more than 25%% apart", name, est/(1<<20), used/(1<<20))
		}
	}
}

// TestMemoryLimitRefusesEarly: a scenario over the memory limit is
// refused at the key that drives it, with the estimate, before what would
// not fit is made: a k=64 fat tree (3.2 GiB of routing tables while
// they are built) is refused in well under the seconds and gigabytes its
// routes take, and an all-to-all's flows at its generator.
func TestMemoryLimitRefusesEarly(t *testing.T) {
	resolve.SetMemoryLimit(1 << 30)
	defer resolve.SetMemoryLimit(0)
	for _, c := range []struct{ src, want string }{
		{"topology: {kind: fat-tree, k: 64}\ntraffic:\n  - permutation: {size: 1MiB}\n",
			"m.yaml:1:31: topology.k: this topology needs about 3.5 GiB (3.2 GiB ecmp routing tables while they are built (5120 switches × 65536 hosts)"},
		{"topology: {kind: star, hosts: 1000}\nswitch: {buffer: 1GiB}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB}\n  - all_to_all: {size: 1KiB}\n",
			"m.yaml:5:5: traffic[1].all_to_all: with this generator's flows the scenario needs about 3.1 GiB (2.7 GiB flows (999001)"},
		{"topology: {kind: star, hosts: 64}\ntraffic:\n  - poisson: {load: 90%, sizes: 1000, until: 10s}\n",
			"m.yaml:3:5: traffic[0].poisson: with this generator's flows the scenario needs about"},
		{"topology: {kind: star, hosts: 64}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB}\n  - collective: {op: all_to_all, size: 1MiB, channels: 16, qps: 16}\n",
			"m.yaml:4:5: traffic[1].collective: with this collective's connections the scenario needs about 2.4 GiB (2.2 GiB collectives' connections (64512 network links, 2064384 QPs)"},
		{"topology: {kind: star, hosts: 64}\ntraffic:\n  - nccl_tests: {op: all_to_all, channels: 16, qps: 16}\n",
			"m.yaml:3:5: traffic[0].nccl_tests: with this nccl_tests's connections"},
	} {
		start, before := time.Now(), heapNow()
		_, err := resolve.Parse("m.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "over the memory limit of 1.0 GiB") {
			t.Errorf("got %v\nwant %s", err, c.want)
		}
		if d, m := time.Since(start), heapNow()-before; d > 2*time.Second || m > 200<<20 {
			t.Errorf("%.40q: refused after %v and %.0f MiB", c.src, d, m/(1<<20))
		}
	}
	if _, err := resolve.LoadExample("incast-8to1"); err != nil {
		t.Errorf("an example under the limit: %v", err)
	}
}

// TestLMCHoldsNoTables: with LMC 7 a k=8 fat tree's forwarding tables
// in lfts.txt have 80 switches × 128 hosts × 128 LIDs lines (85 MB),
// but a switch's port for each LID is worked out from the entry's
// candidates (Routes.LFTPort), not held, and the dump is written as it
// is made: running and writing the results of LMC 7 allocates at most
// 8 MiB more than LMC 0, and the estimate is the same. The dump had
// been made whole, by append, in the results: 280 MB more allocated,
// the run's peak resident memory from 25 MB to 280 MB, while the
// estimate said 2.6 MiB, so --max-memory could not protect.
func TestLMCHoldsNoTables(t *testing.T) {
	run := func(lmc int) (alloc uint64, estimate int64, dump int64) {
		src := fmt.Sprintf("stop: {at: 5us}\ntopology: {kind: fat-tree, k: 8}\nswitch: {link_layer: infiniband}\nsubnet_manager: {lmc: %d}\ntraffic:\n  - permutation: {size: 8MiB}\n", lmc)
		sc, err := resolve.Parse("lmc.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		n, err := Build(sc)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		runtime.GC()
		before := allocated()
		if err := reports.WriteRunFiles(dir, n.Run(nil)); err != nil {
			t.Fatal(err)
		}
		alloc = allocated() - before
		fi, err := os.Stat(filepath.Join(dir, "lfts.txt"))
		if err != nil {
			t.Fatal(err)
		}
		return alloc, sc.MemoryEstimate, fi.Size()
	}
	a0, e0, d0 := run(0)
	a7, e7, d7 := run(7)
	t.Logf("LMC 0: %d MiB allocated, lfts.txt %d bytes; LMC 7: %d MiB, %d bytes; estimates %d, %d", a0>>20, d0, a7>>20, d7, e0, e7)
	// 80 switches × (128 hosts × 128 LIDs + their own 128) lines of 60
	// bytes at least ("0x0002 001 # Channel Adapter portguid 0x...: 'h0'").
	if min := int64(80 * (128*128 + 128) * 60); d7 < min {
		t.Errorf("lfts.txt with LMC 7 has %d bytes; want at least %d", d7, min)
	}
	if a7 > a0+8<<20 {
		t.Errorf("LMC 7 allocated %d MiB running and writing, LMC 0 %d MiB: its forwarding tables are held", a7>>20, a0>>20)
	}
	if e7 != e0 {
		t.Errorf("estimates: LMC 7 %d, LMC 0 %d", e7, e0)
	}
}
