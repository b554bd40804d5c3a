package observe

import (
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// checkJobs evaluates expect's job keys against summary jobs (none: the
// scenario ran no job, which fails each key given). The iteration-time
// and slowdown keys hold every job, and fail while a job has not
// finished its iterations (its time is unknown).
func checkJobs(e *Expect, jobs []reports.JobSummary) []reports.CheckResult {
	var out []reports.CheckResult
	add := func(check string, ok bool, at string, format string, args ...any) {
		out = append(out, Result(check, ok, at, format, args...))
	}
	done := 0
	for _, j := range jobs {
		if j.Completed == j.Iterations {
			done++
		}
	}
	if e.JobsCompleted != nil {
		switch want := *e.JobsCompleted; {
		case len(jobs) == 0:
			add("jobs_completed", false, e.JobsCompletedAt, "the scenario ran no job")
		case want < 0:
			add("jobs_completed", done == len(jobs), e.JobsCompletedAt, "%d of %d jobs finished every iteration, expected all", done, len(jobs))
		default:
			add("jobs_completed", done == want, e.JobsCompletedAt, "%d of %d jobs finished every iteration, expected %d", done, len(jobs), want)
		}
	}
	// each checks every job's value against a bound: ok says it holds.
	each := func(check, at string, value func(j *reports.JobSummary) (string, bool), bound string) {
		switch {
		case len(jobs) == 0:
			add(check, false, at, "the scenario ran no job")
		case done < len(jobs):
			add(check, false, at, "%d of %d jobs did not finish every iteration, expected %s", len(jobs)-done, len(jobs), bound)
		default:
			ok := true
			var parts []string
			for i := range jobs {
				v, good := value(&jobs[i])
				ok = ok && good
				parts = append(parts, jobs[i].Name+" "+v)
			}
			add(check, ok, at, "%s, expected %s", strings.Join(parts, ", "), bound)
		}
	}
	iter := func(j *reports.JobSummary) sim.Time { return sim.Time(j.IterationNsMean) * sim.Nanosecond }
	if t := e.MinIterationTime; t != nil {
		each("min_iteration_time", e.MinIterationTimeAt, func(j *reports.JobSummary) (string, bool) { return iter(j).String(), iter(j) >= *t }, "at least "+t.String())
	}
	if t := e.MaxIterationTime; t != nil {
		each("max_iteration_time", e.MaxIterationTimeAt, func(j *reports.JobSummary) (string, bool) { return iter(j).String(), iter(j) <= *t }, "at most "+t.String())
	}
	slow := func(check, at string, bound float64, above bool) {
		word := "at most"
		if above {
			word = "at least"
		}
		if len(jobs) == 1 {
			add(check, false, at, "one job: a slowdown is a job's iteration beside others over its iteration alone, and needs two jobs or more")
			return
		}
		each(check, at, func(j *reports.JobSummary) (string, bool) {
			return fmt.Sprintf("%.3f", j.Slowdown), j.Slowdown > 0 && (above && j.Slowdown >= bound || !above && j.Slowdown <= bound)
		}, fmt.Sprintf("%s %g", word, bound))
	}
	if e.MinJobSlowdown != nil {
		slow("min_job_slowdown", e.MinJobSlowdownAt, *e.MinJobSlowdown, true)
	}
	if e.MaxJobSlowdown != nil {
		slow("max_job_slowdown", e.MaxJobSlowdownAt, *e.MaxJobSlowdown, false)
	}
	return out
}
