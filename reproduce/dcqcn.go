package reproduce

import (
	"fmt"
	"math"

	"github.com/lfsim/lfsim/fabric"
)

// dcqcnFluid: DCQCN's queue and shares against its fluid model's fixed
// point (Zhu et al., CoNEXT 2016), as TestDCQCNFluidModel runs it.
var dcqcnFluid = Reproduction{
	Name:    "dcqcn-fluid",
	Paper:   "Zhu et al., SIGCOMM 2015; Zhu et al., CoNEXT 2016",
	Figure:  "CoNEXT 2016 section 3: the fluid model's fixed point (queue q* = Kmin + p* (Kmax - Kmin) / Pmax, rates C/N)",
	Setup:   "N = 1, 2, 4, 8 long flows from 100 Gb/s hosts into a 40 Gb/s port, the paper's DCQCN, 1 KB packets, no PFC, 1.1 s",
	RunTime: "about 20 s",
	Measure: measureDCQCN,
}

// measureDCQCN: the mean of the bottleneck queue sampled from 100 ms
// on, and the goodput over the run over C/N of the flow farthest from
// C/N, above or below: the fixed point gives every flow C/N, so every
// flow must be within the bounds (the slowest alone, as before, could
// never exceed 1, and the bound above was vacuous: review E, finding 12).
func measureDCQCN(runs Runs) (map[string]float64, error) {
	wire := float64(fabric.RoCEv2Wire(fabric.OpWriteMiddle, 1024))
	out := map[string]float64{}
	for _, n := range []int{1, 2, 4, 8} {
		r, err := runs.Base(fmt.Sprintf("n%d", n))
		if err != nil {
			return nil, err
		}
		// The dumbbell's left hosts are h0..h(N-1) on s0, whose port N
		// is the 40 Gb/s bottleneck.
		samples, err := r.Series("queue_bytes", fmt.Sprintf("s0:p%d:3", n), 100_000_000)
		if err != nil {
			return nil, err
		}
		sum := 0.0
		for _, s := range samples {
			sum += s.Value
		}
		out[fmt.Sprintf("queue N=%d", n)] = sum / float64(len(samples))
		if n == 1 {
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
		fair := 40e9 * 1024 / wire / float64(n)
		farthest := math.NaN()
		for _, f := range flows {
			share := float64(f.DeliveredBytes) * 8 / (float64(s.SimTimeNs) / 1e9) / fair
			if math.IsNaN(farthest) || math.Abs(share-1) > math.Abs(farthest-1) {
				farthest = share
			}
		}
		out[fmt.Sprintf("share N=%d", n)] = farthest
	}
	return out, nil
}
