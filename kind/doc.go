// Package kind holds lfsim's tables of kinds: each congestion control
// registers once here, with its name in a scenario file, its parameters
// (their keys, types, bounds and the source of each default) and what it
// needs of the rest of the simulator (ECN marks, in-band telemetry, an
// ACK per packet, the link layers it runs on). The scenario format reads
// the table to decode and describe a file (keys, enumerations, the JSON
// Schema), the assembly to check, build and wire a run, the docs' test
// to hold the docs to it; none of them names a kind. The switch's load
// balancing modes register the same way (LoadBalance): a name, whether
// the switch chooses a packet's port itself, the keys that tune it; and
// the topology generators (Topology): a name, the keys with their bounds
// and defaults, the size of what it builds, and the build.
//
// The table knows no model and no file: a model package (congestion,
// switch, topologies) registers its kinds here, the format (scenario)
// reads them, and neither imports the other. It imports sim and fabric for their value
// types (times, rates, sizes) and the fabric's Topology, which a
// generator builds.
package kind
