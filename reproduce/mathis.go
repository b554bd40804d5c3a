package reproduce

import "fmt"

// iwarpMathis: iWARP's TCP (NewReno) under random loss against Mathis
// et al.'s formula (CCR 1997).
var iwarpMathis = Reproduction{
	Name:    "iwarp-mathis",
	Paper:   "Mathis et al., CCR 1997",
	Figure:  "BW = (MSS / RTT) sqrt(3/2) / sqrt(p)",
	Setup:   "one iWARP WRITE (NewReno with SACK recovery, an ACK per segment, 64 MiB windows) over 200 us of round-trip cable at 100 Gb/s, its host link losing frames at 0.1% and 0.4%, 3 s",
	RunTime: "about 5 s",
	Measure: measureMathis,
}

// measureMathis is the flow's goodput over the run, Gb/s.
func measureMathis(runs Runs) (map[string]float64, error) {
	ids := map[string]string{"1e-3": "p=0.1%", "4e-3": "p=0.4%"}
	out := map[string]float64{}
	for _, r := range runs {
		id, ok := ids[r.Values["faults[0].rate"]]
		if !ok {
			continue
		}
		s, err := r.Summary()
		if err != nil {
			return nil, err
		}
		flows, err := r.Flows()
		if err != nil {
			return nil, err
		}
		if len(flows) != 1 || s.SimTimeNs == 0 {
			return nil, fmt.Errorf("%s: %d flows in %d ns, want one", r.Dir, len(flows), s.SimTimeNs)
		}
		out[id] = float64(flows[0].DeliveredBytes) * 8 / float64(s.SimTimeNs)
	}
	return out, nil
}
