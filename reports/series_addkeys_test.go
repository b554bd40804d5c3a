package reports

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestSeriesAddKeys: a sample recorded a run at a time (AddKeys, as the
// sampler cut into partitions merges its parts' runs) is the sample
// AddKey by AddKey records: the same CSV and the same layouts, for runs
// that follow the sample before's layout, leave it in their middle,
// extend it, stop short of it, or come after it was left; across chunk
// ends and decimations.
func TestSeriesAddKeys(t *testing.T) {
	for _, tc := range []struct{ maxRows, samples int }{
		{0, 300},              // no bound: samples straddle chunk ends
		{valueChunk, 300},     // decimates
		{3 * valueChunk, 500}, // decimates across chunks
	} {
		rng := rand.New(rand.NewPCG(5, uint64(tc.maxRows)))
		one, runs := NewSeries(tc.maxRows), NewSeries(tc.maxRows)
		width := 100
		for i := 0; i < tc.samples; i++ {
			switch rng.IntN(10) {
			case 0:
				width += rng.IntN(40) // a longer sample
			case 1:
				width = max(1, width-rng.IntN(40)) // a shorter one
			}
			var keys1, keys2 []Key
			var vals []float64
			swap := -1
			if rng.IntN(6) == 0 {
				swap = rng.IntN(width) // a key differs from the sample before's
			}
			for j := 0; j < width; j++ {
				where := fmt.Sprintf("s%d:p%d", j%7, j)
				if j == swap {
					where = "h0:p0"
				}
				keys1 = append(keys1, one.Key(MetricQueueBytes, where))
				keys2 = append(keys2, runs.Key(MetricQueueBytes, where))
				vals = append(vals, float64(i*1000+j))
			}
			one.Begin(int64(i) * 10)
			runs.Begin(int64(i) * 10)
			for j := range keys1 {
				one.AddKey(keys1[j], vals[j])
			}
			for from := 0; from < width; {
				to := min(width, from+1+rng.IntN(60))
				runs.AddKeys(keys2[from:to], vals[from:to])
				from = to
			}
			if a, b := one.End(), runs.End(); a != b {
				t.Fatalf("%+v: sample %d: decimated %v by AddKey, %v by AddKeys", tc, i, a, b)
			}
		}
		if a, b := one.CSV(), runs.CSV(); !bytes.Equal(a, b) {
			t.Errorf("%+v: the CSVs differ (%d and %d bytes)", tc, len(a), len(b))
		}
		if len(one.layouts) != len(runs.layouts) || one.Rows() != runs.Rows() || one.Decimations != runs.Decimations {
			t.Errorf("%+v: %d layouts, %d rows, %d decimations by AddKey; %d, %d, %d by AddKeys", tc,
				len(one.layouts), one.Rows(), one.Decimations, len(runs.layouts), runs.Rows(), runs.Decimations)
		}
		if tc.maxRows > 0 && one.Decimations == 0 {
			t.Errorf("%+v: no decimation; the case should decimate", tc)
		}
	}
}
