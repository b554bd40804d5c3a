// Package metamorphic is lfsim's random-scenario test, in the way of
// cockroachdb/pebble's metamorphic package: a generator of random valid
// scenarios over every family of keys (topologies, both link layers and
// mixed networks of the two with VPI hosts, the transports, congestion
// controls, load balancers, overlays, range extenders, QoS as switches
// are configured, Ultra Ethernet's link layer and transport, faults,
// traffic kinds, programs and observers), a
// runner that runs each through the assembly
// API under several settings, the checks and relations that hold between
// those runs, and a shrinker that reduces a failing scenario to a small
// one kept in testdata.
//
// The files, by concern: spec.go (a scenario as the generator makes it:
// the model the relations transform), render.go (that model as the YAML a
// user writes, so every run goes through the parser), gen.go,
// gentraffic.go, genfaults.go, gentopo.go (mixed networks and range
// extenders), genqos.go (QoS and overlays), gencoll.go (issue 48's
// collectives, nccl_tests and GPU servers) and genuec.go (issue 53's
// Ultra Ethernet: UET, NSCC, trim, cbfc, llr) (the generator and the
// rules that keep its scenarios valid), fabrics.go (which fabric each
// switch and port is on), rate.go (rates, sizes and loads as written),
// run.go (one run through assembly, its files and its panics), check.go
// and checkcoll.go (the checks), variants.go (the scenarios the relations run beside it),
// relabel.go (the relabelling relation, and where it is exact), known.go
// (the defects known and being fixed, which the checks excuse), shrink.go
// (the shrinker), cases.go (failing cases kept in testdata) and
// coverage.go (how many scenarios used each key; TestGeneratorFrequencies
// holds the shares of issue 47's systems).
//
// Held to every scenario (Check):
//
//   - no panic, in building or running;
//   - byte-identical files at 1, 2 and 3 workers (summary.json without
//     wall_seconds, which no run repeats);
//   - the conservation check balances;
//   - collectives.csv has a row for every call the scenario's
//     collectives and nccl_tests programs make, each consistent with its
//     status and with summary.json, and the scenario's collectives alone
//     (no other traffic, no faults), given 100 ms, complete every call,
//     or the run found a deadlock, a failed work request or a drop;
//   - events grow linearly with simulated time: a variant of the
//     scenario whose load is steady (every source busy from the start to
//     the end) runs for L and 4L, and events(4L) <= LinearFactor × 4 ×
//     (events(L) + StartEvents) (not for iWARP and DCTCP, whose windows
//     grow for the whole run, nor behind a bottleneck slower than its
//     feeders, nor with collectives, whose latencies and pipeline fill
//     last past L), and the events per packet hop grow at most PerHopFactor
//     times (not where collectives run on GPU servers: their steps inside
//     a server are events without packet hops);
//   - observers on or off give the same flows.csv (and collectives.csv,
//     without nccl_tests, whose barriers wait for observation points);
//   - hosts relabelled give outputs that map onto each other (where that
//     holds exactly; relabel.go says where and why).
//
// TestMetamorphic runs them on random scenarios for a time budget and
// prints its seed; its doc comment says how to run it for longer.
//
// It imports assembly, so it sits above it, beside sweep and bench
// (internal/layers).
package metamorphic
