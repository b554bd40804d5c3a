package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: any sweep file is refused with an error, or gives between 1
// and a million points, each of which makes its scenario or an error.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"base: single-write\nvary:\n  hca.mtu: [1024, 4096]\n",
		"base: single-write\nvary: {hca.mtu: [1024]}\nrepeat: 3\n",
		"base: b.yaml\nvary:\n  traffic[0].flow.size: [1KiB, 2KiB]\n  switch.ecn: [{kmin: 1KiB, kmax: 9KiB}, off]\n",
		"base: incast-8to1\nvary:\n  topology.hosts: [3, 9]\n",
		"vary: {a: [1]}\n", "base: [x]\n", "base: single-write\nvary: {'': [1]}\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("topology: {kind: star, hosts: 3}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB}\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	file := filepath.Join(dir, "s.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		sw, err := Parse(file, data)
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "s.yaml") && !strings.Contains(msg, ".yaml") && !strings.Contains(msg, "example") {
				t.Fatalf("error naming no file: %v", err)
			}
			return
		}
		if len(sw.Points) == 0 || len(sw.Points) > 1_000_000 {
			t.Fatalf("%d points", len(sw.Points))
		}
		// Each value loads alone (Parse checks it); a combination may
		// still be refused, with an error, never a panic.
		for _, p := range sw.Points[:min(len(sw.Points), 4)] {
			_, _, _ = sw.PointScenario(p)
			_ = sw.PointName(p)
		}
	})
}
