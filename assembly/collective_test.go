package assembly

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// collScenario parses a scenario of collectives, failing the test on an
// error.
func collScenario(t testing.TB, src string) *resolve.Scenario {
	t.Helper()
	s, err := resolve.Parse("coll.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// collRows reads collectives.csv's rows as maps by column.
func collRows(t testing.TB, b []byte) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func atoi(t testing.TB, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// goodput is the payload rate of full packets of s's hosts' MTU on a
// link of rate r: rate × MTU / the packet's bytes on the wire (RoCEv2
// at 4096: 4096 of 4178, 98.04 Gb/s at 100 Gb/s).
func goodput(s *resolve.Scenario, r fabric.Rate) float64 {
	mtu := s.HCA.MTU
	return float64(r) * float64(mtu) / float64(s.Wire(fabric.OpWriteMiddle, mtu))
}

const star8 = `
topology: {kind: star, hosts: 8, link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 32MiB, pfc: {priorities: [3], xoff: 96KiB, xon: 80KiB, headroom: auto}}
hca: {mtu: 4096, cc: none, priority: 3}
stop: {at: 100ms, when: flows-done}
`

// TestCollectiveRingAllReduceTime: a ring all-reduce of 64 MiB over 8
// single-NIC hosts on one 100 Gb/s switch takes 2(n-1)/n·S/B, B the
// links' goodput (98.04 Gb/s: RoCEv2 packets of 4096 bytes of payload
// are 4178 bytes on the wire), within 2% below and 8% above (NCCL's
// base latency and per-step latency, and the pipeline's fill and
// drain: nccl-tests' doc/PERFORMANCE.md's bound is for large sizes).
// Every rank sends 2(n-1)/n·S and every byte is accounted for.
func TestCollectiveRingAllReduceTime(t *testing.T) {
	const size = 64 << 20
	for _, proto := range []string{"", "protocol: simple, "} {
		s := collScenario(t, star8+"traffic:\n  - collective: {op: all_reduce, "+proto+"size: 64MiB}\n")
		files, n := runScenarioFiles(t, s, 1)
		rows := collRows(t, files["collectives.csv"])
		if len(rows) != 1 || rows[0]["status"] != "completed" {
			t.Fatalf("collectives.csv: %v", rows)
		}
		const ranks = 8
		b := goodput(s, 100*fabric.Gbps)
		ideal := 2 * float64(ranks-1) / ranks * size * 8 / b // seconds
		got := float64(atoi(t, rows[0]["time_ns"])) / 1e9
		if r := got / ideal; r < 0.98 || r > 1.08 {
			t.Errorf("all-reduce took %.3f ms, %.4f× 2(n-1)/n·S/B (%.3f ms at B = %.2f Gb/s)", got*1e3, r, ideal*1e3, b/1e9)
		}
		var sent int64
		for _, run := range n.colls {
			for _, r := range run.ranks {
				sent += r.Sent
			}
		}
		if sent != 2*(ranks-1)*size {
			t.Errorf("the ranks sent %d bytes, want 2(n-1)·S = %d", sent, 2*(ranks-1)*size)
		}
		assertCollSummary(t, files["summary.json"], 1)
	}
}

// assertCollSummary holds summary.json's conservation and its
// collectives' count.
func assertCollSummary(t testing.TB, summary []byte, completed int) {
	t.Helper()
	if !bytes.Contains(summary, []byte(`"ok": true`)) {
		t.Errorf("conservation failed:\n%s", summary)
	}
	want := []byte(`"completed": ` + strconv.Itoa(completed))
	if i := bytes.Index(summary, []byte(`"collectives"`)); i < 0 || !bytes.Contains(summary[i:], want) {
		t.Errorf("summary.json's collectives do not say %s", want)
	}
}

// leafSpine44 is 4 leaves of 4 hosts under 2 spines: a run that cuts.
const leafSpine44 = `
topology: {kind: leaf-spine, leaves: 4, spines: 2, hosts_per_leaf: 4, link: {rate: 100Gbps, delay: 1us}}
hca: {mtu: 4096, cc: dcqcn}
stop: {at: 50ms, when: flows-done}
`

// fakeServers makes every leaf's hosts a GPU server (resolve.Server)
// with a scale-up domain of 3.2 Tb/s and 300 ns, as the rail-optimized
// topology would: a server's GPUs share a partition (a leaf's hosts go
// with it).
func fakeServers(s *resolve.Scenario, perServer int) {
	var servers []resolve.Server
	hosts := s.Topology.Hosts()
	for i := 0; i+perServer <= len(hosts); i += perServer {
		servers = append(servers, resolve.Server{Name: "s" + strconv.Itoa(len(servers)), GPUs: hosts[i : i+perServer],
			ScaleUp: resolve.ScaleUp{Rate: 3200 * fabric.Gbps, Delay: 300 * sim.Nanosecond}})
	}
	s.SetServers(servers, len(s.Topology.Nodes))
}

// TestCollectiveCutIdentical: collectives cut over two workers write the
// same bytes as on one, over single-NIC hosts and over GPU servers
// (scale-up steps and PXN relays).
func TestCollectiveCutIdentical(t *testing.T) {
	cases := []struct {
		name, traffic string
		servers       bool
	}{
		{"ring all-reduce", "  - collective: {op: all_reduce, size: 4MiB, iterations: 2}\n  - collective: {op: all_gather, size: 1MiB, channels: 3, qps: 2, after: [0]}\n", false},
		{"ring on servers", "  - collective: {op: all_reduce, size: 4MiB, channels: 4}\n  - collective: {op: reduce_scatter, size: 2MiB, rail_aware: false}\n", true},
		{"tree, halving-doubling, broadcast", "  - collective: {op: all_reduce, algorithm: tree, size: 2MiB}\n  - collective: {op: all_reduce, algorithm: halving_doubling, size: 2MiB}\n  - collective: {op: broadcast, size: 1MiB, root: h5}\n", false},
		{"rail-optimized", "  - collective: {op: all_reduce, size: 4MiB, channels: 4}\n  - collective: {op: all_to_all, size: 2MiB}\n  - collective: {op: all_reduce, algorithm: tree, size: 2MiB, channels: 4}\n", false},
		{"all-to-all, reduce, tree on servers", "  - collective: {op: all_to_all, size: 2MiB}\n  - collective: {op: reduce, size: 1MiB, root: h9}\n  - collective: {op: all_reduce, algorithm: tree, size: 2MiB, channels: 4}\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			load := func() *resolve.Scenario {
				top := leafSpine44
				if c.name == "rail-optimized" {
					top = railOptimized
				}
				s := collScenario(t, top+"traffic:\n"+c.traffic)
				if c.servers {
					fakeServers(s, 4)
				}
				return s
			}
			one, _ := runScenarioFiles(t, load(), 1)
			two, n := runScenarioFiles(t, load(), 2)
			if n.Group == nil {
				t.Fatalf("not cut: %s", n.Serial)
			}
			sameFiles(t, c.name, two, one)
			for _, r := range collRows(t, one["collectives.csv"]) {
				if r["status"] != "completed" {
					t.Errorf("%v", r)
				}
			}
			assertCollSummary(t, one["summary.json"], len(collRows(t, one["collectives.csv"])))
		})
	}
}

// TestCollectiveTreeClosedForm: NCCL's double binary tree all-reduce of
// 64 MiB over 8 single-NIC hosts on one 100 Gb/s switch against
// collective/tree.go's closed form, t = 2S/B + 2·D·(c/B + h) + NCCL's
// base latency (D = 3, the trees' depth; c = 512 KiB, a chunk; h the
// step latency NCCL's tuning gives a tree's network step, 14 µs under
// Simple; B the goodput): 11.30 ms. The closed form takes every
// bottleneck host's link busy both ways at once; on the network the
// switch's port to a host shares it among its four tree neighbours in
// arrival order, and the leaves, whose reductions wait for nothing, run
// ahead (tree.go's comment has the numbers). With buffers large enough
// for no PAUSE that costs +7.1% (measured 12.10 ms: the ports 91-93%
// busy, NCCL_STEPS slots binding behind the queues), within 0% below
// and 8% above; with this switch's PFC +10.8% (12.52 ms: the run-ahead
// pauses the bottleneck hosts 11-12% of the call, head-of-line), within
// 0% below and 12% above, and slower than without PAUSE. Against the
// ring: the tree takes longer at this size, and less at 64 KiB over 16
// hosts, where its latency grows with log2(n) and the ring's with n.
func TestCollectiveTreeClosedForm(t *testing.T) {
	const size = 64 << 20
	noPause := strings.Replace(star8, "buffer: 32MiB, pfc: {priorities: [3], xoff: 96KiB, xon: 80KiB", "buffer: 1GiB, pfc: {priorities: [3], xoff: 512MiB, xon: 500MiB", 1)
	var times [2]float64
	for i, c := range []struct {
		name, topo string
		hi         float64
		paused     bool
	}{
		{"no PAUSE", noPause, 1.08, false},
		{"PFC", star8, 1.12, true},
	} {
		s := collScenario(t, c.topo+"traffic:\n  - collective: {op: all_reduce, algorithm: tree, protocol: simple, size: 64MiB}\n")
		files, _ := runScenarioFiles(t, s, 1)
		rows := collRows(t, files["collectives.csv"])
		b := goodput(s, 100*fabric.Gbps) / 8 // bytes per second
		chunk := float64(512 << 10)
		closed := 2*size/b + 2*3*(chunk/b+14e-6) + 8.4e-6
		got := float64(atoi(t, rows[0]["time_ns"])) / 1e9
		times[i] = got
		if r := got / closed; r < 1 || r > c.hi {
			t.Errorf("%s: tree all-reduce took %.3f ms, %.3f× the closed form %.3f ms, want 1 to %.2f", c.name, got*1e3, r, closed*1e3, c.hi)
		}
		var sum struct {
			PFC struct {
				Pauses int64 `json:"pause_frames"`
			} `json:"pfc"`
		}
		if err := json.Unmarshal(files["summary.json"], &sum); err != nil {
			t.Fatal(err)
		}
		if (sum.PFC.Pauses > 0) != c.paused {
			t.Errorf("%s: %d pause frames", c.name, sum.PFC.Pauses)
		}
	}
	if times[0] >= times[1] {
		t.Errorf("the tree took %.3f ms without PAUSE, %.3f with PFC: PFC's head-of-line blocking should cost", times[0]*1e3, times[1]*1e3)
	}
	small := `
topology: {kind: star, hosts: 16, link: {rate: 100Gbps, delay: 1us}}
hca: {mtu: 4096, cc: none}
stop: {at: 10ms, when: flows-done}
traffic:
  - collective: {op: all_reduce, algorithm: tree, protocol: simple, size: 64KiB}
  - collective: {op: all_reduce, algorithm: ring, protocol: simple, size: 64KiB, after: [0]}
`
	files, _ := runScenarioFiles(t, collScenario(t, small), 1)
	rows := collRows(t, files["collectives.csv"])
	if tree, ring := atoi(t, rows[0]["time_ns"]), atoi(t, rows[1]["time_ns"]); tree >= ring {
		t.Errorf("64 KiB over 16 hosts: the tree took %d ns, the ring %d: the tree's log2(n) steps should be faster", tree, ring)
	}
}

// TestCollectiveAllToAllSprayed: an all-to-all of 16 MiB per rank (each
// rank sends 1 MiB to each of the 15 others) on a k=4 fat tree at
// 100 Gb/s with per-packet spraying (and direct placement, so that
// out-of-order packets are not taken for losses) takes at most 1.3× its
// bound, (n-1)/n·S/B: a non-blocking fabric whose every NIC sends and
// receives 15 MiB (measured 1.02×).
func TestCollectiveAllToAllSprayed(t *testing.T) {
	src := `
topology: {kind: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}
switch: {load_balance: spray}
hca: {mtu: 4096, placement: direct}
stop: {at: 20ms, when: flows-done}
traffic:
  - collective: {op: all_to_all, size: 16MiB}
`
	s := collScenario(t, src)
	files, _ := runScenarioFiles(t, s, 1)
	rows := collRows(t, files["collectives.csv"])
	const n, size = 16, 16 << 20
	bound := float64(n-1) / n * size * 8 / goodput(s, 100*fabric.Gbps)
	got := float64(atoi(t, rows[0]["time_ns"])) / 1e9
	if r := got / bound; r < 1 || r > 1.3 {
		t.Errorf("all-to-all took %.3f ms, %.3f× its bound %.3f ms", got*1e3, r, bound*1e3)
	}
	assertCollSummary(t, files["summary.json"], 1)
}

// railOptimized is 4 servers of 4 GPUs on a rail-optimized fabric at
// 100 Gb/s: NIC g of every server on rail switch g, two spines above.
const railOptimized = `
topology: {kind: rail-optimized, servers: 4, gpus_per_server: 4, spines: 2, link: {rate: 100Gbps, delay: 1us}, nvlink: {rate: 3.6Tbps, delay: 600ns}}
hca: {mtu: 4096, cc: dcqcn}
stop: {at: 50ms, when: flows-done}
`

// TestCollectiveRails: on a rail-optimized fabric of 4 servers of 4
// GPUs, a ring all-reduce laid on the rails (NCCL_CROSS_NIC=0's rings,
// leaving each server through a PXN relay) sends nothing up to the
// spines, and nor does a tree; with rail_aware: false (one ring in GPU
// order, each GPU's own NIC) and with rails but no PXN the ring does:
// counted in summary.json's uplinks (the rail switches' ports to the
// spines). The steps inside the servers go through their scale-up
// domains. Cut over two workers.
func TestCollectiveRails(t *testing.T) {
	cases := []struct {
		name, keys string
		spine      bool
	}{
		{"rails with PXN", "", false},
		{"rails without PXN", ", pxn: false", true},
		{"no rails", ", rail_aware: false", true},
		{"tree on rails", ", algorithm: tree", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := collScenario(t, railOptimized+"traffic:\n  - collective: {op: all_reduce, size: 8MiB, channels: 4"+c.keys+"}\n")
			files, n := runScenarioFiles(t, s, 2)
			if n.Group == nil {
				t.Fatalf("not cut: %s", n.Serial)
			}
			if r := collRows(t, files["collectives.csv"]); r[0]["status"] != "completed" {
				t.Fatalf("%v", r)
			}
			var sum struct {
				Uplinks struct {
					MaxBytes int64 `json:"max_bytes"`
				} `json:"uplinks"`
				Collectives struct {
					ScaleUp int64 `json:"scaleup_bytes"`
				} `json:"collectives"`
			}
			if err := json.Unmarshal(files["summary.json"], &sum); err != nil {
				t.Fatal(err)
			}
			if got := sum.Uplinks.MaxBytes; (got > 0) != c.spine {
				t.Errorf("an uplink to a spine carried %d bytes", got)
			}
			if sum.Collectives.ScaleUp == 0 {
				t.Error("nothing went through the servers' scale-up domains")
			}
			assertCollSummary(t, files["summary.json"], 1)
		})
	}
}

// TestCollectiveProtocols: NCCL's protocols put their data on the wire
// as NCCL lays it out, chosen by size as NCCL's tuning chooses them
// (collective.TestTune works the choice out by hand for this fabric):
// a ring all-reduce over 8 hosts of 64 KiB goes under LL, 8-byte lines
// of 4 bytes of data (twice the data on the wire), of 1 MiB under LL128
// (128 bytes for 120 of data), of 64 MiB under Simple (the data); with
// protocol: ll forced at 16 MiB, twice the data goes on the wire and the
// bus bandwidth is under half the link's goodput (98.04 Gb/s): LL's
// 32 KiB steps over the network are store-and-forward, a step's
// latency each (measured 30.2 Gb/s), which is why NCCL keeps LL for
// small sizes. collectives.csv's protocol column names each call's.
func TestCollectiveProtocols(t *testing.T) {
	const n = 8
	cases := []struct {
		size, wire   int64  // the bytes on the wire, for the ranks' 2(n-1)·S of data
		force, proto string // proto: collectives.csv's protocol column
	}{
		{64 << 10, 2 * 2 * (n - 1) * (64 << 10), "", "ll"},
		{1 << 20, 2 * (n - 1) * (1 << 20) / 120 * 128, "", "ll128"},
		{64 << 20, 2 * (n - 1) * (64 << 20), "", "simple"},
		{16 << 20, 2 * 2 * (n - 1) * (16 << 20), ", protocol: ll", "ll"},
	}
	for _, c := range cases {
		src := star8 + fmt.Sprintf("traffic:\n  - collective: {op: all_reduce, size: %d%s}\n", c.size, c.force)
		files, nw := runScenarioFiles(t, collScenario(t, src), 1)
		var wire int64
		for _, run := range nw.colls {
			for _, r := range run.ranks {
				wire += r.SentWire
			}
		}
		// LL128's lines round each step up to whole lines: a few per step.
		if d := wire - c.wire; d < 0 || d > c.wire/100 {
			t.Errorf("%d bytes%s: %d bytes on the wire, want %d", c.size, c.force, wire, c.wire)
		}
		row := collRows(t, files["collectives.csv"])[0]
		if row["protocol"] != c.proto {
			t.Errorf("%d bytes%s: collectives.csv says protocol %q, want %q", c.size, c.force, row["protocol"], c.proto)
		}
		if c.force != "" {
			bus, _ := strconv.ParseFloat(row["busbw_gbps"], 64)
			if bus > 98.04/2 {
				t.Errorf("LL at 16 MiB: busbw %.2f Gb/s, want under half of 98.04", bus)
			}
		}
	}
}

// ncclTable reads nccl_tests.txt's table: by size, the out-of-place
// busbw (GB/s).
func ncclTable(t testing.TB, txt []byte) (sizes []int64, busbw []float64) {
	t.Helper()
	for _, line := range strings.Split(string(txt), "\n") {
		f := strings.Fields(line)
		if len(f) != 13 || strings.HasPrefix(line, "#") {
			continue
		}
		bw, err := strconv.ParseFloat(f[7], 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		sizes, busbw = append(sizes, atoi(t, f[0])), append(busbw, bw)
	}
	return sizes, busbw
}

// knee is the smallest size whose busbw is at least half the last's.
func knee(sizes []int64, busbw []float64) int64 {
	for i, b := range busbw {
		if b >= busbw[len(busbw)-1]/2 {
			return sizes[i]
		}
	}
	return -1
}

// TestNCCLTestsAllReduce: all_reduce_perf from 64 KiB to 64 MiB over 8
// single-NIC hosts on one 100 Gb/s switch prints nccl-tests' table, whose
// busbw at 64 MiB is within 5% of the link's goodput (12.25 GB/s: 98.04
// Gb/s), and whose knee (the smallest size at half the 64 MiB busbw)
// is where NCCL's own cost model (src/graph/tuning.cc with the protocol
// it chooses at each size: collective.Model.Predict) puts it, within a
// factor 2 (one step of the table): the model's at 1 MiB, lfsim's at 2
// MiB, measured.
func TestNCCLTestsAllReduce(t *testing.T) {
	src := strings.Replace(star8, "at: 100ms", "at: 1s", 1) + "traffic:\n  - nccl_tests: {op: all_reduce, minbytes: 64KiB, maxbytes: 64MiB, stepfactor: 2, iters: 2, warmup_iters: 0}\n"
	s := collScenario(t, src)
	files, _ := runScenarioFiles(t, s, 1)
	txt := files["nccl_tests.txt"]
	for _, want := range []string{"# Collective test starting: all_reduce_perf",
		"#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong ",
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         ",
		"    67108864      16777216     float     sum      -1 ", "# Collective test concluded: all_reduce_perf"} {
		if !bytes.Contains(txt, []byte(want)) {
			t.Errorf("nccl_tests.txt lacks %q:\n%s", want, txt)
		}
	}
	sizes, busbw := ncclTable(t, txt)
	if len(sizes) != 11 {
		t.Fatalf("%d sizes in the table, want 11:\n%s", len(sizes), txt)
	}
	b := goodput(s, 100*fabric.Gbps) / 8e9
	if r := busbw[len(busbw)-1] / b; r < 0.95 || r > 1 {
		t.Errorf("busbw at 64 MiB %.2f GB/s, %.3f× the goodput %.2f GB/s", busbw[len(busbw)-1], r, b)
	}
	m := collective.Model{Ranks: 8, Nodes: 8, Channels: 2, BusBw: b}
	var model []float64
	for _, sz := range sizes {
		p := m.Tune(collective.AllReduce, collective.Ring, sz)
		model = append(model, float64(sz)/1e3/m.Predict(collective.AllReduce, collective.Ring, p, sz)*2*7/8)
	}
	got, want := knee(sizes, busbw), knee(sizes, model)
	if got > 2*want || got < want/2 {
		t.Errorf("the knee is at %d bytes, NCCL's model puts it at %d (busbw %v, model %v)", got, want, busbw, model)
	}
	if n := len(collRows(t, files["collectives.csv"])); n != 11*2*3 {
		t.Errorf("collectives.csv has %d rows, want 66 (a synchronising call and 2 timed, out of place and in place, per size)", n)
	}
}

// TestNCCLTestsCutIdentical: nccl_tests (its barriers released at the
// observation points) writes the same bytes at 1 and 2 workers.
func TestNCCLTestsCutIdentical(t *testing.T) {
	src := leafSpine44 + "traffic:\n  - nccl_tests: {op: all_gather, minbytes: 1KiB, maxbytes: 1MiB, stepfactor: 8, iters: 3, warmup_iters: 1}\n  - nccl_tests: {op: all_to_all, hosts: [h0, h5, h10, h15], minbytes: 64KiB, maxbytes: 64KiB, iters: 2}\n"
	one, _ := runScenarioFiles(t, collScenario(t, src), 1)
	two, n := runScenarioFiles(t, collScenario(t, src), 2)
	if n.Group == nil {
		t.Fatalf("not cut: %s", n.Serial)
	}
	sameFiles(t, "nccl_tests", two, one)
	if sizes, _ := ncclTable(t, one["nccl_tests.txt"]); len(sizes) != 5 {
		t.Errorf("%d lines in the tables, want 4 + 1:\n%s", len(sizes), one["nccl_tests.txt"])
	}
}

// TestCollectiveTuningRails: NCCL's tuning counts every NIC a collective's
// channels use. A ring all-reduce of 16 MiB on the rail-optimized fabric
// of 4 servers of 4 GPUs at 100 Gb/s, 4 channels (one a rail): NCCL's
// model (tuning.cc; ppn 4: 24 NVLink steps and 6 network steps) with the
// four NICs' 49 GB/s gives LL128 783 µs against Simple's 887 (Simple's
// latency (8.4 + 24·3.4 + 6·14)·1.4 = 243.6 µs, LL128's 14 + 24·1.9 +
// 6·4.0 = 83.6 µs; bandwidths 26.1 and 24.0 GB/s): the steps go as
// LL128's 128-byte lines. With one NIC's 12.25 GB/s it would pick Simple
// (2,813 µs against 2,875).
func TestCollectiveTuningRails(t *testing.T) {
	s := collScenario(t, railOptimized+"traffic:\n  - collective: {op: all_reduce, size: 16MiB, channels: 4}\n")
	_, n := runScenarioFiles(t, s, 1)
	var data, wire int64
	for _, r := range n.colls[0].ranks {
		data += r.Sent
		wire += r.SentWire
	}
	if got := float64(wire) / float64(data); got < 1.06 || got > 1.07 {
		t.Errorf("%.4f bytes on the wire per byte of data, want LL128's 128/120 = 1.0667", got)
	}
}
