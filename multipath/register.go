package multipath

import (
	"math/rand/v2"

	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// Source is one QP's sprayer (hca.EntropySource).
type Source interface {
	Next() uint16
	Feedback(now sim.Time, ev uint16, good bool)
	Timeout(now sim.Time)
}

// Policy is a spray's row and how to make one QP's sprayer; New is nil
// for ecmp, which keeps the QP's one value.
type Policy struct {
	kind.Spray
	New func(rng *rand.Rand) Source
}

var policies = []Policy{
	{Spray: kind.Spray{Name: "ecmp", Doc: "one entropy value a QP: ECMP keeps each QP on one path (the default)"}},
	{Spray: kind.Spray{Name: "oblivious", Doc: "each packet the next of 64 entropy values, in a new random order each round (uet-htsim's UecMpOblivious)"},
		New: func(rng *rand.Rand) Source { return NewOblivious(rng) }},
	{Spray: kind.Spray{Name: "reps", Doc: "recycled entropy packet spraying: values whose packets came back unmarked are reused, marked or trimmed ones dropped; after a retransmission timeout the values kept are reused in turn for 10 ms (freezing) (uet-htsim's UecMpReps)"},
		New: func(rng *rand.Rand) Source { return NewREPS(rng) }},
}

func init() {
	for _, p := range policies {
		kind.RegisterSpray(p.Spray)
	}
}

// Lookup is the policy named name.
func Lookup(name string) (Policy, bool) {
	for _, p := range policies {
		if p.Name == name {
			return p, true
		}
	}
	return Policy{}, false
}
