package assembly

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
)

// runConserved parses src as the scenario file file, builds it on
// workers (more than one must cut it: a case that ran on one worker
// would test nothing of the cut), runs it, and holds its result to
// conservation: assertConserved, and no CONSERVATION warning, on which
// `lfsim run` exits 3. what names the case in failures.
func runConserved(t *testing.T, what, file, src string, workers int) (*Network, *reports.Results) {
	t.Helper()
	s, err := resolve.Parse(file, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n, err := BuildWorkers(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	if workers > 1 && n.Group == nil {
		t.Fatalf("%s: not cut (%s)", what, n.Serial)
	}
	r := n.Run(nil)
	assertConserved(t, what, r.Summary)
	for _, w := range r.Summary.Warnings {
		if strings.Contains(w, "CONSERVATION") {
			t.Errorf("%s: %s (lfsim run would exit 3)", what, w)
		}
	}
	return n, r
}

// sameFiles holds a run's files, got, to another's, want, byte for
// byte, file by file (in name order), and to the same set of files; what
// names the comparison in failures.
func sameFiles(t *testing.T, what string, got, want map[string][]byte) {
	t.Helper()
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		g, inGot := got[name]
		w, inWant := want[name]
		switch {
		case inGot != inWant:
			t.Errorf("%s: %s written by one run only (got %v, want %v)", what, name, inGot, inWant)
		case !bytes.Equal(g, w):
			t.Errorf("%s: %s differs:\n%s", what, name, firstDiff(g, w))
		}
	}
}
