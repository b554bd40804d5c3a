package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --emit slurm writes a job array over the points; --index (or
// $SLURM_ARRAY_TASK_ID) runs one point; --collect merges what is there.
func TestSweepCommand(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("stop: {at: 1ms, when: flows-done}\ntopology: {kind: star, hosts: 3}\ntraffic: [{flow: {from: h0, to: h1, size: 64KiB}}]\n"), 0o644)
	sf := filepath.Join(dir, "s.yaml")
	os.WriteFile(sf, []byte("base: b.yaml\nvary:\n  traffic[0].flow.size: [16KiB, 32KiB, 64KiB]\n"), 0o644)
	out := filepath.Join(dir, "out")
	var o, e bytes.Buffer
	if code := Main([]string{"sweep", sf, "-o", out, "--emit", "slurm"}, &o, &e); code != exitOK {
		t.Fatalf("emit: %d %s", code, e.String())
	}
	script, _ := os.ReadFile(filepath.Join(out, "sweep.sbatch"))
	for _, want := range []string{"#SBATCH --array=0-2", `--index "$SLURM_ARRAY_TASK_ID"`} {
		if !strings.Contains(string(script), want) {
			t.Fatalf("sweep.sbatch lacks %q:\n%s", want, script)
		}
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "1")
	if code := Main([]string{"sweep", sf, "-o", out, "-q"}, &o, &e); code != exitOK {
		t.Fatalf("task 1: %d %s", code, e.String())
	}
	pts, _ := os.ReadDir(filepath.Join(out, "points"))
	if len(pts) != 1 || !strings.HasPrefix(pts[0].Name(), "0001_size=32KiB") {
		t.Fatalf("points: %v", pts)
	}
	o.Reset()
	if code := Main([]string{"sweep", sf, "-o", out, "--collect"}, &o, &e); code != exitFailed || !strings.Contains(o.String(), "1 of 3 points complete") {
		t.Fatalf("collect: %d %q", code, o.String())
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	o.Reset()
	if code := Main([]string{"sweep", sf, "-o", out, "-q"}, &o, &e); code != exitOK || !strings.Contains(o.String(), "3 of 3 points complete") {
		t.Fatalf("whole sweep: %d %q %s", code, o.String(), e.String())
	}
}
