package assembly

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lfsim/lfsim/chakra"
	"github.com/lfsim/lfsim/chakra/etdef"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// TestChakraMicrobenchmarks replays ASTRA-sim's Chakra microbenchmark
// traces (scenarios/examples/chakra-microbenchmarks: all_reduce,
// all_gather, reduce_scatter and all_to_all at 4, 8 and 16 NPUs, 1 MiB
// each) on a leaf-spine of as many hosts, at 1 and 2 workers: every
// rank finishes its one iteration, the one collective completes with
// the size nccl-tests prints (all_gather: n × comm_size), every byte is
// accounted for (summary.json's conservation) and the two runs write
// the same bytes.
func TestChakraMicrobenchmarks(t *testing.T) {
	for _, op := range []string{"all_reduce", "all_gather", "reduce_scatter", "all_to_all"} {
		for _, n := range []int{4, 8, 16} {
			t.Run(fmt.Sprintf("%s/%d", op, n), func(t *testing.T) {
				leaves := max(2, n/4)
				src := fmt.Sprintf(`
topology: {kind: leaf-spine, leaves: %d, spines: 2, hosts_per_leaf: %d, link: {rate: 100Gbps, delay: 1us}}
hca: {mtu: 4096, cc: dcqcn}
stop: {at: 50ms, when: flows-done}
traffic:
  - chakra: {trace: chakra-microbenchmarks/%s/%dnpus_1MB/%s}
`, leaves, n/leaves, op, n, op)
				want := int64(1 << 20)
				if op == "all_gather" {
					want *= int64(n)
				}
				var runs []map[string][]byte
				for _, w := range []int{1, 2} {
					s, err := resolve.Parse("../scenarios/examples/chakra.yaml", []byte(src))
					if err != nil {
						t.Fatal(err)
					}
					files, net := runScenarioFiles(t, s, w)
					if w == 2 && net.Group == nil {
						t.Fatal("the run was not cut")
					}
					for _, k := range net.jobs[0].ranks {
						if k.iter != 1 {
							t.Fatalf("%d workers: rank %d did %d of 1 iteration", w, k.r, k.iter)
						}
					}
					rows := collRows(t, files["collectives.csv"])
					if len(rows) != 1 || rows[0]["status"] != "completed" || rows[0]["size_bytes"] != fmt.Sprint(want) || rows[0]["ranks"] != fmt.Sprint(n) {
						t.Fatalf("%d workers: collectives.csv %v, want one completed call of %d bytes over %d ranks", w, rows, want, n)
					}
					assertCollSummary(t, files["summary.json"], 1)
					runs = append(runs, files)
				}
				for name, b := range runs[0] {
					if string(runs[1][name]) != string(b) {
						t.Errorf("%s differs at 1 and 2 workers", name)
					}
				}
			})
		}
	}
}

// chakraFile writes a rank's Chakra trace (chakra.Encode) to path.
func chakraFile(t *testing.T, path string, nodes ...*etdef.Node) {
	t.Helper()
	out, err := chakra.Encode(nodes...)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func chakraAttr(name string, v int64) *etdef.AttributeProto {
	return &etdef.AttributeProto{Name: name, Value: &etdef.AttributeProto_Int64Val{Int64Val: v}}
}

// TestChakraCriticalPath: a hand-built four-rank Chakra trace, compute
// (20 µs, duration_micros) → all-reduce (1 MiB) → compute (30 µs) on
// every rank, with rank 0 sending 2 MiB to rank 1 (COMM_SEND and
// COMM_RECV of tag 7) after the all-reduce and rank 1's second compute
// waiting on the receive (a ctrl_dep, the others data_deps), takes its
// critical path in each of 2 iterations, within 1%: 20 µs + the
// all-reduce (from its last rank's call to its end at rank 0, as the
// simulated call took) + the message (2 MiB at the link's goodput,
// one MTU packet's store and forward at the switch, two links' 1 µs) +
// 30 µs. Without the receive's dependency it would end 30 µs after the
// all-reduce; without the compute's durations, 50 µs early.
func TestChakraCriticalPath(t *testing.T) {
	const c1, c2 = 20 * sim.Microsecond, 30 * sim.Microsecond
	const reduce, p2p = 1 << 20, 2 << 20
	dir := t.TempDir()
	for r := range 4 {
		nodes := []*etdef.Node{
			{Id: 1, Name: "fwd", Type: etdef.NodeType_COMP_NODE, DurationMicros: 20},
			{Id: 2, Name: "allreduce", Type: etdef.NodeType_COMM_COLL_NODE, DataDeps: []uint64{1},
				Attr: []*etdef.AttributeProto{chakraAttr("comm_type", int64(etdef.CollectiveCommType_ALL_REDUCE)), chakraAttr("comm_size", reduce)}},
			{Id: 3, Name: "bwd", Type: etdef.NodeType_COMP_NODE, DurationMicros: 30, DataDeps: []uint64{2}},
		}
		switch r {
		case 0:
			nodes = append(nodes, &etdef.Node{Id: 4, Name: "send", Type: etdef.NodeType_COMM_SEND_NODE, DataDeps: []uint64{2},
				Attr: []*etdef.AttributeProto{chakraAttr("comm_dst", 1), chakraAttr("comm_tag", 7), chakraAttr("comm_size", p2p)}})
		case 1:
			nodes = append(nodes, &etdef.Node{Id: 4, Name: "recv", Type: etdef.NodeType_COMM_RECV_NODE, DataDeps: []uint64{2},
				Attr: []*etdef.AttributeProto{chakraAttr("comm_src", 0), chakraAttr("comm_tag", 7), chakraAttr("comm_size", p2p)}})
			nodes[2].CtrlDeps = []uint64{4}
		}
		chakraFile(t, filepath.Join(dir, fmt.Sprintf("hand.%d.et", r)), nodes...)
	}
	s, err := resolve.Parse(filepath.Join(dir, "hand.yaml"), []byte(star4+`
traffic:
  - chakra: {trace: hand, ranks: [h0, h1, h2, h3], iterations: 2}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, n := runScenarioFiles(t, s, 1)
	assertCriticalPath(t, s, n.jobs[0], 1, p2p, c1, c2) // the all-reduce is node 1 of each rank (by id)
}

// TestChakraProcessGroups: collectives over process groups. Four ranks;
// ranks 0 and 1 all-reduce 256 KiB in group "1" and ranks 2 and 3
// all-gather 64 KiB each in group "2" (the communicator-group file),
// then all four meet in a BARRIER (pg_name "0", every rank) and rank 0
// gathers 4 KiB from each (no pg_name: every rank). The calls are
// collectives.csv's rows over the groups' ranks (in any order): the
// all-reduce over 2 ranks of 262144 bytes, the all-gather over 2 of
// 131072 (2 × 64 KiB), the barrier an all-reduce over 4 of 4 bytes; the
// gather is three sends to rank 0, which every rank finishes.
func TestChakraProcessGroups(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "groups.json"), []byte(`{"1": [0, 1], "2": [2, 3]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	coll := func(id uint64, typ etdef.CollectiveCommType, size int64, pg string, deps ...uint64) *etdef.Node {
		n := &etdef.Node{Id: id, Name: typ.String(), Type: etdef.NodeType_COMM_COLL_NODE, DataDeps: deps,
			Attr: []*etdef.AttributeProto{chakraAttr("comm_type", int64(typ)), chakraAttr("comm_size", size)}}
		if pg != "" {
			n.Attr = append(n.Attr, &etdef.AttributeProto{Name: "pg_name", Value: &etdef.AttributeProto_StringVal{StringVal: pg}})
		}
		return n
	}
	for r := range 4 {
		first := coll(1, etdef.CollectiveCommType_ALL_REDUCE, 256<<10, "1")
		if r >= 2 {
			first = coll(1, etdef.CollectiveCommType_ALL_GATHER, 64<<10, "2")
		}
		chakraFile(t, filepath.Join(dir, fmt.Sprintf("pg.%d.et", r)), first,
			coll(2, etdef.CollectiveCommType_BARRIER, 0, "0", 1),
			coll(3, etdef.CollectiveCommType_GATHER, 4<<10, "", 2))
	}
	s, err := resolve.Parse(filepath.Join(dir, "pg.yaml"), []byte(star4+`
traffic:
  - chakra: {trace: pg, comm_group: groups.json}
`))
	if err != nil {
		t.Fatal(err)
	}
	files, n := runScenarioFiles(t, s, 1)
	for _, k := range n.jobs[0].ranks {
		if k.iter != 1 {
			t.Fatalf("rank %d did %d of 1 iteration", k.r, k.iter)
		}
	}
	var got []string
	for _, row := range collRows(t, files["collectives.csv"]) {
		got = append(got, fmt.Sprintf("%s %s %s %s", row["op"], row["ranks"], row["size_bytes"], row["status"]))
	}
	slices.Sort(got)
	want := "[all_gather 2 131072 completed all_reduce 2 262144 completed all_reduce 4 4 completed]"
	if fmt.Sprint(got) != want {
		t.Errorf("collectives.csv: %v, want %s", got, want)
	}
	assertCollSummary(t, files["summary.json"], 3)
}
