package assembly

import "testing"

// TestCollectiveRootedTuning: NCCL's tuning of broadcast and reduce
// takes the ring's latency on the scale-up domain when the ranks are on
// one server, and once rather than per step when every channel is the
// same ring (tuning.cc's ring branch for them; collective.TestTuneRooted
// works the figures by hand). It had taken n steps of the network's
// latency whatever the nodes and channels, so these calls ran LL (and
// LL128 for 1 MiB) where NCCL's model picks another:
//   - 8 MiB broadcast over one server's 4 GPUs (NVLink 3.6 Tb/s, 450
//     GB/s; 4 channels, rings on rails, not the same): Simple 24.4 µs +
//     18.6 µs against LL's 9.0 + 59.5;
//   - on 8 single-NIC hosts (one ring, 12.25 GB/s): a reduce of 1 MiB
//     runs Simple (22.4 + 85.6 µs against LL128's 18.0 + 93.0), a
//     broadcast of 256 KiB LL128 (18.0 + 23.3 against LL's 9.3 + 42.8).
func TestCollectiveRootedTuning(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"one server", railOptimized + "traffic:\n  - collective: {op: broadcast, hosts: [s0/g0, s0/g1, s0/g2, s0/g3], size: 8MiB, channels: 4}\n", "simple"},
		{"single-NIC reduce", star8 + "traffic:\n  - collective: {op: reduce, size: 1MiB}\n", "simple"},
		{"single-NIC broadcast", star8 + "traffic:\n  - collective: {op: broadcast, size: 256KiB}\n", "ll128"},
	}
	for _, c := range cases {
		files, _ := runScenarioFiles(t, collScenario(t, c.src), 1)
		row := collRows(t, files["collectives.csv"])[0]
		if row["protocol"] != c.want || row["status"] != "completed" {
			t.Errorf("%s: %s, protocol %q, want %s, completed", c.name, row["op"], row["protocol"], c.want)
		}
	}
}
