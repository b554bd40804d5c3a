package topologies

import "github.com/lfsim/lfsim/kind"

// The registered generators, in the order topology.kind's enumeration
// lists them (explicit, the format's own, follows them).
func init() {
	for _, t := range []kind.Topology{star(), dumbbell(), leafSpine(), fatTree(), ring(), railOptimized()} {
		kind.RegisterTopology(t)
	}
}

// linkDoc is a link key's doc.
const linkDoc = "each link's rate and delay; default kind.DefaultLink's"
