package collective

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// toyNet carries steps for the model's tests: every rank has one port of
// rate bits per second each way; a step leaves when its sender's port is
// free, lands latency after its last bit, and its send is done (the
// receiver's ACK) latency after that. No network model: what the tests
// hold is the collective's own logic.
type toyNet struct {
	eng     *sim.Engine
	ranks   []*Rank
	rate    fabric.Rate
	latency sim.Time
	free    []sim.Time // by rank: when its port is free
	wire    int64
}

func (t *toyNet) Send(r *Rank, out int32, seq int64, wire int64) {
	l := r.Comm.Links[r.Comm.Out[r.ID][out]]
	now := t.eng.Now()
	start := max(now, t.free[r.ID])
	end := start + fabric.SerializationTime(wire, t.rate)
	t.free[r.ID] = end
	t.wire += wire
	t.ranks[l.To].LandAt(l.InIdx, seq, end+t.latency)
	r.DoneAt(out, end+2*t.latency)
}

// runToy runs one call of spec on n single-NIC ranks.
func runToy(t *testing.T, opt Options, places []Place, spec Spec) (*toyNet, []*Rank, sim.Time) {
	t.Helper()
	c, err := NewComm(places, opt)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(c, spec)
	if err != nil {
		t.Fatal(err)
	}
	eng := sim.NewEngine(1)
	tn := &toyNet{eng: eng, rate: 100 * fabric.Gbps, latency: sim.Microsecond, free: make([]sim.Time, len(places))}
	for i := range places {
		r := NewRank(c, i, eng, tn)
		r.Queue(&Call{Plan: p})
		tn.ranks = append(tn.ranks, r)
	}
	for _, r := range tn.ranks {
		r.Kick()
	}
	eng.Run(sim.Never, nil)
	var end sim.Time
	for _, r := range tn.ranks {
		c := r.Calls()[0]
		if !c.Done {
			t.Fatalf("rank %d did not finish", r.ID)
		}
		end = max(end, c.End)
	}
	return tn, tn.ranks, end
}

func hosts(n int) []Place {
	p := make([]Place, n)
	for i := range p {
		p[i] = Place{Server: -1}
	}
	return p
}

// TestRingAllReduceToy: on 8 ranks at 100 Gb/s each rank sends
// 2(n-1)/n of the size (the ring's bytes, NCCL's and nccl-tests'
// PERFORMANCE.md), and the call takes 2(n-1)/n·S/B plus NCCL's base
// latency and the pipeline's fill, within 3%.
func TestRingAllReduceToy(t *testing.T) {
	const n = 8
	for _, size := range []int64{64 << 20, 8<<20 + 12345, 1000} {
		tn, ranks, end := runToy(t, Options{Algorithm: Ring, Channels: 2}, hosts(n), Spec{Op: AllReduce, Size: size, Proto: Simple})
		// Every chunk is sent 2(n-1) times in all; a rank sends
		// 2(n-1)/n of the size, give or take the last loop's uneven
		// chunks (16-byte aligned, as NCCL's).
		var total int64
		for _, r := range ranks {
			total += r.Sent
			if want := 2 * (n - 1) * size / n; r.Sent < want-2*(n-1)*16*2 || r.Sent > want+2*(n-1)*16*2 {
				t.Errorf("size %d: rank %d sent %d bytes, want about 2(n-1)/n·S = %d", size, r.ID, r.Sent, want)
			}
		}
		if total != 2*(n-1)*size {
			t.Errorf("size %d: the ranks sent %d bytes, want 2(n-1)·S = %d", size, total, 2*(n-1)*size)
		}
		if size < 1<<20 {
			continue
		}
		ideal := fabric.SerializationTime(2*(n-1)*size/n, tn.rate)
		if got := float64(end) / float64(ideal); got < 1 || got > 1.03 {
			t.Errorf("size %d: the all-reduce took %v, %.3f× 2(n-1)/n·S/B (%v)", size, end, got, ideal)
		}
	}
}

// TestOpsBytes: every operation and algorithm sends what its
// algorithm must, in all (bytes summed over the ranks), and finishes:
// rings and halving-doubling 2(n-1)·S for all_reduce and (n-1)·S for
// reduce_scatter and all_gather (nccl-tests' PERFORMANCE.md: the
// minimum), the double binary tree as much as the ring (each tree's half
// goes up once and down once through every node but its root), a
// broadcast or reduce chain (n-1)·S, all_to_all (n-1)·S (size/n to every
// peer).
func TestOpsBytes(t *testing.T) {
	const size = 3<<20 + 777
	for _, n := range []int{2, 5, 8} {
		for _, c := range []struct {
			op    Op
			algo  Algorithm
			total func(n int64) int64
		}{
			{AllReduce, Ring, func(n int64) int64 { return 2 * (n - 1) * size }},
			{ReduceScatter, Ring, func(n int64) int64 { return (n - 1) * size }},
			{AllGather, Ring, func(n int64) int64 { return (n - 1) * size }},
			{Broadcast, Ring, func(n int64) int64 { return (n - 1) * size }},
			{Reduce, Ring, func(n int64) int64 { return (n - 1) * size }},
			{AllReduce, Tree, func(n int64) int64 { return 2 * (n - 1) * size }},
			{AllReduce, HalvingDoubling, func(n int64) int64 { return 2 * (n - 1) * size }},
			{ReduceScatter, HalvingDoubling, func(n int64) int64 { return (n - 1) * size }},
			{AllGather, HalvingDoubling, func(n int64) int64 { return (n - 1) * size }},
			{AllToAll, Direct, func(n int64) int64 { return (n - 1) * (size / n) * n }},
		} {
			if c.algo == HalvingDoubling && n&(n-1) != 0 {
				continue
			}
			_, ranks, _ := runToy(t, Options{Algorithm: c.algo, Channels: 2}, hosts(n), Spec{Op: c.op, Size: size, Proto: Simple, Root: n / 2})
			var total int64
			for _, r := range ranks {
				total += r.Sent
			}
			if want := c.total(int64(n)); total != want && (c.algo != Ring || c.op != AllReduce && c.op != ReduceScatter && c.op != AllGather || abs(total-want) > int64(2*n*n*16)) {
				t.Errorf("n=%d %s %s: the ranks sent %d bytes, want %d", n, c.op, c.algo, total, want)
			}
		}
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestTreeClosedForm: the double binary tree's all-reduce of 64 MiB over
// 8 ranks at 100 Gb/s takes the closed form of tree.go's comment within
// 5%: 2S/B for the ranks that are inner nodes of one tree (S/2 up in
// each tree, S/2 to each of two children in one), plus the pipeline's
// fill: 2·D hops of a chunk, D = 3 the trees' depth.
func TestTreeClosedForm(t *testing.T) {
	const n, size = 8, 64 << 20
	tn, _, end := runToy(t, Options{Algorithm: Tree, Channels: 2}, hosts(n), Spec{Op: AllReduce, Size: size, Proto: Simple})
	chunk := DefaultChunk(Tree, Simple)
	hop := fabric.SerializationTime(chunk, tn.rate) + tn.latency + ProtocolLatency(Tree, Simple, Net, true)
	want := fabric.SerializationTime(2*size, tn.rate) + 2*3*hop + BaseLatency(Tree, Simple)
	if r := float64(end) / float64(want); r < 0.95 || r > 1.05 {
		t.Errorf("tree all-reduce took %v, %.3f× the closed form %v", end, r, want)
	}
}
