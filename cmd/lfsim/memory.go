package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// runGCPercent is the garbage collector's target once a network is built:
// the heap may grow 25% past what is live before a collection, instead of
// Go's default 100%. A run allocates almost nothing per packet (packets
// and events come from free lists), so collections stay rare and cheap,
// while the default target would let the resident size reach about twice
// the live heap: a k=16 fat-tree run peaked at 122 MiB with it and about
// 80% of that with 25%. A GOGC set in the environment wins.
const runGCPercent = 25

// tightenGC sets the collector's target for a run, before the network is
// built (building makes garbage too: the parsed scenario's nodes,
// routing's scratch graphs).
func tightenGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(runGCPercent)
	}
}

// settleMemory drops what building the network left behind, so that the
// run starts from what is live.
func settleMemory() { runtime.GC() }
