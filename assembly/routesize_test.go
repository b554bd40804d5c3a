package assembly

import (
	"runtime"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/resolve"
)

// allocated is the bytes allocated so far by the process.
func allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// TestRoutingLimitsBeforeTables: a topology past its routing engine's
// limits is refused while the scenario is read, at the key that chose
// the engine (or set the LMC), before the tables are computed: what
// Parse allocates stays under half of what the tables' spans alone take
// (switches × hosts × 8 bytes while they are built, twice that for an
// OpenSM engine), where it had built them in full, and lash its paths
// too (a 1,000-switch ring: 13 to 46 s and 3.4 GiB before its VLs ran
// out). The traffic is still checked (the unknown host).
func TestRoutingLimitsBeforeTables(t *testing.T) {
	const ib = "switch: {link_layer: infiniband}\n"
	for _, c := range []struct {
		name, src, want string
		spans           float64 // switches × hosts × 16: what the tables' spans take
	}{
		{"lash ring 1000",
			"topology: {kind: ring, switches: 1000, hosts_per_switch: 1}\n" + ib + "subnet_manager: {routing: lash}\ntraffic:\n  - flow: {from: h0, to: x1, size: 1KiB}\n",
			"t.yaml:3:27: subnet_manager.routing: lash lays each switch pair's path, both ways, on a layer and keeps them while it balances the layers: this topology's 1000 switches have 999000 such paths of 250000000 channels in all, more than the 67108864 it takes",
			1000 * 1000 * 16},
		{"lash ring 1100",
			"topology: {kind: ring, switches: 1100, hosts_per_switch: 1}\n" + ib + "subnet_manager: {routing: lash}\ntraffic:\n  - flow: {from: h0, to: x1, size: 1KiB}\n",
			"t.yaml:3:27: subnet_manager.routing: lash lays out at most 1024 switches' paths; this topology has 1100 (minhop, updn and ftree route any size)",
			1100 * 1100 * 16},
		{"dfsssp ring 1100",
			"topology: {kind: ring, switches: 1100, hosts_per_switch: 1}\n" + ib + "subnet_manager: {routing: dfsssp}\ntraffic:\n  - flow: {from: h0, to: x1, size: 1KiB}\n",
			"t.yaml:3:27: subnet_manager.routing: dfsssp lays out at most 1024 hosts' paths; this topology has 1100",
			1100 * 1100 * 16},
		{"dfsssp ring 800",
			"topology: {kind: ring, switches: 800, hosts_per_switch: 1}\n" + ib + "subnet_manager: {routing: dfsssp}\ntraffic:\n  - flow: {from: h0, to: x1, size: 1KiB}\n",
			"t.yaml:3:27: subnet_manager.routing: dfsssp lays each host pair's path on a layer: this topology's 800 hosts have 639200 such paths of 128639200 channels in all",
			800 * 800 * 16},
		{"minhop k=32 lmc 3",
			"topology: {kind: fat-tree, k: 32}\n" + ib + "subnet_manager: {lmc: 3}\ntraffic:\n  - flow: {from: h0, to: x1, size: 1KiB}\n",
			"t.yaml:3:23: subnet_manager.lmc: with LMC 3 the 9472 nodes need LIDs up to 75783; unicast LIDs end at 49151 (0xBFFF): lower lmc",
			1280 * 8192 * 16},
	} {
		runtime.GC()
		before := allocated()
		_, err := resolve.Parse("t.yaml", []byte(c.src))
		took := float64(allocated() - before)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "unknown host x1") {
			t.Errorf("%s: got %v\nwant %s, and the unknown host", c.name, err, c.want)
		}
		t.Logf("%s: Parse allocated %.1f MiB; the spans take %.1f MiB", c.name, took/(1<<20), c.spans/(1<<20))
		if took > c.spans/2 {
			t.Errorf("%s: Parse allocated %.1f MiB before it refused: the tables were built (their spans take %.1f MiB)", c.name, took/(1<<20), c.spans/(1<<20))
		}
	}
}
