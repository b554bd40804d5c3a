package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/scenarios"
)

func lfsim(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestValidateMessages: each broken file gets one clear message that names
// file:line:column, and exit status 1; a routing loop is a warning that
// names the loop, with exit status 0.
func TestValidateMessages(t *testing.T) {
	for _, tc := range []struct {
		file   string
		code   int
		stderr string
	}{
		{"unknown-key.yaml", 1,
			"testdata/unknown-key.yaml:4:3: switch: unknown key bufer (did you mean buffer?); allowed keys are buffer, latency, forwarding, reserved, ingress_threshold, egress_threshold, pfc, ecn, scheduler, ecmp_seed, ecmp_per_switch, link_layer, ib, load_balance, flowlet_timeout, spray, adaptive_bias, egress_fifo, flood_lossless, tagger, range_extender, trust, dscp2prio, prio2tc, sonic, trim, cbfc, llr\n"},
		{"wrong-unit.yaml", 1,
			"testdata/wrong-unit.yaml:5:32: topology.link.delay: time \"1 furlong\" has an unknown unit \"furlong\"; expected ps, ns, us, µs, ms or s, as in 500ns, 2us, 1.5ms\n"},
		{"unknown-host.yaml", 1,
			"testdata/unknown-host.yaml:4:18: traffic[0].incast.to: unknown host h88 (did you mean h8?); hosts are h0..h8\n"},
		{"route-not-neighbour.yaml", 1,
			"testdata/route-not-neighbour.yaml:14:13: topology.routes.s1.c: s3 is not a neighbour of s1; s1's neighbours are a, s2\n"},
		{"routing-loop.yaml", 0,
			"warning: testdata/routing-loop.yaml:14:3: topology.routes: the pinned routes make a loop: traffic for c loops s1 -> s2 -> s1 (allowed, e.g. to build a deadlock on purpose)\n"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			code, _, stderr := lfsim(t, "validate", filepath.Join("testdata", tc.file))
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if stderr != tc.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, tc.stderr)
			}
		})
	}
}

// TestValidateSeveralFiles: every file is checked even after a failure.
func TestValidateSeveralFiles(t *testing.T) {
	code, stdout, stderr := lfsim(t, "validate", "testdata/unknown-key.yaml", "testdata/routing-loop.yaml", "testdata/unknown-host.yaml")
	if code != 1 || !strings.Contains(stdout, "routing-loop.yaml: ok") ||
		!strings.Contains(stderr, "unknown-key.yaml:4:3") || !strings.Contains(stderr, "unknown-host.yaml:4:18") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestRunDefaultWritesResultsAndKeepsThem: `lfsim run` with no scenario
// runs the embedded incast into lfsim-out/incast-8to1/, --force
// overwrites, and flags may follow the scenario name.
func TestRunDefaultWritesResultsAndKeepsThem(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)

	code, stdout, stderr := lfsim(t, "run")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "incast-8to1: complete") || !strings.Contains(stdout, "8 of 8 completed") {
		t.Errorf("summary:\n%s", stdout)
	}
	out := filepath.Join("lfsim-out", "incast-8to1")
	var sum map[string]any
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil || json.Unmarshal(raw, &sum) != nil {
		t.Fatalf("summary.json: %v", err)
	}
	for _, k := range []string{"scenario", "seed", "complete", "sim_time_ns", "wall_seconds", "events", "packet_hops",
		"flows", "bytes", "packets", "pfc", "ecn", "deadlock", "fct", "throughput", "expect"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("summary.json has no %q", k)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "flows.csv")); err != nil {
		t.Error(err)
	}

	// A second run goes to a fresh folder (TestRunTwiceKeepsBoth).
	code, _, stderr = lfsim(t, "run", "incast-8to1", "-q", "--force", "--seed", "7")
	if code != 0 {
		t.Fatalf("run NAME -q --force --seed 7: exit %d: %s", code, stderr)
	}
	raw, _ = os.ReadFile(filepath.Join(out, "summary.json"))
	if !bytes.Contains(raw, []byte(`"seed": 7`)) {
		t.Errorf("--seed 7 not in summary.json")
	}
	code, _, stderr = lfsim(t, "run", "-o", "elsewhere", "single-write", "-q")
	if code != 0 {
		t.Fatalf("run -o DIR NAME: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join("elsewhere", "summary.json")); err != nil {
		t.Error(err)
	}
}

func TestRunUnknownScenario(t *testing.T) {
	code, _, stderr := lfsim(t, "run", "incast-8to2", "-q")
	if code == 0 || !strings.Contains(stderr, "incast-8to1") {
		t.Errorf("exit %d, stderr %q; want a did-you-mean naming incast-8to1", code, stderr)
	}
}

func TestListAndUsage(t *testing.T) {
	code, stdout, _ := lfsim(t, "list")
	if code != 0 || !strings.Contains(stdout, "* incast-8to1") || !strings.Contains(stdout, "Sweeps (`lfsim sweep NAME` runs one): lossless-or-not, lossless-or-not-workloads\n") {
		t.Errorf("list: exit %d\n%s", code, stdout)
	}
	code, _, stderr := lfsim(t, "rn")
	if code != exitUsage || !strings.Contains(stderr, "did you mean run?") {
		t.Errorf("unknown command: exit %d, %q", code, stderr)
	}
}

// TestRunConsoleSpeaksInfiniBand: an InfiniBand run's console line is
// about credits (flow-control packets, time waiting for credit), not
// PFC, which an InfiniBand fabric does not have; an Ethernet run keeps
// its pfc line.
func TestRunConsoleSpeaksInfiniBand(t *testing.T) {
	for _, c := range []struct{ example, want, not string }{
		{"ib-incast-8to1", "  credits    ", "  pfc  "},
		{"incast-8to1", "  pfc        ", "  credits  "},
	} {
		code, stdout, stderr := lfsim(t, "run", c.example, "-o", t.TempDir())
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", c.example, code, stdout, stderr)
		}
		if !strings.Contains(stdout, c.want) || strings.Contains(stdout, c.not) {
			t.Errorf("%s: console:\n%s\nwant a line starting %q and none %q", c.example, stdout, c.want, c.not)
		}
	}
}

// TestConsoleTellsTheOutcome: the console says what happened whatever
// expect: asked: a deadlock with its cycle, a storm, the flows that
// failed by status, the drops by reason, and that no flow completed
// rather than an FCT of 0.
func TestConsoleTellsTheOutcome(t *testing.T) {
	for _, c := range []struct {
		example string
		want    []string
	}{
		{"deadlock-clos-bounce", []string{
			"  flows      0 of 6 completed: no flow completed, so no FCT or fairness\n",
			"  DEADLOCK   at 61.43us: s0:p0 -> l0:p3 -> s1:p1 -> l1:p2 -> s0:p0 ",
			"; most: h6:p0, 77% of the run (by l0:p1)\n",
		}},
		{"pfc-storm", []string{"  STORM      a switch held a port paused", "; of those, FCT p50 1.376ms"}},
		// A livelock: go-back-0 restarts without end, and fails nothing.
		{"livelock-go-back-0", []string{"  flows      1 of 2 completed; of those, FCT p50 426.9us", "  drops      loss 207 (packets, by reason)\n", "!  failed "}},
		{"labs/one-and-two-sided/send-no-rnr-retry", []string{"  failed     1 flows ended in error: rnr_retry_exc_err 1\n"}},
		// Collectives alone: their line, and no flows line saying no
		// flow completed.
		{"allreduce-rail-4x4", []string{"  collective 2 of 2 calls completed; time p50 672us, max 5.872ms (collectives.csv)\n", "!  flows "}},
	} {
		code, stdout, stderr := lfsim(t, "run", c.example, "-o", t.TempDir())
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s%s", c.example, code, stdout, stderr)
		}
		for _, w := range c.want {
			if not, ok := strings.CutPrefix(w, "!"); ok {
				if strings.Contains(stdout, not) {
					t.Errorf("%s: the console has %q:\n%s", c.example, not, stdout)
				}
			} else if !strings.Contains(stdout, w) {
				t.Errorf("%s: the console lacks %q:\n%s", c.example, w, stdout)
			}
		}
	}
}

// TestLabCheck: `lfsim lab check NAME` runs the lab's scenarios, writing
// nothing, prints each expectation with its outcome, and exits 0 when
// all hold; an unknown lab is a usage error naming the labs.
func TestLabCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, out, errOut := lfsim(t, "lab", "check", "transports")
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{
		"labs/transports/rc: 2 of 2 expectations hold",
		"  ok   min_retransmitted: 209 packets retransmitted, expected at least 100",
		"labs/transports/uc: 2 of 2 expectations hold",
		"transports: 3 scenarios in ",
		"the lab shows what it teaches",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("lab check wrote %d files into the working directory", len(entries))
	}
	code, _, errOut = lfsim(t, "lab", "check", "transport")
	if code != exitUsage || !strings.Contains(errOut, "no lab named transport (did you mean transports?)") {
		t.Errorf("a misspelt lab: exit %d, %q", code, errOut)
	}
	// The teacher's notes, apart from the README.
	code, out, _ = lfsim(t, "lab", "transports", "--answers")
	if code != exitOK || !strings.HasPrefix(out, "# RC, UC and UD: teacher's notes") {
		t.Errorf("lab transports --answers: exit %d, %.60q", code, out)
	}
	if _, readme, _ := lfsim(t, "lab", "transports"); strings.Contains(readme, "teacher's notes") {
		t.Error("the student's README holds the teacher's notes")
	}
}

// TestWrongFlagsSay: a wrong flag or flag value is a usage error (exit 2)
// that says what was wrong and lists the subcommand's flags, for every
// subcommand with flags; validate takes example names, as run does.
func TestWrongFlagsSay(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--sed", "3"}, "lfsim run: unknown flag: --sed\nflags of lfsim run:\n"},
		{[]string{"run", "--seed", "abc"}, "lfsim run: --seed abc: expected a whole number from 0 to 18446744073709551615\nflags of lfsim run:\n"},
		{[]string{"validate", "--bogus", "x.yaml"}, "lfsim validate: unknown flag: --bogus\nflags of lfsim validate:\n"},
		{[]string{"sweep", "-j", "many", "s.yaml"}, "lfsim sweep: -j/--jobs many: expected a whole number\nflags of lfsim sweep:\n"},
		{[]string{"report", "--nope"}, "lfsim report: unknown flag: --nope\nflags of lfsim report:\n"},
		{[]string{"bench", "--zz"}, "lfsim bench: unknown flag: --zz\nflags of lfsim bench:\n"},
	} {
		code, _, stderr := lfsim(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
	code, stdout, stderr := lfsim(t, "validate", "incast-8to1", "labs/transports/uc")
	if code != exitOK || !strings.Contains(stdout, "incast-8to1: ok") || !strings.Contains(stdout, "labs/transports/uc: ok") {
		t.Errorf("validate by name: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestCompletion: lfsim __complete offers what may come next, from the
// binary itself (subcommands, each one's flags from its own --help,
// examples, lab scenarios, labs, the suite), and the bash script sourced
// into a real bash completes through it.
func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--", "ru"}, "run\n"},
		{[]string{"run", "--", "--se"}, "--seed\n"},
		{[]string{"run", "--", "incast-"}, "incast-8to1\nincast-dcqcn\n"},
		{[]string{"validate", "--", "labs/transports/u"}, "labs/transports/uc\nlabs/transports/ud\n"},
		{[]string{"lab", "check", "--", "de"}, "deadlock\n"},
		{[]string{"lab", "transports", "--", "--"}, "--answers\n"},
		{[]string{"bench", "--", "incast"}, "incast-64\n"},
		{[]string{"sweep", "--", "loss"}, "lossless-or-not\nlossless-or-not-workloads\n"},
		{[]string{"sweep", "--", "--col"}, "--collect\n"},
		{[]string{"completion", "--", "f"}, "fish\n"},
		{[]string{"report", "--", "x"}, ""},         // directories: the shell's own
		{[]string{"run", "-o", "--", "in"}, ""},     // a flag's value: the shell's own
		{[]string{"bench", "--vs", "--", "in"}, ""}, // likewise
		{[]string{"run", "--force", "--", "incast-8"}, "incast-8to1\n"},
		{[]string{"lab", "check", "--", "--"}, ""},
	} {
		code, stdout, _ := lfsim(t, append([]string{"__complete"}, c.args...)...)
		if code != exitOK || stdout != c.want {
			t.Errorf("__complete %v: exit %d, %q; want %q", c.args, code, stdout, c.want)
		}
	}
	if code, _, stderr := lfsim(t, "completion", "bsh"); code != exitUsage || !strings.Contains(stderr, "did you mean bash?") {
		t.Errorf("completion bsh: exit %d, %q", code, stderr)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "lfsim")); err != nil {
		t.Fatal(err)
	}
	_, script, _ := lfsim(t, "completion", "bash")
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "incast-4to1.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "-c", script+`
cd "$1"; COMP_WORDS=(lfsim run incast-); COMP_CWORD=2; _lfsim; echo "${COMPREPLY[@]}"`, "bash", work)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "LFSIM_TEST_AS_MAIN=1")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "incast-8to1 incast-dcqcn incast-4to1.yaml" {
		t.Errorf("bash completion of `lfsim run incast-`: %q, %v", out, err)
	}
}

// TestLabCourse: `lfsim lab` lists the course's thirteen labs in order,
// numbered, each built one with its time and scenarios and each other
// one with what it waits for; every built lab is in the course.
func TestLabCourse(t *testing.T) {
	var out, errb bytes.Buffer
	if code := labCmd(nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	built := map[string]bool{}
	for _, l := range scenarios.Labs() {
		built[l.Name] = true
	}
	inCourse := map[string]bool{}
	lines := strings.Split(out.String(), "\n")
	n := 0
	for _, line := range lines {
		if len(line) < 4 || line[2] != ' ' || strings.TrimSpace(line[:2]) == "" {
			continue
		}
		n++
		c := scenarios.Course[n-1]
		if !strings.HasPrefix(strings.TrimSpace(line), fmt.Sprintf("%d  %s ", n, c.Name)) {
			t.Errorf("line %d is %q, want lab %d, %s", n, line, n, c.Name)
		}
		inCourse[c.Name] = true
		if built[c.Name] != strings.Contains(line, fmt.Sprintf("about %d min", c.Minutes)) || built[c.Name] == strings.Contains(line, "not built yet") {
			t.Errorf("lab %s (built %v): %q", c.Name, built[c.Name], line)
		}
	}
	if n != 13 {
		t.Errorf("%d numbered labs, want 13:\n%s", n, out.String())
	}
	for name := range built {
		if !inCourse[name] {
			t.Errorf("lab %s is not in the course", name)
		}
	}
}

// TestSchemaCommand: `lfsim schema` prints the scenario format's JSON
// Schema, `lfsim schema sweep` the sweep format's, both valid JSON with
// their $id; anything else is a usage error.
func TestSchemaCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		id   string
	}{{[]string{"schema"}, scenario.SchemaID}, {[]string{"schema", "scenario"}, scenario.SchemaID}, {[]string{"schema", "sweep"}, "sweep.schema.json"}} {
		code, out, errs := lfsim(t, tc.args...)
		var doc map[string]any
		if code != exitOK || json.Unmarshal([]byte(out), &doc) != nil || !strings.HasSuffix(fmt.Sprint(doc["$id"]), tc.id) {
			t.Errorf("%v: exit %d, $id %v, stderr %q", tc.args, code, doc["$id"], errs)
		}
	}
	if code, _, errs := lfsim(t, "schema", "topology"); code != exitUsage || !strings.Contains(errs, "scenario (the default) or sweep") {
		t.Errorf("schema topology: exit %d, %q", code, errs)
	}
}

// TestDevinfo: lfsim devinfo's fields, parsed as a script parses
// ibv_devinfo -v, are the model's own values for the host: its profile's
// MTU, max_rd_atomic and largest message, its link's width and speed,
// its LID on InfiniBand, its GIDs; lfsim devices lists each host's
// device with the node GUID devinfo prints.
func TestDevinfo(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ src, host string }{
		{"topology: {kind: star, hosts: 3, link: {rate: 200Gbps}}\nhca: {mtu: 1024, max_rd_atomic: 4}\n", "h2"},
		{"topology: {kind: star, hosts: 3, link: {rate: 4xEDR}}\nswitch: {link_layer: infiniband, ib: {data_vls: 4}}\nsubnet_manager: {lmc: 1}\n", "h1"},
	} {
		file := filepath.Join(dir, "d.yaml")
		os.WriteFile(file, []byte(tc.src), 0o644)
		code, out, errs := lfsim(t, "devinfo", file, tc.host)
		if code != exitOK {
			t.Fatalf("devinfo: %d %s", code, errs)
		}
		fields := map[string]string{}
		for _, l := range strings.Split(out, "\n") {
			if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && !strings.HasPrefix(l, "#") {
				fields[k] = strings.TrimSpace(v)
			}
		}
		sc, err := resolve.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := sc.Topology.Lookup(tc.host)
		p := sc.HCAProfile(h)
		ib := sc.LinkLayer == fabric.InfiniBand
		lid := "0"
		if ib {
			lid = fmt.Sprint(fabric.AssignLIDsLMC(sc.Topology, sc.IB.LMC).Of(h))
		}
		rate := sc.Topology.Links[sc.Topology.Nodes[h].Ports[0].Link].Rate
		want := map[string]string{
			"hca_id": "lfsim0", "active_mtu": fmt.Sprintf("%d (%d)", p.MTU, map[int]int{1024: 3, 4096: 5}[p.MTU]),
			"max_qp_init_rd_atom": fmt.Sprint(p.MaxRdAtomic), "max_qp_rd_atom": fmt.Sprint(p.MaxDestRdAtomic),
			"max_msg_sz": fmt.Sprintf("0x%x", p.MaxMsgSize), "port_lid": lid, "port_lmc": fmt.Sprintf("0x%02x", sc.IB.LMC),
			"link_layer":      map[bool]string{true: "InfiniBand", false: "Ethernet"}[ib],
			"effective_speed": fmt.Sprintf("%.1f Gbps", float64(rate)/1e9), "active_width": "4X (2)",
			"active_speed": map[fabric.Rate]string{200 * fabric.Gbps: "50.0 Gbps (64)", 100 * fabric.Gbps: "25.0 Gbps (32)"}[rate],
			"node_guid":    fmt.Sprintf("%04x:%04x:%04x:%04x", fabric.GUID(h)>>48, fabric.GUID(h)>>32&0xffff, fabric.GUID(h)>>16&0xffff, fabric.GUID(h)&0xffff),
		}
		if ib {
			want["max_vl_num"] = "4 (3)"
		} else {
			want["GID[  1]"] = "::ffff:10.0.0.3, RoCE v2"
		}
		for k, v := range want {
			if fields[k] != v {
				t.Errorf("%s %s: %s is %q, want %q", tc.host, map[bool]string{true: "ib", false: "ethernet"}[ib], k, fields[k], v)
			}
		}
		code, out, _ = lfsim(t, "devices", file)
		if code != exitOK || !strings.Contains(out, fmt.Sprintf("    lfsim0          \t%016x\n", fabric.GUID(h))) {
			t.Errorf("devices:\n%s", out)
		}
	}
	if code, _, errs := lfsim(t, "devinfo", "incast-8to1", "h99"); code != exitUsage || !strings.Contains(errs, "has no host h99") {
		t.Errorf("devinfo of a missing host: %d %q", code, errs)
	}
}

// TestRunWorkers: lfsim run --workers cuts the network when it can and
// writes the same files as one worker (report.html names its folder and
// the wall time, so it is left out); a scenario that cannot be cut says
// why on stderr and runs on one.
func TestRunWorkers(t *testing.T) {
	dir := t.TempDir()
	read := func(out string) map[string]string {
		files := map[string]string{}
		entries, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() == "report.html" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(out, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[e.Name()] = regexp.MustCompile(`"wall_seconds": [0-9.e-]+`).ReplaceAllString(string(b), "")
		}
		return files
	}
	var outs []map[string]string
	for _, w := range []string{"1", "3"} {
		out := filepath.Join(dir, "w"+w)
		code, _, stderr := lfsim(t, "run", "-q", "-o", out, "--workers", w, "fat-tree-k4-all-to-all")
		if code != exitOK || strings.Contains(stderr, "one worker") {
			t.Fatalf("--workers %s: exit %d\n%s", w, code, stderr)
		}
		outs = append(outs, read(out))
	}
	if len(outs[0]) < 5 {
		t.Fatalf("one worker wrote %d files", len(outs[0]))
	}
	for name, b := range outs[0] {
		if outs[1][name] != b {
			t.Errorf("%s differs between 1 and 3 workers", name)
		}
	}
	// A link without delay leaves no window to run apart in.
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.WriteFile(zero, []byte("topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 0}}\nstop: {at: 100us}\ntraffic:\n  - flow: {from: h0, to: h1, size: 64KiB}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := lfsim(t, "run", "-o", filepath.Join(dir, "zero"), "--workers", "2", zero)
	if code != exitOK || !strings.Contains(stderr, "on one worker: a link has no delay") {
		t.Errorf("links without delay on 2 workers: exit %d, stderr %q; want it run on one, saying why", code, stderr)
	}
}

// TestRunConsoleMixedNetwork: on a network with InfiniBand and Ethernet
// switches (VPI), with an incast on each fabric, the console prints the
// credits line for the InfiniBand ports and the pfc line for the Ethernet
// ports, each with its own most paused port, and summary.json keeps them
// apart: pfc.paused_ns the Ethernet ports' PFC pauses, the added
// pfc.credit_wait_ns the InfiniBand ports' credit waits (together what
// paused_ns summed before), each pfc.spread entry its link_layer. From
// the review of issue 47, defect 6: run.go printed the credits line only,
// hiding the PFC pauses, and paused_ns added the two together.
func TestRunConsoleMixedNetwork(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mixed.yaml")
	if err := os.WriteFile(file, []byte(`name: mixed-incast
seed: 1
stop: {at: 5ms, when: flows-done}
topology:
  kind: explicit
  hosts: [h0, h1, h2, h3]
  switches:
    - {name: ib0, switch: {link_layer: infiniband}}
    - {name: eth0, switch: {link_layer: ethernet}}
  link: {rate: 100Gbps, delay: 1us}
  links: [[h0, ib0], [h1, ib0], [h2, ib0], [h0, eth0], [h1, eth0], [h3, eth0]]
traffic:
  - flow: {from: h0, to: h2, size: 2MiB}
  - flow: {from: h1, to: h2, size: 2MiB}
  - flow: {from: h0, to: h3, size: 2MiB, port: 2}
  - flow: {from: h1, to: h3, size: 2MiB, port: 2}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := lfsim(t, "run", file, "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, w := range []string{
		"  credits    1358 flow-control packets; InfiniBand ports waited for credit 648.7us, summed over ports and VLs; most: h1:p0, 93% of the run (by ib0:p1)\n",
		"  pfc        28 pause frames, 28 resume frames; Ethernet ports paused 326.9us, summed over ports and priorities; most: h1/2:p0, 47% of the run (by eth0:p1)\n",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("the console lacks %q:\n%s", w, stdout)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		PFC struct {
			PausedNs     int64  `json:"paused_ns"`
			CreditWaitNs *int64 `json:"credit_wait_ns"`
			Spread       []struct {
				Port      string `json:"port"`
				LinkLayer string `json:"link_layer"`
			} `json:"spread"`
		} `json:"pfc"`
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if p := sum.PFC; p.CreditWaitNs == nil || *p.CreditWaitNs != 648703 || p.PausedNs != 326882 {
		t.Errorf("pfc.paused_ns %d, credit_wait_ns %v; want 326882 (the Ethernet ports') and 648703 (the InfiniBand ports')", p.PausedNs, p.CreditWaitNs)
	}
	for _, s := range sum.PFC.Spread {
		want := "infiniband"
		if strings.Contains(s.Port, "/2") {
			want = "ethernet"
		}
		if s.LinkLayer != want {
			t.Errorf("pfc.spread: %s on %q, want %s", s.Port, s.LinkLayer, want)
		}
	}
}
