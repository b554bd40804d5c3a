package reproduce

import (
	"fmt"
	"slices"
)

// hpccHadoop: HPCC's FCT slowdown by flow size on Facebook's Hadoop
// workload at 30% and 50% load (Li et al., SIGCOMM 2019, as its authors'
// results page reran it with eta 99%), on hpcc-websearch's setup (the
// authors' fat.txt, eta 0.99, 77-byte additive increase, 1 KB MTU, 32 MB
// buffers, no fixed NIC or switch latency, 30 ms of arrivals, the flows
// that start from 1 to 20 ms measured) with the authors' FbHdp_distribution.txt for sizes (lfsim's
// built-in hadoop). It measures 189,669 flows at 30% and 315,679 at
// 50%, and takes 717 s of CPU for both loads (25 minutes of wall time
// one point at a time beside hpcc-websearch on a shared 2-core machine,
// 406 MB of memory at 50%; 2026-12-06): asked by name only, outside
// CI's slow tier.
var hpccHadoop = Reproduction{
	Name:    "hpcc-hadoop",
	Paper:   "Li et al., SIGCOMM 2019 (the authors' results page)",
	Figure:  "FCT slowdown by flow size, Hadoop at 30% and 50% load, p50 and p95, HPCC-INT with eta 99%",
	Setup:   "hpcc-websearch's: the authors' fat.txt (320 hosts, 20 ToRs 1:1, 20 aggregation, 16 core; 100/400 Gb/s, 1 us links), HPCC eta 0.99, maxStage 0, 77-byte additive increase, 1 KB MTU, 32 MB buffers; no fixed NIC or switch latency, as in the authors' simulator; Hadoop (FbHdp) Poisson arrivals for 30 ms, the flows that start from 1 to 20 ms measured; run until every flow is done",
	RunTime: "about 15 minutes",
	Long:    true,
	Measure: measureSlowdownBy1PctBins,
	Misses: []Miss{
		{ID: "30% p95 10-15%", Why: hadoopSmallP95Why, Was: 1.185},
		{ID: "30% p95 30-35%", Why: hadoopSmallP95Why, Was: 1.180},
	},
}

// hadoopSmallP95Why is the two known misses' cause, as far as it is
// known (docs/REPRODUCE.md, hpcc-hadoop).
const hadoopSmallP95Why = "lfsim's flows below 1 KB at 30% load queue less than the figure's: " +
	"their ideal is about 12.1 us, as the authors' (no fixed NIC or switch latency, their third.cc's ideal), " +
	"and the p95 flow waits about 2.2 us beyond it where the figure's 1.50 implies about 6 us; " +
	"the same flows' p50 (1.012) and every other point hold, no PFC frame is sent, and at 50% load the small flows' p95 hold (1.689, 1.620); " +
	"why lfsim's small flows wait less at 30% is not found (recorded 2026-12-06)"

// hadoopBins are the 5% bins of flows (sorted by size) hpcc-hadoop's
// published points are read at, as [low, high) percentiles: two of the
// flows below 1 KB (one packet), and three of the flows of 30 KB and
// more. None straddles the step at 70-72% (7 KB to 30 KB), where the
// curve climbs by a third.
var hadoopBins = [][2]int{{10, 15}, {30, 35}, {75, 80}, {85, 90}, {95, 100}}

// measureSlowdownBy1PctBins measures as the authors' figure was drawn:
// each load's flows from slowdownFlows, cut into 1% bins as their
// analysis/fct_analysis.py cuts them with a step of 1 (bin i holds the
// flows from index i n/100 to (i+1) n/100), each bin's 50th and 95th
// percentile of slowdown as its get_pctl takes them (the sorted element
// at int(len p)), and each point the median (the third) of the five 1%
// bins of its 5% bin, as published.yaml reads the figure's vertices.
func measureSlowdownBy1PctBins(runs Runs) (map[string]float64, error) {
	out := map[string]float64{}
	for _, load := range []string{"30%", "50%"} {
		done, err := slowdownFlows(runs, load)
		if err != nil {
			return nil, err
		}
		n := len(done)
		for _, bin := range hadoopBins {
			for _, p := range []int{50, 95} {
				var v []float64
				for i := bin[0]; i < bin[1]; i++ {
					s := sortedSlowdowns(done[i*n/100 : (i+1)*n/100])
					if len(s) == 0 {
						return nil, fmt.Errorf("load %s: the 1%% bin from %d%% holds no flow (%d flows measured)", load, i, n)
					}
					v = append(v, s[len(s)*p/100])
				}
				slices.Sort(v)
				out[fmt.Sprintf("%s p%d %d-%d%%", load, p, bin[0], bin[1])] = v[len(v)/2]
			}
		}
	}
	return out, nil
}
