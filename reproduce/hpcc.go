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
// 8 ms of arrivals on 320 hosts at a 1 KB MTU, so it is long (214 s of
// CPU for both loads, 27 minutes of wall time on a shared 2-core
// machine, 2026-12-05): asked by name only, outside CI's slow tier.
var hpccWebSearch = Reproduction{
	Name:    "hpcc-websearch",
	Paper:   "Li et al., SIGCOMM 2019 (the authors' results page)",
	Figure:  "FCT slowdown by flow size, WebSearch at 30% and 50% load, p50 and p95, HPCC-INT with eta 99%",
	Setup:   "the authors' fat.txt (320 hosts, 20 ToRs 1:1, 20 aggregation, 16 core; 100/400 Gb/s, 1 us links), WebSearch Poisson arrivals for 8 ms, HPCC eta 0.99, maxStage 0, 77-byte additive increase, 1 KB MTU, 32 MB buffers; run until every flow is done",
	RunTime: "about 4 minutes",
	Long:    true,
	Measure: measureSlowdownBySize,
	Misses: []Miss{
		{ID: "50% p50 85-90%", Why: webSearchDrain, Was: 2.79},
		{ID: "50% p50 95-100%", Why: webSearchDrain, Was: 2.99},
		{ID: "50% p95 85-90%", Why: webSearchDrain, Was: 7.12},
		{ID: "50% p95 95-100%", Why: webSearchDrain, Was: 6.28},
	},
}

// webSearchDrain is why the largest flows at 50% load are faster than
// the figure (docs/REPRODUCE.md, RELIABILITY.md): not HPCC's model as
// far as the authors' own simulator can tell, but the 8 ms window.
const webSearchDrain = "the largest flows at 50% load are faster than the figure (2026-12-05: p50 2.79 and 2.99 against 3.52 and 3.85, p95 7.12 and 6.28 against 9.25 and 9.55). " +
	"On the same flows the authors' ns-3 simulator is as fast or faster (flows of 3 MB and more: p95 2.80 there, 3.03 here). " +
	"Likely the arrival window, 8 ms against their generator's 0.1 s: 274 of the largest 413 flows end after arrivals stop, " +
	"and those that start from 6 to 8 ms have a p95 of 4.02 against 6.5 for those from 1 to 6 ms"

// slowdownWarmup is when the measured flows start: those that arrive in
// the first millisecond meet a fabric still filling from empty.
const slowdownWarmup = 1_000_000 // ns

// slowdownBins are the 5% bins of flows (sorted by size) the published
// points are read at, as [low, high) percentiles.
var slowdownBins = [][2]int{{10, 15}, {30, 35}, {70, 75}, {85, 90}, {95, 100}}

// measureSlowdownBySize sorts each load's completed flows that started
// from slowdownWarmup on by size (ties by id), cuts them into 5% bins as
// the authors' analysis/fct_analysis.py does (bin i holds the flows from
// index i n/100 to (i+5) n/100), and takes each bin's 50th and 95th
// percentile of slowdown as its get_pctl does: the sorted element at
// int(len p).
func measureSlowdownBySize(runs Runs) (map[string]float64, error) {
	out := map[string]float64{}
	for _, load := range []string{"30%", "50%"} {
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
		for _, f := range flows {
			if f.StartNs < slowdownWarmup {
				continue
			}
			if f.Status != "success" || f.FCTNs <= 0 {
				return nil, fmt.Errorf("%s: flow %d did not complete (%s): the run must end with every flow done", run.Dir, f.ID, f.Status)
			}
			done = append(done, f)
		}
		if len(done) < 100 {
			return nil, fmt.Errorf("%s: %d flows measured, want at least 100 (5 a bin)", run.Dir, len(done))
		}
		slices.SortStableFunc(done, func(a, b Flow) int {
			return cmp.Or(cmp.Compare(a.SizeBytes, b.SizeBytes), cmp.Compare(a.ID, b.ID))
		})
		n := len(done)
		for _, bin := range slowdownBins {
			var s []float64
			for _, f := range done[bin[0]*n/100 : bin[1]*n/100] {
				s = append(s, f.Slowdown)
			}
			slices.Sort(s)
			for _, p := range []int{50, 95} {
				out[fmt.Sprintf("%s p%d %d-%d%%", load, p, bin[0], bin[1])] = s[len(s)*p/100]
			}
		}
	}
	return out, nil
}
