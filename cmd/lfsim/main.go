// Command lfsim runs packet-level simulations of lossless RDMA fabrics.
//
//	lfsim run [FILE|NAME] [-o DIR] [--seed N] [--force] [-q]
//	lfsim validate FILE|NAME...
//	lfsim list
//	lfsim lab [NAME] [--answers] | lfsim lab check NAME
//	lfsim report DIR...
//	lfsim sweep SWEEP.yaml [-o DIR] [-j N] [--index I] [--emit slurm] [--collect]
//	lfsim bench [NAME...] [-n RUNS] [--vs OTHER-LFSIM]
//	lfsim reproduce [NAME...|all] [-o DIR] [-j N] [--resume]
//	lfsim version
//	lfsim sonic FILE [--port NAME]
//
// With no scenario, `lfsim run` runs the embedded default, an 8-to-1
// incast. See SCENARIO.md for the scenario format and OUTPUTS.md for what a
// run writes.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/lfsim/lfsim/scenario"
)

// Exit codes.
const (
	exitOK       = 0
	exitFailed   = 1 // a scenario failed to validate, or an expect: check failed
	exitUsage    = 2 // the command line was wrong
	exitInternal = 3 // the run could not write its results, or failed its conservation check
	// exitInterrupted: lfsim reproduce was stopped (Ctrl-C, SIGTERM)
	// before its verdicts were in, which is neither a point failing (1)
	// nor a run that could not be made (3).
	exitInterrupted = 4
)

const usage = `lfsim simulates RDMA fabrics packet by packet: InfiniBand with its credits, RoCEv2 and RoCEv1 with PFC, iWARP over TCP, and Ultra Ethernet (UET, CBFC, LLR, trimming).

Usage:
  lfsim run [FILE|NAME] [-o DIR] [--seed N] [--force] [-q] [--progress]
                      run a scenario file, or an embedded example by name
                      (default: %s); flags may come before or after it
  lfsim validate FILE|NAME...
                      check scenario files (or examples and lab scenarios,
                      by name) and report every error with file:line:column
  lfsim list          list the embedded example scenarios and labs
  lfsim lab [NAME] [--answers]
                      print a lab's exercise (what to run, observe and
                      change), or with --answers its teacher's notes;
                      without NAME, list the labs
  lfsim lab check NAME
                      run a lab's scenarios, writing nothing, and say
                      which of their expectations hold
  lfsim report DIR... rebuild DIR/report.html from a run's files; with
                      several runs, overlay them in ./report.html (-o FILE)
  lfsim sweep SWEEP.yaml [-o DIR] [-j N] [--index I] [--emit slurm] [--collect]
                      run a sweep's points in parallel (resuming: complete
                      points are skipped), then write sweep.csv and a
                      comparison report; see docs/SWEEPS.md
  lfsim bench [NAME...] [-n RUNS] [--vs OTHER-LFSIM]
                      run the performance suite (scenarios/bench/*.yaml)
                      and print events/s, packet-hops/s and peak memory;
                      with --vs, also run another build in turn and print
                      the ratios
  lfsim reproduce [NAME...|all] [-o DIR] [-j N] [--resume]
                      without NAME, list the reproductions of published
                      results; with it, run one (or all but the long),
                      print each published point beside lfsim's value and
                      its verdict, and write a report overlaying them;
                      exit 0 only if every point holds (docs/REPRODUCE.md)
  lfsim completion bash|zsh|fish
                      print a shell completion script (source it)
  lfsim devinfo [SCENARIO] [HOST]
                      what ibv_devinfo -v prints for the simulated HCAs
  lfsim devices [SCENARIO]
                      what ibv_devices prints
  lfsim ibsim [SCENARIO] DIR
                      write the InfiniBand fabric as ibsim's net file and
                      OpenSM's guid2lid (lfsim's LIDs), to run OpenSM on
                      it and compare its tables with lfts.txt
  lfsim ns3 RUN DIR   write a run's fabric and flows as the input files of
                      alibaba-edu/High-Precision-Congestion-Control's ns-3
                      simulator, to run it on the same flows
                      (docs/RELIABILITY.md)
  lfsim schema [scenario|sweep]
                      print the format's JSON Schema (for an editor's
                      yaml-language-server)
  lfsim version       what this binary was built from (also --version)
  lfsim sonic FILE [--port NAME]
                      print a SONiC config_db.json's QoS and buffer
                      settings as a scenario's switch: keys, the ones
                      switch: {sonic: FILE} reads
  lfsim help          show this

Results go to lfsim-out/NAME/ (summary.json, flows.csv, timeseries.csv,
pfc.csv, report.html, pcaps), or when that holds an earlier run to the
first of lfsim-out/NAME-2/, NAME-3/, ... that does not (--force
overwrites lfsim-out/NAME/ instead); -o DIR writes to DIR, where an
earlier run is kept unless --force.
`

// parseFlags parses a subcommand's flags. pflag says nothing of an
// error when it continues on one: a wrong flag or value is said here,
// with the subcommand's flags, and is a usage error (exit 2); -h prints
// them and exits 0. ok is false when the command should return code.
func parseFlags(fs *pflag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, pflag.ErrHelp):
		return exitOK, false
	}
	msg := err.Error()
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		msg = badValue(bad)
	}
	fmt.Fprintf(stderr, "lfsim %s: %s\nflags of lfsim %s:\n%s", fs.Name(), msg, fs.Name(), fs.FlagUsages())
	return exitUsage, false
}

// badValue says what a flag's value should have been, in place of
// pflag's "invalid argument ... strconv.ParseUint: parsing ...: invalid
// syntax": the flag as given, the value, and what its type takes.
func badValue(e *pflag.InvalidValueError) string {
	f := e.GetFlag()
	name := "--" + f.Name
	if f.Shorthand != "" {
		name = "-" + f.Shorthand + "/" + name
	}
	want := map[string]string{
		"uint64": "a whole number from 0 to 18446744073709551615",
		"uint":   "a whole number, 0 or more",
		"int":    "a whole number",
		"int64":  "a whole number",
		"bool":   "true or false",
	}[f.Value.Type()]
	if want == "" {
		return e.Error()
	}
	if num := (*strconv.NumError)(nil); errors.As(e, &num) && errors.Is(num.Err, strconv.ErrRange) {
		return fmt.Sprintf("%s %s is out of range: expected %s", name, scenario.Show(e.GetValue()), want)
	}
	return fmt.Sprintf("%s %s: expected %s", name, scenario.Show(e.GetValue()), want)
}

// onInterrupt calls f, in a goroutine of its own, for each Ctrl-C or
// SIGTERM (how a scheduler stops a job) until stop is called.
func onInterrupt(f func()) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for range sigs {
			f()
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(sigs)
	}
}

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}

// Main runs the command line and returns the exit code; tests call it.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, usage, defaultScenario())
		return exitUsage
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "validate":
		return validateCmd(args[1:], stdout, stderr)
	case "lab":
		return labCmd(args[1:], stdout, stderr)
	case "list":
		return listCmd(args[1:], stdout, stderr)
	case "report":
		return reportCmd(args[1:], stdout, stderr)
	case "sweep":
		return sweepCmd(args[1:], stdout, stderr)
	case "bench":
		return benchCmd(args[1:], stdout, stderr)
	case "reproduce":
		return reproduceCmd(args[1:], stdout, stderr)
	case "completion":
		return completionCmd(args[1:], stdout, stderr)
	case "schema":
		return schemaCmd(args[1:], stdout, stderr)
	case "devinfo":
		return devinfoCmd(args[1:], stdout, stderr)
	case "devices":
		return devicesCmd(args[1:], stdout, stderr)
	case "ibsim":
		return ibsimCmd(args[1:], stdout, stderr)
	case "ns3":
		return ns3Cmd(args[1:], stdout, stderr)
	case "sonic":
		return sonicCmd(args[1:], stdout, stderr)
	case "__complete":
		return completeCmd(args[1:], stdout)
	case "version", "--version":
		return versionCmd(stdout)
	case "help", "-h", "--help":
		fmt.Fprintf(stdout, usage, defaultScenario())
		return exitOK
	}
	fmt.Fprintf(stderr, "lfsim: unknown command %q%s\n\n", args[0], suggest(args[0], commands))
	fmt.Fprintf(stderr, usage, defaultScenario())
	return exitUsage
}
