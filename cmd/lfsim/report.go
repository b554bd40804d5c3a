package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/scenarios"
)

// reportCmd is `lfsim report DIR...`: it rebuilds DIR/report.html from a
// run's files, or, given several runs, overlays them in one page (-o,
// default report.html in the current directory).
func reportCmd(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.StringP("output", "o", "", "where to write the page (default DIR/report.html for one run, report.html for several)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "lfsim report: give one or more run directories (lfsim-out/NAME)")
		return exitUsage
	}
	var runs []*reports.Run
	for _, dir := range fs.Args() {
		r, err := reports.LoadRun(dir)
		if err != nil {
			fmt.Fprintf(stderr, "lfsim report: %v\n", err)
			return exitFailed
		}
		r.Fabric = resolve.RunFabric(dir)
		runs = append(runs, r)
	}
	path := *out
	if path == "" {
		path = "report.html"
		if len(runs) == 1 {
			path = filepath.Join(fs.Arg(0), "report.html")
		}
	}
	if err := reports.WriteFileAtomic(filepath.Dir(path), filepath.Base(path), reports.BuildHTML(runs)); err != nil {
		fmt.Fprintf(stderr, "lfsim report: %v\n", err)
		return exitInternal
	}
	fmt.Fprintf(stdout, "%s\n", path)
	return exitOK
}

// scenarioSource is the text of the scenario arg names: the file, or the
// built-in example.
func scenarioSource(arg string) ([]byte, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return scenario.ReadFile(arg, "scenario file", scenario.MaxScenarioBytes)
	}
	return scenarios.ExampleSource(arg)
}

// writeReport completes a run's directory after its results and before
// its summary (summary, SummaryJSON's bytes, goes last): the scenario as
// run (src, as scenario.yaml, so that `lfsim report` can label overlaid
// runs by what differs) and report.html, built from the files just
// written. fab is the run's fabric (resolve.Scenario.ReportFabric).
func writeReport(dir string, src, summary []byte, fab *reports.Fabric) error {
	if err := reports.WriteFileAtomic(dir, "scenario.yaml", src); err != nil {
		return err
	}
	r, err := reports.LoadRunWith(dir, summary)
	if err != nil {
		return err
	}
	r.Fabric = fab
	return reports.WriteFileAtomic(dir, "report.html", reports.BuildHTML([]*reports.Run{r}))
}
