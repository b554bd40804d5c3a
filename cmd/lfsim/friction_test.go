package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// TestRunTwiceKeepsBoth: the README's first command, `lfsim run`, run
// twice in a row succeeds both times: the second run goes to
// lfsim-out/incast-8to1-2 and says so, the first run's files stay as
// they were; --force still overwrites lfsim-out/incast-8to1, and -o
// still refuses a folder with an earlier run (issue 51: the second run
// failed, "output directory holds an earlier run; pass --force").
func TestRunTwiceKeepsBoth(t *testing.T) {
	t.Chdir(t.TempDir())
	first := filepath.Join("lfsim-out", "incast-8to1")
	code, stdout, stderr := lfsim(t, "run")
	if code != exitOK || !strings.Contains(stdout, "  results    "+first+"\n") {
		t.Fatalf("first run: exit %d\n%s%s", code, stdout, stderr)
	}
	before, err := os.ReadFile(filepath.Join(first, "flows.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for i, dir := range []string{first + "-2", first + "-3"} {
		code, stdout, stderr = lfsim(t, "run")
		if code != exitOK {
			t.Fatalf("run %d: exit %d\n%s%s", i+2, code, stdout, stderr)
		}
		if !strings.Contains(stdout, "  results    "+dir+"\n") || !strings.Contains(stderr, "holds an earlier run, kept; this one goes to "+dir) {
			t.Errorf("run %d: want it in %s, and said\nstdout:\n%s\nstderr:\n%s", i+2, dir, stdout, stderr)
		}
		got, err := os.ReadFile(filepath.Join(dir, "flows.csv"))
		if err != nil || !bytes.Equal(got, before) {
			t.Errorf("run %d: %s/flows.csv: %v, equal to the first's: %v", i+2, dir, err, bytes.Equal(got, before))
		}
	}
	if after, _ := os.ReadFile(filepath.Join(first, "flows.csv")); !bytes.Equal(after, before) {
		t.Error("the first run's flows.csv changed")
	}
	// --force overwrites the first folder, making no new one.
	if code, _, stderr = lfsim(t, "run", "-q", "--force", "--seed", "7"); code != exitOK {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	if raw, _ := os.ReadFile(filepath.Join(first, "summary.json")); !bytes.Contains(raw, []byte(`"seed": 7`)) {
		t.Error("--force did not overwrite lfsim-out/incast-8to1")
	}
	if _, err := os.Stat(first + "-4"); !os.IsNotExist(err) {
		t.Errorf("--force made %s-4: %v", first, err)
	}
	// A folder named by -o is the user's: an earlier run there is kept
	// and the run refused, as before.
	if code, _, stderr = lfsim(t, "run", "-q", "-o", first); code != exitFailed || !strings.Contains(stderr, "--force") {
		t.Errorf("-o onto an earlier run: exit %d, %q", code, stderr)
	}
}

// TestVersion: `lfsim --version` and `lfsim version` print the module
// version, the VCS revision with its time and whether the tree was
// modified, and the Go release, from the build information the Go
// toolchain stamps (runtime/debug.ReadBuildInfo); a binary without it
// says so rather than printing nothing.
func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		code, stdout, stderr := lfsim(t, arg)
		if code != exitOK || !strings.HasPrefix(stdout, "lfsim ") || !strings.Contains(stdout, "built with "+runtime.Version()+" on "+runtime.GOOS+"/"+runtime.GOARCH+"\n") {
			t.Errorf("lfsim %s: exit %d\n%s%s", arg, code, stdout, stderr)
		}
	}
	bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/lfsim/lfsim", Version: "v0.0.0-20261205101112-404523661bd1+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "404523661bd1076f89b088a641c4b86e73d8ab61"},
			{Key: "vcs.time", Value: "2026-12-05T10:11:12Z"}, {Key: "vcs.modified", Value: "true"}}}
	for _, c := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{bi, "lfsim v0.0.0-20261205101112-404523661bd1+dirty\nrevision 404523661bd1076f89b088a641c4b86e73d8ab61 (2026-12-05T10:11:12Z), with uncommitted changes\nbuilt with go1.26.8 on linux/amd64\n"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "lfsim (devel)\nrevision unknown (not built from a git checkout with go build)\nbuilt with go1.26.8 on linux/amd64\n"},
		{nil, "lfsim (unknown)\nrevision unknown (not built from a git checkout with go build)\nbuilt with go1.26.8 on linux/amd64\n"},
	} {
		if got := versionText(c.bi, "go1.26.8", "linux/amd64"); got != c.want {
			t.Errorf("versionText:\n%s\nwant:\n%s", got, c.want)
		}
	}
	clean := *bi
	clean.Settings = append(bi.Settings[:3:3], debug.BuildSetting{Key: "vcs.modified", Value: "false"})
	if got := versionText(&clean, "go1.26.8", "linux/amd64"); !strings.Contains(got, "(2026-12-05T10:11:12Z), clean\n") {
		t.Errorf("a clean tree:\n%s", got)
	}
}

// TestFlagValuesSay: a flag given a value of the wrong kind says what it
// expected, not strconv's "strconv.ParseUint: parsing ...: invalid
// syntax" (issue 51: --seed abc).
func TestFlagValuesSay(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--seed", "abc"}, "lfsim run: --seed abc: expected a whole number from 0 to 18446744073709551615\nflags of lfsim run:\n"},
		{[]string{"run", "--seed", "-1"}, "lfsim run: --seed -1: expected a whole number from 0 to 18446744073709551615\n"},
		{[]string{"run", "--seed", "18446744073709551616"}, "lfsim run: --seed 18446744073709551616 is out of range: expected a whole number from 0 to 18446744073709551615\n"},
		{[]string{"run", "-j", "two"}, "lfsim run: -j/--workers two: expected a whole number\n"},
		{[]string{"sweep", "--index", "1.5", "s.yaml"}, "lfsim sweep: --index 1.5: expected a whole number\n"},
		{[]string{"run", "--quiet=maybe"}, "lfsim run: -q/--quiet maybe: expected true or false\n"},
	} {
		code, _, stderr := lfsim(t, c.args...)
		if code != exitUsage || !strings.HasPrefix(stderr, c.want) || strings.Contains(stderr, "strconv") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestUsageNamesEveryFabric: the help's first line names InfiniBand and
// every transport of kind's table (RoCEv2, RoCEv1, iWARP), where it said
// "(RoCEv2 with PFC)".
func TestUsageNamesEveryFabric(t *testing.T) {
	_, stdout, _ := lfsim(t, "help")
	first, _, _ := strings.Cut(stdout, "\n")
	names := []string{"InfiniBand"}
	for _, tr := range kind.Transports() {
		names = append(names, tr.Title)
	}
	for _, n := range names {
		if !strings.Contains(first, n) {
			t.Errorf("the help's first line %q does not name %s", first, n)
		}
	}
}

// TestUnknownNamesSuggest: a mistyped example, lab scenario or a lab's
// name given to run gets a "did you mean", where the list of 24
// examples alone did not help.
func TestUnknownNamesSuggest(t *testing.T) {
	for _, c := range []struct{ arg, want string }{
		{"ib-cc-victm", "(did you mean ib-cc-victim?)"},
		{"labs/deadlock/clos-taggr", "lab deadlock has no scenario clos-taggr (did you mean labs/deadlock/clos-tagger?)"},
		{"infiniband", "infiniband is a lab (lfsim lab infiniband); its scenarios run as labs/infiniband/NAME: labs/infiniband/"},
		{"deadlok", "(did you mean one of deadlock-adaptive-ring, deadlock-clos-bounce, "},
		{"lossless-or-not", "lossless-or-not is a lab (lfsim lab lossless-or-not)"},
	} {
		code, _, stderr := lfsim(t, "run", c.arg, "-q", "-o", t.TempDir())
		if code != exitFailed || !strings.Contains(stderr, c.want) {
			t.Errorf("run %s: exit %d, stderr %q; want %q", c.arg, code, stderr, c.want)
		}
	}
}

// TestRunSaysItsWorkers: the console says how many partitions a run
// on several workers ran, and why not as many as the workers asked for
// (the topology cuts into fewer) or why it stayed on one.
func TestRunSaysItsWorkers(t *testing.T) {
	for _, c := range []struct {
		example, workers, want string
	}{
		{"fat-tree-k4-all-to-all", "2", "lfsim run: 2 partitions, one per worker\n"},
		{"ib-cc-victim", "4", "lfsim run: 2 partitions on 2 of 4 workers: the topology cuts into no more (a switch keeps its hosts"},
		{"ib-cc-victim", "1", ""},
	} {
		code, _, stderr := lfsim(t, "run", c.example, "-j", c.workers, "-o", t.TempDir())
		if code != exitOK || c.want != "" && !strings.Contains(stderr, c.want) || c.want == "" && strings.Contains(stderr, "partition") {
			t.Errorf("%s on %s workers: exit %d, stderr %q; want %q", c.example, c.workers, code, stderr, c.want)
		}
	}
}

// TestProgressEstimate: the progress line's time left is shown only
// when it means something. A run of poisson flows that stops when they
// are done, with stop.at 2s as its safety net, measured by simulated
// time (10 ms a wall second, as lossless-or-not-iwarp-cubic ran), shows
// none: its stop.at is a bound, not its end (progressbar's estimate said
// 3m15s at its first drawing; issue 51 saw 7m55s for a 3 s run). A run
// that ends at its stop.at, going 1 ms of its 10 ms a wall second, shows
// none in its first 3 s, then the time left to within a second. Driven
// by a test clock, drawn at every call.
func TestProgressEstimate(t *testing.T) {
	left := regexp.MustCompile(`about ([0-9a-z.]+) left`)
	drive := func(run progressRun, simPerSecond sim.Time, until time.Duration) []string {
		var w bytes.Buffer
		t0 := time.Unix(0, 0)
		now := t0
		show, done := newProgress(&w, run, func() time.Time { return now }, 0)
		var lines []string
		for wall := 100 * time.Millisecond; wall <= until; wall += 100 * time.Millisecond {
			now = t0.Add(wall)
			w.Reset()
			show(simPerSecond*sim.Time(wall/time.Millisecond)/1000, 1000)
			lines = append(lines, w.String())
		}
		done()
		return lines
	}
	for i, l := range drive(progressRun{stopAt: 2 * sim.Second, condition: true}, 10*sim.Millisecond, 5*time.Second) {
		if left.MatchString(l) || strings.Contains(l, ":") {
			t.Errorf("flows-done run, step %d: an estimate against stop.at: %q", i, l)
		}
	}
	lines := drive(progressRun{stopAt: 10 * sim.Millisecond}, sim.Millisecond, 9*time.Second)
	for i, l := range lines {
		wall := time.Duration(i+1) * 100 * time.Millisecond
		m := left.FindStringSubmatch(l)
		switch {
		case wall < 3*time.Second && m != nil:
			t.Errorf("at %v: an estimate before 3 s: %q", wall, l)
		case wall >= 3500*time.Millisecond && m == nil:
			t.Errorf("at %v: no estimate: %q", wall, l)
		case m != nil:
			got, err := time.ParseDuration(m[1])
			if truth := 10*time.Second - wall; err != nil || got < truth-time.Second || got > truth+time.Second {
				t.Errorf("at %v: %q left, want %v ± 1s", wall, m[1], truth)
			}
		}
	}
}

// TestStormNamesItsCause: the console's STORM line says why the held
// traffic drained nothing, from what the switch shows at the verdict,
// instead of "a stuck NIC, a deadlock, not congestion" whatever the
// cause (issue 51). Two lossless priorities into one host under the
// default strict priority: priority 4's sender takes h2's link and
// priority 3's, paused at s0, drains nothing; no NIC is faulty, and the
// line names the scheduler. pfc-storm's NIC that pauses is named as
// the pause's source. The cause is the same on one worker and three.
func TestStormNamesItsCause(t *testing.T) {
	dir := t.TempDir()
	starve := filepath.Join(dir, "starve.yaml")
	if err := os.WriteFile(starve, []byte(`name: starve
stop: {at: 2ms}
topology: {kind: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}
switch: {pfc: {priorities: [3, 4]}}
traffic:
  - flow: {from: h0, to: h2, size: 8MiB, priority: 4}
  - flow: {from: h1, to: h2, size: 8MiB, priority: 3}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ scenario, want string }{
		{starve, "(pfc.storm_detected): s0 held h1 paused on priority 3; what it holds waits at s0:p2, not paused, which serves priority 4 first: the scheduler starves priority 3 (strict priority), no NIC is stuck;"},
		{"pfc-storm", "(pfc.storm_detected): s0 held s2 paused on priority 3; what it holds waits at s0:p3, which h3 keeps paused: the pause comes from its NIC (stuck, or taking less than is sent to it);"},
	} {
		var lines []string
		for _, w := range []string{"1", "3"} {
			code, stdout, stderr := lfsim(t, "run", c.scenario, "-j", w, "-o", filepath.Join(dir, "out"+w), "--force")
			if code != exitOK {
				t.Fatalf("%s: exit %d\n%s%s", c.scenario, code, stdout, stderr)
			}
			i := strings.Index(stdout, "  STORM ")
			if i < 0 {
				t.Fatalf("%s: no STORM line:\n%s", c.scenario, stdout)
			}
			line, _, _ := strings.Cut(stdout[i:], "\n")
			lines = append(lines, line)
		}
		if !strings.Contains(lines[0], c.want) || strings.Contains(lines[0], "a stuck NIC, a deadlock") {
			t.Errorf("%s: %q\nwant %q", c.scenario, lines[0], c.want)
		}
		if lines[0] != lines[1] {
			t.Errorf("%s: on 1 and 3 workers:\n%s\n%s", c.scenario, lines[0], lines[1])
		}
	}
}
