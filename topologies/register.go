package topologies

import "github.com/lfsim/lfsim/kind"

// The registered generators, in the order topology.kind's enumeration
// lists them (explicit, the format's own, follows them).
func init() {
	for _, t := range []kind.Topology{star(), dumbbell(), leafSpine(), fatTree(), ring()} {
		kind.RegisterTopology(t)
	}
}

// linkDoc is what a link key's doc says of its default.
const linkDoc = "each link's rate and delay; default 100Gbps and 1us (the common RoCE host speed, and SCENARIO.md's example delay)"
