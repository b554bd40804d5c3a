package reproduce

import (
	"fmt"
	"slices"
	"sync"
)

// Reproduction is one published result as a run that checks itself.
type Reproduction struct {
	// Name is what `lfsim reproduce NAME` takes, and its folder in the
	// scenario library: scenarios/reproduce/NAME/.
	Name string
	// Paper is the source in a few words (authors, venue, year); the
	// full references are in published.yaml.
	Paper string
	// Figure is the figure, table, section or closed form reproduced.
	Figure string
	// Setup says what runs, in a line.
	Setup string
	// RunTime is the expected time on one core of a 2026 machine to
	// itself (the CPU time measured 2026-12-05, rounded up).
	RunTime string
	// Long says the reproduction takes longer than CI's slow tier
	// allows; it runs only when asked by name.
	Long bool
	// Measure reads lfsim's value of each published point (by its id)
	// from the runs' files. A point it leaves out fails.
	Measure func(Runs) (map[string]float64, error)
	// Misses are the published points lfsim is known to miss, each with
	// why, in numbers. A miss still FAILS (the reproduction does not
	// hold, its exit code says so); it is named so that the listing, the
	// console and the report say why, and so that TestReproductions can
	// tell a known miss from a new failure (and see a miss that starts
	// to hold, or whose value moves away from the one it was recorded
	// at). A point's bounds are never widened to take a miss in.
	Misses []Miss
}

// Miss is a published point lfsim misses, and why.
type Miss struct {
	ID  string // the point's id in published.yaml
	Why string // the cause, with numbers
	// Was is lfsim's value of the point when the miss was recorded.
	// lfsim is deterministic, so the value moves only when a model does:
	// TestReproductions fails when it moves by as much as the point's
	// bounds are wide (Hi - Lo, the move movedFails counts as the model
	// moving), so that a miss cannot hide a regression (without it a
	// miss could fall anywhere outside its bounds and still pass, as a
	// miss "fails as expected").
	Was float64
}

// MissOf is why point id is a known miss of r, or "" if it is not one.
func (r Reproduction) MissOf(id string) string {
	m, _ := r.miss(id)
	return m.Why
}

// miss is r's known miss of point id, if it is one.
func (r Reproduction) miss(id string) (Miss, bool) {
	for _, m := range r.Misses {
		if m.ID == id {
			return m, true
		}
	}
	return Miss{}, false
}

var (
	mu    sync.RWMutex
	table []Reproduction
)

// Register adds r to the table. A name taken, empty, or without a
// measure is a programming error: it panics. unregister takes it out
// again (for a test's toy).
func Register(r Reproduction) (unregister func()) {
	mu.Lock()
	defer mu.Unlock()
	if r.Name == "" || r.Measure == nil || slices.ContainsFunc(table, func(x Reproduction) bool { return x.Name == r.Name }) {
		panic(fmt.Sprintf("reproduce: reproduction %q registered twice, without a name or without a measure", r.Name))
	}
	table = append(table, r)
	return func() {
		mu.Lock()
		defer mu.Unlock()
		table = slices.DeleteFunc(table, func(x Reproduction) bool { return x.Name == r.Name })
	}
}

// All lists the reproductions in registration order.
func All() []Reproduction {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(table)
}

// Lookup finds the reproduction named name.
func Lookup(name string) (Reproduction, bool) {
	mu.RLock()
	defer mu.RUnlock()
	for _, r := range table {
		if r.Name == name {
			return r, true
		}
	}
	return Reproduction{}, false
}

// Names lists the reproductions' names in registration order.
func Names() []string {
	var out []string
	for _, r := range All() {
		out = append(out, r.Name)
	}
	return out
}
