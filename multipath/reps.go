package multipath

import (
	"math/rand/v2"

	"github.com/lfsim/lfsim/sim"
)

// RecycleBuffer is the entropy values REPS keeps for reuse: 8,
// uet-htsim's (buffer_reps.cpp, CircularBufferREPS's repsBufferSize).
const RecycleBuffer = 8

// REPS's freezing mode (uet-htsim's UecMpReps::processEv and
// CircularBufferREPS, on by default: repsUseFreezing true).
const (
	// FreezeFor is how long a freeze lasts at least: 10 ms
	// (CircularBufferREPS::exit_freeze_after, 10^10 ps).
	FreezeFor = 10 * sim.Millisecond
	// ExploreAfterFreeze is the packets sent on random values after a
	// freeze ends, before recycling again (explore_counter = 16).
	ExploreAfterFreeze = 16
)

// REPS is recycled entropy packet spraying, as uet-htsim's UecMpReps
// (uec_mp.cpp) with its CircularBufferREPS (buffer_reps.cpp): an entropy
// value whose packet came back good (acknowledged, neither CE-marked nor
// trimmed) goes into a ring of RecycleBuffer values, overwriting the
// oldest; each packet takes the earliest fresh value in the ring, each
// value once (a usable lifetime of 1, uet-htsim's default), or, when
// none is fresh, one of the Paths values at random. A value that came
// back marked or trimmed is not recycled: its path is left until chance
// draws it again.
//
// Freezing: a retransmission timeout (Timeout), which says a packet was
// lost where no switch trimmed it (a link down, a black hole), freezes
// the ring: while frozen each packet takes the ring's values in turn,
// slot after slot over those written so far, fresh or not (remove_frozen),
// so that the sender keeps to the paths that last came back good and
// draws no random value that may lead to the failure again; values that
// come back good are still written in. The first feedback (or timeout)
// more than FreezeFor after the freeze began ends it (uet-htsim checks
// at every processEv, a timeout's too): the ring is emptied and the
// next ExploreAfterFreeze packets take random values. A timeout while
// frozen or exploring starts no freeze. With an empty ring a frozen
// sender draws at random. uet-htsim's REPS refuses to freeze without
// trimming (its run stops); lfsim freezes either way.
type REPS struct {
	rng   *rand.Rand
	ring  [RecycleBuffer]uint16
	valid [RecycleBuffer]bool
	head  int // the slot the next good value is written to
	fresh int // valid values in the ring: the newest fresh ones before head
	count int // slots written since the ring was last emptied, at most RecycleBuffer

	frozen     bool
	frozenNext int      // the slot a frozen sender takes next
	thawAt     sim.Time // a feedback after it ends the freeze
	explore    int      // packets left to send on random values after a freeze

	// NoFreezing turns freezing off (uet-htsim's
	// CircularBufferREPS::setUseFreezing(false); on by default there
	// and here).
	NoFreezing bool
	// Freezes counts the freezes begun.
	Freezes int
}

// NewREPS starts a sprayer with an empty ring, drawing from rng.
func NewREPS(rng *rand.Rand) *REPS { return &REPS{rng: rng} }

// Next is the next packet's entropy value: while exploring a random one;
// frozen, the ring's next slot; else the earliest fresh one, or a random
// one.
func (r *REPS) Next() uint16 {
	if r.explore > 0 {
		r.explore--
		return r.random()
	}
	if r.frozen {
		if r.count == 0 {
			return r.random()
		}
		i := r.frozenNext
		if r.valid[i] {
			r.valid[i] = false
			r.fresh--
		}
		r.frozenNext = (i + 1) % r.count
		return r.ring[i]
	}
	if r.fresh == 0 {
		return r.random()
	}
	i := (r.head - r.fresh + RecycleBuffer) % RecycleBuffer
	r.valid[i] = false
	r.fresh--
	return r.ring[i]
}

func (r *REPS) random() uint16 { return uint16(r.rng.Uint32N(Paths)) }

// Feedback recycles ev when its packet came through good; a feedback
// heard at now more than FreezeFor into a freeze ends it first.
func (r *REPS) Feedback(now sim.Time, ev uint16, good bool) {
	r.thaw(now)
	if !good {
		return
	}
	if !r.valid[r.head] {
		r.fresh++
	}
	r.ring[r.head], r.valid[r.head] = ev, true
	r.head = (r.head + 1) % RecycleBuffer
	r.count = min(r.count+1, RecycleBuffer)
}

// Timeout is told of the QP's retransmission timeout at now: it freezes
// the ring unless frozen or exploring already.
func (r *REPS) Timeout(now sim.Time) {
	if !r.frozen && r.explore == 0 && !r.NoFreezing {
		r.frozen, r.thawAt = true, now+FreezeFor
		r.Freezes++
	}
	r.thaw(now)
}

// thaw ends a freeze older than FreezeFor at now: the ring is emptied
// and the next packets explore (resetBuffer, explore_counter).
func (r *REPS) thaw(now sim.Time) {
	if !r.frozen || now <= r.thawAt {
		return
	}
	*r = REPS{rng: r.rng, explore: ExploreAfterFreeze, Freezes: r.Freezes, NoFreezing: r.NoFreezing}
}
