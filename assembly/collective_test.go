package assembly

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"testing"

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
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			load := func() *resolve.Scenario {
				s := collScenario(t, leafSpine44+"traffic:\n"+c.traffic)
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
