// Package resolve turns a scenario file into a resolved Scenario: every
// setting the models and observers take, with its default where the file
// gives none. Load and Parse read a file with the scenario format
// (package scenario), then resolve it: the topology is generated and its
// routes computed, every name is checked against it, the switch and HCA
// profiles are filled in (per node where an explicit topology overrides
// them), the traffic is expanded into flows, the faults are checked, and
// observe: and expect: are resolved into the observers' settings. Every
// problem found here, as in the format, is reported at its
// file:line:column with what was expected, together with the format's
// own in one sorted list. It builds nothing: package assembly builds a
// network from the Scenario and runs it.
//
// A key the file gives is laid over its default by override (or
// overrideNum, for a number kept in another type than the format's):
// override(&p.Buffer, s.Buffer) is "if switch.buffer was given, the
// profile's buffer is its value". A key read any other way (a name
// looked up, a value checked against another) is written out where it is
// read.
//
// The files, by concern: load.go (Load, Parse and the examples), build.go
// (the builder: the order of its steps and the header), profiles.go
// (switch: and hca:, and the buffer check), cc.go (the congestion
// controls' parameters), infiniband.go, rocev1.go and iwarp.go (what each
// link layer and transport asks of the rest), topology.go, routes.go and
// routesize.go, traffic.go (generators into flows), remotemr.go,
// programs.go, mckey.go and listeners.go (the rdma-core programs and the
// ports they listen on), observe.go (observe: and expect:), faultcheck.go,
// finish.go (flows that cannot end by stop.at), memory.go (the memory
// estimate), devinfo.go (ibv_devices and ibv_devinfo from the profiles),
// override.go, and scenario.go (what they produce).
//
// Beyond SCENARIO.md, the loader accepts what users would expect:
//
//   - Link profiles default to 100Gbps and 1us; a dumbbell's bottleneck
//     defaults to its link; a leaf-spine takes link: as the default of
//     host_link and fabric_link; a ring's hosts_per_switch defaults to 1.
//   - routing: and routes: in every kind of topology, not only explicit.
//   - hosts/from: all in generators (from: all is every host but to:).
//   - In observe.links, observe.queues and observe.pcap a node name stands
//     for all its ports; links/queues/flows also take none.
//   - hca.ack_every (packets between ACK requests, hca.Profile.AckEvery).
//
// Limits keep any file from exhausting memory (DefaultLimits): at most
// 100000 hosts, 100000 switches and 1000000 links in a topology, fat-tree
// k up to 64, switches × hosts up to 4×10^8 and switches² up to 10^8
// (the routing tables), 10 million flows, 5 million YAML nodes visited
// (aliases counted each time) and nesting 64 deep; and at most 200 errors
// are listed.
//
// resolve may import the format (scenario) and the library of scenario
// files (scenarios, for the examples and labs by name), the models whose
// settings it fills in (sim, fabric, swtch, hca, congestion, reports),
// the observers' settings (observe) and the programs' (programs). It must not import
// assembly, sweep or cmd: it resolves, and what builds and runs is above
// it.
package resolve
