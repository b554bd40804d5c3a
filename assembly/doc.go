// Package assembly turns a scenario file into a runnable network and runs
// it. Load and Parse read a file with the scenario format (package
// scenario), then resolve it: the topology is generated and its routes
// computed, every name is checked against it, the switch and HCA profiles
// are filled in (per node where an explicit topology overrides them), the
// traffic is expanded into flows, the faults are checked, and observe: and
// expect: are resolved into the observers' settings. Every problem found
// here, as in the format, is reported at its file:line:column with what
// was expected, together with the format's own in one sorted list.
//
// Build makes a Scenario a Network: the engine, a model per node (swtch,
// hca, congestion), the flows' QPs and work requests, the faults
// scheduled. Network.Run runs it to its stop condition with the observers
// switched on (package observe) and returns what a run writes
// (reports.Results).
//
// The files, by concern. Reading a file: load.go (Load, Parse and the
// examples), build.go (the builder: the order of its steps and the
// header), profiles.go, cc.go, topology.go, routes.go, traffic.go,
// programs.go (perftest and pingpong), observe.go (observe: and expect:),
// faultcheck.go, and scenario.go (what they produce). Building and running
// a network: assemble.go (Build), network.go (the Network and its
// records), flows.go (a flow's QPs, path and congestion control),
// dynamic.go (flows that start and end while it runs), faults.go (faults
// at run time) and run.go (Run, and the summary it collects).
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
// Limits keep any file from exhausting memory: at most 100000 hosts,
// 100000 switches and 1000000 links in a topology, fat-tree k up to 64,
// switches × hosts up to 4×10^8 and switches² up to 10^8 (the routing
// tables), 10 million flows, 5 million YAML nodes visited (aliases
// counted each time) and nesting 64 deep; and at most 200 errors are
// listed.
//
// assembly may import the format (scenario), the observers (observe),
// the models (sim, fabric, swtch, hca, congestion) and reports. It must
// not import sweep or cmd; the models and observers must not import it.
package assembly
