package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sweep"
)

// indexEnv are the variables a cluster job array sets to the task's
// index: Slurm's and Kubernetes indexed Jobs'.
var indexEnv = []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"}

// sweepCmd is `lfsim sweep SWEEP.yaml`: run every point in parallel (or
// one with --index), then write sweep.csv and the comparison report;
// --emit slurm writes a job-array script, --collect only collects.
func sweepCmd(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.StringP("output", "o", "", "the sweep's folder (default lfsim-out/NAME, NAME the sweep file's)")
	jobs := fs.IntP("jobs", "j", 0, "points run at once (default GOMAXPROCS)")
	index := fs.Int("index", 0, "run only point I (0-based; default $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX when set)")
	emit := fs.String("emit", "", "write a cluster job instead of running: slurm (sweep.sbatch) or kubernetes (sweep.job.yaml)")
	var cl sweep.Cluster
	fs.StringVar(&cl.Exe, "lfsim", "lfsim", "--emit: the lfsim binary as the cluster's nodes find it (a path, or a name on their PATH)")
	fs.StringVar(&cl.Time, "time", "", "--emit slurm: each task's time limit (sbatch --time, e.g. 1:00:00)")
	fs.StringVar(&cl.Mem, "mem", "", "--emit: each task's memory (sbatch --mem, e.g. 4G; kubernetes: a request and limit, e.g. 4Gi)")
	fs.StringVar(&cl.Partition, "partition", "", "--emit slurm: the partition (sbatch --partition)")
	fs.StringVar(&cl.Account, "account", "", "--emit slurm: the account (sbatch --account)")
	fs.StringVar(&cl.Image, "image", "", "--emit kubernetes: the container image that has lfsim")
	fs.StringVar(&cl.Claim, "claim", "lfsim-work", "--emit kubernetes: the persistent volume claim holding the sweep file, its base and the output")
	fs.StringVar(&cl.Workdir, "workdir", "/work", "--emit kubernetes: where the volume is mounted in the pods")
	fs.IntVar(&cl.Parallelism, "parallelism", 0, "--emit kubernetes: pods at once (default every point)")
	collect := fs.Bool("collect", false, "run nothing: collect the points' results into sweep.csv and report.html")
	force := fs.Bool("force", false, "rerun points that are already complete")
	quiet := fs.BoolP("quiet", "q", false, "print no line per point")
	maxMem := memoryFlag(fs)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "lfsim sweep: give one sweep file (base:, vary:, repeat:)")
		return exitUsage
	}
	if *emit != "" && *emit != "slurm" && *emit != "kubernetes" {
		fmt.Fprintf(stderr, "lfsim sweep: --emit takes slurm or kubernetes, not %q\n", *emit)
		return exitUsage
	}
	if *emit == "kubernetes" && cl.Image == "" {
		fmt.Fprintln(stderr, "lfsim sweep: --emit kubernetes needs --image, a container image that has lfsim")
		return exitUsage
	}
	if *jobs < 0 {
		fmt.Fprintf(stderr, "lfsim sweep: --jobs %d: want 1 or more (0, the default: GOMAXPROCS)\n", *jobs)
		return exitUsage
	}
	if msg := clusterFlagsFor(fs, *emit); msg != "" {
		fmt.Fprintf(stderr, "lfsim sweep: %s\n", msg)
		return exitUsage
	}
	if *emit != "" { // before reading the file: its name goes into the job too
		paths := []struct{ what, v string }{{"the sweep file", fs.Arg(0)}}
		if *out != "" {
			paths = append(paths, struct{ what, v string }{"-o", *out})
		}
		for _, p := range paths {
			if err := sweep.CheckPath(p.what, p.v); err != nil {
				fmt.Fprintf(stderr, "lfsim sweep: --emit %s: %v\n", *emit, err)
				return exitUsage
			}
		}
	}
	if !setMemoryLimit("sweep", *maxMem, stderr) {
		return exitUsage
	}
	sw, err := sweep.Load(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailed
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("lfsim-out", sw.Name)
	}
	if *emit == "kubernetes" {
		return emitKubernetes(sw, cl, fs.Arg(0), dir, stdout, stderr)
	}
	if *emit == "slurm" {
		return emitSlurm(sw, cl, fs.Arg(0), dir, stdout, stderr)
	}
	idx := -1 // every point
	if fs.Changed("index") {
		idx = *index
		if idx < 0 || idx >= len(sw.Points) {
			fmt.Fprintf(stderr, "lfsim sweep: --index %d: no such point; the sweep has points 0..%d\n", idx, len(sw.Points)-1)
			return exitUsage
		}
	} else if !*collect {
		for _, v := range indexEnv {
			if s := os.Getenv(v); s != "" {
				n, err := strconv.Atoi(s)
				if err != nil {
					fmt.Fprintf(stderr, "lfsim sweep: $%s is %q, not an index\n", v, s)
					return exitUsage
				}
				if n < 0 || n >= len(sw.Points) {
					fmt.Fprintf(stderr, "lfsim sweep: $%s is %d: no such point; the sweep has points 0..%d\n", v, n, len(sw.Points)-1)
					return exitUsage
				}
				idx = n
				break
			}
		}
	}
	var log io.Writer = stderr
	if *quiet {
		log = nil
	}
	code := exitOK
	if !*collect {
		var points []sweep.Point
		if idx >= 0 {
			points = sw.Points[idx : idx+1]
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		ran, skipped, err := sweep.Run(ctx, sw, points, sweep.Options{Dir: dir, Workers: *jobs, Force: *force, Log: log})
		if err != nil {
			fmt.Fprintf(stderr, "lfsim sweep: %v\n", err)
			code = exitFailed
		}
		if !*quiet {
			fmt.Fprintf(stdout, "%d points run, %d already complete\n", ran, skipped)
		}
		if idx >= 0 {
			return code // one task of an array: --collect merges them
		}
	}
	complete, missing, err := sweep.Collect(sw, dir)
	if err != nil {
		fmt.Fprintf(stderr, "lfsim sweep: collecting: %v\n", err)
		return exitInternal
	}
	fmt.Fprintf(stdout, "%s: %d of %d points complete\n", filepath.Join(dir, "sweep.csv"), complete, len(sw.Points))
	if missing > 0 && code == exitOK {
		code = exitFailed
	}
	return code
}

// clusterFlags are the flags for --emit: which engine each is for.
var clusterFlags = []struct{ flag, emit string }{
	{"lfsim", ""}, {"mem", ""},
	{"time", "slurm"}, {"partition", "slurm"}, {"account", "slurm"},
	{"image", "kubernetes"}, {"claim", "kubernetes"}, {"workdir", "kubernetes"}, {"parallelism", "kubernetes"},
}

// clusterFlagsFor says what is wrong when a flag given is not for the
// --emit given (none: not emitting), or "".
func clusterFlagsFor(fs *pflag.FlagSet, emit string) string {
	for _, f := range clusterFlags {
		if !fs.Changed(f.flag) {
			continue
		}
		switch {
		case emit == "" && f.emit == "":
			return fmt.Sprintf("--%s is for --emit slurm or kubernetes", f.flag)
		case emit == "" || (f.emit != "" && f.emit != emit):
			return fmt.Sprintf("--%s is for --emit %s", f.flag, f.emit)
		}
	}
	return ""
}

// emitSlurm writes sweep.sbatch, a job array over the sweep's points,
// with the sweep file and the output folder by their absolute paths.
func emitSlurm(sw *sweep.Sweep, cl sweep.Cluster, file, dir string, stdout, stderr io.Writer) int {
	afile, err2 := filepath.Abs(file)
	adir, err3 := filepath.Abs(dir)
	if err := errors.Join(err2, err3); err != nil {
		fmt.Fprintf(stderr, "lfsim sweep: %v\n", err)
		return exitInternal
	}
	script, err := sweep.SlurmScript(sw, cl, afile, adir)
	if err != nil {
		fmt.Fprintf(stderr, "lfsim sweep: --emit slurm: %v\n", err)
		return exitUsage
	}
	if err := os.MkdirAll(filepath.Join(adir, "slurm"), 0o755); err != nil {
		fmt.Fprintf(stderr, "lfsim sweep: %v\n", err)
		return exitInternal
	}
	if err := reports.WriteFileAtomic(adir, "sweep.sbatch", script); err != nil {
		fmt.Fprintf(stderr, "lfsim sweep: %v\n", err)
		return exitInternal
	}
	fmt.Fprintf(stdout, "%s: %d points; submit with: sbatch %s\nthen collect with: lfsim sweep %s -o %s --collect\n",
		filepath.Join(adir, "sweep.sbatch"), len(sw.Points), filepath.Join(adir, "sweep.sbatch"), file, dir)
	return exitOK
}

// emitKubernetes writes sweep.job.yaml, an Indexed Job over the sweep's
// points. The sweep file and the output folder are named relative to the
// volume the pods mount, which is this directory's content: both must be
// relative paths inside it.
func emitKubernetes(sw *sweep.Sweep, cl sweep.Cluster, file, dir string, stdout, stderr io.Writer) int {
	job, err := sweep.KubernetesJob(sw, cl, file, dir)
	if err != nil {
		fmt.Fprintf(stderr, "lfsim sweep: --emit kubernetes: %v\n", err)
		return exitUsage
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "lfsim sweep: %v\n", err)
		return exitInternal
	}
	if err := reports.WriteFileAtomic(dir, "sweep.job.yaml", job); err != nil {
		fmt.Fprintf(stderr, "lfsim sweep: %v\n", err)
		return exitInternal
	}
	fmt.Fprintf(stdout, "%s: %d points; apply with: kubectl apply -f %s\nthen collect with: lfsim sweep %s -o %s --collect\n",
		filepath.Join(dir, "sweep.job.yaml"), len(sw.Points), filepath.Join(dir, "sweep.job.yaml"), file, dir)
	return exitOK
}
