package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

func defaultScenario() string { return scenario.DefaultExample }

func runCmd(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.StringP("output", "o", "", "output directory (default lfsim-out/NAME)")
	seed := fs.Uint64("seed", 0, "random seed (default: the scenario's seed)")
	force := fs.Bool("force", false, "overwrite an earlier run's files in the output directory")
	quiet := fs.BoolP("quiet", "q", false, "print no progress line and no summary")
	progress := fs.Bool("progress", false, "show the progress line even when stderr is not a terminal")
	maxMem := memoryFlag(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if !setMemoryLimit("run", *maxMem, stderr) {
		return exitUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "lfsim run: one scenario at a time, got %d: %v\n", fs.NArg(), fs.Args())
		return exitUsage
	}
	arg := scenario.DefaultExample
	if fs.NArg() == 1 {
		arg = fs.Arg(0)
	}
	sc, err := assembly.LoadNamed(arg)
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
	}
	// The scenario as run goes to scenario.yaml; read it before the folder
	// is cleared (it may be an earlier run's scenario.yaml).
	src, err := scenarioSource(arg)
	if err != nil {
		fmt.Fprintf(stderr, "lfsim run: %v\n", err)
		return exitFailed
	}
	if err := reports.PrepareDir(dir, *force); err != nil {
		fmt.Fprintf(stderr, "lfsim run: %v\n", err)
		return exitFailed
	}
	tightenGC()
	net, err := assembly.Build(sc)
	if err != nil {
		fmt.Fprintf(stderr, "lfsim run: %v\n", err)
		return exitFailed
	}
	settleMemory()

	// Ctrl-C or SIGTERM (a scheduler's, a kill) stops the run at the
	// current simulated time; what it has is written, marked incomplete.
	// Once the run is over, they are ignored until the results are on
	// disk.
	var running atomic.Pointer[assembly.Network]
	running.Store(net)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer func() {
		signal.Stop(sigs)
		close(sigs)
	}()
	go func() {
		for range sigs {
			if n := running.Load(); n != nil {
				n.Interrupt()
			}
		}
	}()

	start := time.Now()
	var show func(now sim.Time, events uint64)
	endProgress := func() {}
	if !*quiet && (*progress || isTerminal(os.Stderr)) {
		show, endProgress = newProgress(stderr, sc.Stop.At)
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
	// The report reads the files back; the run's copies can go first.
	res.Flows, res.Series, res.PFC, res.Captures = nil, nil, nil, nil
	summary := reports.SummaryJSON(sum)
	reportErr := writeReport(dir, src, summary)
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
		if txt, ok := res.Extra["perftest.txt"]; ok {
			stdout.Write(txt) // perftest and pingpong print their results, as the tools do
			fmt.Fprintln(stdout)
		}
		printSummary(stdout, sum, dir)
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

func printSummary(w io.Writer, s *reports.Summary, dir string) {
	state := "complete"
	if !s.Complete {
		state = "INCOMPLETE (interrupted)"
	}
	fmt.Fprintf(w, "%s: %s, stopped by %s at %v simulated, %.2fs wall, %d events\n",
		s.Scenario, state, s.StopReason, (sim.Time(s.SimTimeNs) * sim.Nanosecond).Short(), s.WallSeconds, s.Events)
	fmt.Fprintf(w, "  flows      %d of %d completed; FCT p50 %v, p99 %v; mean slowdown %.3f; fairness %.3f\n",
		s.Flows.Completed, s.Flows.Total, (sim.Time(s.FCT.P50Ns) * sim.Nanosecond).Short(), (sim.Time(s.FCT.P99Ns) * sim.Nanosecond).Short(),
		s.FCT.MeanSlowdown, s.Throughput.Fairness)
	fmt.Fprintf(w, "  bytes      %d offered, %d delivered, %d in flight, %d dropped\n",
		s.Bytes.Offered, s.Bytes.Delivered, s.Bytes.InFlight, s.Bytes.Dropped)
	fmt.Fprintf(w, "  packets    %d sent, %d dropped, %d in flight, %d retransmitted\n", s.Packets.Sent, s.Packets.Dropped, s.Packets.InFlight, s.Packets.Retransmitted)
	if s.Conservation.OK {
		fmt.Fprintf(w, "  balance    every byte and packet accounted for\n")
	} else {
		fmt.Fprintf(w, "  balance    FAILED: %s\n", s.Conservation.Errors[0])
	}
	if fc := s.Conservation.FCPackets; fc.Made > 0 {
		// InfiniBand: no PFC; what waited, waited for credit.
		fmt.Fprintf(w, "  credits    %d flow-control packets, %v waiting for credit in total\n",
			fc.Made, (sim.Time(s.PFC.PausedNs) * sim.Nanosecond).Short())
	} else {
		fmt.Fprintf(w, "  pfc        %d pause frames, %d resume frames, %v paused in total\n",
			s.PFC.PauseFrames, s.PFC.ResumeFrames, (sim.Time(s.PFC.PausedNs) * sim.Nanosecond).Short())
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

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
