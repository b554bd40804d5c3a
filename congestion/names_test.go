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
	"metamorphic/cc.go":       "the random-scenario generator's weights and parameter draws for the controls it knew when it named them, so that a seed still makes its scenario (a control registered later is drawn with a default weight)",
	"metamorphic/coverage.go": "the generator's coverage names iWARP's TCP's default control, newreno, and NSCC (UET's own control, counted apart on RoCEv2 and given as hca.nscc)",
	"scenarios/course.go":     "a lab's name (tuning-dcqcn)",
	"cmd/lfsim/ns3.go":        "it writes the HPCC authors' simulator's inputs, for HPCC's parameters only",
	"hca/profile.go":          "iWARP's TCP defaults to newreno",
	"fabric/routeloops.go":    "TarjanSCC, Tarjan's strongly connected components, holds nscc's letters (UET's NSCC is congestion/nscc.go)",
	"reproduce/dcqcn.go":      "a reproduction is named for the paper it reproduces (DCQCN, Zhu et al.)",
	"reproduce/dctcp.go":      "a reproduction is named for the paper it reproduces (DCTCP, Alizadeh et al.)",
	"reproduce/ibcc.go":       "a reproduction is named for the paper it reproduces (InfiniBand CC, Gran et al.)",
	"reproduce/hpcc.go":       "a reproduction is named for the paper it reproduces (HPCC, Li et al.)",
	"reproduce/hpcchadoop.go": "a reproduction is named for the paper it reproduces (HPCC, Li et al.)",
	"reproduce/irn.go":        "its setup names the controls the IRN paper compares",
	"reproduce/mathis.go":     "its setup names the TCP control Mathis's formula is checked against",
	"reproduce/register.go":   "the reproductions' table, each row named for its paper",
}

// TestNoControlNamedElsewhere: no code outside this package names a
// registered control (in a string or an identifier; comments may cite
// one), but the files namedElsewhere lists, each of which still does:
// the format, the assembly, the report and the random-scenario generator
// read the table instead, so that a new control is one file here and its
// registration.
func TestNoControlNamedElsewhere(t *testing.T) {
	var names []string
	still := map[string]bool{} // a listed file: whether it still names one
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
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		listed := namedElsewhere[rel] != ""
		if listed {
			still[rel] = false
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
			if i := slices.IndexFunc(names, func(n string) bool { return strings.Contains(strings.ToLower(lit), n) }); i >= 0 && listed {
				still[rel] = true
			} else if i >= 0 {
				t.Errorf("%s: names %s (%s): read the table (kind.CCs, congestion.Lookup) instead", fset.Position(pos), names[i], lit)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range namedElsewhere {
		if !still[rel] {
			t.Errorf("%s names no control any more (or is gone): take it off namedElsewhere", rel)
		}
	}
}
