package multipath

import (
	"math/rand/v2"
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// TestObliviousRounds: oblivious spraying uses each of the Paths values
// once a round (uet-htsim's UecMpOblivious: a counter XORed with a mask
// drawn each round), with the QP's fixed upper bits, whatever the
// feedback.
func TestObliviousRounds(t *testing.T) {
	o := NewOblivious(rand.New(rand.NewPCG(1, 2)))
	upper := o.upper
	for round := 0; round < 5; round++ {
		seen := map[uint16]bool{}
		for i := 0; i < Paths; i++ {
			ev := o.Next()
			o.Feedback(0, ev, false)
			if ev&^(Paths-1) != upper || seen[ev] {
				t.Fatalf("round %d: value %#x repeated or with other upper bits (want %#x)", round, ev, upper)
			}
			seen[ev] = true
		}
	}
}

// TestREPSRecycles: REPS (uet-htsim's UecMpReps with CircularBufferREPS)
// reuses the values that came back good, earliest first, each once; a
// value that came back marked or trimmed is not reused; with none fresh
// it draws at random among Paths; the ring keeps the newest
// RecycleBuffer values.
func TestREPSRecycles(t *testing.T) {
	r := NewREPS(rand.New(rand.NewPCG(3, 4)))
	for _, c := range []struct {
		good []uint16 // fed back good, in order
		bad  []uint16 // fed back marked
		want []uint16 // the next values
	}{
		{good: []uint16{5, 9, 7}, bad: []uint16{11}, want: []uint16{5, 9, 7}},
		{good: []uint16{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, want: []uint16{3, 4, 5, 6, 7, 8, 9, 10}},
	} {
		for _, ev := range c.good {
			r.Feedback(0, ev, true)
		}
		for _, ev := range c.bad {
			r.Feedback(0, ev, false)
		}
		for i, want := range c.want {
			if got := r.Next(); got != want {
				t.Errorf("fed %v good, %v bad: value %d is %d, want %d", c.good, c.bad, i, got, want)
			}
		}
		if r.fresh != 0 {
			t.Errorf("fed %v: %d fresh left, want 0", c.good, r.fresh)
		}
	}
	for i := 0; i < 1000; i++ {
		if ev := r.Next(); ev >= Paths {
			t.Fatalf("a random value %d, want below %d", ev, Paths)
		}
	}
}

// TestREPSFreezes: a retransmission timeout freezes REPS's ring
// (uet-htsim's UecMpReps::processEv on PATH_TIMEOUT, remove_frozen):
// frozen, each packet takes the ring's values slot after slot, over and
// over, though each was used (recycled once it would be random after);
// a value that comes back good is still written in; a second timeout
// changes nothing; the first feedback more than 10 ms after the freeze
// ends it, empties the ring, and the next 16 packets draw at random
// (explore_counter) before recycling resumes; a timeout while exploring
// does not freeze.
func TestREPSFreezes(t *testing.T) {
	r := NewREPS(rand.New(rand.NewPCG(5, 6)))
	for _, ev := range []uint16{40, 41, 42} {
		r.Feedback(sim.Microsecond, ev, true)
	}
	r.Timeout(100 * sim.Microsecond)
	if !r.frozen || r.Freezes != 1 {
		t.Fatalf("after a timeout: frozen %v, freezes %d; want frozen once", r.frozen, r.Freezes)
	}
	var got []uint16
	for range 7 {
		got = append(got, r.Next())
	}
	want := []uint16{40, 41, 42, 40, 41, 42, 40}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("frozen: values %v; want %v", got, want)
		}
	}
	r.Feedback(200*sim.Microsecond, 43, true) // written into slot 3
	r.Timeout(300 * sim.Microsecond)          // frozen already
	got = got[:0]
	for range 5 {
		got = append(got, r.Next())
	}
	// frozenNext was at slot 1 (after 7 takes over 3 slots); now 4 slots.
	want = []uint16{41, 42, 43, 40, 41}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("frozen with a fourth value: %v; want %v", got, want)
		}
	}
	if r.Freezes != 1 {
		t.Errorf("a timeout while frozen: %d freezes; want 1", r.Freezes)
	}
	// 10 ms after the freeze, a feedback at exactly the end keeps it; one
	// past it ends it, and the good value it brings is written in.
	r.Feedback(100*sim.Microsecond+FreezeFor, 44, true)
	if !r.frozen {
		t.Fatalf("thawed at exactly FreezeFor; want still frozen (htsim: now > can_exit)")
	}
	r.Feedback(100*sim.Microsecond+FreezeFor+1, 45, true)
	if r.frozen || r.explore != ExploreAfterFreeze || r.count != 1 || r.fresh != 1 {
		t.Fatalf("after the freeze: frozen %v, explore %d, count %d, fresh %d; want false, 16, 1, 1", r.frozen, r.explore, r.count, r.fresh)
	}
	r.Timeout(20 * sim.Millisecond) // exploring: no freeze
	if r.frozen || r.Freezes != 1 {
		t.Fatalf("a timeout while exploring froze the ring")
	}
	for range ExploreAfterFreeze {
		if ev := r.Next(); ev >= Paths {
			t.Fatalf("exploring: %d; want a random value below %d", ev, Paths)
		}
	}
	if ev := r.Next(); ev != 45 {
		t.Errorf("after exploring: %d; want the fresh 45", ev)
	}
}
