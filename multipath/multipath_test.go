package multipath

import (
	"math/rand/v2"
	"testing"
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
			o.Feedback(ev, false)
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
			r.Feedback(ev, true)
		}
		for _, ev := range c.bad {
			r.Feedback(ev, false)
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
