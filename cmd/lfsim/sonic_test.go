package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/scenarios"
)

// TestSONiCExampleAsYAML: the example whose switch reads a SONiC
// config_db.json (switch: {sonic: FILE}) and the same scenario with what
// `lfsim sonic FILE` prints pasted in its place run the same, byte for
// byte, in every output file: flows.csv, pfc.csv, timeseries.csv,
// topology.json and the rest whole; summary.json and report.html too once
// the wall time each run took (wall_seconds; the report's "wall time,
// events" row) and the warnings that name switch.sonic (what the reader
// says of the file, which the printed block carries as comments) are
// taken out of each, and only those. scenario.yaml is each
// run's own input. The printed block goes at the end of the file, and the
// two lines of the example's switch: block become two comment lines, so
// that every other line keeps its number and the warnings that name one
// (a flow's lossy DSCP) are the same text.
func TestSONiCExampleAsYAML(t *testing.T) {
	src, err := scenarios.ExampleSource("sonic-dell-s6100")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile("../../scenarios/examples/sonic-dell-s6100/config_db.json")
	if err != nil {
		t.Fatal(err)
	}
	const block = "switch:\n  sonic: sonic-dell-s6100/config_db.json"
	i := strings.Index(string(src), block)
	if i < 0 {
		t.Fatalf("the example has no %q", block)
	}
	end := i + strings.IndexByte(string(src[i+len("switch:\n"):]), '\n') + len("switch:\n") + 1
	sonicDir, yamlDir := t.TempDir(), t.TempDir()
	for _, d := range []string{sonicDir, yamlDir} {
		os.MkdirAll(filepath.Join(d, "sonic-dell-s6100"), 0o755)
		os.WriteFile(filepath.Join(d, "sonic-dell-s6100", "config_db.json"), cfg, 0o644)
	}
	os.WriteFile(filepath.Join(sonicDir, "sonic-dell-s6100.yaml"), src, 0o644)

	t.Chdir(yamlDir)
	code, printed, errs := lfsim(t, "sonic", "sonic-dell-s6100/config_db.json")
	if code != exitOK || !strings.Contains(printed, "\nswitch:\n  buffer: {shared: 6680960}\n") {
		t.Fatalf("lfsim sonic: exit %d\n%s\n%s", code, printed, errs)
	}
	warnings := strings.Count(errs, "warning: ")
	asYAML := string(src[:i]) + "# switch: is at the end, as lfsim sonic prints it\n#\n" + string(src[end:]) + "\n" + printed
	os.WriteFile(filepath.Join(yamlDir, "sonic-dell-s6100.yaml"), []byte(asYAML), 0o644)

	run := func(dir string) {
		t.Chdir(dir)
		if code, _, errs := lfsim(t, "run", "sonic-dell-s6100.yaml", "-q", "-o", "out"); code != exitOK {
			t.Fatalf("%s: exit %d\n%s", dir, code, errs)
		}
	}
	run(sonicDir)
	run(yamlDir)
	names := func(dir string) []string {
		entries, err := os.ReadDir(filepath.Join(dir, "out"))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	// The sonic: run's folder holds the file it names besides (its
	// scenario.yaml runs again from there: TestRunFolderRunsAgain).
	files := names(sonicDir)
	if want := slices.Insert(names(yamlDir), 4, "sonic-dell-s6100"); !slices.Equal(files, want) || !slices.Contains(files, "flows.csv") || !slices.Contains(files, "timeseries.csv") {
		t.Fatalf("the runs wrote %v and %v", files, names(yamlDir))
	}
	if copied, _ := os.ReadFile(filepath.Join(sonicDir, "out", "sonic-dell-s6100", "config_db.json")); string(copied) != string(cfg) {
		t.Errorf("the sonic: run's folder has no copy of its config_db.json")
	}
	for _, f := range files {
		if f == "sonic-dell-s6100" {
			continue
		}
		a, _ := os.ReadFile(filepath.Join(sonicDir, "out", f))
		b, _ := os.ReadFile(filepath.Join(yamlDir, "out", f))
		switch f {
		case "scenario.yaml":
			continue
		case "summary.json", "report.html":
			var dropped int
			a, dropped = withoutLines(a, func(l string) bool { return strings.Contains(l, ": switch.sonic: ") })
			if dropped != warnings {
				t.Errorf("%s: %d warnings of switch.sonic, lfsim sonic printed %d", f, dropped, warnings)
			}
			wall := func(l string) bool { // the wall time each run took
				return strings.Contains(l, `"wall_seconds"`) || strings.HasPrefix(l, "<tr><td>wall time, events</td>")
			}
			a, _ = withoutLines(a, wall)
			b, _ = withoutLines(b, wall)
		}
		if string(a) != string(b) {
			t.Errorf("%s differs between the sonic: run and the YAML run", f)
		}
	}
}

// withoutLines is data without the lines drop selects, and how many.
func withoutLines(data []byte, drop func(string) bool) ([]byte, int) {
	var keep []string
	n := 0
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if drop(l) {
			n++
			continue
		}
		keep = append(keep, l)
	}
	return []byte(strings.Join(keep, "")), n
}

// TestSONiCCommand: lfsim sonic's errors, each with its exit code: no
// file, a file that is not there, a file with a mistake (at its line and
// column), a port the file does not configure; and a built-in example's
// file by its library name, which is not on disk: refused (the library
// stands in only for what a built-in scenario names).
func TestSONiCCommand(t *testing.T) {
	const s6100 = "../../scenarios/examples/sonic-dell-s6100/config_db.json"
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"SCHEDULER\": {\"s\": {\"type\": \"FIFO\"}},\n  \"QUEUE\": {\"Ethernet0|3\": {\"scheduler\": \"s\"}},\n  \"PORT_QOS_MAP\": {\"Ethernet0\": {}}\n}\n"), 0o644)
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"sonic"}, exitUsage, "lfsim sonic takes one SONiC config_db.json"},
		{[]string{"sonic", filepath.Join(dir, "none.json")}, exitFailed, "lfsim sonic: cannot read"},
		{[]string{"sonic", bad}, exitFailed, bad + `:2:31: SCHEDULER|s: type: unknown scheduler type "FIFO"`},
		{[]string{"sonic", s6100, "--port", "Ethernet99"}, exitFailed, "no QoS or buffer table configures port Ethernet99"},
		{[]string{"sonic", s6100, "--port", "Ethernet4"}, exitOK, "warning: " + s6100 + ":"},
		{[]string{"sonic", "examples/sonic-dell-s6100/config_db.json"}, exitFailed, "lfsim sonic: cannot read examples/sonic-dell-s6100/config_db.json"},
	} {
		code, _, errs := lfsim(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.stderr) {
			t.Errorf("%v: exit %d, stderr\n%s\nwant exit %d and %q", c.args, code, errs, c.code, c.stderr)
		}
	}
}

// TestSONiCStaticThZero is the review's case: static_th 0, SAI's "no
// limit for the shared usage", on the lossy profiles (the lossy queue's
// and priority group's) and on the lossless one. An incast of two
// 256 KiB flows into one 40 Gb/s port, lossy (DSCP 0) and lossless
// (DSCP 3), must deliver both flows with no drop: 512 KiB fit the
// two-port file's 2 MB pool, so neither drops nor pauses. Read as a
// limit of 0 bytes, the lossy run completed no flow (its packets
// dropped) and the lossless one sent XOFF at the first byte past the
// reserve.
func TestSONiCStaticThZero(t *testing.T) {
	data, err := os.ReadFile("../../sonic/testdata/two-ports.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.NewReplacer(
		`"egress_lossy_pool", "size": "0", "dynamic_th": "2"`, `"egress_lossy_pool", "size": "0", "static_th": "0"`,
		`"size": "1248", "dynamic_th": "1"`, `"size": "1248", "static_th": "0"`,
		`"xoff": "66560", "dynamic_th": "-2"`, `"xoff": "66560", "static_th": "0"`).Replace(string(data))
	if strings.Count(cfg, `"static_th": "0"`) != 3 {
		t.Fatal("the two-port file's profiles are not as this test edits them")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "st0.json"), []byte(cfg), 0o644)
	t.Chdir(dir)
	for _, dscp := range []string{"0", "3"} {
		src := "name: st0\ntopology: {kind: star, hosts: 3, link: {rate: 40Gbps}}\nswitch: {sonic: st0.json}\nhca: {cc: dcqcn, dscp: " + dscp +
			"}\ntraffic:\n  - incast: {to: h2, from: [h0, h1], size: 256KiB}\n"
		os.WriteFile("st0.yaml", []byte(src), 0o644)
		code, _, errs := lfsim(t, "run", "st0.yaml", "-q", "-o", "out"+dscp)
		if code != exitOK {
			t.Fatalf("dscp %s: exit %d\n%s", dscp, code, errs)
		}
		var sum struct {
			Flows   struct{ Completed, Total int }
			Packets struct{ Dropped int64 }
			PFC     struct {
				PauseFrames int64 `json:"pause_frames"`
			}
		}
		b, _ := os.ReadFile(filepath.Join("out"+dscp, "summary.json"))
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Flows.Completed != 2 || sum.Flows.Total != 2 || sum.Packets.Dropped != 0 || sum.PFC.PauseFrames != 0 {
			t.Errorf("dscp %s: %d of %d flows completed, %d packets dropped, %d pause frames; want 2 of 2, none, none (the pool never fills)",
				dscp, sum.Flows.Completed, sum.Flows.Total, sum.Packets.Dropped, sum.PFC.PauseFrames)
		}
	}
}
