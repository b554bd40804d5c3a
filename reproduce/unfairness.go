package reproduce

import "fmt"

// pfcUnfairness: PFC's unfairness (Zhu et al., SIGCOMM 2015, section 2):
// a flow alone on an ingress port gets what the flows sharing another get
// together.
var pfcUnfairness = Reproduction{
	Name:    "pfc-unfairness",
	Paper:   "Zhu et al., SIGCOMM 2015",
	Figure:  "section 2, PFC's unfairness: equal shares per ingress port, not per flow",
	Setup:   "100 Gb/s dumbbell (2 + 2 hosts): h0 and h1 send to h3 across the s0-s1 link, h2 from s1 itself; PFC, no congestion control, 3 ms",
	RunTime: "under 1 s",
	Measure: measureUnfairness,
}

// measureUnfairness is each flow's bytes delivered over the three's.
func measureUnfairness(runs Runs) (map[string]float64, error) {
	r, err := runs.Base("three-to-one")
	if err != nil {
		return nil, err
	}
	flows, err := r.Flows()
	if err != nil {
		return nil, err
	}
	ids := map[string]string{"h0": "remote flow (h0)", "h1": "remote flow (h1)", "h2": "local flow (h2)"}
	var total float64
	for _, f := range flows {
		total += float64(f.DeliveredBytes)
	}
	if len(flows) != 3 || total == 0 {
		return nil, fmt.Errorf("%s: %d flows, %.0f bytes delivered; want 3 flows and some bytes", r.Dir, len(flows), total)
	}
	out := map[string]float64{}
	for _, f := range flows {
		out[ids[f.Src]] = float64(f.DeliveredBytes) / total
	}
	return out, nil
}
