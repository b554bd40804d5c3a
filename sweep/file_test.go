package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/resolve"
)

func TestSweepErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.yaml"), []byte(`topology: {kind: fat-tree, k: 4}
traffic:
  - permutation: {size: 1MiB}
  - poisson: {load: 10%, sizes: hadoop, until: 1ms}
`), 0o644)
	for _, c := range []struct{ vary, want string }{
		{"switch.ecn.kmn: [1KiB]", "s.yaml:3:3: vary: unknown key kmn in switch.ecn (did you mean kmin?)"},
		{"hca.dcqcn.rpg_ai_rte: [5Mbps]", "did you mean rpg_ai_rate?"},
		{"topology.kk: [4]", "unknown key kk in topology for kind fat-tree (did you mean k?)"},
		{"traffic[1].poison.load: [1%]", "unknown generator poison in traffic[1] (did you mean poisson?)"},
		{"traffic[5].poisson.load: [1%]", "the base's traffic has 2 items; there is no [5]"},
		{"traffic.poisson.load: [1%]", "traffic is a list: give an index"},
		{"swich.buffer: [1MiB]", "unknown key swich at the top level (did you mean switch?)"},
		{"traffic[1].poisson.load: [10%, 2 apples]", "s.yaml:3:34: vary: traffic[1].poisson.load = 2 apples: " + filepath.Join(dir, "b.yaml") + ":4:21: traffic[1].poisson.load: expected a fraction"},
		{"switch.ecn.kmin: 5KiB", "expected a list of values"},
	} {
		src := "base: b.yaml\nvary:\n  " + c.vary + "\n"
		_, err := Parse(filepath.Join(dir, "s.yaml"), []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s", c.vary, err, c.want)
		}
	}
	_, err := Parse(filepath.Join(dir, "s.yaml"), []byte("base: b.yaml\nvary: {hca.cc: [none]}\nrepat: 2\n"))
	if err == nil || !strings.Contains(err.Error(), "unknown key repat (did you mean repeat?)") {
		t.Errorf("got %v", err)
	}
}

// TestSweepBaseNotAScenario: a base that names some other file (here a
// password file) is refused at the base key, and nothing of it is shown.
func TestSweepBaseNotAScenario(t *testing.T) {
	dir := t.TempDir()
	secret := "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
	os.WriteFile(filepath.Join(dir, "passwd"), []byte(secret), 0o644)
	os.WriteFile(filepath.Join(dir, "list"), []byte("- a\n- b\n"), 0o644)
	for _, base := range []string{"passwd", "list"} {
		_, err := Parse(filepath.Join(dir, "s.yaml"), []byte("base: "+base+"\nvary: {seed: [1, 2]}\n"))
		if err == nil || !strings.Contains(err.Error(), "s.yaml:1:7: base:") || !strings.Contains(err.Error(), "is not a scenario file") ||
			strings.Contains(err.Error(), "root") || strings.Contains(err.Error(), "- a") {
			t.Errorf("%s: got %v", base, err)
		}
	}
}

func TestSweepPoints(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("seed: 7\ntopology: {kind: star, hosts: 3}\ntraffic: [{flow: {from: h0, to: h1, size: 1MiB}}]\n"), 0o644)
	sw, err := Parse(filepath.Join(dir, "s.yaml"), []byte(`base: b.yaml
vary:
  traffic[0].flow.size: [1KiB, 2KiB]
  hca.mtu: [1024, 4096]
  switch.ecn: [off, {kmin: 1KiB, kmax: 9KiB}]
repeat: 2
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Points) != 16 || sw.Params[0].Path != "hca.mtu" || sw.Params[2].Path != "traffic[0].flow.size" {
		t.Fatalf("%d points, params %v", len(sw.Points), sw.Params)
	}
	p := sw.Points[15]
	sc, text, err := sw.PointScenario(p)
	if err != nil {
		t.Fatal(err)
	}
	if sc.HCA.MTU != 4096 || sc.Flows[0].Size != 2048 || sc.Seed != 8 || !sc.Switch.ECN.Enabled {
		t.Fatalf("point 15: mtu %d size %d seed %d ecn %v", sc.HCA.MTU, sc.Flows[0].Size, sc.Seed, sc.Switch.ECN.Enabled)
	}
	if name := sw.PointName(p); name != "0015_mtu=4096_ecn=-kmin--1KiB--kmax--9KiB-_size=2KiB_r1" {
		t.Fatalf("name %s", name)
	}
	if _, err := resolve.Parse("again.yaml", text); err != nil {
		t.Fatalf("scenario.yaml does not load: %v\n%s", err, text)
	}
}

// TestSweepBases: a list of bases is compared as the first setting, the
// others varied on each; a path or value that does not fit one base is an
// error naming it.
func TestSweepBases(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("seed: 7\ntopology: {kind: star, hosts: 3}\ntraffic: [{flow: {from: h0, to: h1, size: 1MiB}}]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("seed: 9\ntopology: {kind: star, hosts: 3}\nhca: {mtu: 1024}\ntraffic: [{incast: {to: h2, from: [h0, h1], size: 1MiB}}]\n"), 0o644)
	sw, err := Parse(filepath.Join(dir, "s.yaml"), []byte("base: [b.yaml, a.yaml]\nvary: {switch.buffer: [1MiB, 2MiB]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Points) != 4 || sw.Params[0].Path != "base" || strings.Join(sw.Params[0].Values, " ") != "b a" {
		t.Fatalf("%d points, params %v", len(sw.Points), sw.Params)
	}
	for _, c := range []struct {
		point  int
		name   string
		seed   uint64
		mtu    int
		buffer int64
		flows  int
	}{{0, "0000_base=b_buffer=1MiB", 9, 1024, 1 << 20, 2}, {3, "0003_base=a_buffer=2MiB", 7, 4096, 2 << 20, 1}} {
		p := sw.Points[c.point]
		sc, text, err := sw.PointScenario(p)
		if err != nil {
			t.Fatal(err)
		}
		if name := sw.PointName(p); name != c.name || sc.Seed != c.seed || sc.HCA.MTU != c.mtu || int64(sc.Switch.Buffer) != c.buffer || len(sc.Flows) != c.flows {
			t.Errorf("point %d: %s seed %d mtu %d buffer %d flows %d", c.point, name, sc.Seed, sc.HCA.MTU, sc.Switch.Buffer, len(sc.Flows))
		}
		if _, err := resolve.Parse("again.yaml", text); err != nil {
			t.Fatalf("scenario.yaml does not load: %v\n%s", err, text)
		}
	}
	if sw, err := Parse(filepath.Join(dir, "s.yaml"), []byte("base: [a.yaml, b.yaml]\n")); err != nil || len(sw.Points) != 2 {
		t.Errorf("bases alone: %v", err)
	}
	for _, c := range []struct{ src, want string }{
		{"base: [a.yaml, b.yaml]\nvary:\n  traffic[0].flow.size: [2MiB]\n", "s.yaml:3:26: vary: traffic[0].flow.size = 2MiB on base b:"},
		{"base: [a.yaml, " + filepath.Join("..", filepath.Base(dir), "a.yaml") + "]\n", "two bases are named a"},
		{"base: [a.yaml, nothere.yaml]\n", "s.yaml:1:16: base: no file"},
		{"base: [a.yaml, [b.yaml]]\n", "s.yaml:1:16: base: expected a scenario file"},
		{"base: [a.yaml, b.yaml]\nvary: {}\n", "s.yaml:2:7: vary: expected a mapping"},
		{"base: a.yaml\n", "missing key vary"},
	} {
		if _, err := Parse(filepath.Join(dir, "s.yaml"), []byte(c.src)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}
