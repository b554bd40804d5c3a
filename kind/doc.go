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
// and defaults, the size of what it builds, and the build; and the
// transports (Transport): a name, the HCA's framing that runs it, the
// link layers it runs on, whether it is routed or bridged, what its
// frames carry (ECN, INT), whether it runs over TCP (hca.tcp), and what
// ibv_devinfo and perftest print for it.
//
// A transport differs from the other kinds: it is a parameter of the one
// HCA model, whose datapath frames each transport itself, not a plugin.
// Its row is where the rest of lfsim learns what it needs, so that a new
// transport's row alone gives the format its name (hca.transport, the
// JSON Schema), resolve its checks of a file and the facts it sets (the
// spanning tree, TCP's congestion control, the memory estimate), devinfo
// and perftest their lines. It still needs, beyond the row: a value of
// fabric.Transport with its headers and wire size (fabric's framing), the
// HCA's transmit and receive paths for it (hca/), a capture's frame
// layout if captures are to write it (reports/pcap.go), and any rule of
// its own that the row's facts do not say (as iWARP's RDMAP's are
// resolve/iwarp.go's) with its messages.
//
// The table knows no model and no file: a model package (congestion,
// switch, topologies) registers its kinds here (the transports' rows are
// this package's own: fabric, which defines their framing, is below it), the format (scenario)
// reads them, and neither imports the other. It imports sim and fabric for their value
// types (times, rates, sizes) and the fabric's Topology, which a
// generator builds.
package kind
