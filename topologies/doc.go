// Package topologies holds lfsim's topology generators as the scenario
// format names them (topology.kind: star, dumbbell, leaf-spine, fat-tree,
// ring, rail-optimized): each file registers one in the table
// (kind.Topology): its keys with their types, bounds and defaults, how
// many hosts, switches and links it builds (for the limits), and its
// build function. register.go
// lists them in order. The format decodes a kind's keys from its row,
// the resolution step calls its row; neither names a kind. The table of
// generated names in docs/SCENARIO.md is written from the rows
// (TestDocsTable).
//
// The first five generators themselves stay in fabric (fabric.Star, ...):
// fabric's own routing, subnet manager and spanning-tree tests build
// their fabrics with them, which a package above fabric could not give
// them, and the ring numbers its ports with fabric's internals. A new
// generator may build its topology here, in its own file, with fabric's
// exported Topology (NewTopology, AddNode, Connect), as rail-optimized
// does (railoptimized.go); it also lists its GPU servers (kind.Server,
// kind.WithServers), which no other generator has.
//
// The explicit kind, which lists its nodes and links instead of
// generating them, is the format's own (scenario's ExplicitS, resolved
// by resolve/topology.go) and has no row here.
package topologies
