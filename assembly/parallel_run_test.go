package assembly

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenarios"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// runFiles builds src for workers workers, runs it and writes what the
// run writes into a new folder, and returns each file's bytes by name
// (summary.json without its wall_seconds, which no run repeats).
func runFiles(t testing.TB, src string, workers int) (map[string][]byte, *Network) {
	t.Helper()
	s, err := resolve.Parse("cut.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return runScenarioFiles(t, s, workers)
}

// runScenarioFiles is runFiles for a scenario already loaded.
func runScenarioFiles(t testing.TB, s *resolve.Scenario, workers int) (map[string][]byte, *Network) {
	t.Helper()
	return runScenarioFilesWith(t, s, workers, nil)
}

// runScenarioFilesWith is runScenarioFiles with set, when not nil, given
// the network before it runs.
func runScenarioFilesWith(t testing.TB, s *resolve.Scenario, workers int, set func(*Network)) (map[string][]byte, *Network) {
	t.Helper()
	n, err := BuildWorkers(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	if set != nil {
		set(n)
	}
	res := n.Run(nil)
	res.Summary.WallSeconds = 0
	dir := t.TempDir()
	if err := reports.WriteRun(dir, res); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files, n
}

// cutCases are scenarios that can be cut, for the tests of the cut run.
var cutCases = []struct{ name, src string }{
	{"k4 pfc permutation", "topology: {kind: fat-tree, k: 4}\nstop: {at: 300us, when: flows-done}\nhca: {cc: none}\ntraffic:\n  - permutation: {hosts: all, size: 256KiB}\n"},
	{"k4 hpcc all-to-all, pcaps", "topology: {kind: fat-tree, k: 4}\nstop: {at: 150us}\nhca: {cc: hpcc}\nobserve: {interval: 5us, pcap: [h0, h5, s16:p0, s17:p3]}\ntraffic:\n  - all_to_all: {size: 64KiB}\n"},
	{"k8 dcqcn permutation", "topology: {kind: fat-tree, k: 8}\nstop: {at: 200us}\nhca: {cc: dcqcn}\nobserve: {interval: 3us}\ntraffic:\n  - permutation: {hosts: all, size: 1MiB}\n"},
	// rdma_cm: REQ, REP and RTU cross the links as MADs, and each host's
	// listener finds its flows' responders among its own.
	{"k4 rdma_cm permutation", "topology: {kind: fat-tree, k: 4}\nstop: {at: 2ms, when: flows-done}\ntraffic:\n  - permutation: {hosts: all, size: 64KiB, connect: cm}\n"},
	// rdma_cm over iw_cm: the NIC's SYN, MPA Request and Reply, and the
	// close (FIN, FIN-ACK, last ACK) cross the links between partitions;
	// each responder closes on its FIN's DISCONNECTED (all have by 3 ms:
	// the connections take 1.83 ms, the flows and closes microseconds).
	{"k4 iWARP rdma_cm permutation, pcap", "topology: {kind: fat-tree, k: 4}\nstop: {at: 3ms}\nhca: {transport: iwarp}\nobserve: {pcap: [h0]}\ntraffic:\n  - permutation: {hosts: all, size: 64KiB, connect: cm}\n"},
	// Flows that wait for others: each step of a ring all-reduce starts
	// at its source when the step before has arrived there, and makes its
	// responder's side a lookahead later at the next host of the ring,
	// in another pod (responderResv); WRITEs, and SENDs with their RECVs.
	{"k4 ring all-reduce writes, pcaps", "topology: {kind: fat-tree, k: 4}\nstop: {at: 5ms, when: flows-done}\nobserve: {pcap: [h0, h5]}\ntraffic:\n  - ring_allreduce: {hosts: [h0, h5, h10, h15, h3, h12], size: 192KiB}\n"},
	// UC and UD flows without PFC: buffers overflow, a link loses 1%, UC
	// messages missing a packet are given up; drops and copies are noted
	// where they happen and applied at points (ledger), where a flow
	// whose every byte was delivered or lost is done.
	{"k4 lossy UC and UD", "topology: {kind: fat-tree, k: 4}\nstop: {at: 3ms, when: flows-done}\nswitch: {buffer: 256KiB, pfc: {priorities: []}}\nhca: {cc: none}\n" +
		"faults:\n  - {at: 0, link: [s0, h0], action: loss, rate: 1%}\ntraffic:\n  - incast: {to: h0, from: [h5, h10, h15, h6, h9], size: 256KiB, qp: uc}\n" +
		"  - incast: {to: h12, from: [h1, h2, h7, h11], size: 4KiB, qp: ud, op: send}\n  - poisson: {hosts: [h3, h8], to: h14, load: 60%, sizes: 4096, qp: ud, op: send, until: 200us}\n"},
	// Programs between pods, each side on its own host's worker: perftest
	// (bandwidth and latency), pingpong (UD and RC), rping with rdma_cm,
	// mckey to receivers in three pods, beside two RC flows.
	{"k4 programs", "topology: {kind: fat-tree, k: 4}\nstop: {at: 4s, when: flows-done}\nobserve: {interval: 1ms}\ntraffic:\n" +
		"  - flow: {from: h4, to: h9, size: 1MiB}\n  - flow: {from: h10, to: h7, size: 1MiB}\n" +
		"  - perftest: {test: write_bw, from: h0, to: h15, size: 64KiB, iterations: 50, qps: 2}\n  - perftest: {test: send_lat, from: h2, to: h13, size: 64, iterations: 20}\n" +
		"  - pingpong: {from: h1, to: h14, qp: ud, size: 1024, iterations: 10}\n  - pingpong: {from: h6, to: h11, qp: rc, size: 64, iterations: 20}\n" +
		"  - rping: {client: h3, server: h12, count: 10, size: 64, connect: cm}\n  - mckey: {sender: h5, receivers: [h8, h11, h14], count: 20, size: 1KiB}\n"},
	// A ring of UC WRITEs and one of UD SENDs: datagram flows that wait
	// for others reserve their requester's QP number too, for the ledger.
	{"k4 ring all-reduce UC and UD", "topology: {kind: fat-tree, k: 4}\nstop: {at: 5ms, when: flows-done}\ntraffic:\n" +
		"  - ring_allreduce: {hosts: [h0, h5, h10, h15], size: 64KiB, qp: uc}\n  - ring_allreduce: {hosts: [h3, h12, h6, h9], size: 16KiB, qp: ud, op: send}\n"},
	// On 3 us links a UD SEND or a small UC WRITE is sent before its
	// responder's side is made (a lookahead after the start): the flow
	// must wait for it, and one whose bytes are all lost first (h0's
	// link loses half) must not make it (closeResponder, openResponder).
	// The first crashed once.
	{"k4 rings on slow links", "topology: {kind: fat-tree, k: 4, link: {rate: 100Gbps, delay: 3us}}\nstop: {at: 5ms, when: flows-done}\nfaults:\n  - {at: 0, link: [s0, h0], action: loss, rate: 50%}\ntraffic:\n" +
		"  - ring_allreduce: {hosts: [h3, h12, h6, h9], size: 256, qp: ud, op: send}\n  - ring_allreduce: {hosts: [h0, h5, h10, h15], size: 1KiB, qp: uc}\n"},
	// A ring connected by rdma_cm: the listeners are up from the build,
	// and each REQ finds its responder made at its host (each connection
	// takes 1.8 ms: the ring needs 11).
	{"k4 ring all-reduce rdma_cm", "topology: {kind: fat-tree, k: 4}\nstop: {at: 20ms, when: flows-done}\ntraffic:\n" +
		"  - ring_allreduce: {hosts: [h0, h5, h10, h15], size: 64KiB, connect: cm}\n"},
	{"k4 ring all-reduce sends", "topology: {kind: fat-tree, k: 4}\nstop: {at: 5ms, when: flows-done}\ntraffic:\n  - ring_allreduce: {hosts: [h0, h5, h10, h15, h3, h12], size: 192KiB, op: send}\n"},
	// A mixed network (issue 47's VPI): four hosts each with an
	// InfiniBand port on ib0 or ib1 and an Ethernet port on eth0 or
	// eth1, all-to-all on the InfiniBand side (credits) and a
	// permutation on the Ethernet side (PFC, DCQCN) at once.
	{"vpi mixed fabrics", "topology:\n  kind: explicit\n  hosts: [h0, h1, h2, h3]\n  switches: [{name: ib0, switch: {link_layer: infiniband}}, {name: ib1, switch: {link_layer: infiniband}}, eth0, eth1]\n" +
		"  links: [[h0, ib0], [h1, ib0], [h2, ib1], [h3, ib1], [ib0, ib1], [h0, eth0], [h1, eth0], [h2, eth1], [h3, eth1], [eth0, eth1]]\n" +
		"stop: {at: 1ms, when: flows-done}\nobserve: {interval: 5us}\ntraffic:\n  - all_to_all: {size: 64KiB}\n" +
		"  - flow: {from: h0, to: h3, size: 256KiB, port: 2}\n  - flow: {from: h1, to: h2, size: 256KiB, port: 2}\n  - flow: {from: h2, to: h0, size: 256KiB, port: 2}\n  - flow: {from: h3, to: h1, size: 256KiB, port: 2}\n"},
	// GPU servers (issue 48): a rail-optimized fabric of one scalable
	// unit, cut server by server and switch by switch (its GPUs' links
	// between partitions), a GPU's capture among them; and one of three
	// units, cut unit by unit at 2 and 3 workers, server by server at 8.
	{"rail-optimized 4x4 all-to-all, pcap", "topology: {kind: rail-optimized, servers: 4, gpus_per_server: 4, spines: 2, link: {rate: 100Gbps, delay: 1us}}\nstop: {at: 2ms, when: flows-done}\nobserve: {pcap: [s1/g2, \"rail0->s0/g0\"]}\ntraffic:\n  - all_to_all: {size: 16KiB}\n"},
	{"rail-optimized three units", "topology: {kind: rail-optimized, servers: 6, gpus_per_server: 2, servers_per_rail_switch: 2, spines: 2, link: {delay: 1us}}\nstop: {at: 2ms, when: flows-done}\ntraffic:\n  - permutation: {hosts: all, size: 256KiB}\n"},
}

// TestCutRunMatchesOneWorker: issue 31's determinism with the real models
// and observers. Fat trees' permutations and all-to-all of RC WRITEs
// (PFC, DCQCN with ECN, HPCC with INT; samples every 3 or 5 us, which
// are not window ends; pcaps of cables whose ends are in different
// partitions, INT headers in them) run cut into 2, 3 and 8 partitions write the same
// bytes as on one engine: summary.json (but wall_seconds), flows.csv,
// timeseries.csv, pfc.csv and the rest. Without the hand-over's sort the
// first case already differs (tried when the test was written).
func TestCutRunMatchesOneWorker(t *testing.T) {
	cases := cutCases
	if testing.Short() {
		cases = cases[:1]
	}
	for _, c := range cases {
		want, one := runFiles(t, c.src, 1)
		if look := sim.Microsecond * sim.Time(1+2*strings.Count(c.name, "slow links")); one.Group != nil || one.Eng.Lookahead() != look {
			t.Fatalf("%s: one worker runs a group, or its lookahead is %v, not the links' %v", c.name, one.Eng.Lookahead(), look)
		}
		if len(want["pfc.csv"]) < 100 && c.name == "k4 pfc permutation" {
			t.Errorf("%s: pfc.csv holds no frame; the case should pause", c.name)
		}
		if strings.Contains(c.src, "pcap: [h0") && len(want["h0.pcap"]) < 10000 {
			t.Errorf("%s: h0.pcap holds %d bytes; the case should capture", c.name, len(want["h0.pcap"]))
		}
		if strings.HasPrefix(c.name, "k4 iWARP") {
			open := 0
			for _, m := range one.dyn.resps {
				open += len(m)
			}
			if !one.flowsDone() || len(one.Flows) != 16 || open != 0 || !bytes.Contains(want["summary.json"], []byte(`"errors": []`)) {
				t.Errorf("%s: done %v, %d flows, %d responders open; every flow should complete, conserve its bytes and close:\n%s", c.name, one.flowsDone(), len(one.Flows), open, want["summary.json"])
			}
		}
		if c.name == "k4 ring all-reduce rdma_cm" && (!one.flowsDone() || len(one.Flows) != 2*3*4 || !bytes.Contains(want["summary.json"], []byte(`"established": 24`))) {
			t.Errorf("%s: %d flows, done %v; the ring's 24 steps should all connect and complete", c.name, len(one.Flows), one.flowsDone())
		} else if c.name == "k4 ring all-reduce UC and UD" && (!one.flowsDone() || len(one.Flows) != 2*2*3*4) {
			t.Errorf("%s: %d flows, done %v; both rings' 24 steps should all complete", c.name, len(one.Flows), one.flowsDone())
		} else if strings.Contains(c.src, "ring_allreduce") && !strings.HasPrefix(c.name, "k4 ring all-reduce UC") && c.name != "k4 ring all-reduce rdma_cm" && c.name != "k4 rings on slow links" && (!one.flowsDone() || len(one.Flows) != 2*5*6) {
			t.Errorf("%s: %d flows, done %v; the ring's 60 steps should all complete", c.name, len(one.Flows), one.flowsDone())
		}
		if c.name == "k4 rings on slow links" {
			// Some flow's bytes were all lost before its responder's side
			// was to be made; no responder is left open (the flows after
			// a lost step never start; the others all end).
			early := false
			for _, fr := range one.Flows {
				early = early || fr.dataDone && fr.lost == fr.Flow.Size && fr.dataDoneAt-fr.Flow.Start < 3*sim.Microsecond
			}
			for h, m := range one.dyn.resps {
				if len(m) != 0 {
					t.Errorf("%s: node %d has %d responders open at the end", c.name, h, len(m))
				}
			}
			if !early {
				t.Errorf("%s: no flow lost all its bytes before its responder opened; the case should", c.name)
			}
		}
		if strings.HasPrefix(c.name, "rail-optimized 4x4") && (len(want["s1_g2.pcap"]) < 10000 || len(want["rail0_p0.pcap"]) < 10000) {
			t.Errorf("%s: s1_g2.pcap holds %d bytes, rail0_p0.pcap %d; the case should capture both", c.name, len(want["s1_g2.pcap"]), len(want["rail0_p0.pcap"]))
		}
		if c.name == "k4 programs" {
			out := string(want["perftest.txt"])
			if strings.Contains(out, "incomplete") || strings.Contains(out, "failed") || strings.Count(out, "test complete") != 4 || !strings.Contains(out, "client DISCONNECT EVENT") {
				t.Errorf("%s: every program should finish (mckey's four hosts, rping's disconnect):\n%s", c.name, out)
			}
		}
		if strings.Contains(c.name, "lossy") {
			for _, reason := range []string{`"egress"`, `"loss"`, `"uc_incomplete"`, `"stop_reason": "flows-done"`} {
				if !bytes.Contains(want["summary.json"], []byte(reason)) {
					t.Errorf("%s: summary.json has no %s; the case should drop for it and finish", c.name, reason)
				}
			}
			// Flow 1 lost bytes, and its responder's last progress came
			// after its last drop: it ends then, at 64,678 ns, as when
			// drops were applied at once (the build before
			// settleDatagrams); its last drop's time alone gives 64,146.
			if row := "\n1,h10,h0,uc,write,262144,0,0,64678,"; !bytes.Contains(want["flows.csv"], []byte(row)) {
				t.Errorf("%s: flows.csv has no row %q", c.name, row[1:])
			}
		}
		for _, w := range []int{2, 3, 8} {
			got, n := runFiles(t, c.src, w)
			if n.Group == nil || n.plan.parts < 2 {
				t.Fatalf("%s, %d workers: not cut (%s)", c.name, w, n.Serial)
			}
			sameFiles(t, fmt.Sprintf("%s, %d workers (%v) against one", c.name, w, n.plan), got, want)
		}
	}
}

// TestEveryScenarioAnyWorkers: every example, lab and bench scenario,
// cut short (300 us, the bench's 100 us), writes the same bytes at 1, 2,
// 3 and 8 workers (issue 31). Those that run on one worker whatever is
// asked (Network.Serial) are named with their reason and not run again:
// they run the one engine every time. -short leaves the bench out and
// compares 3 workers (cuts of unequal size) with one, not 2 and 8.
func TestEveryScenarioAnyWorkers(t *testing.T) {
	type named struct {
		name string
		load func() (*resolve.Scenario, error)
	}
	var all []named
	for _, ex := range scenarios.Examples() {
		all = append(all, named{ex.Name, func() (*resolve.Scenario, error) { return resolve.LoadExample(ex.Name) }})
	}
	for _, l := range scenarios.Labs() {
		for _, sc := range l.Scenarios {
			all = append(all, named{sc, func() (*resolve.Scenario, error) { return resolve.LoadExample(sc) }})
		}
	}
	if !testing.Short() {
		files, _ := fs.Glob(scenarios.Bench, "*.yaml")
		for _, f := range files {
			all = append(all, named{"bench/" + f, func() (*resolve.Scenario, error) {
				b, err := fs.ReadFile(scenarios.Bench, f)
				if err != nil {
					return nil, err
				}
				return resolve.Parse(f, b)
			}})
		}
	}
	cut := 0
	for _, sc := range all {
		load := func() *resolve.Scenario {
			s, err := sc.load()
			if err != nil {
				t.Fatal(err)
			}
			limit := 300 * sim.Microsecond
			if strings.HasPrefix(sc.name, "bench/") {
				limit = 100 * sim.Microsecond
			}
			s.Stop.At = min(s.Stop.At, limit)
			return s
		}
		probe, err := BuildWorkers(load(), 8)
		if err != nil {
			t.Fatal(err)
		}
		if probe.Serial != "" {
			t.Logf("%s: one worker: %s", sc.name, probe.Serial)
			continue
		}
		cut++
		want, _ := runScenarioFiles(t, load(), 1)
		workers := []int{2, 3, 8}
		if testing.Short() {
			workers = []int{3}
		}
		for _, w := range workers {
			got, n := runScenarioFiles(t, load(), w)
			sameFiles(t, fmt.Sprintf("%s, %d workers (%v) against one", sc.name, w, n.plan), got, want)
		}
	}
	if cut == 0 {
		t.Errorf("no scenario was cut: the test compares nothing")
	}
	t.Logf("%d of %d scenarios cut and compared", cut, len(all))
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range max(len(la), len(lb)) {
		var x, y []byte
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if !bytes.Equal(x, y) {
			return fmt.Sprintf("line %d:\n  %s\nwant\n  %s", i+1, x, y)
		}
	}
	return "(equal)"
}

// BenchmarkCutRun: the suite's k=16 permutation (bench/
// fattree-k16-permutation.yaml) for its first millisecond, observers and
// all, on 1 and 2 workers (issue 31's goal: 2 workers at least 1.6
// times as fast). Compare the ns/op of the two, alternated (-count).
func BenchmarkCutRun(b *testing.B) {
	src := "topology: {kind: fat-tree, k: 16, link: {rate: 100Gbps, delay: 1us}}\nstop: {at: 1ms}\nobserve: {interval: 100us, queues: none, flows: none, links: none}\ntraffic:\n  - permutation: {hosts: all, size: 8MB}\n"
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s, err := resolve.Parse("k16.yaml", []byte(src))
				if err != nil {
					b.Fatal(err)
				}
				n, err := BuildWorkers(s, w)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				n.Run(nil)
			}
		})
	}
}

// TestTooManyDelaysRunsOnOne: a network whose links have more distinct
// delays than the engine has lanes for (sim.MaxLanes) cannot hand its
// arrivals over in order, so it runs on one worker and says why (it used
// to be cut, with outputs unlike one worker's, or to panic).
func TestTooManyDelaysRunsOnOne(t *testing.T) {
	var b strings.Builder
	b.WriteString("stop: {at: 50us}\ntopology:\n  kind: explicit\n  switches: [s0]\n  hosts: [")
	for i := 0; i < 70; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "h%d", i)
	}
	b.WriteString("]\n  links:\n")
	for i := 0; i < 70; i++ {
		fmt.Fprintf(&b, "    - {a: h%d, b: s0, delay: %dns}\n", i, 1000+i)
	}
	b.WriteString("traffic:\n  - permutation: {hosts: all, size: 64KiB}\n")
	want, _ := runFiles(t, b.String(), 1)
	got, n := runFiles(t, b.String(), 2)
	if n.Group != nil || !strings.Contains(n.Serial, "distinct delays") {
		t.Fatalf("cut (%v), serial %q; want one worker, saying why", n.plan, n.Serial)
	}
	if !bytes.Equal(got["summary.json"], want["summary.json"]) {
		t.Errorf("summary.json differs")
	}
}
