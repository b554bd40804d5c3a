package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenarios"
	"github.com/lfsim/lfsim/sim"
)

// benchResult is one run of a bench scenario, as the child process
// reports it.
type benchResult struct {
	Events     uint64  `json:"events"`
	PacketHops int64   `json:"packet_hops"`
	SimNs      int64   `json:"sim_ns"`
	Wall       float64 `json:"wall_seconds"` // Run only: the network is built before the clock starts
	Build      float64 `json:"build_seconds"`
	MaxRSS     int64   `json:"-"` // bytes, from the child's rusage
}

// benchCmd is `lfsim bench [NAME...]`: it runs each scenario of the
// performance suite (scenarios/bench/NAME.yaml, or a path) -n times, each in a
// fresh process so that its peak memory is its own, and prints the
// medians: events, wall seconds, events/s, packet-hops/s, simulated time
// per wall second and peak resident memory.
func benchCmd(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "scenarios/bench", "folder of the suite's scenarios (default: ./scenarios/bench, or the suite embedded in the binary when there is none)")
	runs := fs.IntP("runs", "n", 3, "runs per scenario (the table shows medians)")
	child := fs.Bool("child", false, "internal: run one scenario and print its figures as JSON")
	stopAt := fs.String("stop-at", "", "override stop.at (e.g. 2ms)")
	var prof benchProfiles
	fs.StringVar(&prof.cpu, "cpuprofile", "", "with one scenario and -n 1: write a CPU profile of its run (go tool pprof)")
	fs.StringVar(&prof.mem, "memprofile", "", "with one scenario and -n 1: write a heap profile at the end of its run, the network still held (go tool pprof; inuse_space is what the run keeps)")
	vs := fs.String("vs", "", "another lfsim binary to pair with this one: the two run in turn and a second table gives the ratios of their run times")
	workers := fs.IntP("workers", "j", 1, "worker goroutines for each run (a network that can be cut runs on up to this many; the results are the same)")
	vsWorkers := fs.Int("vs-workers", 1, "with --vs: worker goroutines for the other binary's runs (passed only when above 1); --vs of this binary with --workers 2 measures two workers against one")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *child {
		return benchChild(fs.Arg(0), *stopAt, prof, *workers, stdout, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(*dir, "*.yaml")); len(m) == 0 && !fs.Changed("dir") {
		// Not in the repository: the suite embedded in the binary, written
		// out for the runs (each a process, the other build's too).
		tmp, err := os.MkdirTemp("", "lfsim-bench-")
		if err != nil {
			fmt.Fprintf(stderr, "lfsim bench: %v\n", err)
			return exitInternal
		}
		defer os.RemoveAll(tmp)
		// Ctrl-C or SIGTERM would end the process before the defer:
		// the folder goes then too.
		defer onInterrupt(func() {
			os.RemoveAll(tmp)
			os.Exit(130)
		})()
		if err := os.CopyFS(tmp, scenarios.Bench); err != nil {
			fmt.Fprintf(stderr, "lfsim bench: %v\n", err)
			return exitInternal
		}
		*dir = tmp
	}
	var files []string
	if fs.NArg() == 0 {
		m, _ := filepath.Glob(filepath.Join(*dir, "*.yaml"))
		sort.Strings(m)
		files = m
		if len(files) == 0 {
			fmt.Fprintf(stderr, "lfsim bench: no scenarios in %s/\n", *dir)
			return exitUsage
		}
	}
	for _, a := range fs.Args() {
		if _, err := os.Stat(a); err == nil {
			files = append(files, a)
		} else {
			files = append(files, filepath.Join(*dir, strings.TrimSuffix(a, ".yaml")+".yaml"))
		}
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "lfsim bench: %v\n", err)
		return exitInternal
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "scenario\tevents\tpacket-hops\twall s\tevents/s\tpacket-hops/s\tsim time/wall s\tpeak RSS MiB\truns\t\n")
	code := exitOK
	var pairs []benchPairs
	for _, f := range files {
		fmt.Fprintf(stderr, "running %s...\n", f)
		var rs, others []benchResult
		for i := 0; i < *runs; i++ {
			r, err := runBenchChild(exe, f, *stopAt, prof, *workers, stderr)
			var o benchResult
			if err == nil && *vs != "" {
				o, err = runBenchChild(*vs, f, *stopAt, benchProfiles{}, *vsWorkers, stderr)
			}
			if err != nil {
				fmt.Fprintf(stderr, "lfsim bench: %s: %v\n", f, err)
				code = exitFailed
				break
			}
			rs = append(rs, r)
			if *vs != "" {
				others = append(others, o)
			}
		}
		if len(others) > 0 {
			pairs = append(pairs, benchPairs{name: scenarioName(f), this: rs, other: others})
		}
		if len(rs) == 0 {
			continue
		}
		med := func(f func(r benchResult) float64) float64 { return medianOf(rs, f) }
		wall := med(func(r benchResult) float64 { return r.Wall })
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2fM\t%.2fM\t%.3gms\t%.0f\t%d\t\n",
			scenarioName(f), rs[0].Events, rs[0].PacketHops, wall,
			med(func(r benchResult) float64 { return float64(r.Events) / r.Wall / 1e6 }),
			med(func(r benchResult) float64 { return float64(r.PacketHops) / r.Wall / 1e6 }),
			med(func(r benchResult) float64 { return float64(r.SimNs) / 1e6 / r.Wall }),
			med(func(r benchResult) float64 { return float64(r.MaxRSS) / (1 << 20) }), len(rs))
	}
	tw.Flush()
	if len(pairs) > 0 {
		fmt.Fprintf(stdout, "\npaired with %s, run in turn (ratio: this build's run time over the other's, pair by pair):\n", *vs)
		writePairs(stdout, pairs)
	}
	return code
}

// runBenchChild runs `exe bench --child FILE` and reads its figures and
// its peak resident memory.
func runBenchChild(exe, file, stopAt string, prof benchProfiles, workers int, stderr io.Writer) (benchResult, error) {
	cargs := []string{"bench", "--child", file}
	if workers > 1 {
		cargs = append(cargs, "--workers", strconv.Itoa(workers))
	}
	if stopAt != "" {
		cargs = append(cargs, "--stop-at", stopAt)
	}
	if prof.cpu != "" {
		cargs = append(cargs, "--cpuprofile", prof.cpu)
	}
	if prof.mem != "" {
		cargs = append(cargs, "--memprofile", prof.mem)
	}
	cmd := exec.Command(exe, cargs...)
	cmd.Stderr = stderr
	out, err := cmd.Output()
	var r benchResult
	if err == nil {
		err = json.Unmarshal(out, &r)
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w", exe, err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSS = int64(ru.Maxrss) * 1024 // kilobytes on Linux
	}
	return r, nil
}

func scenarioName(file string) string { return strings.TrimSuffix(filepath.Base(file), ".yaml") }

// medianOf is the median of f over the runs rs.
func medianOf(rs []benchResult, f func(benchResult) float64) float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	return median(xs)
}

// median of xs, which it sorts.
func median(xs []float64) float64 {
	sort.Float64s(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

// benchProfiles are the profiles a bench child writes, where named.
type benchProfiles struct{ cpu, mem string }

// benchChild builds and runs one scenario, writing nothing but its
// figures (and the profiles prof names).
func benchChild(file, stopAt string, prof benchProfiles, workers int, stdout, stderr io.Writer) int {
	sc, err := resolve.LoadNamed(file)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailed
	}
	if stopAt != "" {
		t, err := parseTimeFlag(stopAt)
		if err != nil {
			fmt.Fprintf(stderr, "lfsim bench: --stop-at: %v\n", err)
			return exitUsage
		}
		sc.Stop.At = t
	}
	t0 := time.Now()
	tightenGC()
	net, err := assembly.BuildWorkers(sc, workers)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailed
	}
	// As lfsim run does, the finished flows' records go to disk as the
	// run goes (a folder of the bench's own, removed after).
	tmp, err := os.MkdirTemp("", "lfsim-bench-flows-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitInternal
	}
	defer os.RemoveAll(tmp)
	spool, err := reports.NewFlowSpool(tmp)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitInternal
	}
	defer spool.Close()
	net.StreamFlows(spool)
	settleMemory()
	if prof.cpu != "" {
		f, err := os.Create(prof.cpu)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitInternal
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, err)
			return exitInternal
		}
		defer pprof.StopCPUProfile()
	}
	t1 := time.Now()
	sum := net.Run(nil).Summary
	r := benchResult{Events: sum.Events, PacketHops: sum.PacketHops, SimNs: sum.SimTimeNs,
		Wall: time.Since(t1).Seconds(), Build: t1.Sub(t0).Seconds()}
	if prof.mem != "" {
		if err := writeHeapProfile(prof.mem); err != nil {
			fmt.Fprintln(stderr, err)
			return exitInternal
		}
		runtime.KeepAlive(net)
	}
	b, _ := json.Marshal(r)
	fmt.Fprintf(stdout, "%s\n", b)
	return exitOK
}

// writeHeapProfile writes the heap's profile after a collection, so that
// inuse_space is what is live.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func parseTimeFlag(s string) (sim.Time, error) { return sim.ParseTime(s) }
