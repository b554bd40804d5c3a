package reproduce

import "github.com/lfsim/lfsim/fabric"

// ibccVictim: InfiniBand congestion control's victim flow (Gran et al.,
// IPDPS 2010), the ib-cc-victim example with and without CC, as
// TestIBCCVictim runs it.
var ibccVictim = Reproduction{
	Name:    "ibcc-victim",
	Paper:   "Gran et al., IPDPS 2010; Pfister and Norton, ICPP 1985",
	Figure:  "the victim flow of a hot spot, without CC (tree saturation) and with InfiniBand CC",
	Setup:   "EDR dumbbell (3 + 5 hosts), four flows into h3 (two across the shared link) and a victim across it to h6; 64 KiB of credits a VL; 3 ms without CC and with FECN marking and IB CC",
	RunTime: "under 1 s",
	Measure: measureIBCCVictim,
}

// measureIBCCVictim is the victim's (flow 4's) goodput over the run
// over its fair share, half of EDR's data rate in 4 KiB packets.
func measureIBCCVictim(runs Runs) (map[string]float64, error) {
	share := 100e9 * 4096 / float64(fabric.IBWire(fabric.OpWriteMiddle, 4096, false)) / 2
	out := map[string]float64{}
	for _, p := range [][2]string{{"victim without CC", "no-cc"}, {"victim with IB CC", "ib-cc-victim"}} {
		id, base := p[0], p[1]
		r, err := runs.Base(base)
		if err != nil {
			return nil, err
		}
		s, err := r.Summary()
		if err != nil {
			return nil, err
		}
		flows, err := r.Flows()
		if err != nil {
			return nil, err
		}
		for _, f := range flows {
			if f.ID == 4 && s.SimTimeNs > 0 {
				out[id] = float64(f.DeliveredBytes) * 8 / (float64(s.SimTimeNs) / 1e9) / share
			}
		}
	}
	return out, nil
}
