package reproduce

import (
	"fmt"
	"math"
)

// ecmpCollisions: per-flow ECMP's collisions under a random permutation
// (Al-Fares et al., SIGCOMM 2008; Hedera, NSDI 2010), as
// TestLoadBalancePermutation runs it.
var ecmpCollisions = Reproduction{
	Name:    "ecmp-collisions",
	Paper:   "Al-Fares et al., SIGCOMM 2008; Hedera, NSDI 2010",
	Figure:  "per-flow ECMP under a random permutation: 40-60% of the bisection",
	Setup:   "k=8 fat tree (128 hosts at 100 Gb/s), a random permutation of 16 MiB WRITEs, per-flow ECMP, PFC, no congestion control",
	RunTime: "about 1 s",
	Measure: measureECMP,
}

// measureECMP is the flows' mean share of line rate, 1 / slowdown; a
// flow that did not complete makes it NaN.
func measureECMP(runs Runs) (map[string]float64, error) {
	r, err := runs.Base("permutation")
	if err != nil {
		return nil, err
	}
	flows, err := r.Flows()
	if err != nil {
		return nil, err
	}
	if len(flows) == 0 {
		return nil, fmt.Errorf("%s: no flows", r.Dir)
	}
	share := 0.0
	for _, f := range flows {
		if f.Status != "success" || f.Slowdown <= 0 {
			share = math.NaN()
			break
		}
		share += 1 / f.Slowdown / float64(len(flows))
	}
	return map[string]float64{"mean share": share}, nil
}
