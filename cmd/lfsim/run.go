package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/scenarios"
	"github.com/lfsim/lfsim/sim"
)

func defaultScenario() string { return scenarios.DefaultExample }

func runCmd(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.StringP("output", "o", "", "output directory (default lfsim-out/NAME)")
	seed := fs.Uint64("seed", 0, "random seed (default: the scenario's seed)")
	force := fs.Bool("force", false, "overwrite an earlier run's files in the output directory")
	quiet := fs.BoolP("quiet", "q", false, "print no progress line and no summary")
	progress := fs.Bool("progress", false, "show the progress line even when stderr is not a terminal")
	maxMem := memoryFlag(fs)
	workers := fs.IntP("workers", "j", runtime.NumCPU(), "worker goroutines for the run: a network that can be cut runs on up to this many, one partition each (1: one engine); the results are the same for any number")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *workers < 1 {
		fmt.Fprintf(stderr, "lfsim run: --workers %d: want 1 or more\n", *workers)
		return exitUsage
	}
	if !setMemoryLimit("run", *maxMem, stderr) {
		return exitUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "lfsim run: one scenario at a time, got %d: %v\n", fs.NArg(), fs.Args())
		return exitUsage
	}
	arg := scenarios.DefaultExample
	if fs.NArg() == 1 {
		arg = fs.Arg(0)
	}
	sc, err := resolve.LoadNamed(arg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailed
	}
	if fs.Changed("seed") {
		sc.Seed = *seed
	}
	for _, w := range sc.Warnings {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("lfsim-out", sc.Name)
		if !*force {
			if fresh := freshDir(dir); fresh != dir {
				if !*quiet {
					fmt.Fprintf(stderr, "lfsim run: %s holds an earlier run, kept; this one goes to %s (--force overwrites the earlier, -o names a folder)\n", dir, fresh)
				}
				dir = fresh
			}
		}
	}
	// The scenario as run goes to scenario.yaml; read it before the folder
	// is cleared (it may be an earlier run's scenario.yaml).
	copies, moved := scenario.RunCopies(sc.Inputs, reports.IsRunFile)
	src, err := scenarioSource(arg)
	if err == nil {
		// The files it names are copied into the folder, so that its
		// scenario.yaml runs again from there; those from outside the
		// scenario's folder go to inputs/, and scenario.yaml names them
		// there.
		src, err = scenario.RelocateText(sc.File, src, moved)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lfsim run: %v\n", err)
		return exitFailed
	}
	if err := reports.PrepareDir(dir, *force); err != nil {
		fmt.Fprintf(stderr, "lfsim run: %v\n", err)
		return exitFailed
	}
	tightenGC()
	showProgress := !*quiet && (*progress || isTerminal(os.Stderr))
	endBuild := func() {}
	if showProgress {
		endBuild = building(stderr, sc.Name)
	}
	net, err := assembly.BuildWorkers(sc, *workers)
	endBuild()
	if err != nil {
		fmt.Fprintf(stderr, "lfsim run: %v\n", err)
		return exitFailed
	}
	// The finished flows' records go to disk as the run goes, so that a
	// long run's memory does not grow with them.
	spool, err := reports.NewFlowSpool(dir)
	if err != nil {
		fmt.Fprintf(stderr, "lfsim run: %v\n", err)
		return exitFailed
	}
	defer spool.Close()
	net.StreamFlows(spool)
	settleMemory()

	// Ctrl-C or SIGTERM (a scheduler's, a kill) stops the run at the
	// current simulated time; what it has is written, marked incomplete.
	// Run includes the jobs' runs alone (slowdown), which it also stops.
	// Once the run is over, they are ignored until the results are on
	// disk.
	var running atomic.Pointer[assembly.Network]
	running.Store(net)
	defer onInterrupt(func() {
		if n := running.Load(); n != nil {
			n.Interrupt()
		}
	})()
	// Said once Ctrl-C is handled: a line on stderr means the run is
	// under way.
	if w := net.Workers(*workers); w != "" && !*quiet {
		fmt.Fprintf(stderr, "lfsim run: %s\n", w)
	}

	start := time.Now()
	var show func(now sim.Time, events uint64)
	endProgress := func() {}
	if showProgress {
		show, endProgress = newProgress(stderr, progressRun{stopAt: sc.Stop.At, condition: sc.Stop.WhenFlowsDone || sc.Stop.WhenDeadlock, bytes: net.BytesProgress}, time.Now, 200*time.Millisecond)
	}
	res := net.Run(show)
	sum := res.Summary
	sum.WallSeconds = reports.Round(time.Since(start).Seconds(), 3)
	endProgress()
	// The network is not needed past here: letting it go, and collecting
	// it, before the results and the report are built keeps them from
	// adding to the run's peak memory (a k=16 fat-tree's network is most
	// of its heap; with it held, `lfsim run` peaked at 189 MiB there
	// instead of the 82 MiB of the run itself).
	running.Store(nil)
	net = nil
	settleMemory()
	// summary.json goes last, after the report: a folder with a summary
	// has every other file of its run (a kill on the way leaves none).
	if err := reports.WriteRunFiles(dir, res); err != nil {
		fmt.Fprintf(stderr, "lfsim run: writing results: %v\n", err)
		return exitInternal
	}
	// The console names the flows that failed, by status.
	failed := map[string]int{}
	if err := res.EachFlow(func(f reports.FlowRow) bool {
		if f.Status != "success" && f.Status != "incomplete" {
			failed[f.Status]++
		}
		return true
	}); err != nil {
		fmt.Fprintf(stderr, "lfsim run: reading the flows back: %v\n", err)
		return exitInternal
	}
	// The report reads the files back; the run's copies can go first.
	res.Flows, res.SpooledFlows, res.Series, res.PFC, res.PFCLog, res.Captures = nil, nil, nil, nil, nil, nil
	summary := reports.SummaryJSON(sum)
	for _, c := range copies {
		if err := reports.WriteInput(dir, c.Name, c.Data); err != nil {
			fmt.Fprintf(stderr, "lfsim run: writing results: %v\n", err)
			return exitInternal
		}
	}
	reportErr := writeReport(dir, src, summary, sc.ReportFabric())
	// The results stand without their report (lfsim report DIR rebuilds
	// it), so the summary is written even when the report could not be.
	if err := reports.WriteSummary(dir, summary); err != nil {
		fmt.Fprintf(stderr, "lfsim run: writing results: %v\n", err)
		return exitInternal
	}
	if reportErr != nil {
		fmt.Fprintf(stderr, "lfsim run: writing report.html: %v\n", reportErr)
		return exitInternal
	}
	for _, w := range sum.Warnings[len(sc.Warnings):] {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if !*quiet {
		for _, name := range []string{"perftest.txt", "nccl_tests.txt", "asyncwatch.txt"} {
			if txt, ok := res.Extra[name]; ok {
				stdout.Write(txt) // the programs print their results, as the tools do
				fmt.Fprintln(stdout)
			}
		}
		printSummary(stdout, sum, failed, dir)
	}
	for _, c := range sum.Expect {
		if !c.OK {
			fmt.Fprintf(stderr, "expect %s failed: %s\n", c.Check, c.Detail)
		}
	}
	if !sum.Conservation.OK {
		// A simulator bug, not the scenario's: said apart from warnings,
		// and the exit status says the results are not to be trusted.
		fmt.Fprintf(stderr, "lfsim run: the conservation check FAILED; the results in %s cannot be trusted (please report this with the scenario):\n", dir)
		for _, e := range sum.Conservation.Errors {
			fmt.Fprintf(stderr, "  %s\n", e)
		}
		return exitInternal
	}
	for _, c := range sum.Expect {
		if !c.OK {
			return exitFailed
		}
	}
	if !sum.Complete {
		return exitFailed
	}
	return exitOK
}

// freshDir is where a run without -o goes: dir (lfsim-out/NAME) unless
// it holds an earlier run (its summary.json), else the first of
// dir-2, dir-3, ... that holds none, so that running the same scenario
// again never loses a run nor stops for --force.
func freshDir(dir string) string {
	for i := 1; ; i++ {
		d := dir
		if i > 1 {
			d = fmt.Sprintf("%s-%d", dir, i)
		}
		if _, err := os.Lstat(filepath.Join(d, "summary.json")); err != nil {
			return d
		}
	}
}

// printSummary is the console's account of a run: what ended it, the
// flows and their failures, the bytes and packets and where they were
// dropped, what paused (or, on InfiniBand, waited for credit), a deadlock
// or storm whenever one was found, and the expectations. failed counts
// the flows that ended with a status other than success, by status.
func printSummary(w io.Writer, s *reports.Summary, failed map[string]int, dir string) {
	short := func(ns int64) string { return (sim.Time(ns) * sim.Nanosecond).Short() }
	state := "complete"
	if !s.Complete {
		state = "INCOMPLETE (interrupted)"
	}
	fmt.Fprintf(w, "%s: %s, stopped by %s at %v simulated, %.2fs wall, %d events\n",
		s.Scenario, state, s.StopReason, short(s.SimTimeNs), s.WallSeconds, s.Events)
	switch {
	case s.Flows.Total == 0 && (s.Collectives != nil || len(s.Jobs) > 0):
		// Collectives or jobs alone: their own lines say what ran.
	case s.Flows.Completed == 0:
		fmt.Fprintf(w, "  flows      0 of %d completed: no flow completed, so no FCT or fairness\n", s.Flows.Total)
	default:
		fmt.Fprintf(w, "  flows      %d of %d completed; of those, FCT p50 %v, p99 %v; mean slowdown %.3f; fairness %.3f\n",
			s.Flows.Completed, s.Flows.Total, short(s.FCT.P50Ns), short(s.FCT.P99Ns), s.FCT.MeanSlowdown, s.Throughput.Fairness)
	}
	if c := s.Collectives; c != nil {
		fmt.Fprintf(w, "  collective %d of %d calls completed", c.Completed, c.Total)
		if c.Completed > 0 {
			fmt.Fprintf(w, "; time p50 %v, max %v (collectives.csv)", short(c.TimeNsP50), short(c.TimeNsMax))
		}
		fmt.Fprintln(w)
	}
	for _, j := range s.Jobs {
		fmt.Fprintf(w, "  job        %s: %d of %d iterations", j.Name, j.Completed, j.Iterations)
		if j.Completed > 0 {
			fmt.Fprintf(w, ", %v an iteration, %.0f%% of it exposed communication", short(j.IterationNsMean), 100*j.ExposedCommFraction)
		}
		if j.AloneIterationNsMean > 0 {
			fmt.Fprintf(w, "; %.3f× its %v alone", j.Slowdown, short(j.AloneIterationNsMean))
		}
		fmt.Fprintln(w, " (trace.json)")
	}
	if c := s.Connections; c != nil {
		fmt.Fprintf(w, "  connect    %d of %d connections made by rdma_cm", c.Established, c.Requested)
		if c.Established > 0 {
			fmt.Fprintf(w, ", set-up %v mean, %v max, all in %v", short(c.SetupMeanNs), short(c.SetupMaxNs), short(c.TotalNs))
		}
		fmt.Fprintf(w, "; %d CM MADs, %d resent\n", c.MADs, c.MADsResent)
	}
	if len(failed) > 0 {
		n := 0
		for _, k := range failed {
			n += k
		}
		fmt.Fprintf(w, "  failed     %d flows ended in error: %s\n", n, tally(failed))
		wcs := map[string]int{}
		for st, k := range s.Flows.WorkCompletions {
			wcs[st] = int(k)
		}
		fmt.Fprintf(w, "  wcs        %s (work completions at the requesters)\n", tally(wcs))
	}
	fmt.Fprintf(w, "  bytes      %d offered, %d delivered, %d in flight, %d dropped\n",
		s.Bytes.Offered, s.Bytes.Delivered, s.Bytes.InFlight, s.Bytes.Dropped)
	fmt.Fprintf(w, "  packets    %d sent, %d dropped, %d in flight, %d retransmitted\n", s.Packets.Sent, s.Packets.Dropped, s.Packets.InFlight, s.Packets.Retransmitted)
	if len(s.Packets.DropReasons) > 0 {
		drops := map[string]int{}
		for r, n := range s.Packets.DropReasons {
			drops[r] = int(n)
		}
		fmt.Fprintf(w, "  drops      %s (packets, by reason)\n", tally(drops))
	}
	if s.Conservation.OK {
		fmt.Fprintf(w, "  balance    every byte and packet accounted for\n")
	} else {
		fmt.Fprintf(w, "  balance    FAILED: %s\n", s.Conservation.Errors[0])
	}
	// The most paused port, over the run (on a mixed network, of the
	// link layer ll): the spread lists the ports in the order they were
	// first paused.
	worstOf := func(ll string) string {
		var most reports.PFCSpread
		for _, p := range s.PFC.Spread {
			if p.PausedFraction > most.PausedFraction && p.LinkLayer == ll {
				most = p
			}
		}
		if most.Port == "" {
			return ""
		}
		return fmt.Sprintf("; most: %s, %.0f%% of the run (by %s)", most.Port, 100*most.PausedFraction, most.By)
	}
	worst := worstOf("")
	if cw := s.PFC.CreditWaitNs; cw != nil {
		// A mixed network (VPI): its InfiniBand ports' credit waits and
		// its Ethernet ports' PFC, each on its line.
		fmt.Fprintf(w, "  credits    %d flow-control packets; InfiniBand ports waited for credit %v, summed over ports and VLs%s\n",
			s.Conservation.FCPackets.Made, short(*cw), worstOf("infiniband"))
		fmt.Fprintf(w, "  pfc        %d pause frames, %d resume frames; Ethernet ports paused %v, summed over ports and priorities%s\n",
			s.PFC.PauseFrames, s.PFC.ResumeFrames, short(s.PFC.PausedNs), worstOf("ethernet"))
	} else if fc := s.Conservation.FCPackets; fc.Made > 0 {
		// InfiniBand: no PFC; what waited, waited for credit.
		fmt.Fprintf(w, "  credits    %d flow-control packets; ports waited for credit %v, summed over ports and VLs%s\n",
			fc.Made, short(s.PFC.PausedNs), worst)
	} else {
		fmt.Fprintf(w, "  pfc        %d pause frames, %d resume frames; ports paused %v, summed over ports and priorities%s\n",
			s.PFC.PauseFrames, s.PFC.ResumeFrames, short(s.PFC.PausedNs), worst)
	}
	if d := s.Deadlock; d.Detected && len(d.Cycle) > 0 {
		fmt.Fprintf(w, "  DEADLOCK   at %v: %s (a cycle of paused queues, data flowing from each to the next)\n",
			short(d.AtNs), strings.Join(append(d.Cycle, d.Cycle[0]), " -> "))
	}
	if s.PFC.StormDetected {
		cause := s.PFC.StormCause
		if cause == "" { // a summary read back from summary.json
			cause = "not congestion, which drains"
		}
		fmt.Fprintf(w, "  STORM      a switch held a port paused while the traffic it held back drained nothing for 100us (pfc.storm_detected): %s; pfc.spread in summary.json says where pauses spread\n", cause)
	}
	for _, c := range s.Expect {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  expect     %s %s: %s\n", mark, c.Check, c.Detail)
	}
	fmt.Fprintf(w, "  results    %s\n", dir)
}

// tally renders counts by name as "name n, name n", the largest first
// (ties by name).
func tally(counts map[string]int) string {
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
