package assembly

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The many-core forecast (issue 50; docs/PERFORMANCE.md, "Many cores:
// the forecast"): issue 31's prediction (parallel_test.go) counted
// events and took every event to cost the same at any number of
// workers. The forecast prices a window instead, with costs measured on
// this machine and a target machine's cache and memory stated as
// assumptions:
//
//	T(P) = Σ_windows busiest(P)·ev(P) + windows·barrier(P)
//	       + cut(P)/P·handOver + serial
//
// where busiest(P) is the busiest partition's events in a window (the
// traced one-worker run), ev(P) an event's cost when a worker's share
// of the last-level cache holds 1/P of the fabric, and serial the work
// no partition owns (the events at no node, and the observation points'
// merge and detector when observation is on). The speedup is T(1)/T(P),
// and the bandwidth the P workers' misses ask for caps it. Each bound
// (low, high) takes the pessimistic or optimistic end of every range.
type costModel struct {
	name string
	// hopNs: a packet-hop's CPU time on one worker by the fabric's hosts
	// (the 1 MB permutations at k=8, 16, 32, GOGC=off GOMAXPROCS=1,
	// perf stat task-clock of two stop times differenced, medians of 5
	// on this machine); eventNs interpolates it in log2 of the hosts
	// (interpLog2), flat beyond the ends.
	hopNs map[float64]float64
	// share is the part of the fabric whose working set competes for
	// the caches that set a worker's hop cost, at p workers: 1/p when
	// those caches are private (the L2, the TLB: the high bound), or
	// the CCD's workers' partitions together, min(p,8)/p, when the cost
	// is the shared L3's (the low bound).
	share func(p int) float64
	// eventsPerHop: 2.96-3.01 in every cachegrind window.
	eventsPerHop float64
	// barrierNs: one window's fork and join at 2 workers
	// (sim.BenchmarkGroupWindow parts-2/workers-2); barrierLinear: it
	// grows as p/2 (low) rather than log2 p (high); see barrierAt.
	barrierNs     float64
	barrierLinear bool
	// handOverNs: a frame handed over between partitions, on the
	// receiver (sim.BenchmarkEngineHandOver less BenchmarkEngineLanes,
	// plus, in the low bound, the frame's lines moved between cores).
	handOverNs float64
	// llMiB is the whole fabric's equivalent last-level cache at p
	// workers (a CCD's 32 MiB holds its workers' partitions), for the
	// misses a hop (llMisses) that make the memory traffic.
	llMiB func(p int) float64
	// bandwidthGBs: the memory bandwidth the workers share;
	// bytesPerMiss the traffic a miss makes (64, or 128 with a dirty
	// line written back).
	bandwidthGBs, bytesPerMiss float64
	// serialShare: the work left on the observation point's goroutine,
	// as a share of one worker's run (0 with observation off).
	serialShare float64
}

// llMisses is last-level misses a packet-hop by k and LL size (MiB),
// cachegrind --cache-sim=yes --LL=size,16,64 over the window 20-40 µs of
// the 1 MB permutations (docs/PERFORMANCE.md, "Many cores: the
// forecast"; k=32 at 8 MiB from "A hop's cost against the fabric's
// size"). Beyond the largest size measured the misses are held, which
// overstates the bandwidth the workers ask for.
var llMisses = map[int]map[float64]float64{
	16: {8: 4.57, 32: 0.13},
	32: {8: 29.5, 32: 17.63, 64: 4.54, 128: 0.75},
}

// interpLog2 interpolates row in log2 of x, flat beyond its ends.
func interpLog2(row map[float64]float64, x float64) float64 {
	var xs []float64
	for s := range row {
		xs = append(xs, s)
	}
	slices.Sort(xs)
	if x <= xs[0] {
		return row[xs[0]]
	}
	for i := 1; i < len(xs); i++ {
		if x <= xs[i] {
			a, b := xs[i-1], xs[i]
			f := (math.Log2(x) - math.Log2(a)) / (math.Log2(b) - math.Log2(a))
			return row[a] + f*(row[b]-row[a])
		}
	}
	return row[xs[len(xs)-1]]
}

// barrierAt is a window's fork and join at p workers: runWindow starts
// the workers from the caller and waits on a central counter (a
// goroutine a worker and a sync.WaitGroup when measured; sim/crew.go's
// workers kept between windows now), so the high bound takes it to grow as log2 p
// (the wake-ups overlap) and the low bound as p/2 (they do not).
func (m costModel) barrierAt(p int) float64 {
	if p == 1 {
		return 0
	}
	if m.barrierLinear {
		return m.barrierNs * float64(p) / 2
	}
	return m.barrierNs * math.Log2(float64(p))
}

// eventNs is an event's cost in a k-ary fat tree's partition at p
// workers, before the bandwidth cap.
func (m costModel) eventNs(k, p int) float64 {
	hosts := float64(k * k * k / 4)
	return interpLog2(m.hopNs, hosts*m.share(p)) / m.eventsPerHop
}

// forecast is the speedup at workerCounts[i] workers of a plan of the
// k-ary fabric, and the memory bandwidth its workers ask for (GB/s).
func (m costModel) forecast(plan parallelPlan, k, i int) (speedup, demandGBs float64) {
	p := workerCounts[i]
	one := float64(plan.events) * m.eventNs(k, 1)
	ev := m.eventNs(k, p)
	demandGBs = float64(p) * interpLog2(llMisses[k], m.llMiB(p)) * m.bytesPerMiss / (ev * m.eventsPerHop)
	if demandGBs > m.bandwidthGBs { // a hop waits for the bandwidth
		ev *= demandGBs / m.bandwidthGBs
	}
	t := float64(plan.busiest[i])*ev + float64(plan.unplaced)*m.eventNs(k, 1) +
		float64(plan.windows)*m.barrierAt(p) + m.serialShare*one
	if p > 1 {
		t += float64(plan.cut[i]) / float64(p) * m.handOverNs
	}
	return (one + m.serialShare*one) / t, demandGBs
}

// BenchmarkParallelForecast: issue 31's traced plans (the k=16
// permutation's first millisecond; k=32's first 300 µs with
// LFSIM_SLOW=1) priced by the forecast's floor, low and high models, on
// the target machine with observation off and with the default
// observe's serial share (-obs), and on this machine at 2 workers
// (here-low-2, here-high-2: the check against the measured run).
// Metrics: busiest-ev/win-P and cut/win-P, the plan's per-window work;
// floor-P, low-P and high-P, the speedups; -GB/s-P, the memory
// bandwidth the workers ask for.
func BenchmarkParallelForecast(b *testing.B) {
	for _, c := range []struct {
		k    int
		stop string
	}{{16, "1ms"}, {32, "300us"}} {
		if c.k == 32 && os.Getenv("LFSIM_SLOW") == "" {
			continue
		}
		b.Run(fmt.Sprintf("k%d", c.k), func(b *testing.B) {
			var plan parallelPlan
			for b.Loop() {
				plan = planParallel(b, c.k, c.stop)
			}
			w := float64(plan.windows)
			for i, p := range workerCounts {
				b.ReportMetric(float64(plan.busiest[i])/w, fmt.Sprintf("busiest-ev/win-%d", p))
				if p > 1 {
					b.ReportMetric(float64(plan.cut[i])/w, fmt.Sprintf("cut/win-%d", p))
				}
			}
			b.ReportMetric(float64(plan.unplaced)/float64(plan.events), "unplaced-share")
			for _, m := range forecastModels() {
				for i, p := range workerCounts {
					if p == 1 || (strings.HasPrefix(m.name, "here") && p != 2) {
						continue
					}
					s, bw := m.forecast(plan, c.k, i)
					b.ReportMetric(s, fmt.Sprintf("%s-%d", m.name, p))
					if m.name == "low" || m.name == "high" || m.name == "floor" {
						b.ReportMetric(bw, fmt.Sprintf("%s-GB/s-%d", m.name, p))
					}
				}
			}
		})
	}
}

// forecastModels are the bounds on the target, an assumed 32-core EPYC
// with 32 MiB of L3 a CCD of 8 cores and 150-200 GB/s (low, high; -obs
// with the default observe's serial share; floor, the low bound with no
// event made cheaper by a smaller partition), and on this machine at 2
// workers (here-low, here-high: its 2 cores share one L3). The numbers
// are docs/PERFORMANCE.md's, "Many cores: the forecast".
func forecastModels() []costModel {
	hop := map[float64]float64{128: 271, 1024: 556, 8192: 1358}
	ccd := func(p int) float64 { return float64(min(p, 8)) / float64(p) }
	private := func(p int) float64 { return 1 / float64(p) }
	ll := func(p int) float64 { return 32 * math.Ceil(float64(p)/8) }
	low := costModel{name: "low", hopNs: hop, share: ccd, eventsPerHop: 3,
		barrierNs: 2400, barrierLinear: true, handOverNs: 200, llMiB: ll,
		bandwidthGBs: 150, bytesPerMiss: 128}
	high := costModel{name: "high", hopNs: hop, share: private, eventsPerHop: 3,
		barrierNs: 1200, handOverNs: 12, llMiB: ll,
		bandwidthGBs: 200, bytesPerMiss: 64}
	floor := low
	floor.name, floor.share = "floor", func(int) float64 { return 1 }
	lowObs, highObs, floorObs := low, high, floor
	lowObs.name, lowObs.serialShare = "low-obs", 0.025
	highObs.name, highObs.serialShare = "high-obs", 0.022
	floorObs.name, floorObs.serialShare = "floor-obs", 0.025
	hereLow, hereHigh := low, high
	hereLow.name, hereLow.share, hereLow.bandwidthGBs = "here-low", func(int) float64 { return 1 }, 4
	hereHigh.name, hereHigh.bandwidthGBs = "here-high", 10
	return []costModel{low, high, floor, lowObs, highObs, floorObs, hereLow, hereHigh}
}

// triad is STREAM's triad, a[i] = b[i] + s·c[i], over arrays far larger
// than the last-level cache.
var triad struct {
	once    sync.Once
	a, b, c []float64
}

// BenchmarkMemoryBandwidth is the forecast's memory bandwidth: STREAM's
// triad over three arrays of 64 MiB (twice this machine's 32 MiB L3
// each) by 1 and 2 goroutines, each its half; GB/s counts 24 bytes an
// element as STREAM does (a write-allocate's read of a is not counted).
func BenchmarkMemoryBandwidth(b *testing.B) {
	const n = 8 << 20
	triad.once.Do(func() {
		triad.a, triad.b, triad.c = make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range triad.b {
			triad.b[i], triad.c[i] = float64(i), float64(n-i)
		}
	})
	for _, g := range []int{1, 2} {
		b.Run(fmt.Sprintf("goroutines-%d", g), func(b *testing.B) {
			for b.Loop() {
				var wg sync.WaitGroup
				for w := 0; w < g; w++ {
					wg.Add(1)
					go func(lo, hi int) {
						defer wg.Done()
						a, bb, c := triad.a[lo:hi], triad.b[lo:hi], triad.c[lo:hi]
						for i := range a {
							a[i] = bb[i] + 3*c[i]
						}
					}(w*n/g, (w+1)*n/g)
				}
				wg.Wait()
			}
			b.ReportMetric(24*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// TestForecastModel: on a plan whose load divides evenly, with no
// barrier, hand-over or serial work and a hop that costs the same at any
// size, the forecast is P exactly (Amdahl with nothing serial); a
// serial share s gives (1+s)/(1/P+s); the low bounds stay at or below
// the high ones on the k=16 plan's shape (busiest and cut per window as
// BenchmarkParallelForecast measured them, docs/PERFORMANCE.md).
func TestForecastModel(t *testing.T) {
	const events, windows = 21_120_000, 1000 // events divisible by 32
	plan := parallelPlan{events: events, windows: windows}
	for _, p := range workerCounts {
		plan.busiest = append(plan.busiest, events/int64(p))
		plan.cut = append(plan.cut, 0)
	}
	flat := costModel{hopNs: map[float64]float64{1: 555}, share: func(p int) float64 { return 1 / float64(p) },
		eventsPerHop: 3, llMiB: func(int) float64 { return 32 }, bandwidthGBs: 200, bytesPerMiss: 64}
	for i, p := range workerCounts {
		for _, s := range []float64{0, 0.025} {
			m := flat
			m.serialShare = s
			got, _ := m.forecast(plan, 16, i)
			want := (1 + s) / (1/float64(p) + s)
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("%d workers, serial %.3f: %.6f, want %.6f", p, s, got, want)
			}
		}
	}
	// k=16's measured shape: busiest and cut frames a window.
	busiest := []int64{21151, 10688, 5425, 2787, 1442, 776}
	cut := []int64{0, 1141, 1687, 1950, 2074, 3364}
	for i := range workerCounts {
		plan.busiest[i], plan.cut[i] = busiest[i]*windows, cut[i]*windows
	}
	ms := forecastModels()
	for i, p := range workerCounts[1:] {
		lo, _ := ms[0].forecast(plan, 16, i+1)
		hi, _ := ms[1].forecast(plan, 16, i+1)
		if lo > hi || lo < 1 {
			t.Errorf("%d workers: low %.2f, high %.2f", p, lo, hi)
		}
	}
}
