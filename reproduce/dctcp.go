package reproduce

import (
	"fmt"
	"slices"

	"github.com/lfsim/lfsim/fabric"
)

// dctcpQueue: DCTCP's queue against Alizadeh et al.'s analysis (SIGCOMM
// 2010, section 3.3), as TestDCTCPQueueAmplitude runs it.
var dctcpQueue = Reproduction{
	Name:    "dctcp-queue",
	Paper:   "Alizadeh et al., SIGCOMM 2010",
	Figure:  "section 3.3: Q_max = K + N and the amplitude A = N (W*+1) alpha / 2",
	Setup:   "N = 2, 8, 32 long flows into one 100 Gb/s port (star), 5 us links, DCTCP, K = 60 KB; queue sampled every 100 ns from 2 to 4 ms",
	RunTime: "under 1 s",
	Measure: measureDCTCPQueue,
}

// measureDCTCPQueue reads each run's bottleneck queue from 2 ms on, in
// 1 KB packets' frames: its 99th minus 1st percentile (A) and its
// largest sample (Q_max).
func measureDCTCPQueue(runs Runs) (map[string]float64, error) {
	frame := float64(fabric.RoCEv2Wire(fabric.OpWriteMiddle, 1024) - fabric.PreambleIFGBytes)
	out := map[string]float64{}
	for _, n := range []int{2, 8, 32} {
		r, err := runs.Base(fmt.Sprintf("n%d", n))
		if err != nil {
			return nil, err
		}
		// The star's hosts are h0..hN; hN's port on s0 is pN, priority 3.
		samples, err := r.Series("queue_bytes", fmt.Sprintf("s0:p%d:3", n), 2_000_000)
		if err != nil {
			return nil, err
		}
		q := make([]float64, len(samples))
		for i, s := range samples {
			q[i] = s.Value / frame
		}
		slices.Sort(q)
		pct := func(p float64) float64 { return q[int(p*float64(len(q)-1))] }
		out[fmt.Sprintf("A N=%d", n)] = pct(0.99) - pct(0.01)
		out[fmt.Sprintf("Qmax N=%d", n)] = q[len(q)-1]
	}
	return out, nil
}
