package chakra

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lfsim/lfsim/chakra/etdef"
)

// FuzzRead: no input makes Read or Assemble panic; what Read accepts is
// a trace whose every node can be found by its id. Seeds: ASTRA-sim's
// 4-NPU microbenchmarks (rank 0 of each) and a trace with every node
// type, both kinds of dependency and a send and receive, and one
// with PyTorch's process groups in a METADATA node (go test runs
// the seeds; go test -fuzz=FuzzRead ./chakra explores from them).
func FuzzRead(f *testing.F) {
	seeds, _ := filepath.Glob("../scenarios/examples/chakra-microbenchmarks/*/4npus_1MB/*.0.et")
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	mem := &etdef.Node{Id: 3, Type: etdef.NodeType_MEM_LOAD_NODE, DurationMicros: 2, CtrlDeps: []uint64{1}}
	f.Add(encode(f, comp(1, 10), coll(2, AllToAll, 4096, 1), mem, send(4, 0, 1, 64, 3), recv(5, 0, 1, 64, 2, 3),
		&etdef.Node{Id: 6, Type: etdef.NodeType_METADATA_NODE}, &etdef.Node{Id: 7, Type: etdef.NodeType_INVALID_NODE, DataDeps: []uint64{6}}))
	f.Add(encode(f, pgMeta(1, `[{"pg_name": "0", "ranks": []}, {"pg_name": "2", "ranks": [0]}]`), coll(2, Broadcast, 8, 1)))
	f.Add([]byte{})
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read("f.0.et", data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %v is not a *chakra.Error", err)
			}
			return
		}
		for _, n := range tr.Nodes {
			if m, ok := tr.Node(n.ID); !ok || m.ID != n.ID {
				t.Fatalf("node %d not found by its id", n.ID)
			}
		}
		_, _ = Assemble([]*Trace{tr}, nil)
	})
}

// FuzzAssemble: two ranks' traces, whatever their bytes, never make
// Read, Assemble or JobGraph panic, and a trace Assemble accepts is a
// job that job.Validate accepts (the reader's checks hold what the job
// graph needs). Seeds: a send and receive each way beside an
// all-reduce, a GATHER and a BARRIER in a group of both ranks, and a
// receive that waits across a rank's call order.
func FuzzAssemble(f *testing.F) {
	f.Add(encode(f, comp(1, 5), coll(2, AllReduce, 4096, 1), send(3, 1, 0, 64, 2), recv(4, 1, 0, 64)),
		encode(f, coll(7, AllReduce, 4096), recv(8, 0, 0, 64), send(9, 0, 0, 64, 8)))
	f.Add(encode(f, coll(1, Gather, 100), coll(2, Barrier, 0, 1)), encode(f, coll(1, Gather, 100), coll(2, Barrier, 0, 1)))
	// Review G, finding 2: rank 0's call 1 waits on a receive whose send
	// waits on rank 1's call 2, which rank 0 makes only after its call 1.
	f.Add(encode(f, recv(0, 1, 7, 8), coll(1, AllReduce, 64, 0), coll(2, AllReduce, 64)),
		encode(f, coll(1, AllReduce, 64), coll(2, AllReduce, 64), send(3, 0, 7, 8, 2)))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var traces []*Trace
		for r, data := range [2][]byte{a, b} {
			tr, err := Read(RankFile("f", r), data)
			if err != nil {
				return
			}
			traces = append(traces, tr)
		}
		j, err := Assemble(traces, Groups{"1": {0, 1}})
		if err != nil {
			return
		}
		jb, err := j.JobGraph("f", 1)
		if err != nil {
			return // sizes or durations beyond what lfsim holds
		}
		if _, err := jb.Validate(2); err != nil {
			t.Fatalf("Assemble accepted what job.Validate refuses: %v", err)
		}
	})
}
