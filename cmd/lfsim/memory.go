package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/resolve"
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

// defaultMemoryShare is the share of the machine's memory a scenario's
// estimate may take by default (--max-memory): what is left is the
// system's, the report's and other programs'.
const defaultMemoryShare = 0.75

// memoryFlag adds --max-memory to fs.
func memoryFlag(fs *pflag.FlagSet) *string {
	return fs.String("max-memory", "", "refuse a scenario whose memory estimate is above this: a size (16GiB), a share of the machine's memory (50%), or 0 for no limit (default 75% of the machine's memory)")
}

// setMemoryLimit applies --max-memory (flag, as given; "" for the
// default) for cmd, and reports whether it was valid.
func setMemoryLimit(cmd, flag string, stderr io.Writer) bool {
	total := machineMemory()
	var limit int64
	switch v := strings.TrimSpace(flag); {
	case v == "":
		limit = int64(defaultMemoryShare * float64(total)) // 0 when unknown: no limit
	case strings.HasSuffix(v, "%"):
		pct, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil || pct <= 0 || pct > 100 {
			fmt.Fprintf(stderr, "lfsim %s: --max-memory %s: expected a share from 0%% to 100%%\n", cmd, flag)
			return false
		}
		if total == 0 {
			fmt.Fprintf(stderr, "lfsim %s: --max-memory %s: this machine's memory is not known; give a size such as 16GiB\n", cmd, flag)
			return false
		}
		limit = int64(pct / 100 * float64(total))
	default:
		s, err := fabric.ParseSize(v)
		if err != nil {
			fmt.Fprintf(stderr, "lfsim %s: --max-memory: %v\n", cmd, err)
			return false
		}
		limit = int64(s)
	}
	resolve.SetMemoryLimit(limit)
	return true
}

// machineMemory returns the machine's memory in bytes (MemTotal of
// /proc/meminfo), or 0 where it is not known.
func machineMemory() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
