package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSIGTERMWritesAnIncompleteRun: SIGTERM (a scheduler's, a plain kill)
// stops a run as Ctrl-C does: what it has is written, every file of the
// run with summary.json last, marked incomplete, and lfsim exits 1.
func TestSIGTERMWritesAnIncompleteRun(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "long.yaml")
	if err := os.WriteFile(scen, []byte(`name: long
stop: {at: 10s}
topology: {kind: star, hosts: 9}
hca: {cc: none}
traffic:
  - incast: {to: h8, from: all, size: 8GiB}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(os.Args[0], "run", scen, "-o", out, "--progress")
	cmd.Env = append(os.Environ(), "LFSIM_TEST_AS_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The progress line shows once the run has gone a wall second, well
	// after the signal handler is in place.
	rd := bufio.NewReader(stderr)
	if _, err := rd.ReadByte(); err != nil {
		cmd.Process.Kill()
		t.Fatalf("no progress on stderr: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = rd.WriteTo(new(discard)) }()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the run did not stop within 60 s of SIGTERM")
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitFailed {
		t.Errorf("exit: %v, want status %d", err, exitFailed)
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Complete   bool   `json:"complete"`
		StopReason string `json:"stop_reason"`
		SimTimeNs  int64  `json:"sim_time_ns"`
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Complete || sum.StopReason != "interrupted" || sum.SimTimeNs <= 0 || sum.SimTimeNs >= 10e9 {
		t.Errorf("summary %+v; want incomplete, interrupted, stopped inside the run", sum)
	}
	for _, name := range []string{"flows.csv", "pfc.csv", "timeseries.csv", "topology.json", "scenario.yaml", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("%s beside summary.json: %v", name, err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestRefusedRunLeavesNoFolder: a refused scenario (here a buffer below
// the reserved minimums and headroom) is refused before the output folder
// is made, so it leaves none behind; a folder that was there stays.
func TestRefusedRunLeavesNoFolder(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "small-buffer.yaml")
	os.WriteFile(scen, []byte(`topology: {kind: star, hosts: 9}
switch: {buffer: 200KiB, reserved: 30KiB}
traffic:
  - flow: {from: h0, to: h1, size: 1MiB}
`), 0o644)
	out := filepath.Join(dir, "out")
	code, _, stderr := lfsim(t, "run", scen, "-o", out, "-q")
	if code != exitFailed || !strings.Contains(stderr, "smaller than its reserved minimums") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused run left %s: %v", out, err)
	}
	os.Mkdir(out, 0o755)
	lfsim(t, "run", scen, "-o", out, "-q")
	if _, err := os.Stat(out); err != nil {
		t.Errorf("a folder that was there before the run went: %v", err)
	}
}

// TestForceRerunsASavedScenario: a run's scenario.yaml run again into its
// own folder with --force runs, although --force clears that file: the
// scenario is read first. The earlier run's files are replaced, and a
// file of the user's in the folder stays.
func TestForceRerunsASavedScenario(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := lfsim(t, "run", "single-write", "-o", out, "-q"); code != exitOK {
		t.Fatalf("first run: exit %d, %s", code, stderr)
	}
	os.WriteFile(filepath.Join(out, "mine.pcap"), []byte("x"), 0o644)
	if code, _, stderr := lfsim(t, "run", filepath.Join(out, "scenario.yaml"), "-o", out, "-q", "--force"); code != exitOK {
		t.Fatalf("rerun with --force: exit %d, %s", code, stderr)
	}
	for _, name := range []string{"summary.json", "scenario.yaml", "report.html", "flows.csv", "mine.pcap"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("after the rerun: %v", err)
		}
	}
}
