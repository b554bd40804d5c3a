package swtch

import (
	"os"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/kind"
)

// TestDocsNameEveryLoadBalance: docs/SCENARIO.md names every load
// balancing mode the switch registers, and every key that tunes one.
func TestDocsNameEveryLoadBalance(t *testing.T) {
	src, err := os.ReadFile("../docs/SCENARIO.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := kind.LoadBalances()
	if len(rows) != len(loadBalances) {
		t.Fatalf("%d modes in the table, %d registered here", len(rows), len(loadBalances))
	}
	for _, l := range rows {
		for _, name := range append([]string{l.Name}, l.Keys...) {
			if !strings.Contains(string(src), "`"+name+"`") {
				t.Errorf("docs/SCENARIO.md does not name `%s`", name)
			}
		}
	}
}
