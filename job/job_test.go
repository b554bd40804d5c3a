package job

import (
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/sim"
)

// two is a job of 2 ranks: compute, an all-reduce, a send from 0 to 1.
func two() *Job {
	j := &Job{Name: "t", Ranks: 2, Iterations: 1, Comms: []Comm{{Ranks: []int{0, 1}}}}
	for r := range 2 {
		g := []Node{
			{ID: 10, Kind: Compute, Duration: sim.Microsecond},
			{ID: 11, Kind: Collective, Op: collective.AllReduce, Size: 1024, Deps: []uint64{10}},
		}
		if r == 0 {
			g = append(g, Node{ID: 12, Kind: Send, Peer: 1, Size: 64, Tag: 3, Deps: []uint64{11}})
		} else {
			g = append(g, Node{ID: 12, Kind: Recv, Peer: 0, Size: 64, Tag: 3, Deps: []uint64{11}})
		}
		j.Graphs = append(j.Graphs, g)
	}
	return j
}

// TestValidate: each refusal names the rank, the node and what was
// expected; the good job passes.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name  string
		hosts int
		edit  func(j *Job)
		want  string // "" passes
	}{
		{"good", 2, func(*Job) {}, ""},
		{"no comm", 2, func(j *Job) { j.Graphs[0][1].Comm = 3 }, "rank 0: node 11: names communicator 3; the job has 1"},
		{"hosts", 3, func(*Job) {}, "job t: has 2 ranks but runs on 3 hosts"},
		{"iterations", 2, func(j *Job) { j.Iterations = 0 }, "iterations is 0"},
		{"unknown dep", 2, func(j *Job) { j.Graphs[1][1].Deps = []uint64{99} }, "rank 1: node 11: depends on node 99, which rank 1 does not have"},
		{"self dep", 2, func(j *Job) { j.Graphs[0][0].Deps = []uint64{10} }, "rank 0: node 10: depends on itself"},
		{"duplicate id", 2, func(j *Job) { j.Graphs[0][1].ID = 10 }, "rank 0: node 10: the id is used by another node"},
		{"cycle", 2, func(j *Job) { j.Graphs[0][0].Deps = []uint64{12} }, "rank 0: node 11: a dependency cycle: 11 -> 12 -> 10 -> 11 (each waits for the one before it)"},
		{"comm rank", 2, func(j *Job) { j.Comms[0].Ranks = []int{0, 2} }, "communicator 0 names rank 2; the job's ranks are 0 to 1"},
		{"other comm", 2, func(j *Job) {
			j.Comms = append(j.Comms, Comm{Name: "pg1", Ranks: []int{0, 1}})
			j.Graphs[1][1].Comm = 1
		}, "rank 1: makes 0 calls of communicator 0, rank 0 makes 1 (its call 0 is node 11)"},
		{"not in comm", 3, func(j *Job) {
			j.Ranks = 3
			j.Graphs = append(j.Graphs, []Node{{ID: 1, Kind: Collective, Op: collective.AllReduce, Size: 1024}})
		}, "rank 2: node 1: is a collective of communicator 0, which rank 2 is not in (its ranks: [0 1])"},
		{"peer", 2, func(j *Job) { j.Graphs[0][2].Peer = 5 }, "rank 0: node 12: a send with peer rank 5; the job's ranks are 0 to 1"},
		{"unmatched send", 2, func(j *Job) { j.Graphs[1][2].Tag = 4 }, "rank 0: node 12: a send to rank 1 with tag 3 that rank 1 never receives"},
		{"sizes differ", 2, func(j *Job) { j.Graphs[1][2].Size = 65 }, "rank 1: node 12: receives 65 bytes from rank 0 (tag 3), but its send (node 12) sends 64"},
		{"calls differ", 2, func(j *Job) { j.Graphs[1][1].Size = 2048 }, "rank 1: node 11: call 0 of communicator 0 is all_reduce of 2048 bytes, but rank 0's (node 11) is all_reduce of 1024 bytes"},
		{"fewer calls", 2, func(j *Job) { j.Graphs[1][1] = Node{ID: 11, Kind: None, Deps: []uint64{10}} }, "rank 1: makes 0 calls of communicator 0, rank 0 makes 1 (its call 0 is node 11)"},
		{"algorithm", 2, func(j *Job) { j.Comms[0].Algorithm, j.Comms[0].AlgorithmSet = collective.Direct, true }, "rank 0: node 11: direct does not run all_reduce"},
		{"flops", 2, func(j *Job) { j.Graphs[0][0] = Node{ID: 10, Kind: Compute, FLOPs: 1e9} }, "rank 0: node 10: a compute node of FLOPs needs FLOPs >= 0 and a rate > 0"},
		// Review C, finding 5: each of these made ComputeTime
		// math.MinInt64 or 0 and the node took no time.
		{"flops overflow", 2, func(j *Job) { j.Graphs[0][0] = Node{ID: 10, Kind: Compute, FLOPs: 1e20, Rate: 1e6} }, "rank 0: node 10: a compute node of 1e+20 FLOPs at 1e+06 FLOP/s takes 1e+14 s; at most 9.22e+06 s"},
		{"flops NaN", 2, func(j *Job) { j.Graphs[0][0] = Node{ID: 10, Kind: Compute, FLOPs: math.NaN(), Rate: 1e12} }, "rank 0: node 10: a compute node of NaN FLOPs at 1e+12 FLOP/s; both must be finite numbers"},
		{"rate NaN", 2, func(j *Job) { j.Graphs[0][0] = Node{ID: 10, Kind: Compute, FLOPs: 1e12, Rate: math.NaN()} }, "both must be finite numbers"},
		{"rate Inf", 2, func(j *Job) { j.Graphs[0][0] = Node{ID: 10, Kind: Compute, FLOPs: 1e12, Rate: math.Inf(1)} }, "both must be finite numbers"},
		{"zero compute", 2, func(j *Job) { j.Graphs[0][0] = Node{ID: 10, Kind: Compute} }, ""},
		{"106 days", 2, func(j *Job) { j.Graphs[0][0] = Node{ID: 10, Kind: Compute, FLOPs: 9.2e6, Rate: 1} }, ""},
		// Review C, finding 6: these panicked at the run or were
		// silently replaced.
		{"op 77", 2, func(j *Job) { j.Graphs[0][1].Op = collective.Op(77) }, "rank 0: node 11: a collective of operation 77; the operations are [all_reduce"},
		{"op 77 with an algorithm", 2, func(j *Job) {
			j.Graphs[1][1].Op = collective.Op(77)
			j.Comms[0].Algorithm, j.Comms[0].AlgorithmSet = collective.Ring, true
		}, "rank 1: node 11: a collective of operation 77"},
		{"QPs -1", 2, func(j *Job) { j.Comms[0].QPs = -1 }, "job t: communicator 0 has -1 QPs a connection; 1 to 65535, or 0 for the default (1)"},
		{"QPs 65536", 2, func(j *Job) { j.Comms[0].QPs = 65536 }, "communicator 0 has 65536 QPs a connection"},
		{"QPs 65535", 2, func(j *Job) { j.Comms[0].QPs = 65535 }, ""},
		{"channels -3", 2, func(j *Job) { j.Comms[0].Channels = -3 }, "communicator 0 has -3 channels; 1 to 64, or 0 for the default (2)"},
		{"channels 65", 2, func(j *Job) { j.Comms[0].Channels = 65 }, "communicator 0 has 65 channels"},
		{"chunk -5", 2, func(j *Job) { j.Comms[0].Chunk = -5 }, "communicator 0's chunk is -5 bytes; it must not be negative (0 is NCCL's)"},
		{"algorithm 9", 2, func(j *Job) { j.Comms[0].Algorithm, j.Comms[0].AlgorithmSet = 9, true }, "communicator 0 has algorithm 9; the algorithms are [ring tree halving_doubling direct]"},
		{"protocol 5", 2, func(j *Job) { j.Comms[0].Protocol, j.Comms[0].ProtocolSet = 5, true }, "communicator 0 has protocol 5; the protocols are [ll ll128 simple]"},
		{"halving_doubling on LL", 2, func(j *Job) {
			j.Comms[0].Algorithm, j.Comms[0].AlgorithmSet = collective.HalvingDoubling, true
			j.Comms[0].Protocol, j.Comms[0].ProtocolSet = collective.LL, true
		}, "rank 0: node 11: all_reduce of communicator 0 is halving_doubling, which does not run on ll; halving_doubling runs on simple"},
		{"direct on LL128", 2, func(j *Job) {
			j.Comms[0].Protocol, j.Comms[0].ProtocolSet = collective.LL128, true
			for r := range 2 {
				j.Graphs[r][1].Op = collective.AllToAll
			}
		}, "rank 0: node 11: all_to_all of communicator 0 is direct, which does not run on ll128; direct runs on ll, simple"},
		{"ring on LL128", 2, func(j *Job) { j.Comms[0].Protocol, j.Comms[0].ProtocolSet = collective.LL128, true }, ""},
		{"halving_doubling over 3", 3, func(j *Job) {
			j.Ranks = 3
			j.Comms[0].Ranks = []int{0, 1, 2}
			j.Comms[0].Algorithm, j.Comms[0].AlgorithmSet = collective.HalvingDoubling, true
			j.Graphs = append(j.Graphs, []Node{{ID: 11, Kind: Collective, Op: collective.AllReduce, Size: 1024}})
		}, "rank 0: node 11: all_reduce of communicator 0 is halving_doubling, which needs a power of two of ranks, not 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := two()
			c.edit(j)
			_, err := j.Validate(c.hosts)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("accepted, want %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q, want %q", err, c.want)
			}
		})
	}
}

// TestOrder: the topological order takes ready nodes by list position,
// so a list in order is kept and one out of order is put right.
func TestOrder(t *testing.T) {
	j := &Job{Ranks: 1, Iterations: 1, Graphs: [][]Node{{
		{ID: 5, Deps: []uint64{7}}, {ID: 6}, {ID: 7, Deps: []uint64{6}}, {ID: 8},
	}}}
	g, err := j.Graph(0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	for _, i := range g.Order {
		ids = append(ids, j.Graphs[0][i].ID)
	}
	if got, want := ids, []uint64{6, 7, 5, 8}; !equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestComputeTime: FLOPs at a rate, in picoseconds (2 TFLOP at 1
// PFLOP/s is 2 ms).
func TestComputeTime(t *testing.T) {
	n := Node{Kind: Compute, FLOPs: 2e12, Rate: 1e15}
	if got := n.ComputeTime(); got != 2*sim.Millisecond {
		t.Errorf("%v, want 2ms", got)
	}
	n.Duration = sim.Microsecond
	if got := n.ComputeTime(); got != sim.Microsecond {
		t.Errorf("a duration given: %v, want 1µs", got)
	}
}

// TestCrossCycle: a loop of waits across ranks, each rank's graph
// acyclic, is refused, naming every rank and node on it (review C,
// finding 1: the run idled to stop.at and summary.json said complete);
// a call order that deadlocks, where a runtime issuing calls when ready
// would not, is refused with the advice to reorder (finding 2); jobs
// that can finish pass.
func TestCrossCycle(t *testing.T) {
	ar := func(id uint64, deps ...uint64) Node {
		return Node{ID: id, Kind: Collective, Op: collective.AllReduce, Size: 1024, Deps: deps}
	}
	send := func(id uint64, peer int, deps ...uint64) Node {
		return Node{ID: id, Kind: Send, Peer: peer, Size: 64, Tag: 1, Deps: deps}
	}
	recv := func(id uint64, peer int, deps ...uint64) Node {
		return Node{ID: id, Kind: Recv, Peer: peer, Size: 64, Tag: 1, Deps: deps}
	}
	comm := []Comm{{Ranks: []int{0, 1}}}
	for _, c := range []struct {
		name   string
		graphs [][]Node
		want   string // "" passes
	}{
		{"p2p deadlock", [][]Node{{recv(1, 1), send(2, 1, 1)}, {recv(1, 0), send(2, 0, 1)}},
			"job t: a cycle of waits across ranks, which would idle until the run's stop: " +
				"rank 0: node 2 (send to rank 1, tag 1) waits for node 1 (recv from rank 1, tag 1); " +
				"rank 1: node 1 (recv from rank 0, tag 1) waits for rank 0: node 2 (send to rank 1, tag 1); " +
				"rank 1: node 2 (send to rank 0, tag 1) waits for node 1 (recv from rank 0, tag 1); " +
				"rank 0: node 1 (recv from rank 1, tag 1) waits for rank 1: node 2 (send to rank 0, tag 1). " +
				"A receive waits for its send"},
		{"p2p in order", [][]Node{{send(1, 1), recv(2, 1, 1)}, {recv(1, 0), send(2, 0, 1)}}, ""},
		// Review C's TestRevCOrderDeadlock: rank 0's call 0 is node 2,
		// rank 1's node 1; rank 1's send waits for it, rank 0's recv
		// for the send, and node 2 for the recv.
		{"call order", [][]Node{{recv(1, 1), ar(2, 1), ar(3)}, {ar(1), send(2, 0, 1), ar(3, 2)}},
			"rank 0: node 2 (all_reduce) waits for node 1 (recv from rank 1, tag 1); " +
				"rank 1: node 1 (all_reduce) is call 0 of communicator 0, which waits for every rank to make it, rank 0 by node 2 (all_reduce); " +
				"rank 1: node 2 (send to rank 0, tag 1) waits for node 1 (all_reduce); " +
				"rank 0: node 1 (recv from rank 1, tag 1) waits for rank 1: node 2 (send to rank 0, tag 1). " +
				"A communicator's k-th call is each of its ranks' k-th collective node of it in node order"},
		{"call order put right", [][]Node{{recv(1, 1), ar(2), ar(3, 1)}, {ar(1), send(2, 0, 1), ar(3, 2)}}, ""},
		// Only the order of calls on one communicator closes this loop:
		// rank 1's call 0 waits for a recv whose send waits for rank
		// 0's call 1, which runs after its call 0.
		{"stream order", [][]Node{{ar(1), ar(2), send(3, 1, 2)}, {recv(1, 0), ar(2, 1), ar(3)}},
			"call 1 of communicator 0 waits for call 0 (rank 0: node 2 (all_reduce) after node 1 (all_reduce))"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := &Job{Name: "t", Ranks: 2, Iterations: 2, Graphs: c.graphs, Comms: comm}
			_, err := j.Validate(2)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("accepted, want %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q\nwant %q", err, c.want)
			}
		})
	}
}
