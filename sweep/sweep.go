// Package sweep reads sweep files (Load, Parse: a base scenario and the
// values to vary by path, file.go), runs their points in parallel on one
// machine, or one point per task of a cluster job array, and collects
// their results into sweep.csv and a comparison report.
//
// A sweep's folder holds points/NNNN_.../ (one run folder per point, as
// `lfsim run` writes it), sweep.csv, report.html and, when asked,
// sweep.sbatch. A point whose summary.json exists and says complete is
// done: running the sweep again skips it, so a killed sweep resumes where
// it stopped.
//
// sweep may import the format (scenario), resolve, assembly and
// reports; nothing but cmd imports it.
package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenario"
)

// Options say how to run a sweep.
type Options struct {
	// Dir is the sweep's folder.
	Dir string
	// Workers is how many points run at once; 0 means GOMAXPROCS, and
	// below 0 is refused.
	Workers int
	// Force reruns points that are already complete.
	Force bool
	// Log, if not nil, gets a line per point started, skipped or done.
	Log io.Writer
}

// testHook, when set by a test, is called as a point starts and ends.
var testHook func(start bool)

// PointDir is where point p's run goes.
func PointDir(dir string, sw *Sweep, p Point) string {
	return filepath.Join(dir, "points", sw.PointName(p))
}

// Done reports whether a run folder holds a complete run.
func Done(dir string) bool {
	s, err := readSummary(dir)
	return err == nil && s.Complete
}

func readSummary(dir string) (*reports.Summary, error) {
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	var s reports.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	return &s, nil
}

// Run runs the given points (all when points is nil) with opt.Workers
// workers, skipping those already complete. Cancelling ctx interrupts
// the running points (their summaries say incomplete, so a later Run
// redoes them) and starts no more. It returns how many points ran and
// how many were skipped, and the errors of points that failed.
func Run(ctx context.Context, sw *Sweep, points []Point, opt Options) (ran, skipped int, err error) {
	if points == nil {
		points = sw.Points
	}
	if opt.Workers < 0 {
		return 0, 0, fmt.Errorf("%d workers: want 1 or more (0: GOMAXPROCS)", opt.Workers)
	}
	workers := opt.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	var errs []error
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			mu.Lock()
			fmt.Fprintf(opt.Log, format, args...)
			mu.Unlock()
		}
	}
	jobs := make(chan Point)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				if testHook != nil {
					testHook(true)
				}
				dir := PointDir(opt.Dir, sw, p)
				start := time.Now()
				complete, perr := RunPoint(ctx, sw, p, dir)
				mu.Lock()
				switch {
				case perr != nil:
					errs = append(errs, fmt.Errorf("point %d (%s): %w", p.Index, sw.PointName(p), perr))
				case complete:
					ran++
				}
				mu.Unlock()
				state := "done"
				if perr != nil {
					state = "FAILED: " + perr.Error()
				} else if !complete {
					state = "interrupted"
				}
				if testHook != nil {
					testHook(false)
				}
				logf("point %d/%d %s %s (%.1fs)\n", p.Index+1, len(sw.Points), sw.PointName(p), state, time.Since(start).Seconds())
			}
		}()
	}
feed:
	for _, p := range points {
		if !opt.Force && Done(PointDir(opt.Dir, sw, p)) {
			skipped++
			logf("point %d/%d %s already complete, skipped\n", p.Index+1, len(sw.Points), sw.PointName(p))
			continue
		}
		select {
		case jobs <- p:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if ctx.Err() != nil {
		errs = append(errs, ctx.Err())
	}
	return ran, skipped, errors.Join(errs...)
}

// RunPoint runs one point into dir (replacing an incomplete earlier
// attempt): scenario.yaml (the base with the point's values and seed),
// the run's files, and report.html. It reports whether the run completed
// (false when ctx was cancelled during it).
func RunPoint(ctx context.Context, sw *Sweep, p Point, dir string) (bool, error) {
	sc, text, err := sw.PointScenario(p)
	if err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, nil
	}
	if err := reports.PrepareDir(dir, true); err != nil { // clears an earlier, incomplete attempt
		return false, err
	}
	net, err := assembly.Build(sc)
	if err != nil {
		return false, err
	}
	stop := context.AfterFunc(ctx, net.Interrupt)
	defer stop()
	if err := reports.WriteFileAtomic(dir, "scenario.yaml", text); err != nil {
		return false, err
	}
	copies, _ := scenario.RunCopies(sc.Inputs, reports.IsRunFile)
	for _, c := range copies {
		if err := reports.WriteInput(dir, c.Name, c.Data); err != nil {
			return false, err
		}
	}
	// The finished flows' records go to disk as the run goes, as lfsim
	// run has them.
	spool, err := reports.NewFlowSpool(dir)
	if err != nil {
		return false, err
	}
	defer spool.Close()
	net.StreamFlows(spool)
	start := time.Now()
	res := net.Run(nil)
	res.Summary.WallSeconds = reports.Round(time.Since(start).Seconds(), 3)
	// Let the network go before the outputs are built, so that they do
	// not add to the point's memory (cmd/lfsim's run does the same).
	stop()
	net = nil
	// summary.json last: a point with one is done (Done) and has every
	// file.
	if err := reports.WriteRunFiles(dir, res); err != nil {
		return false, err
	}
	summary := reports.SummaryJSON(res.Summary)
	r, err := reports.LoadRunWith(dir, summary)
	if err != nil {
		return false, err
	}
	r.Fabric = sc.ReportFabric()
	if err := reports.WriteFileAtomic(dir, "report.html", reports.BuildHTML([]*reports.Run{r})); err != nil {
		return false, err
	}
	if err := reports.WriteSummary(dir, summary); err != nil {
		return false, err
	}
	if c := res.Summary.Conservation; !c.OK {
		return res.Summary.Complete, fmt.Errorf("the conservation check FAILED; its results cannot be trusted (please report this with the scenario): %s", strings.Join(c.Errors, "; "))
	}
	return res.Summary.Complete, nil
}

// Columns are sweep.csv's columns after the varied paths.
var Columns = []string{"seed", "complete", "sim_time_ns", "flows_total", "flows_completed",
	"fct_p50_ns", "fct_p99_ns", "mean_slowdown", "p99_slowdown",
	"pause_frames", "paused_ns", "drops", "ecn_marked", "cnps", "fairness", "dir"}

// Collect reads every point's summary.json and writes sweep.csv (one row
// per point that has a summary, in point order: point, the varied values,
// then Columns) and report.html (the complete points overlaid, labelled
// by what differs). It returns how many points are complete and how many
// are missing or incomplete. sweep.csv leaves out wall time, so that the
// same sweep writes the same file.
func Collect(sw *Sweep, dir string) (complete, missing int, err error) {
	var b strings.Builder
	head := []string{"point"}
	for _, p := range sw.Params {
		head = append(head, p.Path)
	}
	head = append(head, Columns...)
	b.WriteString(csvLine(head))
	var runs []reports.SweepPoint
	for _, p := range sw.Points {
		pd := PointDir(dir, sw, p)
		s, err := readSummary(pd)
		if err != nil {
			missing++
			continue
		}
		row := []string{strconv.Itoa(p.Index)}
		for i, vi := range p.Values {
			row = append(row, sw.Params[i].Values[vi])
		}
		f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		i := func(x int64) string { return strconv.FormatInt(x, 10) }
		rel, _ := filepath.Rel(dir, pd)
		row = append(row, strconv.FormatUint(s.Seed, 10), strconv.FormatBool(s.Complete), i(s.SimTimeNs),
			strconv.Itoa(s.Flows.Total), strconv.Itoa(s.Flows.Completed),
			i(s.FCT.P50Ns), i(s.FCT.P99Ns), f(s.FCT.MeanSlowdown), f(s.FCT.P99Slowdown),
			i(s.PFC.PauseFrames), i(s.PFC.PausedNs), i(s.Packets.Dropped), i(s.ECN.Marked), i(s.ECN.CNPs),
			f(s.Throughput.Fairness), filepath.ToSlash(rel))
		b.WriteString(csvLine(row))
		if !s.Complete {
			missing++
			continue
		}
		complete++
		r, err := reports.LoadRun(pd)
		if err != nil {
			return complete, missing, err
		}
		r.Fabric = resolve.RunFabric(pd)
		runs = append(runs, reports.SweepPoint{Values: p.Values, Run: r})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return complete, missing, err
	}
	if err := reports.WriteFileAtomic(dir, "sweep.csv", []byte(b.String())); err != nil {
		return complete, missing, err
	}
	if len(runs) > 0 {
		axes := make([]reports.SweepAxis, len(sw.Params))
		for i, p := range sw.Params {
			axes[i] = reports.SweepAxis{Path: p.Path, Values: p.Values}
		}
		if err := reports.WriteFileAtomic(dir, "report.html", reports.BuildSweepHTML(axes, runs)); err != nil {
			return complete, missing, err
		}
	}
	return complete, missing, nil
}

// csvLine quotes fields as encoding/csv would (values may hold commas:
// flow-style mappings).
func csvLine(fields []string) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		if strings.ContainsAny(f, ",\"\n\r") {
			b.WriteString(`"` + strings.ReplaceAll(f, `"`, `""`) + `"`)
		} else {
			b.WriteString(f)
		}
	}
	b.WriteByte('\n')
	return b.String()
}
