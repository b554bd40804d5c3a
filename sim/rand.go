package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// Stream returns a random stream derived from seed and a component's name
// (for example "host/h3/ecn"). The same seed and name always give the same
// sequence, whatever else the run draws, so that adding a component does not
// change the others' draws.
func Stream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// Rand returns the stream for a component name under this engine's seed.
func (e *Engine) Rand(name string) *rand.Rand { return Stream(e.seed, name) }
