package reports

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Quantile returns the p-quantile (0..1) of xs by the empirical CDF (the
// smallest value with at least p of the data at or below it), or 0 for no
// data. xs is not modified.
func Quantile(p float64, xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return stat.Quantile(p, stat.Empirical, s, nil)
}

// JainFairness is Jain's fairness index (Σx)² / (n·Σx²): 1 for equal
// shares, 1/n when one flow has everything (Jain, Chiu, Hawe, DEC-TR-301,
// 1984). It is 0 for no data.
func JainFairness(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	if sq == 0 {
		return 0
	}
	return sum * sum / (float64(len(xs)) * sq)
}

// Mean is the arithmetic mean, 0 for no data.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return stat.Mean(xs, nil)
}

// Round rounds to d decimals, so that summary.json stays readable and
// stable across platforms' last-bit differences.
func Round(x float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(x*p) / p
}
