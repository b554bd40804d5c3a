package metamorphic

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
)

// Outcome is what one run of a scenario gave.
type Outcome struct {
	// Files are the files the run writes (reports.WriteRun), by name;
	// summary.json without wall_seconds, which no run repeats.
	Files   map[string][]byte
	Summary *reports.Summary
	// Serial says why the run went on one worker when more were asked
	// (assembly.Network.Serial).
	Serial string
	// Refused is the loader's or builder's refusal; Panic the value and
	// stack of a panic in building or running.
	Refused error
	Panic   string
}

// Runner runs scenarios through the assembly API, as `lfsim run` does:
// resolve.Parse, BuildWorkers and Network.Run, the results written by
// reports.WriteRun into a folder under Dir and read back.
type Runner struct {
	Dir string
	// Hook, when not nil, is called with each network built, before it
	// runs (a test's way to break something on purpose).
	Hook func(n *assembly.Network, workers int)
	// Runs counts the runs made.
	Runs int
}

// Run runs the scenario src (a file's text) on workers workers.
func (r *Runner) Run(src string, workers int) (out Outcome) {
	r.Runs++
	defer func() {
		if p := recover(); p != nil {
			out.Panic = fmt.Sprintf("%v\n%s", p, debug.Stack())
		}
	}()
	sc, err := resolve.Parse("metamorphic.yaml", []byte(src))
	if err != nil {
		out.Refused = err
		return out
	}
	n, err := assembly.BuildWorkers(sc, workers)
	if err != nil {
		out.Refused = err
		return out
	}
	out.Serial = n.Serial
	if r.Hook != nil {
		r.Hook(n, workers)
	}
	res := n.Run(nil)
	res.Summary.WallSeconds = 0
	out.Summary = res.Summary
	dir, err := os.MkdirTemp(r.Dir, "run")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := reports.WriteRun(dir, res); err != nil {
		panic(fmt.Sprintf("writing the run's files: %v", err))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		panic(err)
	}
	out.Files = map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			panic(err)
		}
		out.Files[e.Name()] = b
	}
	return out
}

// Build loads and builds src on one worker without running it: the
// loader's or builder's refusal, if any.
func (r *Runner) Build(src string) error {
	sc, err := resolve.Parse("metamorphic.yaml", []byte(src))
	if err != nil {
		return err
	}
	_, err = assembly.BuildWorkers(sc, 1)
	return err
}
