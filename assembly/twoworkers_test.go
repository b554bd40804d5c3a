package assembly

import (
	"fmt"
	"io/fs"
	"os"
	"slices"
	"testing"
	"unsafe"

	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenarios"
	"github.com/lfsim/lfsim/sim"
)

// hpcc-320 on two workers (issue 50; docs/PERFORMANCE.md, "hpcc-320 on
// two workers"): the forecast's accounting (forecast_test.go) of a
// traced one-worker run, with the partitions the run really uses
// (planPartitions) instead of a generated fat tree's units.

// nodeTrace is a one-worker run's events by window (of the lookahead)
// and node, and the packets each directed link sent.
type nodeTrace struct {
	counts   [][]int32 // [window][node]
	events   int64
	unplaced int64 // events at no node (the flow generators, the observers)
	// links: each directed link's ends and packets sent.
	linkFrom, linkTo []int
	linkPackets      []int64
}

// traceNodes runs n (one engine) to its stop, counting each event at
// the node whose port, HCA or switch it targets.
func traceNodes(tb testing.TB, n *Network) nodeTrace {
	t := n.Scenario.Topology
	owner := eventOwners(n) // lookups only
	window := n.Eng.Lookahead()
	if window <= 0 {
		tb.Fatal("no lookahead: the run would not be cut")
	}
	var tr nodeTrace
	n.Eng.SetTrace(func(at sim.Time, target unsafe.Pointer, h sim.Handler) {
		w := int(at / window)
		for len(tr.counts) <= w {
			tr.counts = append(tr.counts, make([]int32, len(t.Nodes)))
		}
		tr.events++
		p := uintptr(target)
		if target == nil {
			type iface struct{ tab, data unsafe.Pointer }
			p = uintptr((*iface)(unsafe.Pointer(&h)).data)
		}
		if id, ok := owner[p]; ok {
			tr.counts[w][id]++
		} else {
			tr.unplaced++
		}
	})
	n.Run(nil)
	n.Eng.SetTrace(nil)
	for _, l := range n.Fabric.Links {
		tr.linkFrom = append(tr.linkFrom, int(l.From()))
		tr.linkTo = append(tr.linkTo, int(l.To()))
		tr.linkPackets = append(tr.linkPackets, l.Packets())
	}
	return tr
}

// cutAccount is a partitioning's work at some workers, summed over the
// windows: the busiest worker's events (the critical path), the frames
// crossing between partitions, and the events.
type cutAccount struct {
	critical, crossed, events int64
	windows                   int
}

// schedule says how a window's partitions go to the workers: given the
// partitions' events in the window, the busiest worker's events.
type schedule func(load []int64, workers int) int64

// roundRobin is sim.Group's: worker w runs partitions w, w+workers, ...
func roundRobin(load []int64, workers int) int64 {
	var most int64
	for w := 0; w < workers; w++ {
		var sum int64
		for i := w; i < len(load); i += workers {
			sum += load[i]
		}
		most = max(most, sum)
	}
	return most
}

// account is part's work at workers under sched.
func (tr nodeTrace) account(part []int, parts, workers int, sched schedule) cutAccount {
	a := cutAccount{events: tr.events, windows: len(tr.counts)}
	load := make([]int64, parts)
	for _, row := range tr.counts {
		clear(load)
		for id, c := range row {
			load[part[id]] += int64(c)
		}
		a.critical += sched(load, workers)
	}
	for i, pk := range tr.linkPackets {
		if part[tr.linkFrom[i]] != part[tr.linkTo[i]] {
			a.crossed += pk
		}
	}
	return a
}

// benchScenario loads a suite scenario (scenarios/bench) with its stop
// at stop.
func benchScenario(tb testing.TB, name string, stop sim.Time) *resolve.Scenario {
	b, err := fs.ReadFile(scenarios.Bench, name+".yaml")
	if err != nil {
		tb.Fatal(err)
	}
	s, err := resolve.Parse(name+".yaml", b)
	if err != nil {
		tb.Fatal(err)
	}
	s.Stop.At = stop
	return s
}

// BenchmarkHPCC320Balance traces hpcc-320 on one worker (2 ms; 10 ms
// with LFSIM_SLOW=1, issue 50's run) and accounts its windows at 2 and
// 3 workers with the cut the run uses: metrics busiest-over-even-P (the
// critical path over an even share: 1 is even), crossed/win-P (frames
// handed over a window), events/win and bound-P (the speedup the
// critical path alone allows, with unplaced events serial); and finer
// cuts (parts-N) on 2 workers, dealt as sim.Group deals them (-rr) or
// from a queue (-queue, -lpt), with the frames they hand over.
func BenchmarkHPCC320Balance(b *testing.B) {
	stop := 2 * sim.Millisecond
	if os.Getenv("LFSIM_SLOW") != "" {
		stop = 10 * sim.Millisecond
	}
	var tr nodeTrace
	for b.Loop() {
		n, err := Build(benchScenario(b, "hpcc-320", stop))
		if err != nil {
			b.Fatal(err)
		}
		tr = traceNodes(b, n)
	}
	s := benchScenario(b, "hpcc-320", stop)
	w := float64(len(tr.counts))
	b.ReportMetric(float64(tr.events)/w, "events/win")
	b.ReportMetric(float64(tr.unplaced)/float64(tr.events), "unplaced-share")
	for _, p := range []int{2, 3} {
		plan := planPartitions(s.Topology, p, nil)
		a := tr.account(plan.part, plan.parts, p, roundRobin)
		placed := float64(tr.events - tr.unplaced)
		b.ReportMetric(float64(a.critical)*float64(p)/placed, fmt.Sprintf("busiest-over-even-%d", p))
		b.ReportMetric(float64(a.crossed)/w, fmt.Sprintf("crossed/win-%d", p))
		b.ReportMetric(float64(tr.events)/float64(a.critical+tr.unplaced), fmt.Sprintf("bound-%d", p))
	}
	// The wait of the less busy partition a window, in events, at 2
	// workers: its median and 90th percentile (crew.go's spin); and
	// partition 0's share of the run's events.
	plan := planPartitions(s.Topology, 2, nil)
	var gaps []int64
	load, whole := make([]int64, 2), make([]int64, 2)
	for _, row := range tr.counts {
		clear(load)
		for id, c := range row {
			load[plan.part[id]] += int64(c)
		}
		gaps = append(gaps, max(load[0]-load[1], load[1]-load[0]))
		whole[0], whole[1] = whole[0]+load[0], whole[1]+load[1]
	}
	b.ReportMetric(float64(whole[0])/float64(whole[0]+whole[1]), "part0-share-2")
	slices.Sort(gaps)
	b.ReportMetric(float64(gaps[len(gaps)/2]), "gap-ev-p50-2")
	b.ReportMetric(float64(gaps[len(gaps)*9/10]), "gap-ev-p90-2")
	// Finer cuts run on 2 workers: sim.Group's round robin, a work
	// queue in partition order (each worker takes the next partition
	// when free), and the same queue ordered by each partition's events
	// in the window before (largest first).
	for _, k := range []int{4, 6, 10, 20} {
		plan := planPartitions(s.Topology, k, nil)
		rr := tr.account(plan.part, plan.parts, 2, roundRobin)
		q := tr.account(plan.part, plan.parts, 2, greedy)
		lpt := tr.account(plan.part, plan.parts, 2, lastLargestFirst())
		placed := float64(tr.events - tr.unplaced)
		b.ReportMetric(float64(rr.critical)*2/placed, fmt.Sprintf("parts-%d-rr", plan.parts))
		b.ReportMetric(float64(q.critical)*2/placed, fmt.Sprintf("parts-%d-queue", plan.parts))
		b.ReportMetric(float64(lpt.critical)*2/placed, fmt.Sprintf("parts-%d-lpt", plan.parts))
		b.ReportMetric(float64(rr.crossed)/w, fmt.Sprintf("parts-%d-crossed/win", plan.parts))
	}
}

// greedy is a work queue in partition order: each partition goes to the
// worker that is free first.
func greedy(load []int64, workers int) int64 {
	free := make([]int64, workers)
	for _, l := range load {
		i := slices.Index(free, slices.Min(free))
		free[i] += l
	}
	return slices.Max(free)
}

// lastLargestFirst is a work queue ordered by each partition's events
// in the window before, largest first.
func lastLargestFirst() schedule {
	var last []int64
	return func(load []int64, workers int) int64 {
		if last == nil {
			last = make([]int64, len(load))
		}
		order := make([]int, len(load))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return int(last[b] - last[a]) })
		sorted := make([]int64, len(load))
		for i, o := range order {
			sorted[i] = load[o]
		}
		copy(last, load)
		return greedy(sorted, workers)
	}
}
