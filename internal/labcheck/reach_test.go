package labcheck

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSolutionOutOfReach: the teacher's solution of lab
// first-verbs-program is out of the student's reach (issue 51: it sat
// beside the skeleton). The student's folder holds the skeleton and its
// test only, and neither holds a solution's function; and the solution
// is in a _test.go file of this package, which Go compiles into this
// package's own test binary only: the student's `go test` in their
// folder imports labcheck (its Pingpong check) and never compiles, so
// never runs nor reads, solution_test.go.
func TestSolutionOutOfReach(t *testing.T) {
	student := filepath.Join("..", "..", "scenarios", "labs", "first-verbs-program", "pingpong")
	entries, err := os.ReadDir(student)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		data, err := os.ReadFile(filepath.Join(student, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"solutionSetup", "solutionStart", "func setup(", "func start("} {
			if strings.Contains(string(data), f) {
				t.Errorf("%s holds %s, the teacher's solution", filepath.Join(student, e.Name()), f)
			}
		}
	}
	if want := []string{"pingpong.go", "pingpong_test.go"}; !slices.Equal(names, want) {
		t.Errorf("the student's folder holds %v, want %v only", names, want)
	}
	self, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(self.GoFiles, "solution_test.go") || !slices.Contains(self.TestGoFiles, "solution_test.go") {
		t.Errorf("solution_test.go must be one of labcheck's own tests (its GoFiles %v, TestGoFiles %v)", self.GoFiles, self.TestGoFiles)
	}
	for _, f := range self.GoFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "func solution") {
			t.Errorf("%s, which a student's test compiles, holds a solution", f)
		}
	}
	skeleton, err := build.ImportDir(student, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(skeleton.XTestImports, "github.com/lfsim/lfsim/internal/labcheck") {
		t.Errorf("the student's test does not import labcheck (its imports %v): the check above assumes it does", skeleton.XTestImports)
	}
}
