// Package scenario is the scenario format (SCENARIO.md): it reads a
// scenario file strictly into its schema (File), checking every key
// against the schema and every value against its type and units, and
// reports each mistake at its file:line:column with what was expected
// (and a "did you mean" where a near name exists). Nothing is silently
// ignored: features that the simulator does not model yet parse and are
// checked, then reported as errors that say so. It also holds what is the
// format's own: the diagnostics (Pos, Diagnostic, Errors), the units of
// values, paths to keys (Path, for sweeps) and the flow-size
// distributions. The library of scenario files (the examples, the labs,
// the performance suite) is package scenarios.
//
// What needs more than the file (names against the generated topology,
// headroom against the buffer) is checked where the scenario is resolved
// (package resolve), which adds its findings to the same Decoder so that
// one sorted list holds them all.
//
// The schema's types are named for their keys, with a suffix: S for a
// mapping decoded field by field (SwitchS is switch:), V for a value that
// reads its node itself (StrV, SizeV, TrafficV).
//
// Beyond SCENARIO.md, the format accepts what users would expect: YAML
// anchors, aliases and merge keys (<<: *x); top-level keys that start with
// "x-" are ignored, as a place to define anchors; and
// expect.max_pause_fraction takes one {port, value} or a list.
//
// scenario imports no package of lfsim's but the value types it needs:
// fabric's sizes and rates (fabric.Size, fabric.Rate and their parsers)
// and sim's times (sim.Time). A model knows no YAML, and the format knows
// no model; internal/layers holds both to that.
package scenario
