package assembly

import (
	"fmt"

	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// What the collectives' runs report: collectives.csv's rows, summary.json's
// collectives, and their network bytes in the byte terms.

// collectivesDone reports whether every rank has finished every call.
func (n *Network) collectivesDone() bool {
	done := 0
	for i := range n.parts {
		done += n.parts[i].collCalls
	}
	return done == n.collCalls
}

// collectiveRows are collectives.csv's rows: each communicator's calls
// in order (collectives in traffic order, then nccl_tests programs).
func (n *Network) collectiveRows() []reports.CollectiveRow {
	var rows []reports.CollectiveRow
	for _, run := range n.colls {
		failed := false
		for _, e := range run.ends {
			failed = failed || e.failure != ""
		}
		for i, cr := range run.rows {
			row := reports.CollectiveRow{ID: len(rows), Op: cr.op.String(), Algorithm: run.comm.Opt.Algorithm.String(),
				Ranks: len(run.ranks), SizeBytes: cr.size, Status: "not_started"}
			if cr.size > 0 {
				row.Protocol = collective.Protocols()[cr.proto]
			}
			start, end, done := sim.Never, sim.Time(0), 0
			for _, r := range run.ranks {
				c := r.Calls()[i]
				if c.Began {
					start = min(start, c.Started)
				}
				if c.Done {
					done++
					end = max(end, c.End)
				}
			}
			if start != sim.Never {
				row.Started, row.StartNs, row.Status = true, start.Nanoseconds(), "incomplete"
			}
			switch {
			case done == len(run.ranks):
				row.Status = "completed"
				row.EndNs = end.Nanoseconds()
				row.TimeNs = row.EndNs - row.StartNs
				if t := end - start; t > 0 {
					row.AlgBwGbps = float64(cr.size) * 8 / (float64(t) / float64(sim.Nanosecond))
					row.BusBwGbps = row.AlgBwGbps * cr.op.BusFactor(len(run.ranks))
				}
			case failed && row.Started:
				row.Status = "failed"
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// collectiveSummary is summary.json's collectives, from the rows.
func (n *Network) collectiveSummary(rows []reports.CollectiveRow) *reports.Collectives {
	c := &reports.Collectives{Total: len(rows)}
	var times []float64
	for _, r := range rows {
		if r.Status == "completed" {
			c.Completed++
			times = append(times, float64(r.TimeNs))
			c.TimeNsMax = max(c.TimeNsMax, r.TimeNs)
			if c.Completed == 1 || r.BusBwGbps < c.BusbwGbpsMin {
				c.BusbwGbpsMin = r.BusBwGbps
			}
		}
	}
	c.TimeNsP50 = int64(reports.Quantile(0.5, times))
	for _, d := range n.domains {
		c.ScaleUpBytes += d.Bytes
	}
	return c
}

// collectiveBytes adds the collectives' network steps to the byte terms:
// a step's bytes (on the wire, as its protocol puts them) are offered
// when it is posted, delivered as the receiver's QPs accept them, and in
// flight until then (an RC requester holds them until acknowledged). It
// returns what does not add up: a link whose completed work requests
// carried more than its receiver accepted, or accepted more than was
// posted.
func (n *Network) collectiveBytes(sum *reports.Summary) (errs []string) {
	for _, run := range n.colls {
		for _, e := range run.ends {
			for i := range e.out {
				o := &e.out[i]
				if len(o.qps) == 0 {
					continue
				}
				l := run.comm.Links[run.comm.Out[e.rank.ID][i]]
				in := &run.ends[l.To].in[l.InIdx]
				var delivered int64
				for _, q := range in.qps {
					delivered += q.Delivered
				}
				sum.Bytes.Offered += o.posted
				sum.Bytes.Delivered += delivered
				sum.Bytes.InFlight += o.posted - delivered
				if delivered < o.finished || delivered > o.posted {
					errs = append(errs, fmt.Sprintf("collective traffic[%d]: link %s -> %s: %d bytes posted, %d completed, %d delivered",
						run.spec.Generator, e.h.Name, run.ends[l.To].h.Name, o.posted, o.finished, delivered))
				}
			}
		}
	}
	return errs
}

// collectiveResults adds collectives.csv (and nccl_tests.txt) to res, and
// the collectives' counts to its summary.
func (n *Network) collectiveResults(res *reports.Results) {
	rows := n.collectiveRows()
	if res.Extra == nil {
		res.Extra = map[string][]byte{}
	}
	res.Extra["collectives.csv"] = reports.CollectivesCSV(rows)
	if len(n.nccls) > 0 {
		res.Extra["nccl_tests.txt"] = n.ncclTestsReport()
	}
	res.Summary.Collectives = n.collectiveSummary(rows)
	for _, run := range n.colls {
		for _, e := range run.ends {
			if e.failure != "" {
				res.Summary.Warnings = append(res.Summary.Warnings, e.failure)
				return
			}
		}
	}
}
