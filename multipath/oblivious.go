package multipath

import (
	"math/rand/v2"

	"github.com/lfsim/lfsim/sim"
)

// Paths is the entropy values a sprayer cycles over: uet-htsim's default
// (main_uec.cpp, path_entropy_size = 64, its -paths option), a power of 2.
const Paths = 64

// Oblivious sprays without feedback, as uet-htsim's UecMpOblivious
// (uec_mp.cpp): each packet takes the next of the Paths values in a
// counter's order XORed with a random mask, drawn again each time the
// counter wraps, so that every value is used once a round, in a new
// order each round; the bits above the Paths' are random for the QP and
// fixed.
type Oblivious struct {
	rng      *rand.Rand
	upper    uint16 // the value's bits above Paths', fixed
	xor, idx uint16
}

// NewOblivious starts a sprayer drawing from rng.
func NewOblivious(rng *rand.Rand) *Oblivious {
	return &Oblivious{rng: rng, upper: uint16(rng.Uint32()) &^ (Paths - 1), xor: uint16(rng.Uint32N(Paths))}
}

// Next is the next packet's entropy value.
func (o *Oblivious) Next() uint16 {
	ev := (o.idx ^ o.xor) & (Paths - 1)
	if o.idx++; o.idx == Paths {
		o.idx, o.xor = 0, uint16(o.rng.Uint32N(Paths))
	}
	return ev | o.upper
}

// Feedback: oblivious spraying hears nothing.
func (o *Oblivious) Feedback(sim.Time, uint16, bool) {}

// Timeout: nor of timeouts.
func (o *Oblivious) Timeout(sim.Time) {}
