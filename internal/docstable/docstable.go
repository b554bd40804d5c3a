// Package docstable is a test helper: a section of a doc between two
// markers that a test writes from the registered kinds (the tables of
// congestion controls and topology generators in docs/SCENARIO.md),
// checked against what the test writes now, or rewritten with
// LFSIM_UPDATE_DOCS=1. The standard library only.
package docstable

import (
	"os"
	"strings"
	"testing"
)

// Check fails t unless the file at path holds want between the lines
// begin and end (each with its newline); with LFSIM_UPDATE_DOCS=1 in the
// environment it writes want there instead. what names the section in
// messages ("table of congestion controls"), rerun is the command that
// rewrites it. It returns the file's text.
func Check(t testing.TB, path, begin, end, want, what, rerun string) string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %s between its markers", path, what)
	}
	if got := doc[i+len(begin) : j]; got != want {
		if os.Getenv("LFSIM_UPDATE_DOCS") == "1" {
			doc = doc[:i+len(begin)] + want + doc[j:]
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			return doc
		}
		t.Errorf("%s's %s is not the registered ones': run %s\nwant:\n%s", path, what, rerun, want)
	}
	return doc
}
