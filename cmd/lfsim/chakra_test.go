package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChakraRunAgain: two Chakra traces outside the scenario's folder,
// of one base name (../t1/ar and ../t2/ar, rank files ar.0.et ...), are
// copied into the run's folder as sets, inputs/ar.N.et and
// inputs/ar-2.N.et, and its scenario.yaml names them by those prefixes,
// so that it runs again from there with the same outputs. Copied one
// file at a time, the prefix (no file's name) could not be pointed at
// them and the run failed.
func TestChakraRunAgain(t *testing.T) {
	root := t.TempDir()
	mb := "../../scenarios/examples/chakra-microbenchmarks"
	for _, c := range []struct{ dir, op string }{{"t1", "all_reduce"}, {"t2", "all_gather"}} {
		os.MkdirAll(filepath.Join(root, c.dir), 0o755)
		for r := range 4 {
			data, err := os.ReadFile(fmt.Sprintf("%s/%s/4npus_1MB/%s.%d.et", mb, c.op, c.op, r))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, c.dir, fmt.Sprintf("ar.%d.et", r)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	src := filepath.Join(root, "src")
	os.MkdirAll(src, 0o755)
	scen := `name: chakra-again
topology: {kind: star, hosts: 4, link: {rate: 100Gbps}}
stop: {at: 10ms, when: flows-done}
traffic:
  - chakra: {trace: ../t1/ar}
  - chakra: {trace: ../t2/ar, start: 5us}
`
	if err := os.WriteFile(filepath.Join(src, "scenario.yaml"), []byte(scen), 0o644); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(root, "one")
	t.Chdir(src)
	if code, _, errs := lfsim(t, "run", "scenario.yaml", "-q", "-o", one); code != exitOK {
		t.Fatalf("lfsim run: exit %d\n%s", code, errs)
	}
	for _, f := range []string{"inputs/ar.0.et", "inputs/ar.3.et", "inputs/ar-2.0.et", "inputs/ar-2.3.et"} {
		if _, err := os.Stat(filepath.Join(one, f)); err != nil {
			t.Errorf("the run's folder has no copy %s: %v", f, err)
		}
	}
	text, _ := os.ReadFile(filepath.Join(one, "scenario.yaml"))
	if !strings.Contains(string(text), "{trace: inputs/ar}") || !strings.Contains(string(text), "{trace: inputs/ar-2, start: 5us}") {
		t.Errorf("the run's scenario.yaml does not name the copies:\n%s", text)
	}
	t.Chdir(one)
	if code, _, errs := lfsim(t, "run", "scenario.yaml", "-q", "-o", one+"-again"); code != exitOK {
		t.Fatalf("lfsim run again: exit %d\n%s", code, errs)
	}
	sameRun(t, one, one+"-again", nil)
}
