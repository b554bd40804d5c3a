package assembly

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/reports"
)

// The UET tests' shared runs (uet_rud_test.go, uet_transport_test.go,
// uec_test.go).

// sameAtWorkers runs src (file names it in messages) at 1 and 2 workers
// (runConserved), hands each run to check with its name (name, then the
// workers: "reps, 2 workers"; "2 workers" without a name), and wants the
// second run's outputs to be the first's byte for byte: summary.json
// (its wall time aside) and flows.csv, or flows.csv alone (flowsOnly).
func sameAtWorkers(t *testing.T, name, file, src string, flowsOnly bool, check func(what string, n *Network, r *reports.Results)) {
	t.Helper()
	var first []byte
	for _, workers := range []int{1, 2} {
		what := fmt.Sprintf("%d workers", workers)
		if name != "" {
			what = name + ", " + what
		}
		n, r := runConserved(t, what, file, src, workers)
		check(what, n, r)
		out, which := reports.FlowsCSV(r.Flows), "flows.csv differs"
		if !flowsOnly {
			out, which = append(reports.SummaryJSON(withoutWall(r.Summary)), out...), "summary.json or flows.csv differ"
		}
		if first == nil {
			first = out
		} else if !bytes.Equal(first, out) {
			t.Errorf("%s: %s from 1 worker's", what, which)
		}
	}
}

// hcaSum sums count over a run's HCAs.
func hcaSum(n *Network, count func(*hca.HCA) int64) int64 {
	var s int64
	for _, h := range n.HCAs {
		if h != nil {
			s += count(h)
		}
	}
	return s
}

// uetCounts sums what the run's HCAs counted of UET's loss recovery.
func uetCounts(n *Network) (timeouts, naks, sleek int64) {
	return hcaSum(n, func(h *hca.HCA) int64 { return h.Stats.Timeouts }),
		hcaSum(n, func(h *hca.HCA) int64 { return h.Stats.NaksSent }),
		hcaSum(n, (*hca.HCA).SleekRecoveries)
}

// uetEnd is when a run's last flow ended, ns.
func uetEnd(rows []reports.FlowRow) int64 {
	var end int64
	for _, r := range rows {
		end = max(end, r.StartNs+r.FCTNs)
	}
	return end
}

// withoutWall is a run's summary without its wall time, which differs
// from run to run.
func withoutWall(s *reports.Summary) *reports.Summary {
	c := *s
	c.WallSeconds = 0
	return &c
}
