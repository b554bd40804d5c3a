package scenarios

import (
	"fmt"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// checkExpectations evaluates expect: against a finished run, in the
// order of OUTPUTS.md's example: drops, flows_completed, min_fairness,
// max_pause_fraction. Each detail cites the line of its check.
func (n *Network) checkExpectations(sum *reports.Summary) []reports.CheckResult {
	e := n.Scenario.Expect
	var out []reports.CheckResult
	add := func(check string, ok bool, at Pos, format string, args ...any) {
		detail := fmt.Sprintf(format, args...)
		if !ok && at.IsValid() {
			detail += fmt.Sprintf(" (expected at %s)", at)
		}
		out = append(out, reports.CheckResult{Check: check, OK: ok, Detail: detail})
	}
	if e.Drops != nil {
		add("drops", sum.Packets.Dropped == *e.Drops, e.DropsAt,
			"%d dropped, expected %d", sum.Packets.Dropped, *e.Drops)
	}
	if e.FlowsCompleted != nil {
		// "all" counts every flow of the scenario, including one whose start
		// is after the run ended.
		want := *e.FlowsCompleted
		label := fmt.Sprint(want)
		if want < 0 {
			want = len(n.Flows)
			label = fmt.Sprintf("all %d", want)
		}
		add("flows_completed", sum.Flows.Completed >= want, e.FlowsCompletedAt,
			"%d completed, expected %s", sum.Flows.Completed, label)
	}
	if e.MinFairness != nil {
		add("min_fairness", sum.Throughput.Fairness >= *e.MinFairness, e.MinFairnessAt,
			"Jain's index %.4f, expected at least %.4f", sum.Throughput.Fairness, *e.MinFairness)
	}
	total := n.Eng.Now()
	for _, c := range e.MaxPauseFraction {
		port := n.Fabric.Ports[c.Port.Node][c.Port.Port]
		var worst sim.Time
		for prio := uint8(0); prio < 8; prio++ {
			worst = max(worst, port.PausedTime(prio))
		}
		frac := 0.0
		if total > 0 {
			frac = float64(worst) / float64(total)
		}
		add("max_pause_fraction", frac <= c.Value, c.At,
			"%s paused %.4f of the run, expected at most %.4f", port.Name, frac, c.Value)
	}
	return out
}
