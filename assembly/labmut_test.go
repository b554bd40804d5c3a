package assembly

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/reports"
)

// labMutation is one change a lab's README teaches: in scenario name,
// the first from (which the scenario must still have) becomes to.
type labMutation struct{ name, from, to string }

// runLabMutation runs lab's scenario m.name with m applied.
func runLabMutation(t *testing.T, lab string, m labMutation) *reports.Results {
	t.Helper()
	src := exampleText(t, "labs/"+lab+"/"+m.name)
	if !strings.Contains(src, m.from) {
		t.Fatalf("%s/%s no longer has %q", lab, m.name, m.from)
	}
	_, r := runSource(t, m.name+".yaml", strings.Replace(src, m.from, m.to, 1))
	return r
}

// checkLabMutations: each change makes at least one of its scenario's
// expectations fail (the lab does not pass by accident).
func checkLabMutations(t *testing.T, lab string, ms []labMutation) {
	t.Helper()
	for _, m := range ms {
		if r := runLabMutation(t, lab, m); failedChecks(r) == 0 {
			t.Errorf("%s with %q: every expectation still holds", m.name, m.to)
		}
	}
}

// failedChecks counts a run's expectations that failed.
func failedChecks(r *reports.Results) (n int) {
	for _, c := range r.Summary.Expect {
		if !c.OK {
			n++
		}
	}
	return n
}
