package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runAgainScenario names a config_db.json beside it (switch.sonic), a
// CDF outside its folder (poisson's sizes, through ..) and a flow trace
// outside it too (trace's file): the run's folder must hold them all
// for its scenario.yaml to run again (OUTPUTS.md). Its job writes
// trace.json, which must come out the same.
const runAgainScenario = `name: again
topology: {kind: star, hosts: 3, link: {rate: 40Gbps}}
switch: {sonic: cfg/two-ports.json}
hca: {cc: dcqcn, dscp: 3}
stop: {at: 300us}
traffic:
  - poisson: {load: 20%, sizes: ../cdf/sizes.txt, until: 250us}
  - incast: {to: h2, from: [h0, h1], size: 64KiB}
  - trace: {file: ../traces/flows.csv}
  - job: {hosts: [h0, h1], phases: [{id: c, compute: {duration: 5us}}, {id: f, after: [c], flow: {from: h1, to: h0, size: 8KiB}}]}
`

// TestRunFolderRunsAgain: a run's scenario.yaml runs again from its
// folder, into another, with the same outputs byte for byte (but the wall
// time): for a scenario on disk whose files are inside its folder and
// outside it (copied to inputs/ and named so in scenario.yaml), for a
// sweep's points, and for the built-in example that names a
// config_db.json. Each re-run is from the run's folder, as the first run
// was from the scenario's, so that messages name the same files.
func TestRunFolderRunsAgain(t *testing.T) {
	cfg, err := os.ReadFile("../../sonic/testdata/two-ports.json")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	src := filepath.Join(root, "src")
	for name, data := range map[string]string{
		"src/scenario.yaml":      runAgainScenario,
		"src/cfg/two-ports.json": string(cfg),
		"cdf/sizes.txt":          "1000 0\n4000 50\n16000 100\n",
		"traces/flows.csv":       "start,from,to,size,after\n10us,h0,h1,4KiB,\n12us,h1,h2,4KiB,0\n",
		"src/sweep.yaml":         "base: scenario.yaml\nvary:\n  hca.mtu: [1024, 4096]\n",
	} {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(cwd string, args ...string) {
		t.Helper()
		t.Chdir(cwd)
		if code, _, errs := lfsim(t, args...); code != exitOK {
			t.Fatalf("%s: lfsim %v: exit %d\n%s", cwd, args, code, errs)
		}
	}
	// again re-runs dir's scenario.yaml into dir+"-again" and compares.
	again := func(dir string, rename func(string) string) {
		t.Helper()
		run(dir, "run", "scenario.yaml", "-q", "-o", dir+"-again")
		sameRun(t, dir, dir+"-again", rename)
	}

	run(src, "run", "scenario.yaml", "-q", "-o", filepath.Join(root, "one"))
	one := filepath.Join(root, "one")
	for _, f := range []string{"cfg/two-ports.json", "inputs/sizes.txt", "inputs/flows.csv", "trace.json"} {
		if _, err := os.Stat(filepath.Join(one, f)); err != nil {
			t.Errorf("the run's folder has no copy of %s: %v", f, err)
		}
	}
	text, _ := os.ReadFile(filepath.Join(one, "scenario.yaml"))
	if !strings.Contains(string(text), "sizes: inputs/sizes.txt") || !strings.Contains(string(text), "sonic: cfg/two-ports.json") || !strings.Contains(string(text), "file: inputs/flows.csv") {
		t.Errorf("the run's scenario.yaml does not name the copies:\n%s", text)
	}
	again(one, nil)

	run(src, "sweep", "sweep.yaml", "-q", "-j", "1", "-o", filepath.Join(root, "sweep"))
	points, _ := filepath.Glob(filepath.Join(root, "sweep", "points", "0*"))
	if len(points) != 2 {
		t.Fatalf("the sweep ran %d points, want 2", len(points))
	}
	for _, p := range points {
		again(p, nil)
	}

	// The built-in example, run where no copy of the library is on disk.
	empty := filepath.Join(root, "empty")
	os.MkdirAll(empty, 0o755)
	run(empty, "run", "sonic-dell-s6100", "-q", "-o", "ex")
	again(filepath.Join(empty, "ex"), strings.NewReplacer(
		"examples/sonic-dell-s6100/config_db.json", "sonic-dell-s6100/config_db.json",
		"examples/sonic-dell-s6100.yaml", "scenario.yaml").Replace)
}

// sameRun fails t unless run folders a and b hold the same files, byte
// for byte but the wall time each run took and the report's name of each
// run, its folder's (and in a's, the names rename
// gives, where the first run's messages named files by other names).
func sameRun(t *testing.T, a, b string, rename func(string) string) {
	t.Helper()
	files := func(dir string) []string {
		var out []string
		filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				out = append(out, rel)
			}
			return nil
		})
		return out
	}
	fa, fb := files(a), files(b)
	if !slices.Equal(fa, fb) || !slices.Contains(fa, "flows.csv") {
		t.Fatalf("%s has %v, its re-run %v", a, fa, fb)
	}
	wall := func(l string) bool {
		return strings.Contains(l, `"wall_seconds"`) || strings.HasPrefix(l, "<tr><td>wall time, events</td>")
	}
	for _, f := range fa {
		da, _ := os.ReadFile(filepath.Join(a, f))
		db, _ := os.ReadFile(filepath.Join(b, f))
		if f == "summary.json" || f == "report.html" {
			da, _ = withoutLines(da, wall)
			db, _ = withoutLines(db, wall)
			if rename != nil {
				da = []byte(rename(string(da)))
			}
			// The report names each run by its folder.
			db = []byte(strings.ReplaceAll(string(db), filepath.Base(b), filepath.Base(a)))
		}
		if string(da) != string(db) {
			t.Errorf("%s: %s differs from its re-run's", a, f)
		}
	}
}
