package reports

import (
	"fmt"
	"html"
	"strings"
)

// The report's jobs: a table of each job's iteration time, alone and
// beside the others, and its exposed communication (summary.json's
// jobs), and a timeline of its first iterations per rank drawn from
// trace.json as an inline SVG (no script: it shows offline).

// spanColors are the timeline's colours by span kind.
var spanColors = map[string]string{"compute": "#4e79a7", "collective": "#f28e2b", "send": "#59a14f", "recv": "#8cd17d"}

// jobs adds the jobs' section: one table for the runs, and each run's
// timelines.
func (pg *page) jobs(runs []*Run) {
	any := false
	for _, r := range runs {
		any = any || len(r.Summary.Jobs) > 0
	}
	if !any {
		return
	}
	pg.section("Training jobs", "Each job's iteration time (from the end of the previous iteration at its last rank to the end of this one at its last rank), "+
		"alone on the fabric and beside the other jobs when the scenario runs several, and its exposed communication: the time a rank's iteration "+
		"spends not computing, waiting on the network (OUTPUTS.md, summary.json's jobs).")
	pg.b.WriteString("<table>\n<tr>")
	if len(runs) > 1 {
		pg.b.WriteString("<th>run</th>")
	}
	pg.b.WriteString("<th>job</th><th>ranks</th><th>iterations</th><th>iteration mean</th><th>min / max</th><th>alone</th><th>slowdown</th><th>compute per rank</th><th>exposed communication mean / max</th><th>exposed share</th></tr>\n")
	for _, r := range runs {
		for _, j := range r.Summary.Jobs {
			pg.b.WriteString("<tr>")
			if len(runs) > 1 {
				fmt.Fprintf(&pg.b, "<td>%s</td>", html.EscapeString(r.Label))
			}
			lo, hi := int64(0), int64(0)
			for i, t := range j.IterationNs {
				if i == 0 || t < lo {
					lo = t
				}
				hi = max(hi, t)
			}
			alone, slow := "—", "—"
			if j.AloneIterationNsMean > 0 {
				alone, slow = fmtNs(float64(j.AloneIterationNsMean)), fmt.Sprintf("%.3f", j.Slowdown)
			}
			mean, minmax, compute, exposed, share := "—", "—", "—", "—", "—"
			if j.Completed > 0 {
				mean = fmtNs(float64(j.IterationNsMean))
				minmax = fmtNs(float64(lo)) + " / " + fmtNs(float64(hi))
				compute = fmtNs(float64(j.ComputeNsMean))
				exposed = fmtNs(float64(j.ExposedCommNsMean)) + " / " + fmtNs(float64(j.ExposedCommNsMax))
				share = fmt.Sprintf("%.1f%%", 100*j.ExposedCommFraction)
			}
			fmt.Fprintf(&pg.b, "<td>%s</td><td>%d</td><td>%d of %d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				html.EscapeString(j.Name), j.Ranks, j.Completed, j.Iterations, mean, minmax, alone, slow, compute, exposed, share)
		}
	}
	pg.b.WriteString("</table>\n")
	for _, r := range runs {
		if r.Timeline != nil {
			pg.timelines(r, len(runs) > 1)
		}
	}
}

// timelines draws each job's spans per rank: a row per rank, a band per
// kind in it (compute, collective, send and receive), over the
// iterations read (timelineIterations).
func (pg *page) timelines(r *Run, label bool) {
	t := r.Timeline
	for j, job := range t.Jobs {
		var from, to int64 = -1, 0
		for _, s := range t.Events {
			if s.Job == j {
				if from < 0 || s.StartPs < from {
					from = s.StartPs
				}
				to = max(to, s.StartPs+s.DurPs)
			}
		}
		if from < 0 || to <= from {
			continue
		}
		ranks := min(len(job.Hosts), timelineRanks)
		const left, width, rowH, band = 110, 900, 18, 5
		height := ranks*rowH + 30
		title := "Timeline: " + job.Name
		if label {
			title += " (" + r.Label + ")"
		}
		text := fmt.Sprintf("The first %d iterations of each rank, from trace.json (open it in ui.perfetto.dev for every iteration and rank). Bands, top to bottom: compute, collectives, sends and receives.", timelineIterations)
		if len(job.Hosts) > ranks {
			text += fmt.Sprintf(" The first %d of %d ranks.", ranks, len(job.Hosts))
		}
		if job.Cut {
			text += fmt.Sprintf(" Cut at %d spans.", max(1, timelineSpans/len(t.Jobs)))
		}
		pg.section(title, text)
		scale := float64(width) / float64(to-from)
		fmt.Fprintf(&pg.b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-size=\"11\" font-family=\"sans-serif\">\n", left+width+10, height)
		for k := range ranks {
			y := k * rowH
			fmt.Fprintf(&pg.b, "<text x=\"2\" y=\"%d\">rank %d (%s)</text>\n", y+13, k, html.EscapeString(job.Hosts[k]))
			fmt.Fprintf(&pg.b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f6f6f6\"/>\n", left, y+1, width, 3*band+1)
		}
		for _, s := range t.Events {
			if s.Job != j || s.Rank >= ranks {
				continue
			}
			b := 0
			switch s.Cat {
			case "collective":
				b = 1
			case "send", "recv":
				b = 2
			}
			x := float64(left) + float64(s.StartPs-from)*scale
			w := max(0.5, float64(s.DurPs)*scale)
			fmt.Fprintf(&pg.b, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.8\"><title>%s</title></rect>\n",
				x, s.Rank*rowH+1+b*band, w, band, spanColors[s.Cat],
				html.EscapeString(fmt.Sprintf("%s (%s), iteration %d: %s from %s", s.Name, s.Cat, s.Iteration, fmtNs(float64(s.DurPs)/1e3), fmtNs(float64(s.StartPs)/1e3))))
		}
		y := ranks*rowH + 16
		fmt.Fprintf(&pg.b, "<text x=\"%d\" y=\"%d\">%s</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left, y, fmtNs(float64(from)/1e3), left+width, y, fmtNs(float64(to)/1e3))
		var legend []string
		for _, k := range []string{"compute", "collective", "send", "recv"} {
			legend = append(legend, fmt.Sprintf("<tspan fill=\"%s\">■</tspan> %s", spanColors[k], k))
		}
		fmt.Fprintf(&pg.b, "<text x=\"%d\" y=\"%d\">%s</text>\n", left+width/3, y, strings.Join(legend, "  "))
		pg.b.WriteString("</svg>\n")
	}
}
