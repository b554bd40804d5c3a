package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMain lets the test binary stand in for lfsim where a command under
// test starts lfsim again (bench's children): with LFSIM_TEST_AS_MAIN=1
// in its environment it runs the command line instead of the tests.
func TestMain(m *testing.M) {
	if os.Getenv("LFSIM_TEST_AS_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	if exampleRuns.dir != "" {
		os.RemoveAll(exampleRuns.dir)
	}
	os.Exit(code)
}

const benchTiny = `name: tiny
seed: 1
stop: {at: 1ms, when: flows-done}
topology: {kind: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}
hca: {cc: none}
traffic:
  - incast: {to: h2, from: [h0, h1], size: 64KiB}
`

// TestBenchVs: bench --vs runs this build and another in turn and prints,
// per scenario, the median ratio of their run times with its range, and
// whether they did the same work. Paired with itself the work is the
// same; paired with a build that reports other figures it is not, and the
// row says so; an other build that cannot run fails the command.
func TestBenchVs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tiny.yaml"), []byte(benchTiny), 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("LFSIM_TEST_AS_MAIN", "1")
	// scenario, this and other wall s, ratio, min, max, pairs, this and
	// other RSS MiB, same work
	row := regexp.MustCompile(`(?m)^\s*tiny\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+(\d+)\s+\d+\s+\d+\s+(.+)$`)
	pairedRow := func(t *testing.T, stdout string) []string {
		t.Helper()
		i := strings.Index(stdout, "paired with")
		if i < 0 {
			t.Fatalf("no paired table:\n%s", stdout)
		}
		m := row.FindStringSubmatch(stdout[i:])
		if m == nil {
			t.Fatalf("no paired row for tiny:\n%s", stdout)
		}
		return m
	}

	t.Run("itself", func(t *testing.T) {
		code, stdout, stderr := lfsim(t, "bench", "--dir", dir, "-n", "3", "--vs", self, "tiny")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stdout, "paired with "+self) {
			t.Fatalf("no paired table:\n%s", stdout)
		}
		m := pairedRow(t, stdout)
		ratio, _ := strconv.ParseFloat(m[3], 64)
		lo, _ := strconv.ParseFloat(m[4], 64)
		hi, _ := strconv.ParseFloat(m[5], 64)
		if !(lo > 0 && lo <= ratio && ratio <= hi) {
			t.Errorf("ratio %v outside its range %v-%v", ratio, lo, hi)
		}
		if m[6] != "3" || strings.TrimSpace(m[7]) != "yes" {
			t.Errorf("pairs %q, same work %q; want 3, yes", m[6], m[7])
		}
	})

	t.Run("other work", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "other")
		script := "#!/bin/sh\necho '{\"events\":7,\"packet_hops\":5,\"sim_ns\":1000,\"wall_seconds\":0.5,\"build_seconds\":0}'\n"
		if err := os.WriteFile(other, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := lfsim(t, "bench", "--dir", dir, "-n", "1", "--vs", other, "tiny")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		m := pairedRow(t, stdout)
		if want := "vs 7)"; !strings.HasPrefix(m[7], "no (events ") || !strings.HasSuffix(m[7], want) {
			t.Errorf("same work %q, want no (events N vs 7)", m[7])
		}
	})

	t.Run("other missing", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "no-such-lfsim")
		code, stdout, stderr := lfsim(t, "bench", "--dir", dir, "-n", "1", "--vs", missing, "tiny")
		if code != exitFailed || !strings.Contains(stderr, missing) {
			t.Errorf("exit %d, stderr %q; want %d and a message naming %s", code, stderr, exitFailed, missing)
		}
		if strings.Contains(stdout, "paired with") {
			t.Errorf("a paired table without pairs:\n%s", stdout)
		}
	})
}

// TestBenchFromAnywhere: outside the repository (no ./bench) lfsim bench
// runs the suite embedded in the binary, and leaves no temporary files.
func TestBenchFromAnywhere(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("LFSIM_TEST_AS_MAIN", "1")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	code, stdout, stderr := lfsim(t, "bench", "incast-64", "-n", "1")
	if code != exitOK || !regexp.MustCompile(`(?m)^\s*incast-64\s+189544\s+59017\s`).MatchString(stdout) {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left %d files in TMPDIR", len(left))
	}
}
