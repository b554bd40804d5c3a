package assembly

import (
	"cmp"
	"slices"
	"sort"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
)

// Streaming finished flows (issue 50). A poisson generator makes flows
// for as long as the run goes, about 700 a simulated millisecond on the
// HPCC paper's 320-host fabric at 30% load, and a FlowRun held each of
// them to the end for flows.csv and the summary: the run's memory grew
// with the time simulated. With StreamFlows, a poisson flow whose two
// sides have closed leaves the network at the next observation point:
// its record (its flows.csv row, with its completion time) goes to a
// spool on disk, its byte terms are added up, and its FlowRun is let
// go (it leaves Network.Flows). At the end, the spool's
// records and those of the flows left are merged by id, so flows.csv
// and the summary's FCT figures (which take every completed flow, in id
// order) are the same bytes as without the spool.
//
// Only RC flows are let go: a UC or UD flow's drops and copies may
// still be noted after it closed (conservation.go), and flows of the
// scenario, made at the build, stay (the sampler and the flows that
// wait for others hold them). Points exist only in a run with a
// lookahead; a run without one keeps every flow.

// flowStream is what the run keeps of the flows it let go.
type flowStream struct {
	spool *reports.FlowSpool
	// sum holds the let-go flows' counts and byte terms (flowRecord),
	// added to the run's summary at the end.
	sum reports.Summary
	// errs are the let-go flows' byte errors, the first
	// maxConservationErrors+1 by id (as flowRows keeps them).
	errs []flowError
	// spooled is flows.csv's rows at the end (flowRows).
	spooled *reports.SpooledFlows
	// retired counts the flows retired and still in Flows (dropFlows).
	retired int
}

// flowError is a flow's byte error, by its id.
type flowError struct {
	id  int
	err string
}

// StreamFlows has the run let its finished poisson flows go to spool
// (see flowStream) instead of holding them to the end; the results'
// flows.csv rows are then SpooledFlows, read back from it. Call it
// before Run; the spool must stay open until the results are written.
func (n *Network) StreamFlows(spool *reports.FlowSpool) {
	n.stream = &flowStream{spool: spool, sum: reports.Summary{Bytes: reports.ByteCounts{DropReasons: map[string]int64{}}}}
}

// finished notes fr, whose sides have both closed, for the next point
// (retire), in the list of node at's partition, whose event closed it:
// when the run streams its flows and fr is one it lets go.
func (n *Network) finished(fr *FlowRun, at fabric.NodeID) {
	if n.stream != nil && n.windowed && fr.Flow.QP == "rc" && fr.Flow.ID >= len(n.Scenario.Flows) {
		ps := n.part(at)
		ps.finished = append(ps.finished, fr)
	}
}

// retire lets go of the flows noted finished since the last point: each
// one's record goes to the spool, its byte terms to the stream's sum,
// and it is marked retired, to leave Flows (dropFlows). At a point,
// where no worker runs.
func (n *Network) retire() {
	st := n.stream
	if st == nil {
		return
	}
	for i := range n.parts {
		ps := &n.parts[i]
		for _, fr := range ps.finished {
			if fr.retired {
				continue // noted twice
			}
			rec, err := n.flowRecord(fr, &st.sum, nil)
			if err != "" {
				st.errs = keepFirstErrors(st.errs, flowError{fr.Flow.ID, err})
			}
			st.spool.Add(rec)
			fr.retired = true
			st.retired++
		}
		clear(ps.finished)
		ps.finished = ps.finished[:0]
	}
	n.dropFlows()
}

// dropFlows takes the retired flows out of Flows once they are at least
// half of the poisson flows it holds (so that each entry is moved once
// on average): Flows then holds the scenario's flows and the poisson
// flows not finished (and those finished since the last drop), in order
// of id, not an entry for every flow the run has made. (The oldest flow
// still running may be many milliseconds old: WebSearch's largest run
// 14 ms in hpcc-320, so a window from it would hold about 10,000.)
func (n *Network) dropFlows() {
	st := n.stream
	first := len(n.Scenario.Flows)
	if st.retired == 0 || 2*st.retired < len(n.Flows)-first {
		return
	}
	kept := n.Flows[:first]
	for _, fr := range n.Flows[first:] {
		if !fr.retired {
			kept = append(kept, fr)
		}
	}
	clear(n.Flows[len(kept):])
	n.dropped += len(n.Flows) - len(kept)
	n.Flows = kept
	st.retired = 0
}

// flowCount is how many flows the run has made, those that left Flows
// included.
func (n *Network) flowCount() int { return len(n.Flows) + n.dropped }

// keepFirstErrors adds e to errs, sorted by id, keeping the first
// maxConservationErrors+1.
func keepFirstErrors(errs []flowError, e flowError) []flowError {
	i, _ := slices.BinarySearchFunc(errs, e.id, func(a flowError, id int) int { return cmp.Compare(a.id, id) })
	if i > maxConservationErrors {
		return errs
	}
	errs = slices.Insert(errs, i, e)
	return errs[:min(len(errs), maxConservationErrors+1)]
}

// addStreamed adds the let-go flows' counts and byte terms to sum.
func (st *flowStream) addStreamed(sum *reports.Summary) {
	sum.Flows.Total += st.sum.Flows.Total
	sum.Flows.Completed += st.sum.Flows.Completed
	b := &sum.Bytes
	b.Offered += st.sum.Bytes.Offered
	b.Delivered += st.sum.Bytes.Delivered
	b.InFlight += st.sum.Bytes.InFlight
	b.Dropped += st.sum.Bytes.Dropped
	for r, k := range st.sum.Bytes.DropReasons {
		b.DropReasons[r] += k
	}
}

// fctTally gathers the summary's FCT figures from the completed flows'
// records, taken in order of id: their FCTs and slowdowns (the
// quantiles, the mean, the size buckets) and sizes, each made with room
// for every completed flow when the count is known (a long run's end
// grew them by append, 5 times their size in garbage), and Jain's sums
// of their throughputs.
type fctTally struct {
	fcts, slowdowns []float64
	sizes           []int64
	jain            reports.Jain
}

// newFCTTally makes a tally for completed flows (0: not known).
func newFCTTally(completed int) *fctTally {
	return &fctTally{fcts: make([]float64, 0, completed), slowdowns: make([]float64, 0, completed), sizes: make([]int64, 0, completed)}
}

func (t *fctTally) add(r *reports.FlowRecord) {
	if !r.Completed {
		return
	}
	t.fcts = append(t.fcts, float64(r.FCTNs))
	t.slowdowns = append(t.slowdowns, r.Slowdown)
	t.sizes = append(t.sizes, r.SizeBytes)
	if r.FCT > 0 { // a throughput of no time is none (it made Jain's index NaN, and summary.json panic)
		t.jain.Add(float64(r.SizeBytes) / float64(r.FCT))
	}
}

// into writes the FCT figures into sum: the mean and the buckets from
// the slowdowns in id order, then the quantiles from the FCTs and
// slowdowns sorted in place.
func (t *fctTally) into(sum *reports.Summary) {
	mean := reports.Round(reports.Mean(t.slowdowns), 4)
	sum.FCTBuckets = reports.FCTBuckets(t.sizes, t.slowdowns)
	sort.Float64s(t.fcts)
	sort.Float64s(t.slowdowns)
	sum.FCT = reports.FCT{
		P50Ns:        int64(reports.SortedQuantile(0.5, t.fcts)),
		P99Ns:        int64(reports.SortedQuantile(0.99, t.fcts)),
		MeanSlowdown: mean,
		P99Slowdown:  reports.Round(reports.SortedQuantile(0.99, t.slowdowns), 4),
	}
	sum.Throughput.Fairness = reports.Round(t.jain.Index(), 6)
}
