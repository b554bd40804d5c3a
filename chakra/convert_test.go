package chakra

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lfsim/lfsim/chakra/etdef"
	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/job"
)

// TestJobGraphMicrobenchmarks: ASTRA-sim's 8-NPU traces become a job of
// one call per rank on one communicator of every rank, of the size
// nccl-tests prints (all_gather: 8 × 1 MiB), that the job graph accepts.
func TestJobGraphMicrobenchmarks(t *testing.T) {
	for _, c := range []struct {
		name string
		op   collective.Op
		size int64
	}{{"all_reduce", collective.AllReduce, 1 << 20}, {"all_gather", collective.AllGather, 8 << 20},
		{"reduce_scatter", collective.ReduceScatter, 1 << 20}, {"all_to_all", collective.AllToAll, 1 << 20}} {
		dir := fmt.Sprintf("../scenarios/examples/chakra-microbenchmarks/%s/8npus_1MB", c.name)
		cj, err := Load(FS(os.DirFS(dir)), c.name, 8, "")
		if err != nil {
			t.Fatal(err)
		}
		jb, err := cj.JobGraph(c.name, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := jb.Validate(8); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(jb.Comms) != 1 || len(jb.Comms[0].Ranks) != 8 {
			t.Fatalf("%s: comms %+v", c.name, jb.Comms)
		}
		for r, g := range jb.Graphs {
			if len(g) != 1 || g[0].Kind != job.Collective || g[0].Op != c.op || g[0].Size != c.size || g[0].ID != uint64(r) {
				t.Errorf("%s rank %d: %+v, want one %s of %d bytes, id %d", c.name, r, g, c.op, c.size, r)
			}
		}
	}
}

// TestJobGraphNodes: every node type and comm type of the schema
// converts, and the job graph accepts the result: compute and memory
// nodes take their duration, metadata none; collectives are calls of
// their group's communicator (a group of one rank is no work); GATHER
// and SCATTER are sends between the root and each rank.
func TestJobGraphNodes(t *testing.T) {
	mem := comp(3, 2, 1)
	mem.Type = etdef.NodeType_MEM_LOAD_NODE
	rank := func(r int64) []byte {
		all := []*etdef.Node{comp(1, 10), coll(2, AllReduce, 1<<20, 1), mem}
		id := uint64(10)
		for _, c := range []CommType{Reduce, AllGather, Gather, Scatter, Broadcast, AllToAll, ReduceScatter, ReduceScatterBlock, Barrier} {
			dep := id - 1
			if id == 10 {
				dep = 3
			}
			all = append(all, coll(id, c, 4096, dep))
			id++
		}
		solo := coll(30, AllReduce, 64, 3)
		solo.Attr = append(solo.Attr, str("pg_name", fmt.Sprint(r+1)))
		all = append(all, solo, send(40, (r+1)%3, 5, 100, 30), recv(41, (r+2)%3, 5, 100, 30))
		return encode(t, all...)
	}
	fsys := fstest.MapFS{"g.json": {Data: []byte(`{"1": [0], "2": [1], "3": [2]}`)}}
	for r := range int64(3) {
		fsys[fmt.Sprintf("x.%d.et", r)] = &fstest.MapFile{Data: rank(r)}
	}
	cj, err := Load(FS(fsys), "x", 3, "g.json")
	if err != nil {
		t.Fatal(err)
	}
	jb, err := cj.JobGraph("x", 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jb.Validate(3); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range jb.Graphs[0] {
		s := fmt.Sprintf("%d:%s", n.ID, n.Kind)
		switch n.Kind {
		case job.Compute:
			s += " " + n.Duration.String()
		case job.Collective:
			s += fmt.Sprintf(" %s %d c%d", n.Op, n.Size, n.Comm)
		case job.Send, job.Recv:
			s += fmt.Sprintf(" %d to/from %d tag %d", n.Size, n.Peer, n.Tag)
		}
		got = append(got, s)
	}
	want := []string{"1:compute 10us", "2:collective all_reduce 1048576 c0", "3:compute 2us",
		"10:collective reduce 4096 c0", "11:collective all_gather 12288 c0",
		"12:none", "13:none", "14:collective broadcast 4096 c0", "15:collective all_to_all 4096 c0",
		"16:collective reduce_scatter 4096 c0", "17:collective reduce_scatter 4096 c0", "18:collective all_reduce 4 c0",
		"30:none", "40:send 100 to/from 1 tag 5", "41:recv 100 to/from 2 tag 5",
		"42:recv 4096 to/from 1 tag 4294967299", "43:recv 4096 to/from 2 tag 4294967299",
		"44:send 4096 to/from 1 tag 4294967300", "45:send 4096 to/from 2 tag 4294967300"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rank 0's nodes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d := jb.Graphs[0][5].Deps; fmt.Sprint(d) != "[11 42 43]" {
		t.Errorf("the root's GATHER waits on %v, want its dependency and its two receives [11 42 43]", d)
	}
	// Each extra transfer of the root waits on the node's own dependencies,
	// not on the transfers built before it (review G, finding 1).
	wantDeps := map[uint64]string{42: "[11]", 43: "[11]", 44: "[12]", 45: "[12]"}
	for _, n := range jb.Graphs[0] {
		if w, ok := wantDeps[n.ID]; ok && fmt.Sprint(n.Deps) != w {
			t.Errorf("rank 0's node %d waits on %v, want %s", n.ID, n.Deps, w)
		}
	}
	if n := jb.Graphs[1][5]; n.Kind != job.Send || n.Peer != 0 || n.Size != 4096 {
		t.Errorf("rank 1's GATHER: %+v, want a send of 4096 bytes to rank 0", n)
	}
}
