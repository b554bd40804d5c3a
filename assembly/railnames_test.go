package assembly

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/reports"
)

// TestGPUNamesInOutputs: a rail-optimized fabric's GPUs, named with a
// '/' (s0/g0), are named so wherever a file or an output names a host:
// a flow's from and to, an incast's list, a fault's link, observe's
// ports (node->peer and node:pN), a capture (written s1_g1.pcap, a '/'
// being a folder), flows.csv and timeseries.csv; the run keeps every
// byte. (Links of 1 µs, the generator's default until 2026-12-06: at
// 250 ns the flows end before the fault and the first sample, and
// timeseries.csv names no port.)
func TestGPUNamesInOutputs(t *testing.T) {
	src := `topology: {kind: rail-optimized, servers: 2, gpus_per_server: 2, spines: 1, link: {delay: 1us}}
stop: {at: 1ms, when: flows-done}
traffic:
  - flow: {from: s0/g0, to: s1/g0, size: 64KiB}
  - incast: {to: s1/g1, from: [s0/g1, s0/g0], size: 64KiB}
faults:
  - {at: 5us, link: [rail0, s0/g0], action: loss, rate: 1%}
observe:
  queues: ["rail1->s1/g1", "s0/g0:p0"]
  pcap: [s1/g1]
`
	_, r := runConserved(t, "GPU names", "t.yaml", src, 1)
	dir := t.TempDir()
	if err := reports.WriteRun(dir, r); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, name := range []string{"flows.csv", "timeseries.csv", "topology.json", "s1_g1.pcap"} {
		files[name], _ = os.ReadFile(filepath.Join(dir, name))
	}
	for _, c := range []struct{ file, want string }{
		{"flows.csv", "\n0,s0/g0,s1/g0,rc,write,65536,65536,"},
		{"flows.csv", "\n2,s0/g0,s1/g1,rc,write,65536,65536,"},
		{"timeseries.csv", ",queue_bytes,rail1:p1:3,"},
		{"timeseries.csv", ",paused,s0/g0:p0:3,"},
		{"topology.json", `"gpus": [`},
	} {
		if !strings.Contains(string(files[c.file]), c.want) {
			t.Errorf("%s has no %q", c.file, c.want)
		}
	}
	if len(files["s1_g1.pcap"]) < 1000 {
		t.Errorf("s1_g1.pcap holds %d bytes; the capture of s1/g1 should hold its frames", len(files["s1_g1.pcap"]))
	}
}
