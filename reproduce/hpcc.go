package reproduce

import (
	"cmp"
	"fmt"
	"slices"
)

// hpccWebSearch: HPCC's FCT slowdown by flow size on WebSearch at 30%
// and 50% load (Li et al., SIGCOMM 2019, as its authors' results page
// reran it with eta 99%), on the authors' own fabric (their fat.txt,
// 1:1 at the ToRs), not the speed benchmark hpcc-320 (2:1). It runs
// 30 ms of arrivals on 320 hosts at a 1 KB MTU and measures the flows
// that start from 1 to 20 ms, so it is long (593 s of CPU for both
// loads, 23 minutes of wall time one point at a time beside hpcc-hadoop
// on a shared 2-core machine, 2026-12-06): asked by name only, outside
// CI's slow tier. Its NICs and switches have no fixed latency, as the
// authors' simulator (scenarios/reproduce/hpcc-websearch/fat.yaml).
var hpccWebSearch = Reproduction{
	Name:    "hpcc-websearch",
	Paper:   "Li et al., SIGCOMM 2019 (the authors' results page)",
	Figure:  "FCT slowdown by flow size, WebSearch at 30% and 50% load, p50 and p95, HPCC-INT with eta 99%",
	Setup:   "the authors' fat.txt (320 hosts, 20 ToRs 1:1, 20 aggregation, 16 core; 100/400 Gb/s, 1 us links), WebSearch Poisson arrivals for 30 ms (the flows that start from 1 to 20 ms measured), HPCC eta 0.99, maxStage 0, 77-byte additive increase, 1 KB MTU, 32 MB buffers; no fixed NIC or switch latency, as in the authors' simulator; run until every flow is done",
	RunTime: "about 12 minutes",
	Long:    true,
	Measure: measureSlowdownBySize,
}

// slowdownWarmup is when the measured flows start: those that arrive in
// the first millisecond meet a fabric still filling from empty.
const slowdownWarmup = 1_000_000 // ns

// slowdownEnd is when the measured flows stop starting; the arrivals go
// on to slowdownEnd + slowdownLoadAfter (fat.yaml's until, 30 ms), so
// every measured flow has the load behind it for 10 ms or more, as all
// but the last of the authors' flows have over their traffic
// generator's 0.1 s (traffic_gen/README.md's example, -t 0.1; their
// fct_analysis.py takes every flow that ends before 3 s). With 8 ms of
// arrivals and every flow from 1 ms measured, the load drained away
// under a third of the measured flows, and the largest at 50% load were
// faster than the figure by up to 34% (docs/REPRODUCE.md).
const (
	slowdownEnd       = 20_000_000 // ns
	slowdownLoadAfter = 10_000_000 // ns
)

// slowdownBins are the 5% bins of flows (sorted by size) the published
// points are read at, as [low, high) percentiles.
var slowdownBins = [][2]int{{10, 15}, {30, 35}, {70, 75}, {85, 90}, {95, 100}}

// measureSlowdownBySize sorts each load's completed flows that started
// from slowdownWarmup to slowdownEnd by size (ties by id), cuts them
// into 5% bins as the authors' analysis/fct_analysis.py does (bin i
// holds the flows from index i n/100 to (i+5) n/100), and takes each
// bin's 50th and 95th percentile of slowdown as its get_pctl does: the
// sorted element at int(len p). A run whose arrivals stop before slowdownEnd +
// slowdownLoadAfter (the latest flow's start, less a gap of arrivals)
// is refused: its measured flows would not have the load behind them.
func measureSlowdownBySize(runs Runs) (map[string]float64, error) {
	out := map[string]float64{}
	for _, load := range []string{"30%", "50%"} {
		done, err := slowdownFlows(runs, load)
		if err != nil {
			return nil, err
		}
		n := len(done)
		for _, bin := range slowdownBins {
			s := sortedSlowdowns(done[bin[0]*n/100 : bin[1]*n/100])
			for _, p := range []int{50, 95} {
				out[fmt.Sprintf("%s p%d %d-%d%%", load, p, bin[0], bin[1])] = s[len(s)*p/100]
			}
		}
	}
	return out, nil
}

// sortedSlowdowns returns the slowdowns of flows, sorted.
func sortedSlowdowns(flows []Flow) []float64 {
	s := make([]float64, 0, len(flows))
	for _, f := range flows {
		s = append(s, f.Slowdown)
	}
	slices.Sort(s)
	return s
}

// slowdownFlows returns the completed flows of the run at load (the
// sweep's traffic[0].poisson.load) that started from slowdownWarmup to
// slowdownEnd, sorted by size (ties by id), refusing a run whose
// arrivals stop before slowdownEnd + slowdownLoadAfter, a measured flow
// not done, or fewer than 100 flows.
func slowdownFlows(runs Runs, load string) ([]Flow, error) {
	var run *PointRun
	for i := range runs {
		if runs[i].Values["traffic[0].poisson.load"] == load {
			run = &runs[i]
		}
	}
	if run == nil {
		return nil, fmt.Errorf("no run at load %s", load)
	}
	flows, err := run.Flows()
	if err != nil {
		return nil, err
	}
	var done []Flow
	var last int64
	for _, f := range flows {
		last = max(last, f.StartNs)
		if f.StartNs < slowdownWarmup || f.StartNs >= slowdownEnd {
			continue
		}
		if f.Status != "success" || f.FCTNs <= 0 {
			return nil, fmt.Errorf("%s: flow %d did not complete (%s): the run must end with every flow done", run.Dir, f.ID, f.Status)
		}
		done = append(done, f)
	}
	if last < slowdownEnd+slowdownLoadAfter-100_000 {
		return nil, fmt.Errorf("%s: the last flow starts at %.3f ms: the measure wants arrivals until %d ms, %d ms past the measured flows' starts", run.Dir, float64(last)/1e6, (slowdownEnd+slowdownLoadAfter)/1_000_000, slowdownLoadAfter/1_000_000)
	}
	if len(done) < 100 {
		return nil, fmt.Errorf("%s: %d flows measured, want at least 100 (5 a bin)", run.Dir, len(done))
	}
	slices.SortStableFunc(done, func(a, b Flow) int {
		return cmp.Or(cmp.Compare(a.SizeBytes, b.SizeBytes), cmp.Compare(a.ID, b.ID))
	})
	return done, nil
}
