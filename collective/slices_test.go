package collective

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// sliceNet is toyNet's model, noting every work request's data and the
// most a link had on its way at once.
type sliceNet struct {
	toyNet
	sizes    map[int64]int64      // data bytes -> work requests
	done     map[int32][]sim.Time // by link: its sends' done times
	inFlight int
}

func (t *sliceNet) Send(r *Rank, out int32, seq int64, wire int64) {
	id := r.Comm.Out[r.ID][out]
	now := t.eng.Now()
	n := 1
	for _, d := range t.done[id] {
		if d > now {
			n++
		}
	}
	t.inFlight = max(t.inFlight, n)
	t.sizes[wire]++
	t.toyNet.Send(r, out, seq, wire)
	t.done[id] = append(t.done[id], t.free[r.ID]+2*t.latency)
}

// TestSimpleRingSlices: a Simple ring all_reduce, reduce_scatter or
// all_gather sends each chunk as NCCL's two slices, one proxy message
// each (src/include/collectives.h: ALLREDUCE_CHUNKSTEPS /
// ALLREDUCE_SLICESTEPS = 2 slices of NCCL_STEPS/4 = 2 steps; src/
// transport/net.cc sends connFifo's size, a slice, and moves on by
// sliceSteps), at most 4 on their way per connection (NCCL_STEPS /
// StepPerSlice). Over 8 ranks on 1 channel: 16 MiB is one loop of 2 MiB
// chunks, so every rank sends 2(n-1) chunks of two 1 MiB slices (28 of
// them; n-1 chunks, 14, for reduce_scatter and all_gather); 16 MiB +
// 320 KiB adds a loop of 40 KiB chunks, each a slice of 32 KiB (the
// least slice, 1 MiB / 32) and one of 8 KiB. They had been 512 KiB work
// requests, 8 on their way, where NCCL sends 1 MiB messages, 4. A
// broadcast (BROADCAST_SLICESTEPS 1) keeps one step a message, 8 on
// their way. The toy's completions come 1 ms after a send (500 µs each
// way), so that the connections' slots, not the data, hold the senders
// back.
func TestSimpleRingSlices(t *testing.T) {
	const n, mib, kib = 8, int64(1 << 20), int64(1 << 10)
	cases := []struct {
		op       Op
		proto    Protocol
		size     int64
		sizes    map[int64]int64 // by rank
		inFlight int
	}{
		{AllReduce, Simple, 16 * mib, map[int64]int64{mib: 28}, 4},
		{ReduceScatter, Simple, 16 * mib, map[int64]int64{mib: 14}, 4},
		{AllGather, Simple, 16 * mib, map[int64]int64{mib: 14}, 4},
		{AllReduce, Simple, 16*mib + 320*kib, map[int64]int64{mib: 28, 32 * kib: 14, 8 * kib: 14}, 4},
		{Broadcast, Simple, 16 * mib, map[int64]int64{512 * kib: 32 * (n - 1) / n}, 8},
	}
	for _, c := range cases {
		cm, err := NewComm(hosts(n), Options{Algorithm: Ring, Channels: 1})
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(cm, Spec{Op: c.op, Size: c.size, Proto: c.proto})
		if err != nil {
			t.Fatal(err)
		}
		eng := sim.NewEngine(1)
		sn := &sliceNet{toyNet: toyNet{eng: eng, rate: 100 * fabric.Gbps, latency: 500 * sim.Microsecond, free: make([]sim.Time, n)},
			sizes: map[int64]int64{}, done: map[int32][]sim.Time{}}
		for i := range n {
			r := NewRank(cm, i, eng, sn)
			r.Queue(&Call{Plan: p})
			sn.ranks = append(sn.ranks, r)
		}
		for _, r := range sn.ranks {
			r.Kick()
		}
		eng.Run(sim.Never, nil)
		for _, r := range sn.ranks {
			if !r.Calls()[0].Done {
				t.Fatalf("%s of %d: rank %d did not finish", c.op, c.size, r.ID)
			}
		}
		for size, k := range c.sizes {
			if got := sn.sizes[size]; got != n*k {
				t.Errorf("%s of %d: %d work requests of %d bytes, want %d (%v)", c.op, c.size, got, size, n*k, sn.sizes)
			}
		}
		if sn.inFlight != c.inFlight {
			t.Errorf("%s of %d: %d work requests on a link at once, want %d", c.op, c.size, sn.inFlight, c.inFlight)
		}
	}
}
