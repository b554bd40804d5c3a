package metamorphic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The campaign's settings, from the environment:
//
//	LFSIM_META_SEED      the first scenario's seed; scenario i has seed+i (default: GateSeed,
//	                     or the clock's for a run given LFSIM_META_DURATION, which explores)
//	LFSIM_META_COUNT     run exactly this many scenarios (default: as many as the time allows)
//	LFSIM_META_DURATION  the time for scenarios (default 20s; -short 3s; LFSIM_SLOW=1 10m)
//
// A failure prints the command that runs its scenario alone.
type settings struct {
	seed   uint64
	count  int
	budget time.Duration
	// shrink is the time the shrinker may take per failure.
	shrink time.Duration
}

// GateSeed is where the suite's campaigns start (go test's 20 s, -short's
// 3 s, LFSIM_SLOW's 10 minutes, as CI runs them): a gate must not fail
// on scenarios nobody has run, so it runs a window of seeds that a
// campaign on this code has run clean. Its history: 9,000,000 (20,058
// scenarios on 2026-12-04, and 20,000 anew with issue 47's systems on
// 2026-12-05). The generator that draws issue 48's collectives,
// nccl_tests and GPU servers made the window anew: on 2026-12-05, from
// 31,000,000, 22,000 scenarios (to 31,021,999, 141,486 runs, in 22
// pieces of 1,000) ran clean on it, but for five failures: four the
// premises' (a collective's latencies past L; two calls slow, not stuck,
// under TIMELY; go-back-0 on a sprayed fabric), one the known
// go-back-0-window under hca.bdp_cap's window, whose checks and excuse
// were corrected and the five run again clean; 12 were excused as the
// known go-back-0-window and read-path-mtu. CI ran the first 12,000 of
// them (10 minutes at a fresh machine's 20 a second). The generator that
// draws issue 53's Ultra Ethernet (UET, NSCC, UET's sprays, trim, cbfc,
// llr) made it anew: on 2026-12-05, from 32,000,000, 12,000 scenarios
// (to 32,011,999, 76,832 runs, in 12 pieces of 1,000) ran clean on it,
// once the one failure they found was fixed (cbfc's credit asked for an
// HPCC request without its INT header, a panic: seed 32007000); 7
// were excused as the known go-back-0-window. CI runs those 12,000. A run
// given LFSIM_META_DURATION, by hand, explores: its seed is the clock's
// unless LFSIM_META_SEED is set.
const GateSeed = 32_000_000

func readSettings(t *testing.T) settings {
	s := settings{seed: GateSeed, budget: 20 * time.Second, shrink: time.Minute}
	if os.Getenv("LFSIM_META_DURATION") != "" {
		s.seed = uint64(time.Now().UnixNano()) % 1_000_000_000
	}
	switch {
	case testing.Short():
		s.budget, s.shrink = 3*time.Second, 20*time.Second
	case os.Getenv("LFSIM_SLOW") != "":
		s.budget, s.shrink = 10*time.Minute, 5*time.Minute
	}
	if v := os.Getenv("LFSIM_META_SEED"); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("LFSIM_META_SEED=%s: want a whole number", v)
		}
		s.seed = seed
	}
	if v := os.Getenv("LFSIM_META_COUNT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("LFSIM_META_COUNT=%s: want a whole number above 0", v)
		}
		s.count = n
	}
	if v := os.Getenv("LFSIM_META_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("LFSIM_META_DURATION=%s: want a duration such as 30m", v)
		}
		s.budget = d
	}
	return s
}

// TestMetamorphic runs random scenarios through every check (Check):
// for about 20 s in the usual tests, 3 s with -short, 10 minutes with
// LFSIM_SLOW=1 (LFSIM_META_DURATION sets another time). Half an hour by
// hand:
//
//	LFSIM_SLOW=1 LFSIM_META_DURATION=30m go test ./metamorphic -run '^TestMetamorphic$' -count=1 -v -timeout 0
//
// It prints its seed first; a failure is shrunk and kept in testdata
// (TestMetamorphicCases replays it from then on), and says how to run its
// scenario alone. At the end it prints the scenarios and runs it made,
// the linearity ratios, the known defects it excused, the draws its
// rules refused and how many scenarios used each key.
//
// The scenarios run in a child process (this test binary again, with
// LFSIM_META_CHILD set): a panic on one of a cut run's workers cannot be
// recovered, and would end the test process with nothing said of the
// scenario. The child writes each scenario's seed before it runs it; when
// it dies, this test names that scenario, shrinks it in further children
// and keeps it.
func TestMetamorphic(t *testing.T) {
	if dir := os.Getenv("LFSIM_META_CHILD"); dir != "" {
		if path := os.Getenv("LFSIM_META_SPEC"); path != "" {
			runOne(t, dir, path)
			return
		}
		campaign(t, dir)
		return
	}
	st := readSettings(t)
	dir := t.TempDir()
	out, done := child(t, dir, st.seed, "", testing.Verbose())
	if !testing.Verbose() {
		t.Log(out)
	}
	if !done {
		msg, err := crashed(t, dir, out, st, "testdata")
		if err != nil {
			t.Fatal(err)
		}
		t.Error(msg)
	} else if strings.Contains(out, "--- FAIL") {
		t.Errorf("the campaign failed; its output is above (LFSIM_META_SEED=%d)", st.seed)
	}
}

// injectCrash is the seed of a scenario on which the child dies
// (TestMetamorphicCrash's fault: a panic on another goroutine).
func injectCrash(seed uint64) {
	if os.Getenv("LFSIM_META_INJECT_CRASH") == strconv.FormatUint(seed, 10) {
		go func() { panic("injected: a worker's panic") }()
		select {}
	}
}

// child runs the campaign (or, with spec, one scenario's check of
// panics) in a child process, and returns its output and whether it got
// to its end; relay shows the output as it comes.
func child(t *testing.T, dir string, seed uint64, spec string, relay bool) (string, bool) {
	args := []string{"-test.run=^TestMetamorphic$", "-test.v", "-test.count=1", "-test.timeout=0"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LFSIM_META_CHILD="+dir, fmt.Sprintf("LFSIM_META_SEED=%d", seed))
	if spec != "" {
		cmd.Env = append(cmd.Env, "LFSIM_META_SPEC="+spec)
	}
	var out bytes.Buffer
	w := io.Writer(&out)
	if relay {
		w = io.MultiWriter(&out, &lines{w: os.Stdout})
	}
	cmd.Stdout, cmd.Stderr = w, w
	os.Remove(filepath.Join(dir, "done"))
	cmd.Run() // its status says nothing more than its output
	_, err := os.Stat(filepath.Join(dir, "done"))
	return out.String(), err == nil
}

// lines writes a child's lines but the test framework's own.
type lines struct {
	w    io.Writer
	part []byte
}

func (r *lines) Write(p []byte) (int, error) {
	r.part = append(r.part, p...)
	for {
		i := bytes.IndexByte(r.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := r.part[:i+1]
		if !bytes.HasPrefix(line, []byte("=== ")) && !bytes.HasPrefix(line, []byte("--- PASS")) && !bytes.Equal(line, []byte("PASS\n")) {
			r.w.Write(line)
		}
		r.part = r.part[i+1:]
	}
}

// crashed names the scenario the child died on, shrinks it in further
// children and keeps it in caseDir; it returns what to report.
func crashed(t *testing.T, dir, out string, st settings, caseDir string) (string, error) {
	cur, err := os.ReadFile(filepath.Join(dir, "current"))
	if err != nil {
		return "", fmt.Errorf("the campaign's process died before its first scenario:\n%s", tail(out, 60))
	}
	seed, _ := strconv.ParseUint(strings.TrimSpace(string(cur)), 10, 64)
	spec, _ := Generate(seed)
	dies := func(s *Spec) bool {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "spec.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, done := child(t, dir, s.Seed, path, false)
		return !done
	}
	small, tried := Shrink(spec, dies, 200, time.Now().Add(st.shrink))
	f := &Failure{Check: CheckPanic, Detail: "the process died (a panic on a worker, or a fatal error): " + firstLine(out, "panic: ", "fatal error: "),
		A: small.Render(fmt.Sprintf("meta-%d", seed))}
	path, err := WriteCase(caseDir, fmt.Sprintf("panic-%d", seed), seed, f, nil)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("the campaign's process died on scenario %d (a panic on a worker, or a fatal error); reproduce with LFSIM_META_SEED=%d LFSIM_META_COUNT=1 go test ./metamorphic -run TestMetamorphic -v\n"+
		"its last words:\n%s\nshrunk in %d tries and kept in %s:\n%s", seed, seed, tail(out, 40), tried, path, f.A), nil
}

// firstLine is the first line of s that starts with one of the prefixes.
func firstLine(s string, prefixes ...string) string {
	for _, line := range strings.Split(s, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				return line
			}
		}
	}
	return "(no panic line)"
}

func tail(s string, lines int) string {
	ls := strings.Split(s, "\n")
	return strings.Join(ls[max(0, len(ls)-lines):], "\n")
}

// runOne is a child's check of one scenario for panics (the shrinker's
// test of a scenario that killed a process).
func runOne(t *testing.T, dir, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s Spec
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	injectCrash(s.Seed)
	c := &Checker{Runner: &Runner{Dir: t.TempDir()}, Workers: []int{2, 3}}
	c.Check(&s, CheckPanic)
	os.WriteFile(filepath.Join(dir, "done"), nil, 0o644)
}

// campaign is the child's part: the scenarios, their checks, the
// shrinking of what fails, and the account.
func campaign(t *testing.T, dir string) {
	st := readSettings(t)
	how := fmt.Sprintf("for %v", st.budget)
	if st.count > 0 {
		how = fmt.Sprintf("%d scenarios", st.count)
	}
	t.Logf("LFSIM_META_SEED=%d: scenarios from seed %d, %s; a scenario's own seed runs it alone (LFSIM_META_SEED=<it> LFSIM_META_COUNT=1)", st.seed, st.seed, how)
	runner := &Runner{Dir: t.TempDir()}
	c := &Checker{Runner: runner, Workers: []int{2, 3}}
	cov, refused, known := Coverage{}, Refusals{}, map[string]int{}
	seen := map[string]uint64{} // failures reported, by signature: the first scenario
	start := time.Now()
	n, failed := 0, 0
	for i := 0; ; i++ {
		if st.count > 0 && i >= st.count || st.count == 0 && time.Since(start) >= st.budget {
			break
		}
		seed := st.seed + uint64(i)
		if err := os.WriteFile(filepath.Join(dir, "current"), []byte(strconv.FormatUint(seed, 10)), 0o644); err != nil {
			t.Fatal(err)
		}
		injectCrash(seed)
		spec, ref := Generate(seed)
		for rule, k := range ref {
			refused[rule] += k
		}
		cov.Add(spec)
		n++
		for _, f := range c.Check(spec, "") {
			if f.Known != "" {
				known[f.Known]++
				continue
			}
			failed++
			if first, ok := seen[signature(f)]; ok {
				// Shrunk and kept once is enough.
				t.Errorf("scenario %d fails as scenario %d did: %.300s", seed, first, f.String())
				continue
			}
			seen[signature(f)] = seed
			report(t, spec, f, st)
		}
	}
	elapsed := time.Since(start)
	var b strings.Builder
	fmt.Fprintf(&b, "LFSIM_META_SEED=%d: %d scenarios (seeds %d to %d), %d runs, in %v; %d failed\n", st.seed, n, st.seed, st.seed+uint64(n)-1, runner.Runs, elapsed.Round(time.Second), failed)
	fmt.Fprintf(&b, "relabelled (star and dumbbell, no poisson or loss): %d, and %d more whose runs flooded, not compared; on one worker whatever asked: %d\n", c.Relabelled, c.FloodedNotRelabelled, c.Serial)
	fmt.Fprintf(&b, "collectives alone to their end: %d scenarios (%d more too large to)", c.Alone, c.AloneTooLarge)
	for _, k := range slices.Sorted(maps.Keys(c.AloneExcused)) {
		fmt.Fprintf(&b, "; a call unfinished, excused by %s: %d", k, c.AloneExcused[k])
	}
	b.WriteString("\n")
	if len(c.Ratios) > 0 {
		fmt.Fprintf(&b, "linearity: events(4L) / (4 (events(L) + %d)) over %d scenarios: mean %.3f, largest %.3f (seed %d; F = %.1f)\n", StartEvents, len(c.Ratios), mean(c.Ratios), slices.Max(c.Ratios), c.Largest, LinearFactor)
	}
	if len(c.HopRatios) > 0 {
		fmt.Fprintf(&b, "linearity: events per packet hop at 4L over those at L, over %d scenarios: mean %.3f, largest %.3f (seed %d; F = %.1f)\n", len(c.HopRatios), mean(c.HopRatios), slices.Max(c.HopRatios), c.LargestPerHop, PerHopFactor)
	}
	for _, k := range slices.Sorted(maps.Keys(known)) {
		fmt.Fprintf(&b, "known defect, excused %d times: %s\n", known[k], k)
	}
	fmt.Fprintf(&b, "draws refused by the generator's rules (then drawn again, or the default):\n")
	for _, k := range slices.Sorted(maps.Keys(refused)) {
		fmt.Fprintf(&b, "  %6d  %s\n", refused[k], k)
	}
	fmt.Fprintf(&b, "coverage, scenarios per feature:\n%s", cov.Table())
	t.Log(b.String())
	if err := os.WriteFile(filepath.Join(dir, "done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// signature is what two failures of one defect share: the check and
// the start of what failed, numbers and names left out.
func signature(f Failure) string {
	d, _, _ := strings.Cut(f.Detail, "\n")
	d = numbers.ReplaceAllString(d, "#")
	if len(d) > 80 {
		d = d[:80]
	}
	return f.Check + ": " + d
}

var numbers = regexp.MustCompile(`[0-9]+`)

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// report shrinks a failure, keeps it in testdata, and fails the test
// with it.
func report(t *testing.T, spec *Spec, f Failure, st settings) {
	t.Helper()
	if f.Check == CheckValid {
		// The generator's bug: the scenario is not one to keep.
		t.Errorf("scenario %d: the generator made a scenario the loader refuses (a bug of the generator): %s\nreproduce: LFSIM_META_SEED=%d LFSIM_META_COUNT=1 go test ./metamorphic -run TestMetamorphic -v\n%s",
			spec.Seed, f.Detail, spec.Seed, f.A)
		return
	}
	c := &Checker{Runner: &Runner{Dir: t.TempDir()}, Workers: []int{2, 3}}
	same := func(s *Spec) *Failure {
		for _, g := range c.Check(s, f.Rerun) {
			if g.Check == f.Check && g.Known == "" {
				return &g
			}
		}
		return nil
	}
	small, tried := Shrink(spec, func(s *Spec) bool { return same(s) != nil }, 300, time.Now().Add(st.shrink))
	g := same(small)
	if g == nil {
		g, small = &f, spec // it failed once and not again: keep it whole
	}
	name := fmt.Sprintf("%s-%d", f.Check, spec.Seed)
	path, err := WriteCase("testdata", name, spec.Seed, g, g.Names)
	if err != nil {
		t.Error(err)
	}
	t.Errorf("scenario %d: %s\nreproduce: LFSIM_META_SEED=%d LFSIM_META_COUNT=1 go test ./metamorphic -run TestMetamorphic -v\n"+
		"shrunk in %d tries to the case in %s (replayed by TestMetamorphicCases; move it to testdata/pending while its defect is open):\n%s%s",
		spec.Seed, f.String(), spec.Seed, tried, path, g.A, pick(g.B != "", "---- b.yaml:\n"+g.B, ""))
}

// TestMetamorphicCrash: when the campaign's process dies on a scenario
// (a panic on a goroutine of its own, as a cut run's worker panics), the
// test names that scenario, shrinks it in further processes and keeps
// it. The fault: the child panics on another goroutine at its third
// scenario, and in the shrinker's children on any scenario of that seed.
func TestMetamorphicCrash(t *testing.T) {
	if os.Getenv("LFSIM_META_CHILD") != "" {
		t.Skip("the child runs TestMetamorphic only")
	}
	const first, bad = 7000, 7002
	t.Setenv("LFSIM_META_INJECT_CRASH", strconv.Itoa(bad))
	t.Setenv("LFSIM_META_COUNT", "5")
	dir, cases := t.TempDir(), t.TempDir()
	out, done := child(t, dir, first, "", false)
	if done {
		t.Fatalf("the child got to its end:\n%s", tail(out, 20))
	}
	msg, err := crashed(t, dir, out, settings{shrink: 30 * time.Second}, cases)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, fmt.Sprintf("died on scenario %d", bad)) || !strings.Contains(msg, "injected: a worker's panic") {
		t.Errorf("the report does not name scenario %d and its panic:\n%s", bad, msg)
	}
	c, err := ReadCase(filepath.Join(cases, fmt.Sprintf("panic-%d", bad)))
	if err != nil {
		t.Fatal(err)
	}
	if c.Check != CheckPanic || len(c.A) > len(mustGenerate(bad).Render(fmt.Sprintf("meta-%d", bad))) {
		t.Errorf("kept %s, %d bytes: not shrunk", c.Check, len(c.A))
	}
	t.Logf("%s", msg)
}

func mustGenerate(seed uint64) *Spec {
	s, _ := Generate(seed)
	return s
}

// TestMetamorphicCases replays the failures kept in testdata: each must
// hold now. Those in testdata/pending wait for a fix: each is run, and
// skipped, naming its failure, while it still fails.
func TestMetamorphicCases(t *testing.T) {
	r := &Runner{Dir: t.TempDir()}
	for _, pending := range []bool{false, true} {
		root := "testdata"
		if pending {
			root = filepath.Join("testdata", "pending")
		}
		entries, err := os.ReadDir(root)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !e.IsDir() || e.Name() == "pending" {
				continue
			}
			name := e.Name()
			if pending {
				name = "pending/" + name
			}
			t.Run(name, func(t *testing.T) {
				c, err := ReadCase(filepath.Join(root, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				why := c.Replay(r, []int{2, 3})
				switch {
				case why != "" && pending:
					t.Skipf("pending, still fails (%s): %s", c.Check, why)
				case why != "":
					t.Errorf("%s fails again: %s\ncase.txt:\n%s", c.Check, why, strings.Join(c.Lines, "\n"))
				case pending:
					t.Logf("pending case holds now: move it out of testdata/pending")
				}
			})
		}
	}
}

// TestGeneratorValid: the generator's scenarios are valid (the loader and
// the builder take them), the same seed makes the same file, and over
// 400 seeds it uses every family's every value that coverage names (the
// test fails when a change to the generator loses one).
func TestGeneratorValid(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 100
	}
	cov := Coverage{}
	for seed := range uint64(n) {
		s, _ := Generate(seed)
		src := s.Render("gen")
		again, _ := Generate(seed)
		if again.Render("gen") != src {
			t.Fatalf("seed %d makes two scenarios", seed)
		}
		r := &Runner{}
		if err := r.Build(src); err != nil {
			t.Errorf("seed %d: the generator made a scenario the loader refuses: %v\n%s", seed, err, src)
		}
		cov.Add(s)
	}
	if testing.Short() {
		return
	}
	for _, want := range wantCovered {
		if cov[want] == 0 {
			t.Errorf("no scenario of %d used %q", n, want)
		}
	}
}

// wantCovered are features every 400 scenarios use (the key
// families).
var wantCovered = []string{
	"topology: star", "topology: star as explicit", "topology: dumbbell", "topology: leaf-spine", "topology: fat-tree k=4",
	"topology: fat-tree k=6", "topology: ring", "topology: explicit", "topology: explicit with dual-port hosts",
	"topology: a link without delay (one worker)",
	"link layer: ethernet", "link layer: infiniband", "transport: rocev2", "transport: rocev1", "transport: iwarp", "transport: uet",
	"ib routing: minhop", "ib routing: updn", "ib routing: ftree", "ib routing: dfsssp", "ib routing: lash",
	"ib subnet manager: lmc", "switch.ib: fecn", "switch.ib: vlarb", "switch.ib: sl2vl", "switch.ib: data_vls", "switch.ib: hoq_lifetime",
	"hca (infiniband): grh", "hca (infiniband): apm", "hca (infiniband): vlarb", "hca (infiniband): ibcc",
	"congestion control: none", "congestion control: dcqcn", "congestion control: hpcc", "congestion control: timely",
	"congestion control: dctcp", "congestion control: ibcc", "congestion control: iwarp tcp cubic", "congestion control: iwarp tcp dctcp",
	"load balance: ecmp (default)", "load balance: flowlet", "load balance: adaptive", "load balance: spray",
	"routing (ethernet): shortest", "routing (ethernet): updown",
	"switch: pfc watchdog", "switch: pfc off (lossy)", "switch: ecn given", "hca: retransmit selective", "hca: retransmit go-back-0", "hca: placement",
	"qp: rc", "qp: uc", "qp: ud", "op: read", "op: send", "op: write_imm", "op: atomic",
	"traffic: flow", "traffic: incast", "traffic: permutation", "traffic: all_to_all", "traffic: ring_allreduce", "traffic: poisson",
	"traffic: perftest", "traffic: pingpong", "traffic: rping", "traffic: rdma_server", "traffic: rdma_client", "traffic: mckey", "traffic: asyncwatch",
	"poisson sizes: websearch", "poisson sizes: hadoop", "poisson sizes: alistorage2019", "poisson sizes: googlerpc2008", "poisson sizes: a fixed size",
	"connect: cm (flow)", "connect: cm (rping)", "connect: cm (perftest)",
	"fault: loss", "fault: down", "fault: up", "fault: pfc-storm", "fault: slow-receiver", "fault: rx-hang", "fault: missing-entry",
	"observe: interval", "observe: pcap", "observe: queues", "observe: links", "observe: flows", "observe: snaplen", "observe: deadlock",
	"stop: when flows-done", "stop: when deadlock", "expect: given",
	// Issue 47's systems (TestGeneratorFrequencies holds their shares).
	"link layer: mixed (vpi)", "vpi: a star of vpi hosts", "vpi: explicit, switches of both link layers", "vpi: a flow from port 2",
	"host interface: host_bandwidth on a mixed network", "host interface: host_bandwidth on one link layer",
	"overlay: vxlan with rocev2", "overlay: geneve with rocev2", "range extender: 1 pair(s)",
	"qos: trust dscp", "qos: ets with strict classes", "qos: hca.dscp", "qos: a flow's dscp", "qos: dscp2prio", "qos: prio2tc",
	// Issue 48's.
	"traffic: collective", "traffic: nccl_tests", "gpu servers: rail-optimized", "gpu servers: explicit servers:",
	"collective: op all_reduce", "collective: op all_to_all", "collective: algorithm tree", "collective: algorithm halving_doubling",
}
