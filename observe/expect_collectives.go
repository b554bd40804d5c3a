package observe

import (
	"fmt"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// checkCollectives evaluates expect's collective keys against summary
// collectives (nil: the scenario ran none, which fails each key given).
// min_busbw_gbps and max_collective_time fail while any call did not
// complete: its bus bandwidth and time are unknown but beyond every
// completed call's (summary.json's busbw_gbps_min and time_ns_max are
// over completed calls only).
func checkCollectives(e *Expect, c *reports.Collectives) []reports.CheckResult {
	var out []reports.CheckResult
	add := func(check string, ok bool, at string, format string, args ...any) {
		out = append(out, Result(check, ok, at, format, args...))
	}
	none := func(check, at string) { add(check, false, at, "the scenario ran no collective") }
	if e.CollectivesCompleted != nil {
		switch want := *e.CollectivesCompleted; {
		case c == nil:
			none("collectives_completed", e.CollectivesCompletedAt)
		case want < 0:
			add("collectives_completed", c.Completed == c.Total, e.CollectivesCompletedAt,
				"%d of %d collective calls completed, expected all", c.Completed, c.Total)
		default:
			add("collectives_completed", c.Completed == want, e.CollectivesCompletedAt,
				"%d of %d collective calls completed, expected %d", c.Completed, c.Total, want)
		}
	}
	if e.MinBusbw != nil {
		switch {
		case c == nil:
			none("min_busbw_gbps", e.MinBusbwAt)
		case c.Completed < c.Total:
			add("min_busbw_gbps", false, e.MinBusbwAt, "%s, expected at least %g", unfinished(c), *e.MinBusbw)
		default:
			add("min_busbw_gbps", c.BusbwGbpsMin >= *e.MinBusbw, e.MinBusbwAt,
				"lowest busbw %.3f Gb/s, expected at least %g", c.BusbwGbpsMin, *e.MinBusbw)
		}
	}
	if e.MaxCollectiveTime != nil {
		switch {
		case c == nil:
			none("max_collective_time", e.MaxCollectiveTimeAt)
		case c.Completed < c.Total:
			add("max_collective_time", false, e.MaxCollectiveTimeAt, "%s, expected at most %s", unfinished(c), *e.MaxCollectiveTime)
		default:
			add("max_collective_time", c.TimeNsMax <= e.MaxCollectiveTime.Nanoseconds(), e.MaxCollectiveTimeAt,
				"slowest call %s, expected at most %s", sim.Time(c.TimeNsMax)*sim.Nanosecond, *e.MaxCollectiveTime)
		}
	}
	return out
}

// unfinished says how many of c's calls did not complete.
func unfinished(c *reports.Collectives) string {
	return fmt.Sprintf("%d of %d collective calls did not complete (their time and busbw are beyond any completed one's)", c.Total-c.Completed, c.Total)
}
