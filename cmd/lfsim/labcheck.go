package main

import (
	"fmt"
	"io"
	"time"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenarios"
)

// labCheck is `lfsim lab check NAME`: it runs each of a lab's scenarios
// in turn, writing nothing, and prints each scenario's expectations as
// they came out, with the wall time it took: a teacher's check that the
// lab shows what it teaches on this build, and a student's that a
// changed scenario (run with lfsim run) is the lab's, not theirs. It
// exits 0 when every expectation holds, 1 otherwise.
func labCheck(name string, stdout, stderr io.Writer) int {
	var lab *scenarios.Lab
	labs := scenarios.Labs()
	for i := range labs {
		if labs[i].Name == name {
			lab = &labs[i]
		}
	}
	if lab == nil {
		_, err := scenarios.LabREADME(name) // says which labs there are
		fmt.Fprintf(stderr, "lfsim lab check: %v\n", err)
		return exitUsage
	}
	code := exitOK
	var total time.Duration
	for _, s := range lab.Scenarios {
		sc, err := resolve.LoadExample(s)
		if err != nil {
			fmt.Fprintf(stderr, "lfsim lab check: %v\n", err)
			return exitFailed
		}
		start := time.Now()
		tightenGC()
		net, err := assembly.Build(sc)
		if err != nil {
			fmt.Fprintf(stderr, "lfsim lab check: %s: %v\n", s, err)
			return exitFailed
		}
		sum := net.Run(nil).Summary
		took := time.Since(start)
		total += took
		held := 0
		for _, c := range sum.Expect {
			if c.OK {
				held++
			}
		}
		fmt.Fprintf(stdout, "%s: %d of %d expectations hold (%.2fs)\n", s, held, len(sum.Expect), took.Seconds())
		for _, c := range sum.Expect {
			mark := "ok  "
			if !c.OK {
				mark = "FAIL"
				code = max(code, exitFailed)
			}
			fmt.Fprintf(stdout, "  %s %s: %s\n", mark, c.Check, c.Detail)
		}
		if !sum.Conservation.OK {
			fmt.Fprintf(stdout, "  FAIL conservation: %v\n", sum.Conservation.Errors)
			code = exitInternal
		}
	}
	verdict := "the lab shows what it teaches"
	if code != exitOK {
		verdict = "some expectations failed"
	}
	fmt.Fprintf(stdout, "%s: %d scenarios in %.2fs; %s\n", lab.Name, len(lab.Scenarios), total.Seconds(), verdict)
	return code
}
