package assembly

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/reports"
)

// runConserved parses src as the scenario file file, builds it on
// workers (more than one must cut it: a case that ran on one worker
// would test nothing of the cut), runs it, and holds its result to
// conservation: assertConserved, and no CONSERVATION warning, on which
// `lfsim run` exits 3. what names the case in failures.
func runConserved(t *testing.T, what, file, src string, workers int) (*Network, *reports.Results) {
	t.Helper()
	s, err := Parse(file, []byte(src))
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
