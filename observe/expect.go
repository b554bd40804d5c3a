package observe

import (
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// Expect holds the checks of expect:. A nil pointer means "not checked".
// Each check has where its key is in the scenario file (file:line:column,
// empty when it has no place there), to cite in a failure.
type Expect struct {
	// Drops is the number of packets that may be dropped (exactly).
	Drops   *int64
	DropsAt string
	// Deadlock is whether a deadlock must (true) or must not (false) be
	// detected; Storm the same for a PFC storm (summary pfc.storm_detected).
	Deadlock   *bool
	DeadlockAt string
	Storm      *bool
	StormAt    string
	// FlowsCompleted is how many flows must complete, exactly; -1 means
	// all. MinFlowsCompleted is how many must, at least, and
	// MaxFlowsCompleted how many may, at most (a lab whose lesson is
	// that some flows do not, about so many).
	FlowsCompleted      *int
	FlowsCompletedAt    string
	MinFlowsCompleted   *int64
	MinFlowsCompletedAt string
	MaxFlowsCompleted   *int64
	MaxFlowsCompletedAt string
	// CollectivesCompleted is how many collective calls must complete,
	// exactly; -1 means all. MinBusbw (Gb/s) bounds every completed
	// call's busbw from below, MaxCollectiveTime the slowest one's time.
	CollectivesCompleted   *int
	CollectivesCompletedAt string
	MinBusbw               *float64
	MinBusbwAt             string
	MaxCollectiveTime      *sim.Time
	MaxCollectiveTimeAt    string
	// JobsCompleted is how many jobs must finish every iteration,
	// exactly; -1 means all. Min/MaxIterationTime bound every job's mean
	// iteration time, Min/MaxJobSlowdown every job's slowdown beside the
	// others (expect_jobs.go).
	JobsCompleted                          *int
	JobsCompletedAt                        string
	MinIterationTime, MaxIterationTime     *sim.Time
	MinIterationTimeAt, MaxIterationTimeAt string
	MinJobSlowdown, MaxJobSlowdown         *float64
	MinJobSlowdownAt, MaxJobSlowdownAt     string
	// MinFairness is the lowest acceptable Jain's index of the flows'
	// throughputs, 0..1.
	MinFairness   *float64
	MinFairnessAt string
	// MinMeanSlowdown and MaxMeanSlowdown bound the completed flows' mean
	// FCT slowdown (summary fct.mean_slowdown), for a lab whose lesson is
	// how much slower flows finish.
	MinMeanSlowdown, MaxMeanSlowdown     *float64
	MinMeanSlowdownAt, MaxMeanSlowdownAt string
	// MinRetransmitted and MaxRetransmitted bound the packets resent
	// (summary packets.retransmitted): spurious retransmissions are a
	// lesson of their own.
	MinRetransmitted, MaxRetransmitted     *int64
	MinRetransmittedAt, MaxRetransmittedAt string
	// MinUplinkImbalance and MaxUplinkImbalance bound the busiest uplink
	// over the mean (summary uplinks.imbalance); a fabric without uplinks
	// fails either.
	MinUplinkImbalance, MaxUplinkImbalance     *float64
	MinUplinkImbalanceAt, MaxUplinkImbalanceAt string
	// MaxPauseFraction bounds the fraction of the run a port spends paused;
	// MinPauseFraction asks that it spend at least so much (a storm that
	// must reach it).
	MaxPauseFraction []PauseFractionCheck
	MinPauseFraction []PauseFractionCheck
	// WorkCompletions asks for exactly N of the flows' work completions
	// with each status listed (summary flows.work_completions).
	WorkCompletions []WCCheck
	// MinPeakQueue and MaxPeakQueue bound the largest switch egress
	// queue sampled (summary queues.peak_bytes), bytes.
	MinPeakQueue, MaxPeakQueue     *int64
	MinPeakQueueAt, MaxPeakQueueAt string
	// MinMeanQueue and MaxMeanQueue bound the largest time-averaged
	// switch egress queue (summary queues.mean_bytes), bytes.
	MinMeanQueue, MaxMeanQueue     *int64
	MinMeanQueueAt, MaxMeanQueueAt string
	// MinSetupTime and MaxSetupTime bound the rdma_cm connections' set-up
	// (summary connections.total_ns), ns; ConnectionsEstablished and
	// ConnectionsFailed ask for exactly so many made and lost.
	MinSetupTime, MaxSetupTime                    *int64
	MinSetupTimeAt, MaxSetupTimeAt                string
	ConnectionsEstablished, ConnectionsFailed     *int64
	ConnectionsEstablishedAt, ConnectionsFailedAt string
	// MinUsecPerIter and MaxUsecPerIter bound every pingpong's time per
	// iteration; the runner checks them (it has the programs).
	MinUsecPerIter, MaxUsecPerIter     *float64
	MinUsecPerIterAt, MaxUsecPerIterAt string
}

// WCCheck asks for exactly N work completions with status Status.
type WCCheck struct {
	Status string
	N      int64
	At     string
}

// PauseFractionCheck says port Port may be paused at most (or, in
// MinPauseFraction, at least) Value (0..1) of the run.
type PauseFractionCheck struct {
	Port  PortRef
	Value float64
	At    string
}

// Result is one expectation's outcome: its detail is format's text and,
// when the check failed, where the scenario asked for it (at,
// file:line:column; "" for nowhere).
func Result(check string, ok bool, at string, format string, args ...any) reports.CheckResult {
	detail := fmt.Sprintf(format, args...)
	if !ok && at != "" {
		detail += fmt.Sprintf(" (expected at %s)", at)
	}
	return reports.CheckResult{Check: check, OK: ok, Detail: detail}
}

// Check evaluates e against a finished run, in the order of OUTPUTS.md's
// example: drops, flows_completed (exactly; min_ and max_flows_completed
// bound it), min_fairness, max_pause_fraction. Each
// detail cites the line of its check. flows is the number of flows of the
// scenario (what flows_completed: all asks for).
func Check(v *View, e *Expect, flows int, sum *reports.Summary) []reports.CheckResult {
	var out []reports.CheckResult
	add := func(check string, ok bool, at string, format string, args ...any) {
		out = append(out, Result(check, ok, at, format, args...))
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
			want = flows
			label = fmt.Sprintf("all %d", want)
		}
		add("flows_completed", sum.Flows.Completed == want, e.FlowsCompletedAt,
			"%d completed, expected %s", sum.Flows.Completed, label)
	}
	if e.MinFlowsCompleted != nil {
		add("min_flows_completed", int64(sum.Flows.Completed) >= *e.MinFlowsCompleted, e.MinFlowsCompletedAt,
			"%d completed of %d, expected at least %d", sum.Flows.Completed, sum.Flows.Total, *e.MinFlowsCompleted)
	}
	if e.MaxFlowsCompleted != nil {
		add("max_flows_completed", int64(sum.Flows.Completed) <= *e.MaxFlowsCompleted, e.MaxFlowsCompletedAt,
			"%d completed of %d, expected at most %d", sum.Flows.Completed, sum.Flows.Total, *e.MaxFlowsCompleted)
	}
	out = append(out, checkCollectives(e, sum.Collectives)...)
	out = append(out, checkJobs(e, sum.Jobs)...)
	if e.MinFairness != nil {
		add("min_fairness", sum.Throughput.Fairness >= *e.MinFairness, e.MinFairnessAt,
			"Jain's index %.4f, expected at least %.4f", sum.Throughput.Fairness, *e.MinFairness)
	}
	if e.MinMeanSlowdown != nil {
		add("min_mean_slowdown", sum.FCT.MeanSlowdown >= *e.MinMeanSlowdown, e.MinMeanSlowdownAt,
			"mean slowdown %.4f, expected at least %.4f", sum.FCT.MeanSlowdown, *e.MinMeanSlowdown)
	}
	if e.MaxMeanSlowdown != nil {
		add("max_mean_slowdown", sum.FCT.MeanSlowdown <= *e.MaxMeanSlowdown, e.MaxMeanSlowdownAt,
			"mean slowdown %.4f, expected at most %.4f", sum.FCT.MeanSlowdown, *e.MaxMeanSlowdown)
	}
	if e.MinRetransmitted != nil {
		add("min_retransmitted", sum.Packets.Retransmitted >= *e.MinRetransmitted, e.MinRetransmittedAt,
			"%d packets retransmitted, expected at least %d", sum.Packets.Retransmitted, *e.MinRetransmitted)
	}
	if e.MaxRetransmitted != nil {
		add("max_retransmitted", sum.Packets.Retransmitted <= *e.MaxRetransmitted, e.MaxRetransmittedAt,
			"%d packets retransmitted, expected at most %d", sum.Packets.Retransmitted, *e.MaxRetransmitted)
	}
	imbalance := func(check string, bound *float64, at string, min bool) {
		if bound == nil {
			return
		}
		u := sum.Uplinks
		if u == nil {
			add(check, false, at, "the fabric has no uplinks")
			return
		}
		if min {
			add(check, u.Imbalance >= *bound, at, "uplink imbalance %.4f, expected at least %.4f", u.Imbalance, *bound)
		} else {
			add(check, u.Imbalance <= *bound, at, "uplink imbalance %.4f, expected at most %.4f", u.Imbalance, *bound)
		}
	}
	imbalance("min_uplink_imbalance", e.MinUplinkImbalance, e.MinUplinkImbalanceAt, true)
	imbalance("max_uplink_imbalance", e.MaxUplinkImbalance, e.MaxUplinkImbalanceAt, false)
	peak := func(check string, bound *int64, at string, min bool) {
		if bound == nil {
			return
		}
		var got int64
		where := "no switch queue held a byte"
		switch q := sum.Queues; {
		case q == nil:
		case strings.HasSuffix(check, "mean_queue"):
			got, where = int64(q.MeanBytes), fmt.Sprintf("mean queue %.0f bytes at %s", q.MeanBytes, q.MeanQueue)
		default:
			got, where = q.PeakBytes, fmt.Sprintf("peak queue %d bytes at %s", q.PeakBytes, q.PeakQueue)
		}
		if min {
			add(check, got >= *bound, at, "%s, expected at least %d", where, *bound)
		} else {
			add(check, got <= *bound, at, "%s, expected at most %d", where, *bound)
		}
	}
	peak("min_peak_queue", e.MinPeakQueue, e.MinPeakQueueAt, true)
	peak("max_peak_queue", e.MaxPeakQueue, e.MaxPeakQueueAt, false)
	peak("min_mean_queue", e.MinMeanQueue, e.MinMeanQueueAt, true)
	peak("max_mean_queue", e.MaxMeanQueue, e.MaxMeanQueueAt, false)
	conns := sum.Connections
	if conns == nil {
		conns = &reports.Connections{}
	}
	setup := func(check string, bound *int64, at string, min bool) {
		if bound == nil {
			return
		}
		short := func(ns int64) string { return (sim.Time(ns) * sim.Nanosecond).Short() }
		where := fmt.Sprintf("connections made in %s (%d)", short(conns.TotalNs), conns.Established)
		if conns.Established == 0 {
			where = "no rdma_cm connection made"
		}
		if min {
			add(check, conns.Established > 0 && conns.TotalNs >= *bound, at, "%s, expected at least %s", where, short(*bound))
		} else {
			add(check, conns.Established > 0 && conns.TotalNs <= *bound, at, "%s, expected at most %s", where, short(*bound))
		}
	}
	setup("min_setup_time", e.MinSetupTime, e.MinSetupTimeAt, true)
	setup("max_setup_time", e.MaxSetupTime, e.MaxSetupTimeAt, false)
	if e.ConnectionsEstablished != nil {
		add("connections_established", int64(conns.Established) == *e.ConnectionsEstablished, e.ConnectionsEstablishedAt,
			"%d rdma_cm connections made of %d started, expected %d", conns.Established, conns.Requested, *e.ConnectionsEstablished)
	}
	if e.ConnectionsFailed != nil {
		add("connections_failed", int64(conns.Failed) == *e.ConnectionsFailed, e.ConnectionsFailedAt,
			"%d rdma_cm connections failed (rejected or unreachable) of %d started, expected %d", conns.Failed, conns.Requested, *e.ConnectionsFailed)
	}
	for _, c := range e.WorkCompletions {
		got := sum.Flows.WorkCompletions[c.Status]
		add("work_completions", got == c.N, c.At, "%d work completions %s, expected %d", got, c.Status, c.N)
	}
	if e.Deadlock != nil {
		d := sum.Deadlock
		detail := "no deadlock"
		if d.Detected {
			detail = fmt.Sprintf("deadlock at %s: %s", sim.Time(d.AtNs)*sim.Nanosecond, strings.Join(d.Cycle, " -> "))
		}
		add("deadlock", d.Detected == *e.Deadlock, e.DeadlockAt, "%s, expected %s", detail, map[bool]string{true: "one", false: "none"}[*e.Deadlock])
	}
	if e.Storm != nil {
		add("storm", sum.PFC.StormDetected == *e.Storm, e.StormAt, "storm detected: %v, expected %v", sum.PFC.StormDetected, *e.Storm)
	}
	total := v.Eng.Now()
	frac := func(c PauseFractionCheck) (string, float64) {
		port := v.Ports[c.Port.Node][c.Port.Port]
		var worst sim.Time
		for prio := uint8(0); prio < 8; prio++ {
			worst = max(worst, port.PausedTime(prio))
		}
		if total == 0 {
			return port.Name, 0
		}
		return port.Name, float64(worst) / float64(total)
	}
	for _, c := range e.MaxPauseFraction {
		name, f := frac(c)
		add("max_pause_fraction", f <= c.Value, c.At,
			"%s paused %.4f of the run, expected at most %.4f", name, f, c.Value)
	}
	for _, c := range e.MinPauseFraction {
		name, f := frac(c)
		add("min_pause_fraction", f >= c.Value, c.At,
			"%s paused %.4f of the run, expected at least %.4f", name, f, c.Value)
	}
	return out
}
