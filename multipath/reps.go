package multipath

import "math/rand/v2"

// RecycleBuffer is the entropy values REPS keeps for reuse: 8,
// uet-htsim's (buffer_reps.cpp, CircularBufferREPS's repsBufferSize).
const RecycleBuffer = 8

// REPS is recycled entropy packet spraying, as uet-htsim's UecMpReps
// (uec_mp.cpp) with its CircularBufferREPS (buffer_reps.cpp): an entropy
// value whose packet came back good (acknowledged, neither CE-marked nor
// trimmed) goes into a ring of RecycleBuffer values, overwriting the
// oldest; each packet takes the earliest fresh value in the ring, each
// value once (a usable lifetime of 1, uet-htsim's default), or, when
// none is fresh, one of the Paths values at random. A value that came
// back marked or trimmed is not recycled: its path is left until chance
// draws it again. uet-htsim's freezing mode (after a retransmission
// timeout, the ring's values reused in turn for 10 ms) is not modelled:
// the HCA reports no timeouts to the sprayer.
type REPS struct {
	rng   *rand.Rand
	ring  [RecycleBuffer]uint16
	valid [RecycleBuffer]bool
	head  int // the slot the next good value is written to
	fresh int // valid values in the ring: the newest fresh ones before head
}

// NewREPS starts a sprayer with an empty ring, drawing from rng.
func NewREPS(rng *rand.Rand) *REPS { return &REPS{rng: rng} }

// Next is the next packet's entropy value: the earliest fresh one, or a
// random one.
func (r *REPS) Next() uint16 {
	if r.fresh == 0 {
		return uint16(r.rng.Uint32N(Paths))
	}
	i := (r.head - r.fresh + RecycleBuffer) % RecycleBuffer
	r.valid[i] = false
	r.fresh--
	return r.ring[i]
}

// Feedback recycles ev when its packet came through good.
func (r *REPS) Feedback(ev uint16, good bool) {
	if !good {
		return
	}
	if !r.valid[r.head] {
		r.fresh++
	}
	r.ring[r.head], r.valid[r.head] = ev, true
	r.head = (r.head + 1) % RecycleBuffer
}
