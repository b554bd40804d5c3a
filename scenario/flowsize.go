package scenario

import (
	"embed"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// The flow-size distributions of published RDMA congestion-control
// evaluations, embedded (data/flowsize/README.md gives their origin).
//
//go:embed data/flowsize/*.txt data/flowsize/README.md
var flowSizeFS embed.FS

// SizeDists are the built-in flow-size distributions, by the name that
// poisson's sizes: takes.
var SizeDists = []string{"websearch", "hadoop", "alistorage2019", "googlerpc2008"}

// SizeDist is a flow-size distribution: a fixed size, or a CDF sampled as
// the published evaluations do (HPCC's traffic_gen): draw r uniform in
// [0, 100) and interpolate linearly between the two points around it.
type SizeDist struct {
	// Name is the built-in name, the CDF file's path, or the fixed size.
	Name string
	// Fixed is the size when the distribution is one size; 0 for a CDF.
	Fixed int64
	// Sizes (bytes, ascending) and Pct (cumulative percent, non-decreasing,
	// ending at 100) are the CDF's points.
	Sizes []float64
	Pct   []float64
}

// Mean is the distribution's mean under linear interpolation: each
// segment contributes its probability times its midpoint. Samples are at
// least 1 byte, which moves the mean by less than a byte.
func (s *SizeDist) Mean() float64 {
	if s.Fixed > 0 {
		return float64(s.Fixed)
	}
	var m float64
	for i := 1; i < len(s.Sizes); i++ {
		m += (s.Pct[i] - s.Pct[i-1]) / 100 * (s.Sizes[i] + s.Sizes[i-1]) / 2
	}
	return m
}

// Max is the largest size the distribution gives.
func (s *SizeDist) Max() int64 {
	if s.Fixed > 0 {
		return s.Fixed
	}
	return int64(math.Round(s.Sizes[len(s.Sizes)-1]))
}

// Sample draws one size (at least 1 byte). r uniform in [0, 100) comes
// from the top 53 bits of one Uint64, so that the draw depends only on
// the stream.
func (s *SizeDist) Sample(rng *rand.Rand) int64 {
	if s.Fixed > 0 {
		return s.Fixed
	}
	r := float64(rng.Uint64()>>11) / (1 << 53) * 100
	// The first point with Pct > r; the segment before it holds r.
	i := sort.Search(len(s.Pct), func(i int) bool { return s.Pct[i] > r })
	if i == 0 {
		return max(1, int64(math.Round(s.Sizes[0])))
	}
	if i == len(s.Pct) { // r is at 100 only by rounding
		return max(1, int64(math.Round(s.Sizes[len(s.Sizes)-1])))
	}
	lo, hi := s.Pct[i-1], s.Pct[i]
	x := s.Sizes[i-1] + (r-lo)/(hi-lo)*(s.Sizes[i]-s.Sizes[i-1])
	return max(1, int64(math.Round(x)))
}

// BuiltinSizeDist returns a built-in distribution by name.
func BuiltinSizeDist(name string) (*SizeDist, error) {
	data, err := flowSizeFS.ReadFile("data/flowsize/" + name + ".txt")
	if err != nil {
		return nil, err
	}
	return ParseCDF(name, data)
}

// maxCDFSize is the largest size a CDF may give, 2^53 bytes: every whole
// number up to it is exact in a float64, and it rounds to an int64
// without overflow (a size of 1e19 once wrapped to 0).
const maxCDFSize = 1 << 53

// ParseCDF reads a CDF file: one point a line, "<size in bytes>
// <cumulative percent 0..100>", sizes ascending, percents non-decreasing,
// the last at 100. Blank lines and lines starting with # are skipped.
// Errors name file:line; they show a short excerpt of a bad line (excerpt)
// only once the file has begun as a CDF, so that a key naming some other
// file (a password file, /proc/self/environ) never has it echoed.
func ParseCDF(file string, data []byte) (*SizeDist, error) {
	d := &SizeDist{Name: file}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		var x, p float64
		var err1, err2 error
		if len(f) == 2 {
			x, err1 = strconv.ParseFloat(f[0], 64)
			p, err2 = strconv.ParseFloat(f[1], 64)
		}
		if len(f) != 2 || err1 != nil || err2 != nil || math.IsNaN(x) || math.IsNaN(p) || math.IsInf(x, 0) {
			if len(d.Sizes) == 0 {
				// Its first line is not a point: likely not a CDF at all
				// (a key naming some other file), of which nothing is
				// shown.
				return nil, fmt.Errorf("%s:%d: not a CDF file: its first line is not \"<size in bytes> <cumulative percent>\" (not shown)", file, i+1)
			}
			if len(f) != 2 {
				return nil, fmt.Errorf("%s:%d: expected \"<size in bytes> <cumulative percent>\", found %s", file, i+1, excerpt(line))
			}
			return nil, fmt.Errorf("%s:%d: expected two numbers, found %s", file, i+1, excerpt(line))
		}
		if x < 0 || p < 0 || p > 100 {
			return nil, fmt.Errorf("%s:%d: sizes are at least 0 and percents 0..100, found %s", file, i+1, excerpt(line))
		}
		if x > maxCDFSize {
			return nil, fmt.Errorf("%s:%d: size %s is too large; a CDF's sizes are at most 2^53 bytes (8 PiB), the largest a float64 holds exactly", file, i+1, f[0])
		}
		if n := len(d.Sizes); n > 0 && (x < d.Sizes[n-1] || p < d.Pct[n-1]) {
			return nil, fmt.Errorf("%s:%d: the points must ascend (size and percent), found %s after %v %v", file, i+1, excerpt(line), d.Sizes[n-1], d.Pct[n-1])
		}
		d.Sizes, d.Pct = append(d.Sizes, x), append(d.Pct, p)
	}
	if len(d.Sizes) < 2 {
		return nil, fmt.Errorf("%s: a CDF needs at least two points", file)
	}
	if d.Pct[len(d.Pct)-1] != 100 {
		return nil, fmt.Errorf("%s: the last point's percent must be 100, not %v", file, d.Pct[len(d.Pct)-1])
	}
	if d.Max() < 1 {
		return nil, fmt.Errorf("%s: every size is 0", file)
	}
	return d, nil
}
