package chakra

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lfsim/lfsim/chakra/etdef"
)

// TestAstraSimMicrobenchmarks reads ASTRA-sim's microbenchmark traces
// (scenarios/examples/chakra-microbenchmarks, see its ORIGIN.md) at 4, 8 and 16 NPUs: each is
// one collective of 1 MB (1,048,576 bytes, the generator's coll_size ×
// 1024 × 1024) over every rank, rank r's node having id r.
func TestAstraSimMicrobenchmarks(t *testing.T) {
	ops := []struct {
		name string
		typ  CommType
		// per n ranks, the size nccl-tests prints (NCCLTestsSize)
		nccl func(n int) uint64
	}{
		{"all_reduce", AllReduce, func(int) uint64 { return 1 << 20 }},
		{"all_gather", AllGather, func(n int) uint64 { return uint64(n) << 20 }},
		{"reduce_scatter", ReduceScatter, func(int) uint64 { return 1 << 20 }},
		{"all_to_all", AllToAll, func(int) uint64 { return 1 << 20 }},
	}
	for _, op := range ops {
		for _, n := range []int{4, 8, 16} {
			t.Run(fmt.Sprintf("%s/%d", op.name, n), func(t *testing.T) {
				dir := fmt.Sprintf("../scenarios/examples/chakra-microbenchmarks/%s/%dnpus_1MB", op.name, n)
				j, err := Load(FS(os.DirFS(dir)), op.name, n, "")
				if err != nil {
					t.Fatal(err)
				}
				if len(j.Collectives) != 1 || len(j.Transfers) != 0 {
					t.Fatalf("%d collectives, %d transfers, want 1 and 0", len(j.Collectives), len(j.Transfers))
				}
				c := j.Collectives[0]
				if c.Type != op.typ || c.Size != 1<<20 || len(c.Ranks) != n || c.Group != "" {
					t.Errorf("collective %v of %d bytes over %d ranks in %q, want %v of 1048576 over %d in \"\"", c.Type, c.Size, len(c.Ranks), c.Group, op.typ, n)
				}
				for i, ref := range c.Nodes {
					if ref.Rank != i || ref.ID != uint64(i) {
						t.Errorf("call %d is rank %d node %d, want rank %d node %d", i, ref.Rank, ref.ID, i, i)
					}
				}
				if got, want := c.Type.NCCLTestsSize(c.Size, n), op.nccl(n); got != want {
					t.Errorf("nccl-tests size %d, want %d", got, want)
				}
				if v := j.Ranks[0].Version; v != "0.0.4" {
					t.Errorf("version %q, want 0.0.4", v)
				}
			})
		}
	}
}

// TestSendRecvGroupsAndDeps: a two-rank trace with compute, a
// collective in a communicator group, and two tagged transfers in each
// direction, matched in id order.
func TestSendRecvGroupsAndDeps(t *testing.T) {
	n := coll(2, AllReduce, 1<<20, 10)
	n.Attr = append(n.Attr, str("pg_name", "1"))
	m := coll(2, AllReduce, 1<<20, 1)
	m.Attr = append(m.Attr, str("pg_name", "1"))
	r0 := encode(t, comp(1, 10), m, send(3, 1, 7, 4096, 2), send(4, 1, 7, 8192, 2), recv(5, 1, 0, 100, 2))
	r1 := encode(t, comp(10, 5), n, recv(30, 0, 7, 4096), recv(40, 0, 7, 8192, 30), send(50, 0, 0, 100))
	fsys := fstest.MapFS{
		"t/x.0.et":    {Data: r0},
		"t/x.1.et":    {Data: r1},
		"t/x.2.et":    {Data: encode(t, comp(1, 3))},
		"t/comm.json": {Data: []byte(`{"1": [0, 1]}`)},
	}
	j, err := Load(FS(fsys), "t/x", 3, "t/comm.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Collectives) != 1 || j.Collectives[0].Group != "1" || fmt.Sprint(j.Collectives[0].Ranks) != "[0 1]" {
		t.Fatalf("collectives %+v, want one in group 1 over ranks [0 1]", j.Collectives)
	}
	want := []Transfer{
		{Src: 0, Dst: 1, Tag: 7, Size: 4096, Send: Ref{0, 3}, Recv: Ref{1, 30}},
		{Src: 0, Dst: 1, Tag: 7, Size: 8192, Send: Ref{0, 4}, Recv: Ref{1, 40}},
		{Src: 1, Dst: 0, Tag: 0, Size: 100, Send: Ref{1, 50}, Recv: Ref{0, 5}},
	}
	if fmt.Sprint(j.Transfers) != fmt.Sprint(want) {
		t.Errorf("transfers %v, want %v", j.Transfers, want)
	}
	if c, _ := j.Ranks[1].Node(2); c.Comm.Group != "1" || c.Comm.Type != AllReduce {
		t.Errorf("rank 1 node 2: %+v", c.Comm)
	}
}

// TestBadTraces: each bad trace is an error naming the file, the node
// (or the byte where no node could be read) and what was expected.
func TestBadTraces(t *testing.T) {
	real, err := os.ReadFile("../scenarios/examples/chakra-microbenchmarks/all_reduce/4npus_1MB/all_reduce.1.et")
	if err != nil {
		t.Fatal(err)
	}
	ok := func(id uint64) []byte { return encode(t, coll(id, AllReduce, 1<<20)) }
	cases := []struct {
		name  string
		files map[string][]byte // rank files beside x.0.et..x.3.et's defaults
		ranks int
		want  []string
	}{
		{"truncated inside a node", map[string][]byte{"x.1.et": real[:len(real)-3]}, 4,
			[]string{"x.1.et: byte 8:", "message 2", "says 74 bytes but 71 are left", "truncated"}},
		{"truncated inside a length prefix", map[string][]byte{"x.2.et": append(encode(t, comp(1, 1)), 0x80)}, 4,
			[]string{"x.2.et: byte ", "after node 1", "length prefix", "truncated"}},
		{"over-long length prefix", map[string][]byte{"x.0.et": {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}}, 4,
			[]string{"x.0.et: byte 0: the GlobalMetadata: its length prefix (a varint) is over-long", "expected at most 10 bytes"}},
		{"empty file", map[string][]byte{"x.0.et": nil}, 4,
			[]string{"x.0.et: byte 0: the file is empty: expected a GlobalMetadata"}},
		{"unknown node type", map[string][]byte{"x.3.et": encode(t, comp(1, 1), &etdef.Node{Id: 9, Type: 12})}, 4,
			[]string{"x.3.et: node 9: type 12 is not a node type", "expected one of INVALID_NODE", "COMM_COLL_NODE"}},
		{"unknown attribute", map[string][]byte{"x.1.et": encode(t, attrNode(5, i64("flops", 3)))}, 4,
			[]string{"x.1.et: node 5: unknown attribute \"flops\": expected one of comm_type"}},
		{"attribute of the wrong kind", map[string][]byte{"x.1.et": encode(t, collAttrs(5, str("comm_size", "1MB"), i64("comm_type", 0)))}, 4,
			[]string{"x.1.et: node 5: attribute comm_size is a string_val: expected an integer"}},
		{"unknown comm_type", map[string][]byte{"x.1.et": encode(t, coll(6, 10, 1<<20))}, 4,
			[]string{"x.1.et: node 6: comm_type 10 is not a collective", "BARRIER"}},
		{"no comm_size", map[string][]byte{"x.1.et": encode(t, collAttrs(6, i64("comm_type", 0)))}, 4,
			[]string{"x.1.et: node 6: a COMM_COLL_NODE without comm_size"}},
		{"two nodes of one id", map[string][]byte{"x.0.et": encode(t, comp(4, 1), comp(4, 2))}, 4,
			[]string{"x.0.et: node 4: a second node of this id (messages 2 and 3)"}},
		{"dependency cycle", map[string][]byte{"x.2.et": encode(t, comp(1, 1), comp(2, 1, 1, 4), comp(3, 1, 2), comp(4, 1, 3), coll(8, AllReduce, 1<<20))}, 4,
			[]string{"x.2.et: node ", "a dependency cycle: ", "2 → 3 → 4 → 2", "expected the dependencies to form a DAG"}},
		{"dependency on a missing node", map[string][]byte{"x.2.et": encode(t, comp(1, 1, 77), coll(8, AllReduce, 1<<20))}, 4,
			[]string{"x.2.et: node 1: data_deps names node 77, which is not in this file"}},
		{"more rank files than hosts", map[string][]byte{"x.4.et": ok(4)}, 4,
			[]string{"t/x.4.et: a rank file beyond the 4 ranks given (the hosts): expected one file per rank, t/x.0.et to t/x.3.et, and no more"}},
		{"fewer rank files than hosts", nil, 5,
			[]string{"t/x.4.et: no such file (the trace has ranks 0 to 3): expected one file per rank, t/x.0.et to t/x.4.et, for the 5 ranks given (the hosts)"}},
		{"a missing rank file", map[string][]byte{"x.2.et": nil, "x.4.et": ok(4)}, 4,
			[]string{"t/x.2.et: no such file"}},
		{"collectives that disagree", map[string][]byte{"x.3.et": encode(t, coll(3, AllGather, 1<<20))}, 4,
			[]string{"x.3.et: node 3: call 1 of the group of every rank is ALL_GATHER of 1048576 bytes, but t/x.0.et node 0", "is ALL_REDUCE"}},
		{"a collective one rank misses", map[string][]byte{"x.3.et": encode(t, comp(3, 1))}, 4,
			[]string{"t/x.3.et: 0 collectives in the group of every rank, but t/x.0.et has 1"}},
		{"a send without a receive", map[string][]byte{"x.1.et": encode(t, coll(1, AllReduce, 1<<20), send(2, 3, 9, 64))}, 4,
			[]string{"x.1.et: node 2: a send to rank 3 with tag 9 that no receive matches: expected a COMM_RECV_NODE in t/x.3.et with comm_src 1 and comm_tag 9"}},
		{"an unknown process group", map[string][]byte{"x.1.et": encode(t, collAttrs(1, i64("comm_type", 0), i64("comm_size", 8), str("pg_name", "5")))}, 4,
			[]string{"x.1.et: node 1: pg_name \"5\": no such communicator group", "none given"}},
		{"ranks that wait on each other", map[string][]byte{
			"x.0.et": encode(t, coll(0, AllReduce, 1<<20, 2), recv(1, 1, 0, 64), send(2, 1, 0, 64, 1)),
			"x.1.et": encode(t, coll(0, AllReduce, 1<<20), recv(1, 0, 0, 64), send(2, 0, 0, 64, 1))}, 4,
			[]string{"t/x.", "the ranks wait on each other in a cycle", "rank 0 node 2", "expected an order every rank can follow"}},
		{"calls on a group wait one for the other", map[string][]byte{
			"x.0.et": encode(t, recv(0, 1, 7, 8), coll(1, AllReduce, 64, 0), coll(2, AllReduce, 64)),
			"x.1.et": encode(t, coll(1, AllReduce, 64), coll(2, AllReduce, 64), send(3, 0, 7, 8, 2)),
			"x.2.et": encode(t, coll(1, AllReduce, 64), coll(2, AllReduce, 64)),
			"x.3.et": encode(t, coll(1, AllReduce, 64), coll(2, AllReduce, 64))}, 4,
			[]string{"t/x.0.et: node 0: the ranks wait on each other in a cycle", "a rank's calls on a group one after the other",
				"rank 0 node 0 → rank 0 node 1 → rank 0 node 2 → rank 1 node 3 → rank 0 node 0"}},
		{"involved_dim over some dimensions", map[string][]byte{"x.1.et": encode(t, collAttrs(1, i64("comm_type", 0), i64("comm_size", 1<<20), bools("involved_dim", true, false)))}, 4,
			[]string{"x.1.et: node 1: involved_dim [true false]: lfsim has no logical dimensions; expected every dimension (all true), or a process group (pg_name) for a subset"}},
		{"involved_dim not a bool_list", map[string][]byte{"x.1.et": encode(t, collAttrs(1, i64("comm_type", 0), i64("comm_size", 1<<20), i64("involved_dim", 3)))}, 4,
			[]string{"x.1.et: node 1: attribute involved_dim is a int64_val: expected a bool_list"}},
		{"a field the schema lacks", map[string][]byte{"x.1.et": append(encode(t), 0x03, 0xf8, 0x01, 0x01)}, 4,
			[]string{"x.1.et: node 0: Node has field 31, which et_def.proto (Chakra 21585d8) does not define"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for r := range 4 {
				fsys[fmt.Sprintf("t/x.%d.et", r)] = &fstest.MapFile{Data: ok(uint64(r))}
			}
			for name, data := range c.files {
				if data == nil && name != "x.0.et" {
					delete(fsys, path.Join("t", name))
					continue
				}
				fsys[path.Join("t", name)] = &fstest.MapFile{Data: data}
			}
			_, err := Load(FS(fsys), "t/x", c.ranks, "")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}

// TestCallOrder: a rank's collectives are matched in a topological order
// that takes the lowest id first among the nodes ready together, as
// ASTRA-sim issues them: rank 0's ALL_REDUCE (id 7) is free at the
// start and its ALL_GATHER (id 5) waits on compute 9, so rank 0 calls
// the all-reduce first, as rank 1 does. Matched by id alone, rank 0's
// first call would be the all-gather, and the ranks would disagree.
func TestCallOrder(t *testing.T) {
	fsys := fstest.MapFS{
		"x.0.et": {Data: encode(t, comp(9, 1), coll(5, AllGather, 64, 9), coll(7, AllReduce, 64))},
		"x.1.et": {Data: encode(t, coll(1, AllReduce, 64), coll(2, AllGather, 64))},
	}
	j, err := Load(FS(fsys), "x", 2, "")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(j.Collectives[0].Type, j.Collectives[0].Nodes, j.Collectives[1].Type, j.Collectives[1].Nodes)
	if want := "ALL_REDUCE [{0 7} {1 1}] ALL_GATHER [{0 5} {1 2}]"; got != want {
		t.Errorf("calls %s, want %s", got, want)
	}
}

// pgMeta is PyTorch's process-group node as Chakra's converter writes
// it: a METADATA_NODE whose inputs' values are Python's print of a list
// of one JSON string.
func pgMeta(id uint64, json string) *etdef.Node {
	return &etdef.Node{Id: id, Name: "## process_group:init ##", Type: etdef.NodeType_METADATA_NODE,
		Inputs: &etdef.IOInfo{Values: "['" + json + "']"}}
}

// TestMetadataProcessGroups: a collective may name a process group that
// a METADATA node declares (PyTorch's process_group:init, as ASTRA-sim's
// issue_pytorch_pg_metadata reads it); empty ranks are every rank.
// Ranks that declare one group differently are an error, as is JSON
// that does not decode.
func TestMetadataProcessGroups(t *testing.T) {
	pgs := `[{"pg_name": "0", "pg_desc": "default_pg", "ranks": []}, {"pg_name": "3", "pg_desc": "tp", "ranks": [1, 2]}]`
	fsys := fstest.MapFS{"x.0.et": {Data: encode(t, pgMeta(100, pgs), coll(1, AllReduce, 64, 100))}}
	for r := 1; r < 3; r++ {
		c := coll(2, AllGather, 32, 100)
		c.Attr = append(c.Attr, str("pg_name", "3"))
		fsys[fmt.Sprintf("x.%d.et", r)] = &fstest.MapFile{Data: encode(t, pgMeta(100, pgs), coll(1, AllReduce, 64, 100), c)}
	}
	j, err := Load(FS(fsys), "x", 3, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range j.Collectives {
		got = append(got, fmt.Sprintf("%s %q %v", c.Type, c.Group, c.Ranks))
	}
	if want := `[ALL_REDUCE "" [0 1 2] ALL_GATHER "3" [1 2]]`; fmt.Sprint(got) != want {
		t.Errorf("collectives %v, want %s", got, want)
	}
	for _, c := range []struct{ pgs, want string }{
		{`[{"pg_name": "3", "ranks": [0, 2]}]`, `x.2.et: node 100: process group "3" is ranks [0 2] here but [1 2] in x.0.et node 100`},
		{`[{"pg_name": "3", "ranks": [1, 2]]`, `x.2.et: node 100: a METADATA_NODE's process groups (inputs.values) do not decode`},
		{`[{"pg_name": "tp", "ranks": [1, 2]}]`, `x.2.et: node 100: process group "tp": expected an integer pg_name`},
		{`[{"pg_name": "3", "ranks": [1, 7]}]`, `x.2.et: node 100: process group "3" lists rank 7: expected each of its ranks once, from 0 to 2`},
	} {
		bad := maps.Clone(fsys)
		bad["x.2.et"] = &fstest.MapFile{Data: encode(t, pgMeta(100, c.pgs))}
		if _, err := Load(FS(bad), "x", 3, ""); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %s", err, c.want)
		}
	}
}

// TestInvolvedDimAllTrue: involved_dim over every dimension (ASTRA-sim's
// default, 4 × true) reads as the collective over its whole group.
func TestInvolvedDimAllTrue(t *testing.T) {
	data := encode(t, collAttrs(1, i64("comm_type", 0), i64("comm_size", 1<<20), bools("involved_dim", true, true, true, true)))
	tr, err := Read("x.0.et", data)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := tr.Node(1); !ok || n.Comm == nil || n.Comm.Size != 1<<20 {
		t.Errorf("node 1: %+v, want an all-reduce of 1048576 bytes", n)
	}
}

// TestUnreadableExtraRankFile: a rank file beyond the ranks that exists
// but cannot be read (here over a read limit) is refused, not taken
// for absent (review G, finding 5); an absent one passes.
func TestUnreadableExtraRankFile(t *testing.T) {
	fsys := fstest.MapFS{}
	for r := range 2 {
		fsys[fmt.Sprintf("t/x.%d.et", r)] = &fstest.MapFile{Data: encode(t, coll(1, AllReduce, 64))}
	}
	tooBig := errors.New("over the 256 MiB limit")
	cases := []struct {
		name  string
		extra error // what reading t/x.2.et gives
		want  string
	}{
		{"absent", fs.ErrNotExist, ""},
		{"unreadable", tooBig, "t/x.2.et: over the 256 MiB limit: expected no rank file beyond the 2 ranks given"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			read := func(name string) ([]byte, error) {
				if name == "t/x.2.et" {
					return nil, c.extra
				}
				return fs.ReadFile(fsys, name)
			}
			_, err := Load(read, "t/x", 2, "")
			switch {
			case c.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
