package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Killing lfsim at any moment must never leave a folder that looks
// complete and is not. These tests start a run and a sweep, stop each
// with SIGTERM or SIGKILL at moments drawn from a fixed seed (so that a
// failure replays), check the folder, then run again: a run is refused
// cleanly (or, with --force, redone), a sweep resumes and completes.
// Twenty moments each, with LFSIM_SLOW=1 only, as CI runs them: they are
// runs one after another, too long for the usual tests.

// killLong is a run of about a second on this project's machine.
const killLong = `name: long
stop: {at: 400ms}
topology: {kind: star, hosts: 9}
hca: {cc: none}
traffic:
  - incast: {to: h8, from: all, size: 8GiB}
`

// runFileNames are the files a run writes beside summary.json.
var runFileNames = []string{"flows.csv", "pfc.csv", "timeseries.csv", "topology.json", "scenario.yaml", "report.html"}

// killMoments are n moments in [0, span) and the signal for each
// (SIGTERM and SIGKILL in turn), drawn from seed.
func killMoments(seed uint64, n int, span time.Duration) ([]time.Duration, []syscall.Signal) {
	rng := rand.New(rand.NewPCG(seed, 1))
	at := make([]time.Duration, n)
	sig := make([]syscall.Signal, n)
	for i := range at {
		at[i] = time.Duration(rng.Int64N(int64(span)))
		sig[i] = []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL}[i%2]
	}
	return at, sig
}

// lfsimAt runs lfsim with args, sends sig after at (if it is still
// running) and returns its exit code (-1 when the signal ended it).
func lfsimAt(t *testing.T, at time.Duration, sig syscall.Signal, args ...string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LFSIM_TEST_AS_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(at):
		_ = cmd.Process.Signal(sig)
		select {
		case err = <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("lfsim %v did not stop within 60 s of %v", args, sig)
		}
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	t.Fatal(err)
	return 0
}

// checkRunFolder fails t if dir holds a summary that does not parse, or
// one beside which a run's file is missing; it returns the summary's
// complete (false without one) and whether there is one.
func checkRunFolder(t *testing.T, what, dir string) (complete, has bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if os.IsNotExist(err) {
		return false, false
	}
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var sum struct {
		Complete   bool   `json:"complete"`
		StopReason string `json:"stop_reason"`
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Errorf("%s: summary.json is not whole: %v", what, err)
		return false, true
	}
	for _, name := range runFileNames {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: summary.json (complete %v) beside a missing %s", what, sum.Complete, name)
		}
	}
	if sum.Complete == (sum.StopReason == "interrupted") {
		t.Errorf("%s: complete %v, stop reason %s", what, sum.Complete, sum.StopReason)
	}
	return sum.Complete, true
}

// tempFiles lists the temporary files left under dir.
func tempFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// TestKillRunAtRandomMoments: a run stopped by SIGTERM writes what it has,
// marked incomplete (or, after its end, finishes writing); one stopped by
// SIGKILL has a whole summary with every file, or none. Run again, lfsim
// refuses the folder with a message naming --force when a run's files
// are there, and with --force it redoes the run completely and leaves no
// temporary file. Slow (each kill is a run, a refused run and a --force
// rerun of a 400 ms scenario, one after another): set LFSIM_SLOW=1; CI
// does.
func TestKillRunAtRandomMoments(t *testing.T) {
	if os.Getenv("LFSIM_SLOW") == "" || testing.Short() {
		t.Skip("slow: runs killed one after another; set LFSIM_SLOW=1 (and no -short) to run")
	}
	dir := t.TempDir()
	scen := filepath.Join(dir, "long.yaml")
	if err := os.WriteFile(scen, []byte(killLong), 0o644); err != nil {
		t.Fatal(err)
	}
	at, sig := killMoments(25, 20, 900*time.Millisecond)
	for i := range at {
		what := fmt.Sprintf("run %s at %v", sig[i], at[i].Round(time.Millisecond))
		out := filepath.Join(dir, fmt.Sprintf("out%02d", i))
		code := lfsimAt(t, at[i], sig[i], "run", scen, "-o", out, "-q")
		complete, has := checkRunFolder(t, what, out)
		t.Logf("%s: exit %d, summary %v, complete %v", what, code, has, complete)
		switch {
		case code == 0 && !complete:
			t.Errorf("%s: exit 0 without a complete summary", what)
		case code == exitFailed && (!has || complete):
			t.Errorf("%s: exit 1 (interrupted) with summary %v, complete %v; want an incomplete one", what, has, complete)
		case code != 0 && code != exitFailed && code != -1:
			t.Errorf("%s: exit %d", what, code)
		}
		entries, _ := os.ReadDir(out)
		code2 := lfsimAt(t, time.Hour, 0, "run", scen, "-o", out, "-q")
		if len(entries) > 0 && code2 != exitFailed && has {
			t.Errorf("%s: a second run into the folder exited %d; want it refused (1)", what, code2)
		}
		if code := lfsimAt(t, time.Hour, 0, "run", scen, "-o", out, "-q", "--force"); code != 0 {
			t.Errorf("%s: the --force rerun exited %d", what, code)
		}
		if complete, has := checkRunFolder(t, what+", rerun", out); !has || !complete {
			t.Errorf("%s: after the --force rerun: summary %v, complete %v", what, has, complete)
		}
		if left := tempFiles(out); len(left) > 0 {
			t.Errorf("%s: temporary files left after the rerun: %v", what, left)
		}
	}
}

// TestKillSweepAtRandomMoments: a sweep stopped by SIGTERM or SIGKILL
// leaves points that have a whole summary with every file, or none; run
// again, it skips the complete ones, redoes the rest, and ends with every
// point complete, a full sweep.csv and no temporary file. Slow: set
// LFSIM_SLOW=1; CI does.
func TestKillSweepAtRandomMoments(t *testing.T) {
	if os.Getenv("LFSIM_SLOW") == "" || testing.Short() {
		t.Skip("slow: sweeps killed one after another; set LFSIM_SLOW=1 (and no -short) to run")
	}
	dir := t.TempDir()
	base := strings.Replace(killLong, "400ms", "60ms", 1)
	if err := os.WriteFile(filepath.Join(dir, "long.yaml"), []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	sweepFile := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(sweepFile, []byte("base: long.yaml\nvary:\n  seed: [1, 2, 3, 4, 5, 6]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at, sig := killMoments(26, 20, 700*time.Millisecond)
	for i := range at {
		what := fmt.Sprintf("sweep %s at %v", sig[i], at[i].Round(time.Millisecond))
		out := filepath.Join(dir, fmt.Sprintf("out%02d", i))
		code := lfsimAt(t, at[i], sig[i], "sweep", sweepFile, "-o", out, "-q", "-j", "2")
		points, _ := filepath.Glob(filepath.Join(out, "points", "*"))
		done := 0
		for _, p := range points {
			if complete, _ := checkRunFolder(t, what+": "+filepath.Base(p), p); complete {
				done++
			}
		}
		t.Logf("%s: exit %d, %d points complete", what, code, done)
		if code := lfsimAt(t, time.Hour, 0, "sweep", sweepFile, "-o", out, "-q", "-j", "2"); code != 0 {
			t.Errorf("%s: the resumed sweep exited %d", what, code)
		}
		points, _ = filepath.Glob(filepath.Join(out, "points", "*"))
		if len(points) != 6 {
			t.Errorf("%s: %d point folders after the resumed sweep", what, len(points))
		}
		for _, p := range points {
			if complete, _ := checkRunFolder(t, what+", resumed: "+filepath.Base(p), p); !complete {
				t.Errorf("%s: point %s not complete after the resumed sweep", what, filepath.Base(p))
			}
		}
		data, err := os.ReadFile(filepath.Join(out, "sweep.csv"))
		if err != nil || strings.Count(string(data), "\n") != 7 {
			t.Errorf("%s: sweep.csv %q, %v; want a header and 6 rows", what, data, err)
		}
		if left := tempFiles(out); len(left) > 0 {
			t.Errorf("%s: temporary files left after the resumed sweep: %v", what, left)
		}
	}
}
