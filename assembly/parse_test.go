package assembly

import (
	"testing"

	"github.com/lfsim/lfsim/resolve"
)

// mustParse resolves src, failing the test on an error.
func mustParse(t *testing.T, src string) *resolve.Scenario {
	t.Helper()
	s, err := resolve.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatalf("unexpected error:\n%v", err)
	}
	return s
}
