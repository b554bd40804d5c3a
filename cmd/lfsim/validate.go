package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenarios"
)

func validateCmd(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	maxMem := memoryFlag(fs)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "lfsim validate: name one or more scenario files (or examples, by name)")
		return exitUsage
	}
	if !setMemoryLimit("validate", *maxMem, stderr) {
		return exitUsage
	}
	code := exitOK
	for _, path := range fs.Args() {
		sc, err := resolve.LoadNamed(path) // a file, or an example or lab scenario by name, as lfsim run takes
		if err != nil {
			fmt.Fprintln(stderr, err)
			code = exitFailed
			continue
		}
		for _, w := range sc.Warnings {
			fmt.Fprintf(stderr, "warning: %v\n", w)
		}
		fmt.Fprintf(stdout, "%s: ok (%s: %d nodes, %d flows; about %s of memory)\n", path, sc.Name, len(sc.Topology.Nodes), len(sc.Flows), resolve.ShowBytes(sc.MemoryEstimate))
	}
	return code
}

func listCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "lfsim list takes no arguments\n")
		return exitUsage
	}
	ex := scenarios.Examples()
	width := 0
	for _, e := range ex {
		width = max(width, len(e.Name))
	}
	for _, e := range ex {
		mark := " "
		if e.Name == scenarios.DefaultExample {
			mark = "*"
		}
		fmt.Fprintf(stdout, "%s %-*s  %s\n", mark, width, e.Name, strings.TrimSpace(e.Description))
	}
	fmt.Fprintf(stdout, "\n* the default of `lfsim run`. Run one with `lfsim run NAME`.\n")
	if sweeps := scenarios.SweepExamples(); len(sweeps) > 0 {
		fmt.Fprintf(stdout, "\nSweeps (`lfsim sweep NAME` runs one): %s\n", strings.Join(sweeps, ", "))
	}
	fmt.Fprintf(stdout, "\nLabs (`lfsim lab NAME` prints the exercise):\n")
	printLabs(stdout)
	return exitOK
}

// printLabs lists the course's labs in order, with the time each takes
// a student, its title and scenarios; a lab not built yet says what it
// waits for. Built labs outside the course follow.
func printLabs(w io.Writer) {
	labs := scenarios.Labs()
	built := map[string]scenarios.Lab{}
	width := 0
	for _, l := range labs {
		built[l.Name] = l
		width = max(width, len(l.Name))
	}
	for _, c := range scenarios.Course {
		width = max(width, len(c.Name))
	}
	listed := map[string]bool{}
	for i, c := range scenarios.Course {
		l, ok := built[c.Name]
		if !ok {
			fmt.Fprintf(w, "%2d  %-*s  %s: not built yet, it needs %s\n", i+1, width, c.Name, c.Topic, c.Needs)
			continue
		}
		listed[c.Name] = true
		fmt.Fprintf(w, "%2d  %-*s  %s, about %d min\n    %-*s  run: %s\n", i+1, width, l.Name, l.Title, c.Minutes, width, "", strings.Join(l.Scenarios, ", "))
	}
	for _, l := range labs {
		if !listed[l.Name] {
			fmt.Fprintf(w, "    %-*s  %s\n    %-*s  run: %s\n", width, l.Name, l.Title, width, "", strings.Join(l.Scenarios, ", "))
		}
	}
}

// labCmd is `lfsim lab [NAME]`: a lab's README, or the list of labs.
func labCmd(args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		printLabs(stdout)
		fmt.Fprintf(stdout, "\n`lfsim lab NAME` prints a lab's exercise; `lfsim lab check NAME` runs its scenarios and says which expectations hold.\n")
		return exitOK
	case 2:
		if args[0] == "check" {
			return labCheck(args[1], stdout, stderr)
		}
		if args[1] == "--answers" {
			text, err := scenarios.LabAnswers(args[0])
			return printLabText(stdout, stderr, text, err)
		}
	case 1:
		if args[0] == "check" {
			fmt.Fprintf(stderr, "lfsim lab check: name a lab to check (lfsim lab lists them)\n")
			return exitUsage
		}
		text, err := scenarios.LabREADME(args[0])
		return printLabText(stdout, stderr, text, err)
	}
	fmt.Fprintf(stderr, "lfsim lab takes one lab name at most (with --answers for the teacher's notes), or check and a lab name\n")
	return exitUsage
}

// printLabText prints a lab's README or teacher's notes, or the error
// that there is none.
func printLabText(stdout, stderr io.Writer, text string, err error) int {
	if err != nil {
		fmt.Fprintf(stderr, "lfsim lab: %v\n", err)
		return exitUsage
	}
	fmt.Fprint(stdout, text)
	return exitOK
}

// suggest returns " (did you mean X?)" when a candidate is close to s.
func suggest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
