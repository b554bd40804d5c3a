package reports

import (
	"math/rand/v2"
	"slices"
	"strconv"
)

// FlowStats is what a report draws of flows.csv, gathered row by row
// (Add) in memory that does not grow with the rows: the distributions of
// the CDFs, and the names of the flows the time series show. A run may
// list ten million flows; the report keeps about 3 MiB of them.
type FlowStats struct {
	// Rows is how many flows were added.
	Rows int64
	// FCT is the completed flows' completion times (µs), Slowdown their
	// slowdowns, and Connect the rdma_cm set-up times (ms) of the flows
	// connected with connect: cm.
	FCT, Slowdown, Connect Sample
	// names are "h0→h8 #3" by flow id, for the flows named in want (every
	// flow when want is nil).
	names map[int]string
	want  map[int]bool
}

// Add counts one row of flows.csv.
func (s *FlowStats) Add(f *FlowRow) {
	s.Rows++
	if f.CM && f.ConnectNs > 0 {
		s.Connect.Add(float64(f.ConnectNs) / 1e6)
	}
	// Completed: a datagram flow's sends succeed when its data is lost.
	if f.Status == "success" && f.DeliveredBytes >= f.SizeBytes {
		s.FCT.Add(float64(f.FCTNs) / 1e3)
		s.Slowdown.Add(f.Slowdown)
	}
	if s.want == nil || s.want[f.ID] {
		if s.names == nil {
			s.names = map[int]string{}
		}
		s.names[f.ID] = f.Src + "→" + f.Dst + " #" + strconv.Itoa(f.ID)
	}
}

// Name is how a chart names flow id: its hosts and id (h0→h8 #3).
func (s *FlowStats) Name(id int) (string, bool) {
	n, ok := s.names[id]
	return n, ok
}

// sampleCap is how many values a Sample keeps: 2^17, 1 MiB, which puts a
// CDF drawn from the sample within about 0.3% (one standard deviation,
// sqrt(p(1-p)/n) at p = 0.5) of the whole distribution's at each point;
// the chart draws 400 points (maxCDFPoints).
const sampleCap = 1 << 17

// Sample holds a distribution for its CDF in bounded memory: every value
// up to sampleCap of them, past that a uniform random sample of sampleCap
// (reservoir sampling, Vitter's algorithm R), and the exact least and
// greatest. Its random numbers come from a fixed seed, so that the same
// file gives the same page.
type Sample struct {
	// N is how many values were added.
	N        int64
	min, max float64
	xs       []float64
	rng      *rand.Rand
}

// Add adds v.
func (s *Sample) Add(v float64) {
	if s.N == 0 || v < s.min {
		s.min = v
	}
	if s.N == 0 || v > s.max {
		s.max = v
	}
	s.N++
	if len(s.xs) < sampleCap {
		s.xs = append(s.xs, v)
		return
	}
	if s.rng == nil {
		s.rng = rand.New(rand.NewPCG(1, 2))
	}
	if j := s.rng.Int64N(s.N); j < sampleCap {
		s.xs[j] = v
	}
}

// Sampled says that the values are more than the Sample keeps.
func (s *Sample) Sampled() bool { return s.N > int64(len(s.xs)) }

// Sorted returns the values kept, in order; when they are a sample, the
// first and last are the exact least and greatest of all.
func (s *Sample) Sorted() []float64 {
	xs := slices.Clone(s.xs)
	slices.Sort(xs)
	if s.Sampled() {
		xs[0], xs[len(xs)-1] = s.min, s.max
	}
	return xs
}
