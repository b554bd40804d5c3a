package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/lfsim/lfsim/reproduce"
)

// reproduceCmd is `lfsim reproduce [NAME...|all] [-o DIR] [-j N]
// [--resume] [--set PATH=VALUE] [-q]`: without a name, the list of reproductions; with
// names, each runs and says every point's verdict; the exit code is 0
// only if every point of every one holds.
func reproduceCmd(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("reproduce", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.StringP("output", "o", "", "the folder for the runs (default lfsim-out/reproduce/NAME; with several names, DIR/NAME)")
	jobs := fs.IntP("jobs", "j", 0, "points run at once (default GOMAXPROCS)")
	resume := fs.Bool("resume", false, "keep points whose run is complete (by default every point runs again)")
	quiet := fs.BoolP("quiet", "q", false, "print no line per point run")
	set := fs.StringArray("set", nil, "lay path=value over every run, as a sweep's one-value vary (to see a reproduction fail when a parameter it depends on moves); may repeat")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *jobs < 0 {
		fmt.Fprintf(stderr, "lfsim reproduce: --jobs %d: want 1 or more (0, the default: GOMAXPROCS)\n", *jobs)
		return exitUsage
	}
	if fs.NArg() == 0 {
		listReproductions(stdout)
		return exitOK
	}
	todo, err := chooseReproductions(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "lfsim reproduce: %v\n", err)
		return exitUsage
	}
	// The runs as --set changes them are loaded before any runs: a wrong
	// path or value is the command line's error, said at once.
	for _, r := range todo {
		if _, err := reproduce.LoadSweep(r.Name, *set); err != nil {
			fmt.Fprintf(stderr, "lfsim reproduce %s: %v\n", r.Name, err)
			if len(*set) > 0 {
				fmt.Fprintf(stderr, "lfsim reproduce: --set %s does not fit %s's runs\n", strings.Join(*set, " --set "), r.Name)
				return exitUsage
			}
			return exitInternal
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer onInterrupt(cancel)()
	code := exitOK
	for _, r := range todo {
		dir := reproduce.DefaultDir(r.Name)
		switch {
		case *out != "" && len(todo) == 1:
			dir = *out
		case *out != "":
			dir = filepath.Join(*out, r.Name)
		}
		opt := reproduce.Options{Dir: dir, Workers: *jobs, Resume: *resume, Set: *set}
		if !*quiet {
			opt.Log = stderr
			fmt.Fprintf(stderr, "lfsim reproduce %s: %s (expected %s)\n", r.Name, r.Setup, r.RunTime)
		}
		o, err := reproduce.Run(ctx, r, opt)
		if err != nil {
			fmt.Fprintf(stderr, "lfsim reproduce %s: %v\n", r.Name, err)
			if ctx.Err() != nil {
				return exitInterrupted
			}
			code = exitInternal
			continue
		}
		printOutcome(stdout, o, dir)
		if !o.OK && code == exitOK {
			code = exitFailed
		}
	}
	return code
}

// chooseReproductions are the reproductions names ask for, in their
// order, each once (a second run would overwrite the first's folder):
// "all" is every one but the long (which run only by name); an unknown
// name is an error that lists them.
func chooseReproductions(names []string) ([]reproduce.Reproduction, error) {
	var todo []reproduce.Reproduction
	add := func(r reproduce.Reproduction) {
		if !slices.ContainsFunc(todo, func(x reproduce.Reproduction) bool { return x.Name == r.Name }) {
			todo = append(todo, r)
		}
	}
	for _, name := range names {
		if name == "all" {
			for _, r := range reproduce.All() {
				if !r.Long {
					add(r)
				}
			}
			continue
		}
		r, ok := reproduce.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("no reproduction named %q%s; they are %s (or all)", name, suggest(name, reproduce.Names()), strings.Join(reproduce.Names(), ", "))
		}
		add(r)
	}
	return todo, nil
}

// listReproductions prints the table: name, paper, figure, setup and
// expected run time.
func listReproductions(w io.Writer) {
	fmt.Fprintln(w, "Reproductions (lfsim reproduce NAME runs one, lfsim reproduce all every one but the long):")
	for _, r := range reproduce.All() {
		long := ""
		if r.Long {
			long = ", long: not in all"
		}
		fmt.Fprintf(w, "\n%s  (%s%s)\n  %s: %s\n  setup: %s\n", r.Name, r.RunTime, long, r.Paper, r.Figure, r.Setup)
		if pub, err := reproduce.LoadPublished(r.Name); err == nil {
			fmt.Fprintf(w, "  points: %s\n", reproduce.KindCounts(pub))
		}
		for _, m := range r.Misses {
			fmt.Fprintf(w, "  known miss: %s: %s\n", m.ID, m.Why)
		}
	}
}

// printOutcome prints each point with its bounds, lfsim's value and the
// verdict, then a line for the reproduction.
func printOutcome(w io.Writer, o *reproduce.Outcome, dir string) {
	fmt.Fprintf(w, "%s: %s: %s\n", o.Reproduction.Name, o.Reproduction.Paper, o.Reproduction.Figure)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  point\tpublished\tkind\tlfsim\tverdict")
	held := 0
	for _, r := range o.Rows {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Point.ID, r.Point.Bounds(), r.Point.Kind, reproduce.Format(r.Got), r.Verdict())
		if r.OK {
			held++
		}
	}
	tw.Flush()
	for _, r := range o.Rows {
		if !r.OK && r.Miss != "" {
			fmt.Fprintf(w, "  known miss %s: %s\n", r.Point.ID, r.Miss)
		}
	}
	verdict := "holds"
	if !o.OK {
		verdict = "FAILS"
	}
	fmt.Fprintf(w, "%s %s: %d of %d points hold; report: %s\n", o.Reproduction.Name, verdict, held, len(o.Rows), filepath.Join(dir, "report.html"))
}
