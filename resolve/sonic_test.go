package resolve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// A switch's SONiC configuration (switch.sonic) as the scenario reads
// it: its keys under the ones the block writes beside it, at the network
// level and per switch; the keys it needs (buffer: {shared},
// ecn.priorities); and its errors at the sonic: key, naming the file's
// line and column.

// twoPorts is package sonic's two-port configuration; sonicScenario
// writes a scenario beside a copy of it (cfg.json) and parses it.
const twoPorts = "../sonic/testdata/two-ports.json"

func sonicScenario(t *testing.T, cfg, src string) (*Scenario, error) {
	t.Helper()
	dir := t.TempDir()
	if cfg != "" {
		if err := os.WriteFile(filepath.Join(dir, "cfg.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		return nil, errorsIn(err, dir)
	}
	return s, nil
}

// errorsIn is err with the temporary folder's name taken out.
func errorsIn(err error, dir string) error {
	return &textErr{strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")}
}

type textErr struct{ s string }

func (e *textErr) Error() string { return e.s }

func readTwoPorts(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(twoPorts)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestSONiCLayer: the file's settings (two-ports.json: DWRR 20/40 with
// queue 6 strict, PFC on 3 and 4 with dynamic_th -2, its watchdog...)
// under the block's own keys: pfc.xoff and pfc.watchdog.detect beside
// sonic: change those alone, pfc.priorities and the watchdog's restore
// and action stay the file's.
func TestSONiCLayer(t *testing.T) {
	s, err := sonicScenario(t, readTwoPorts(t), `topology: {kind: star, hosts: 2}
switch:
  sonic: cfg.json
  pfc: {xoff: 80KiB, xon: 40KiB, watchdog: {detect: 1ms}}
traffic:
  - flow: {from: h0, to: h1, size: 1MiB}
`)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Switch
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"trust", p.TrustDSCP, true},
		{"DSCP 3's priority (DSCP_TO_TC_MAP)", p.DSCPPriority(3), uint8(3)},
		{"DSCP 26's (unlisted: traffic class 0, queue 0)", p.DSCPPriority(26), uint8(0)},
		{"lossless priorities (pfc_enable)", p.PFC.Priorities, []uint8{3, 4}},
		{"xoff (the block's)", p.PFC.XOFF, 80 * fabric.KiB},
		{"xoff alpha (the block's xoff is bytes)", p.PFC.XOFFAlpha, 0.0},
		{"xon (the block's)", p.PFC.XON, 40 * fabric.KiB},
		{"headroom (the profile's xoff)", p.PFC.Headroom, fabric.Size(66560)},
		{"reserved (the profile's size)", p.Reserved, fabric.Size(1248)},
		{"shared pool (BUFFER_POOL size)", p.SharedPool, fabric.Size(2000000)},
		{"ingress threshold (dynamic_th 1)", p.IngressThreshold, swtch.Threshold{Alpha: 2}},
		{"egress threshold (dynamic_th 2)", p.EgressThreshold, swtch.Threshold{Alpha: 4}},
		{"watchdog detect (the block's)", p.PFC.Watchdog.Detect, sim.Millisecond},
		{"watchdog restore (the file's)", p.PFC.Watchdog.Restore, 300 * sim.Millisecond},
		{"watchdog action (the file's)", p.PFC.Watchdog.Action, "forward"},
		{"ECN on", p.ECN.Enabled, true},
		{"ECN Kmin", p.ECN.Kmin, fabric.Size(100000)},
		{"ECN Pmax", p.ECN.Pmax, 0.1},
		{"ECN at enqueue", p.ECN.AtEnqueue, true},
		{"queues that do not mark", p.ECN.Unmarked, ^uint8(1<<3 | 1<<4)},
		{"DWRR weights (not 100 in all: dwrr)", p.DWRR, map[uint8]int{0: 20, 1: 20, 3: 40, 4: 40}},
	} {
		if !equal(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
}

func equal(a, b any) bool {
	switch x := a.(type) {
	case []uint8:
		return string(x) == string(b.([]uint8))
	case map[uint8]int:
		y := b.(map[uint8]int)
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if y[k] != v {
				return false
			}
		}
		return true
	}
	return a == b
}

// TestSONiCPerSwitch: in an explicit topology one switch reads the file
// (sonic: {file, port}), the other keeps the network's profile.
func TestSONiCPerSwitch(t *testing.T) {
	s, err := sonicScenario(t, readTwoPorts(t), `topology:
  kind: explicit
  hosts: [a, b]
  switches:
    - {name: s1, switch: {sonic: {file: cfg.json, port: Ethernet4}}}
    - s2
  links: [[a, s1], [s1, s2], [s2, b]]
traffic:
  - flow: {from: a, to: b, size: 1MiB}
`)
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := s.Topology.Lookup("s1")
	s2, _ := s.Topology.Lookup("s2")
	if p := s.SwitchProfile(s1); !p.TrustDSCP || p.SharedPool != 2000000 {
		t.Errorf("s1: trust dscp %v, shared pool %d; want the file's", p.TrustDSCP, p.SharedPool)
	}
	if p := s.SwitchProfile(s2); p.TrustDSCP || p.SharedPool != 0 || len(p.PFC.Priorities) != 1 {
		t.Errorf("s2: trust dscp %v, shared pool %d, priorities %v; want the defaults", p.TrustDSCP, p.SharedPool, p.PFC.Priorities)
	}
}

// TestSONiCErrors: what cannot be read is an error at the sonic: key
// (or the key at fault) naming the file's line and column; validate and
// run load alike, so they agree.
func TestSONiCErrors(t *testing.T) {
	cfg := readTwoPorts(t)
	for _, c := range []struct{ name, cfg, src, want string }{
		{"no such file", "", `topology: {kind: star, hosts: 2}
switch: {sonic: nowhere.json}
`, `s.yaml:2:17: switch.sonic: cannot read the SONiC configuration nowhere.json: stat nowhere.json: no such file or directory`},
		{"malformed JSON", `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4",}}}`, `topology: {kind: star, hosts: 2}
switch:
  sonic: cfg.json
`, `s.yaml:3:10: switch.sonic: cfg.json:1:53: invalid JSON: invalid character '}' looking for beginning of object key string`},
		{"unknown scheduler type", strings.Replace(cfg, `"scheduler.0": {"type": "DWRR"`, `"scheduler.0": {"type": "FIFO"`, 1), `topology: {kind: star, hosts: 2}
switch: {sonic: {file: cfg.json}}
`, `s.yaml:2:24: switch.sonic: cfg.json:34:33: SCHEDULER|scheduler.0: type: unknown scheduler type "FIFO"; SONiC's are DWRR, WRR and STRICT (sonic-scheduler.yang), of which lfsim models DWRR and STRICT`},
		{"a port it does not configure", cfg, `topology: {kind: star, hosts: 2}
switch: {sonic: {file: cfg.json, port: Ethernet8}}
`, `s.yaml:2:24: switch.sonic: cfg.json:8:21: no QoS or buffer table configures port Ethernet8; the ports it configures are Ethernet0, Ethernet4`},
		{"a key the form has not", cfg, `topology: {kind: star, hosts: 2}
switch: {sonic: {file: cfg.json, ports: Ethernet0}}
`, `s.yaml:2:34: switch.sonic: unknown key ports (did you mean port?); allowed keys are file, port`},
	} {
		_, err := sonicScenario(t, c.cfg, c.src)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got\n%v\nwant\n%s", c.name, err, c.want)
		}
	}
}

// TestSonicLibraryOnlyForBuiltins: the embedded library stands in for a
// file a built-in example names (run anywhere, where no copy of the
// library is on disk), never for one a scenario on disk names: a user's
// examples/mine.yaml naming the example's config_db.json by the same
// relative path, with no such file beside it, is refused at the name.
func TestSonicLibraryOnlyForBuiltins(t *testing.T) {
	t.Chdir(t.TempDir())
	if _, err := LoadExample("sonic-dell-s6100"); err != nil {
		t.Fatalf("the built-in example: %v", err)
	}
	os.MkdirAll("examples", 0o755)
	src := "topology: {kind: star, hosts: 2}\nswitch: {sonic: sonic-dell-s6100/config_db.json}\ntraffic:\n  - flow: {from: h0, to: h1, size: 4KiB}\n"
	if err := os.WriteFile(filepath.Join("examples", "mine.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(filepath.Join("examples", "mine.yaml"))
	want := "examples/mine.yaml:2:17: switch.sonic: cannot read the SONiC configuration sonic-dell-s6100/config_db.json: "
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want %s...", err, want)
	}
}
