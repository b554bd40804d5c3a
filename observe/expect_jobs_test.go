package observe

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// TestCheckJobs: the job keys against summary jobs: each holds every
// job, fails while one is unfinished, and fails, saying so, without a
// job (or, for a slowdown, with one).
func TestCheckJobs(t *testing.T) {
	all, two := -1, 2
	ms, slow, fast := 2*sim.Millisecond, 1.5, 1.1
	done := []reports.JobSummary{
		{Name: "a", Iterations: 3, Completed: 3, IterationNsMean: 1_500_000, Slowdown: 1.6},
		{Name: "b", Iterations: 3, Completed: 3, IterationNsMean: 2_500_000, Slowdown: 1.3},
	}
	unfinished := []reports.JobSummary{done[0], {Name: "b", Iterations: 3, Completed: 1}}
	for _, c := range []struct {
		name string
		e    Expect
		jobs []reports.JobSummary
		ok   bool
		want string
	}{
		{"all done", Expect{JobsCompleted: &all}, done, true, "2 of 2 jobs finished every iteration, expected all"},
		{"all unfinished", Expect{JobsCompleted: &all}, unfinished, false, "1 of 2 jobs finished every iteration, expected all"},
		{"two", Expect{JobsCompleted: &two}, done, true, "2 of 2 jobs finished every iteration, expected 2"},
		{"no job", Expect{JobsCompleted: &all}, nil, false, "the scenario ran no job"},
		{"max iteration", Expect{MaxIterationTime: &ms}, done, false, "a 1.5ms, b 2.5ms, expected at most 2ms"},
		{"min iteration", Expect{MinIterationTime: &ms}, done[1:], true, "b 2.5ms, expected at least 2ms"},
		{"iteration unfinished", Expect{MaxIterationTime: &ms}, unfinished, false, "1 of 2 jobs did not finish every iteration"},
		{"min slowdown", Expect{MinJobSlowdown: &fast}, done, true, "a 1.600, b 1.300, expected at least 1.1"},
		{"max slowdown", Expect{MaxJobSlowdown: &slow}, done, false, "a 1.600, b 1.300, expected at most 1.5"},
		{"one job", Expect{MaxJobSlowdown: &slow}, done[:1], false, "one job: a slowdown"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := checkJobs(&c.e, c.jobs)
			if len(out) != 1 || out[0].OK != c.ok || !strings.Contains(out[0].Detail, c.want) {
				t.Errorf("%+v, want ok %v and %q", out, c.ok, c.want)
			}
		})
	}
}
