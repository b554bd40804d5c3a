package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// timeline.csv: the stages of one iteration of a latency program
// (observe.timeline), a row per stage, and summary.json's timeline.

// TimelineRow is one stage of the iteration: the message it belongs to
// (ping, the client's SEND; pong, the server's; ping_ack and pong_ack,
// their RC ACKs; iteration, the whole), the stage's name
// (docs/OUTPUTS.md lists them), where it happens (a node, a port, or a
// link as port>port), its start and end in picoseconds from the
// iteration's start (the client's ibv_post_send), and whether it is on
// the iteration's critical path (the stages whose durations add up to
// the iteration's time; the ACKs run beside it).
type TimelineRow struct {
	Message, Stage, Where string
	Start, End            int64 // ps from the iteration's start
	Critical              bool
}

// timelineHeader is timeline.csv's header.
var timelineHeader = []string{"message", "stage", "where", "start_ns", "end_ns", "duration_ns", "critical"}

// IterationTimeline is summary.json's timeline: which iteration of which program
// timeline.csv follows, when it started, how long it took, and its
// critical path's time by stage (ns; a stage met at several hops, as
// serialization, summed).
type IterationTimeline struct {
	Traffic   int                `json:"traffic"`
	Iteration int                `json:"iteration"`
	StartNs   float64            `json:"start_ns"`
	TotalNs   float64            `json:"total_ns"`
	Stages    map[string]float64 `json:"stages"`
}

// TimelineSummary sums rows' critical stages by name.
func TimelineSummary(traffic, iteration int, start int64, rows []TimelineRow) *IterationTimeline {
	t := &IterationTimeline{Traffic: traffic, Iteration: iteration, StartNs: psToNs(start), Stages: map[string]float64{}}
	var sum int64
	for _, r := range rows {
		if r.Critical && r.Message != "iteration" {
			t.Stages[r.Stage] = psToNs(psOf(t.Stages[r.Stage]) + r.End - r.Start)
			sum += r.End - r.Start
		}
	}
	t.TotalNs = psToNs(sum)
	return t
}

// psToNs is ps in ns, exact to the picosecond.
func psToNs(ps int64) float64 { return float64(ps) / 1000 }

// psOf is ns (a psToNs value) back in ps.
func psOf(ns float64) int64 { return int64(math.Round(ns * 1000)) }

// nsText is ps as ns with three decimals (the picosecond).
func nsText(ps int64) string {
	sign := ""
	if ps < 0 {
		sign, ps = "-", -ps
	}
	return fmt.Sprintf("%s%d.%03d", sign, ps/1000, ps%1000)
}

// TimelineCSV renders timeline.csv, rows in the order given.
func TimelineCSV(rows []TimelineRow) []byte {
	var b strings.Builder
	b.WriteString(strings.Join(timelineHeader, ",") + "\n")
	for _, r := range rows {
		crit := "0"
		if r.Critical {
			crit = "1"
		}
		b.WriteString(strings.Join([]string{r.Message, r.Stage, r.Where, nsText(r.Start), nsText(r.End), nsText(r.End - r.Start), crit}, ","))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// loadIteration reads timeline.csv (absent: none).
func (r *Run) loadIteration(path string) error {
	return eachCSV(path, [][]string{timelineHeader}, func(_, rec []string) error {
		var p fieldParser
		start := p.float(rec, 3, timelineHeader, false)
		end := p.float(rec, 4, timelineHeader, false)
		if p.err != nil {
			return p.err
		}
		if end < start {
			return fmt.Errorf("end_ns %s is before start_ns %s", rec[4], rec[3])
		}
		crit, err := strconv.ParseBool(rec[6])
		if err != nil {
			return fmt.Errorf("critical: %q is not 0 or 1", rec[6])
		}
		r.Iteration = append(r.Iteration, TimelineRow{Message: strings.Clone(rec[0]), Stage: strings.Clone(rec[1]), Where: strings.Clone(rec[2]),
			Start: psOf(start), End: psOf(end), Critical: crit})
		return nil
	})
}
