package assembly

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/scenarios"
)

// fuzzLimits keep fuzzed fabrics small: the fuzzer looks for panics and
// hangs, and the limits themselves are tested in TestLimits (scenario_test.go).
var fuzzLimits = resolve.Limits{Hosts: 512, Switches: 256, Links: 2048, FatTreeK: 8, Flows: 20000, Nodes: 100000, RouteEntries: 100000}

func FuzzParse(f *testing.F) {
	for _, e := range scenarios.Examples() {
		data, err := scenarios.ExampleSource(e.Name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	files, _ := filepath.Glob("../resolve/testdata/*.yaml")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"topology: {kind: star, hosts: 3",
		"topology: [a, b]\nhca: {mtu: 1500}",
		"a: &x [*x]",
		"x-a: &a {<<: *a}\nhca: *a\n",
		"x-0: &m0 {a: 1}\nx-1: &m1 {<<: [*m0, *m0]}\nswitch: {<<: [*m1, *m1], buffer: 1MiB}\n",
		"base: &b {kind: star, hosts: 4}\ntopology: {<<: *b, hosts: 5}",
		"topology: {kind: explicit, hosts: [a], switches: [s], links: [[a, s]], routes: {s: {a: a}}}\ntraffic: [{flow: {from: a, to: a, size: 1}}]",
		"topology: {kind: ring, switches: 3}\ntraffic: [{permutation: {size: 1}}, {all_to_all: {hosts: [h0, h1], size: 1KiB}}]\nobserve: {queues: [s0->s1, s1:p2], flows: [0, 9]}\nexpect: {max_pause_fraction: [{port: s0:p0, value: 50%}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		s, err := resolve.ParseLimits("fuzz.yaml", data, fuzzLimits)
		if d := time.Since(start); d > 10*time.Second { // a hang, not a slow machine
			t.Fatalf("parse took %v", d)
		}
		if (s == nil) == (err == nil) {
			t.Fatalf("parse returned scenario %v and error %v", s != nil, err)
		}
		if err != nil {
			errs, ok := err.(scenario.Errors)
			if !ok || len(errs) == 0 {
				t.Fatalf("error is %T %v, want a non-empty Errors", err, err)
			}
			for _, d := range errs {
				if d.Msg == "" {
					t.Fatalf("empty message in %v", errs)
				}
			}
			return
		}
		if s.Topology == nil || s.Routes == nil {
			t.Fatalf("valid scenario without topology or routes")
		}
		for i, fl := range s.Flows {
			if fl.ID != i || fl.Src == fl.Dst || fl.Size < 1 {
				t.Fatalf("bad flow %+v", fl)
			}
		}
		// What validate accepts, run builds: every check that can be
		// made before the run is made while loading (issue 25, defect 7).
		if _, err := Build(s); err != nil {
			t.Fatalf("the scenario loads, but Build refuses it: %v", err)
		}
	})
}
