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
	return SortedQuantile(p, s)
}

// SortedQuantile is Quantile of xs sorted in increasing order already
// (sort.Float64s): for several quantiles of one sample, sorted once, in
// place.
func SortedQuantile(p float64, xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return stat.Quantile(p, stat.Empirical, xs, nil)
}

// JainFairness is Jain's fairness index (Σx)² / (n·Σx²): 1 for equal
// shares, 1/n when one flow has everything (Jain, Chiu, Hawe, DEC-TR-301,
// 1984). It is 0 for no data.
func JainFairness(xs []float64) float64 {
	var j Jain
	for _, x := range xs {
		j.Add(x)
	}
	return j.Index()
}

// Jain sums shares one at a time for JainFairness's index, the same
// arithmetic in the same order, without holding them.
type Jain struct {
	n       int
	sum, sq float64
}

// Add adds a share.
func (j *Jain) Add(x float64) {
	j.n++
	j.sum += x
	j.sq += x * x
}

// Index is Jain's index of the shares added: 0 for none.
func (j *Jain) Index() float64 {
	if j.n == 0 || j.sq == 0 {
		return 0
	}
	return j.sum * j.sum / (float64(j.n) * j.sq)
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

// FCTBucketCount is how many flow-size buckets FCTBuckets makes: 20
// buckets of 5% of the flows each.
const FCTBucketCount = 20

// FCTBuckets sorts flows by size (ties in the given order) and cuts them
// into FCTBucketCount buckets of equal count (bucket i takes flows
// [i·n/20, (i+1)·n/20)), with each bucket's largest size and the median
// and 99th percentile of its slowdowns. With fewer than 20 flows each
// flow is its own bucket; with none there are none.
func FCTBuckets(sizes []int64, slowdowns []float64) []FCTBucket {
	n := len(sizes)
	if n == 0 {
		return nil
	}
	idx := make([]int32, n) // 4 bytes a flow: a long run's end holds one per completed flow
	for i := range idx {
		idx[i] = int32(i)
	}
	sort.SliceStable(idx, func(a, b int) bool { return sizes[idx[a]] < sizes[idx[b]] })
	k := min(FCTBucketCount, n)
	out := make([]FCTBucket, 0, k)
	sl := make([]float64, 0, n/k+1) // one bucket's slowdowns, sorted in place
	for b := 0; b < k; b++ {
		lo, hi := b*n/k, (b+1)*n/k
		sl = sl[:0]
		for _, i := range idx[lo:hi] {
			sl = append(sl, slowdowns[i])
		}
		sort.Float64s(sl)
		out = append(out, FCTBucket{SizeMax: sizes[idx[hi-1]], Count: hi - lo,
			P50Slowdown: Round(SortedQuantile(0.5, sl), 4), P99Slowdown: Round(SortedQuantile(0.99, sl), 4)})
	}
	return out
}
