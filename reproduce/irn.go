package reproduce

import (
	"fmt"
	"math"
)

// irnVsPFC: IRN without PFC against RoCE with PFC (Mittal et al.,
// SIGCOMM 2018), on the lossless-or-not examples (a) and (b).
var irnVsPFC = Reproduction{
	Name:   "irn-vs-pfc",
	Paper:  "Mittal et al., SIGCOMM 2018",
	Figure: "abstract and section 4: IRN (no PFC) outperforms RoCE (with PFC) by 6-83%",
	Setup: "4x8 leaf-spine (100 Gb/s hosts, 200 Gb/s fabric), WebSearch at 50% for 10 ms and two 16-to-1 incasts; RoCE with PFC, go-back-N and DCQCN against IRN (no PFC, selective repeat, BDP cap, DCQCN). " +
		"Of IRN's two changes most of the FCT gain here rests on BDP-FC (without it mean and p99 FCT 0.947 and 0.951, mean slowdown 0.867): 0.036% of packets drop, too few for selective repeat to matter (with go-back-N it holds too)",
	RunTime: "about 3 s",
	Measure: measureIRN,
}

// measureIRN: IRN's mean slowdown, mean FCT and p99 FCT over RoCE with
// PFC's, over the flows that completed (every one, by the examples'
// expect:).
func measureIRN(runs Runs) (map[string]float64, error) {
	type stats struct{ slowdown, fct, p99 float64 }
	of := func(base string) (stats, error) {
		r, err := runs.Base(base)
		if err != nil {
			return stats{}, err
		}
		s, err := r.Summary()
		if err != nil {
			return stats{}, err
		}
		flows, err := r.Flows()
		if err != nil {
			return stats{}, err
		}
		sum, n := 0.0, 0
		for _, f := range flows {
			if f.Status == "success" {
				sum += float64(f.FCTNs)
				n++
			}
		}
		if n == 0 {
			return stats{}, fmt.Errorf("%s: no flow completed", r.Dir)
		}
		return stats{s.FCT.MeanSlowdown, sum / float64(n), float64(s.FCT.P99Ns)}, nil
	}
	pfc, err := of("lossless-or-not-roce-pfc")
	if err != nil {
		return nil, err
	}
	irn, err := of("lossless-or-not-roce-irn")
	if err != nil {
		return nil, err
	}
	ratio := func(a, b float64) float64 {
		if b <= 0 {
			return math.NaN()
		}
		return a / b
	}
	return map[string]float64{
		"mean slowdown": ratio(irn.slowdown, pfc.slowdown),
		"mean FCT":      ratio(irn.fct, pfc.fct),
		"p99 FCT":       ratio(irn.p99, pfc.p99),
	}, nil
}
