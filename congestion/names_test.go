package congestion

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/kind"
)

// namedElsewhere are the non-test files outside congestion/ whose code
// (not their comments) may name a control, and why.
var namedElsewhere = map[string]string{
	"metamorphic/gen.go":      "the random-scenario generator writes files that choose controls (test infrastructure)",
	"metamorphic/coverage.go": "the generator's coverage counts the controls it chose",
	"metamorphic/variants.go": "a relation drops DCTCP's initial_window",
	"reports/html.go":         "the report's chart titles",
	"scenarios/course.go":     "a lab's name (tuning-dcqcn)",
	"hca/profile.go":          "iWARP's TCP defaults to newreno",
}

// TestNoControlNamedElsewhere: no code outside this package names a
// registered control (in a string or an identifier; comments may cite
// one), but the files namedElsewhere lists: the format, the assembly and
// the report read the table instead, so that a new control is one file
// here and its registration.
func TestNoControlNamedElsewhere(t *testing.T) {
	var names []string
	for _, row := range kind.CCs() {
		names = append(names, row.Name)
	}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "congestion" || rel == "testdata" || strings.HasSuffix(rel, "/testdata") || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || namedElsewhere[rel] != "" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var s scanner.Scanner
		fset := token.NewFileSet()
		s.Init(fset.AddFile(rel, -1, len(src)), src, nil, 0)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok != token.STRING && tok != token.IDENT {
				continue
			}
			if i := slices.IndexFunc(names, func(n string) bool { return strings.Contains(strings.ToLower(lit), n) }); i >= 0 {
				t.Errorf("%s: names %s (%s): read the table (kind.CCs, congestion.Lookup) instead", fset.Position(pos), names[i], lit)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
