package assembly

import (
	"fmt"
	"io"
	"sort"

	"github.com/lfsim/lfsim/job"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// jobBytes adds the jobs' sends to the byte terms, as collectiveBytes
// adds the collectives' steps (the jobs' collectives are among those):
// a send's payload is offered when it is posted, delivered as the
// receiver's QP accepts it, and in flight until then. It returns what
// does not add up.
func (n *Network) jobBytes(sum *reports.Summary) (errs []string) {
	for _, jr := range n.jobs {
		for _, l := range jr.links {
			delivered := l.rq.Delivered
			sum.Bytes.Offered += l.posted
			sum.Bytes.Delivered += delivered
			sum.Bytes.InFlight += l.posted - delivered
			if delivered < l.finished || delivered > l.posted {
				errs = append(errs, fmt.Sprintf("job traffic[%d]: sends %s -> %s: %d bytes posted, %d completed, %d delivered",
					jr.spec.Generator, l.from.h.Name, l.to.h.Name, l.posted, l.finished, delivered))
			}
		}
		for _, k := range jr.ranks {
			if k.failure != "" {
				sum.Warnings = append(sum.Warnings, k.failure)
			}
		}
		sum.Warnings = append(sum.Warnings, jr.stalls()...)
	}
	return errs
}

// jobSummaries are summary.json's jobs: each job's iteration times and
// exposed communication (reports.JobSummary says how each is counted),
// and, when the scenario runs several, its iteration time alone
// (unless alone is false: an interrupted run does not run them again).
// An interruption while they run alone (Interrupt) cuts them: no job
// then has a slowdown, and cut is true.
func (n *Network) jobSummaries(alone bool) (out []reports.JobSummary, cut bool) {
	for _, jr := range n.jobs {
		out = append(out, jr.summary())
	}
	if alone && len(n.jobs) > 1 {
		for i := range out {
			if out[i].Completed == 0 {
				continue // no mean to compare
			}
			alone, why := n.jobAlone(i, out[i].Completed)
			if why != "" {
				n.aloneWarnings = append(n.aloneWarnings, fmt.Sprintf("job %s: no slowdown: %s", out[i].Name, why))
			} else if alone > 0 {
				out[i].AloneIterationNsMean = alone
				out[i].Slowdown = float64(out[i].IterationNsMean) / float64(alone)
			}
		}
		if n.interrupted.Load() {
			for i := range out {
				out[i].AloneIterationNsMean, out[i].Slowdown = 0, 0
			}
			return out, true
		}
	}
	return out, false
}

// summary is the job's summary.json entry.
func (jr *jobRun) summary() reports.JobSummary {
	j := jr.j
	s := reports.JobSummary{Name: j.Name, Traffic: jr.spec.Generator, Ranks: j.Ranks, Iterations: j.Iterations, IterationNs: []int64{}}
	var sum sim.Time
	for it := range j.Iterations {
		t, ok := jr.iterationTime(it)
		if !ok {
			break
		}
		s.Completed++
		s.IterationNs = append(s.IterationNs, t.Nanoseconds())
		sum += t
	}
	if s.Completed == 0 {
		return s
	}
	s.IterationNsMean = (sum / sim.Time(s.Completed)).Nanoseconds()
	var compute, exposed, window sim.Time
	for _, k := range jr.ranks {
		for it := range s.Completed {
			w := k.Finish[it] - k.Begin[it]
			c := k.computeTime(it)
			window += w
			compute += c
			exposed += w - c
			s.ExposedCommNsMax = max(s.ExposedCommNsMax, (w - c).Nanoseconds())
		}
	}
	samples := sim.Time(len(jr.ranks) * s.Completed)
	s.ComputeNsMean = (compute / samples).Nanoseconds()
	s.ExposedCommNsMean = (exposed / samples).Nanoseconds()
	if window > 0 {
		s.ExposedCommFraction = float64(exposed) / float64(window)
	}
	return s
}

// computeTime is how long rank k computes in iteration it: the union of
// its compute nodes' intervals.
func (k *jobRank) computeTime(it int) sim.Time {
	var spans [][2]sim.Time
	for i := range k.deps {
		if nd := &k.run.j.Graphs[k.r][i]; nd.Kind == job.Compute && k.End[it][i] > k.Start[it][i] {
			spans = append(spans, [2]sim.Time{k.Start[it][i], k.End[it][i]})
		}
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a][0] < spans[b][0] })
	var total, from, to sim.Time
	for i, sp := range spans {
		if i == 0 || sp[0] > to {
			total += to - from
			from, to = sp[0], sp[1]
			continue
		}
		to = max(to, sp[1])
	}
	return total + to - from
}

// jobAlone is job i's mean iteration time when it runs alone: the same
// scenario (its faults included) with job i its only traffic and no
// expectations, over its first completed iterations, as many as it
// completed beside the others (the first carries the warm-up, so means
// over different counts would not compare). It says why there is none
// when it could not be built or completed fewer ("" when cut by an
// interruption, which jobSummaries reports).
func (n *Network) jobAlone(i, completed int) (int64, string) {
	s := *n.Scenario
	s.Jobs = []resolve.Job{n.Scenario.Jobs[i]}
	s.Flows, s.Collectives, s.NCCLTests, s.Poisson, s.Tests, s.AsyncWatch = nil, nil, nil, nil, nil, nil
	s.Expect = observe.Expect{}
	s.Observe.Pcap = nil
	workers := 1
	if n.Group != nil {
		workers = n.Group.Workers()
	}
	if n.interrupted.Load() {
		return 0, ""
	}
	a, err := BuildWorkers(&s, workers)
	if err != nil {
		return 0, fmt.Sprintf("its run alone could not be built: %v", err)
	}
	// Stored before the flag is read again, as Interrupt sets the flag
	// before it loads alone: one of the two sees the other.
	n.alone.Store(a)
	defer n.alone.Store(nil)
	if n.interrupted.Load() {
		a.Interrupt()
	}
	if n.aloneBuilt != nil {
		n.aloneBuilt(a)
	}
	a.Run(nil)
	var sum sim.Time
	for it := range completed {
		t, ok := a.jobs[0].iterationTime(it)
		if !ok {
			if n.interrupted.Load() {
				return 0, ""
			}
			return 0, fmt.Sprintf("alone it completed %d of the %d iterations it completed beside the others", it, completed)
		}
		sum += t
	}
	return (sum / sim.Time(completed)).Nanoseconds(), ""
}

// timeline is trace.json's content: every job's nodes that began, per
// rank and iteration, each on the first lane of its rank where it
// overlaps nothing (ordered by start, then end, then node).
func (n *Network) timeline() *reports.Timeline {
	t := &reports.Timeline{}
	names := n.Scenario.Topology.Nodes
	for ji, jr := range n.jobs {
		tj := reports.TimelineJob{Name: jr.j.Name, Lanes: make([]int, len(jr.ranks))}
		for r, k := range jr.ranks {
			tj.Hosts = append(tj.Hosts, names[jr.spec.Hosts[r]].Name)
			var lanes []sim.Time // each lane's last end
			for it := range min(k.iter+1, jr.j.Iterations) {
				var spans []reports.Span
				for i := range k.deps {
					nd := &jr.j.Graphs[k.r][i]
					start, end := k.Start[it][i], k.End[it][i]
					if nd.Kind == job.None || (it == k.iter && !k.finished[i]) {
						continue // nothing to show, or not done
					}
					sp := reports.Span{Job: ji, Rank: r, Name: nd.Label(), Cat: nd.Kind.String(), StartPs: int64(start), DurPs: int64(end - start),
						Iteration: it, Node: nd.ID}
					if nd.Kind != job.Compute {
						sp.Bytes = nd.Size
					}
					spans = append(spans, sp)
				}
				sort.SliceStable(spans, func(a, b int) bool {
					if spans[a].StartPs != spans[b].StartPs {
						return spans[a].StartPs < spans[b].StartPs
					}
					return spans[a].DurPs < spans[b].DurPs
				})
				for x := range spans {
					sp := &spans[x]
					l := 0
					for l < len(lanes) && lanes[l] > sim.Time(sp.StartPs) {
						l++
					}
					if l == len(lanes) {
						lanes = append(lanes, 0)
					}
					lanes[l] = sim.Time(sp.StartPs + sp.DurPs)
					sp.Lane = l
				}
				t.Events = append(t.Events, spans...)
			}
			tj.Lanes[r] = max(1, len(lanes))
		}
		t.Jobs = append(t.Jobs, tj)
	}
	return t
}

// jobResults adds trace.json to res.
func (n *Network) jobResults(res *reports.Results) {
	if res.Streamed == nil {
		res.Streamed = map[string]func(io.Writer) error{}
	}
	t := n.timeline()
	res.Streamed["trace.json"] = func(w io.Writer) error { return reports.WriteTraceJSON(w, t) }
}
