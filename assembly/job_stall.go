package assembly

import (
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/job"
)

// maxStallRanks bounds the ranks a job's stall warning names one by one.
const maxStallRanks = 8

// stalls are the warnings of a job that did not finish (review C,
// finding 1: a job whose ranks waited for each other idled to stop.at
// and no file said so): one for each rank short of its iterations, up
// to maxStallRanks and then how many more, naming the iteration it
// stopped in and what each of its released, unfinished nodes waits
// for: a receive its message, a send its work requests' completions, a
// call the ranks that have not made it (or its end), a compute its end.
func (jr *jobRun) stalls() []string {
	j := jr.j
	var out []string
	more := 0
	for _, k := range jr.ranks {
		if k.iter >= j.Iterations {
			continue
		}
		if len(out) == maxStallRanks {
			more++
			continue
		}
		head := fmt.Sprintf("job %s (traffic[%d]) did not finish: rank %d stopped in iteration %d of %d", j.Name, jr.spec.Generator, k.r, k.iter, j.Iterations)
		if k.begun <= k.iter {
			out = append(out, head+", which had not begun")
			continue
		}
		var waits []string
		for _, i := range jr.graphs[k.r].Order {
			if k.pending[i] == 0 && !k.finished[i] {
				waits = append(waits, jr.waitOf(k, i))
			}
		}
		out = append(out, head+": "+strings.Join(waits, "; "))
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("job %s (traffic[%d]) did not finish: %d more ranks stopped short of %d iterations", j.Name, jr.spec.Generator, more, j.Iterations))
	}
	return out
}

// waitOf says what rank k's node i, released and not done, waits for.
func (jr *jobRun) waitOf(k *jobRank, i int32) string {
	j := jr.j
	nd := &j.Graphs[k.r][i]
	name := fmt.Sprintf("node %d (%s)", nd.ID, nd.Label())
	switch nd.Kind {
	case job.Recv:
		return fmt.Sprintf("node %d (recv from rank %d, tag %d) waits for its message", nd.ID, nd.Peer, nd.Tag)
	case job.Send:
		s := fmt.Sprintf("node %d (send to rank %d, tag %d) waits for its work requests to complete", nd.ID, nd.Peer, nd.Tag)
		if k.failure != "" {
			s += " (one failed)"
		}
		return s
	case job.Collective:
		calls := j.Collectives(jr.graphs[k.r], k.r, nd.Comm)
		call := 0
		for c, x := range calls {
			if x == i {
				call = c
			}
		}
		var missing []string
		for _, q := range j.Comms[nd.Comm].Ranks {
			kq := jr.ranks[q]
			x := j.Collectives(jr.graphs[q], q, nd.Comm)[call]
			made := kq.iter > k.iter || kq.iter == k.iter && kq.begun > k.iter && kq.pending[x] == 0
			if !made {
				missing = append(missing, fmt.Sprintf("%d (its node %d)", q, j.Graphs[q][x].ID))
			}
		}
		s := fmt.Sprintf("%s, call %d of communicator %d", name, call, nd.Comm)
		if len(missing) == 0 {
			return s + ", waits for the call to end"
		}
		return s + ", waits for ranks " + strings.Join(missing, ", ") + " to make it"
	case job.Compute:
		return name + " is computing"
	}
	return name + " waits"
}
