package collective

import (
	"fmt"
	"strconv"
	"strings"
)

// nccl-tests (github.com/NVIDIA/nccl-tests, 2.19.6) as lfsim runs its
// programs (all_reduce_perf, all_gather_perf, ...): what a size means to
// each, and the program's output, in its own lines, columns and units
// (src/util.cu: writeDeviceReport, writeResultHeader,
// writeBenchmarkLinePreamble, writeBenchmarkLineBody,
// writeResultFooter, finalizeFooter, writeErrors).

// NCCLTestsVersion is the nccl-tests whose output lfsim writes.
const NCCLTestsVersion = "2.19.6"

// NCCLVersionCode is NCCL_VERSION_CODE of the NCCL lfsim models (2.30.7,
// whose src/graph/tuning.cc tables tune.go transcribes: major·10000 +
// minor·100 + patch), which nccl-tests prints as nccl-headers= and
// nccl-library=.
const NCCLVersionCode = 23007

// wordSize is the element size of nccl-tests' default type, float.
const wordSize = 4

// TestSize is one size of an nccl-tests run, as setupArgs makes it from
// the size asked for (its op's GetCollByteCount, for floats).
type TestSize struct {
	// Bytes is the size nccl-tests prints (max of the send and receive
	// buffers) and the collective's size (Spec.Size); Count the count it
	// prints (elements per rank's call).
	Bytes, Count int64
}

// NCCLTestSize is what nccl-tests makes of size bytes for op over n
// ranks.
func NCCLTestSize(op Op, size int64, n int) TestSize {
	count := size / wordSize
	switch op {
	case AllGather, ReduceScatter, AllToAll:
		// (count/nranks) & ~(16/eltSize - 1): 16-byte aligned parts.
		base := count / int64(n) &^ (16/wordSize - 1)
		return TestSize{Bytes: base * int64(n) * wordSize, Count: base}
	}
	return TestSize{Bytes: count * wordSize, Count: count}
}

// CallSize is size bytes of op over n ranks as an NCCL call of floats
// can carry them: rounded down to whole floats, per rank for
// all_gather, reduce_scatter and all_to_all (whose call takes a count
// per rank: ncclAllGather's sendcount, ncclReduceScatter's recvcount,
// ncclAlltoAll's count per peer), as nccl-tests' setupArgs does (count
// = size / wordSize(type), then count / nranks for those). nccl-tests'
// programs align the parts further, to 16 bytes (NCCLTestSize); an
// NCCL call needs not. 0 is a call of count 0, which NCCL discards
// (src/enqueue.cc, taskAppend: "Empty collectives can be discarded").
func CallSize(op Op, size int64, n int) int64 {
	switch op {
	case AllGather, ReduceScatter, AllToAll:
		return size / wordSize / int64(n) * wordSize * int64(n)
	}
	return size / wordSize * wordSize
}

// ProgramName is op's nccl-tests program.
func ProgramName(op Op) string {
	if op == AllToAll {
		return "alltoall_perf"
	}
	return op.String() + "_perf"
}

// TestResult is one line of an nccl-tests table: a size, out of place and
// in place, each the average over the ranks of their time per call, in
// seconds (0 for a size of 0 elements, whose calls NCCL discards).
type TestResult struct {
	Size                TestSize
	OutOfPlace, InPlace float64
}

// TestHeader is what the program prints before its table.
type TestHeader struct {
	Op                 Op
	Ranks              int
	Hosts              []string // by rank
	MinBytes, MaxBytes int64
	StepFactor         int
	StepBytes          int64
	Iters, WarmupIters int
	Root               int
}

// getFloatStr is nccl-tests' number in at most width characters: two
// decimals, else one, else none, else an exponent.
func getFloatStr(v float64, width int) string {
	for _, f := range []string{"%*.2f", "%*.1f", "%*.0f"} {
		if s := fmt.Sprintf(f, width, v); len(s) <= width {
			return s
		}
	}
	if width >= 7 {
		return fmt.Sprintf("%*.1e", width, v)
	}
	return fmt.Sprintf("%*.0e", width, v)
}

// NCCLTestsReport is the program's output: its header (nThread 1 nGpus 1,
// one rank per process, as a run under mpirun is), its table of results
// and its footer. lfsim moves no data, so it checks none: validation is
// 0 and #wrong N/A, as nccl-tests prints with -c 0.
func NCCLTestsReport(h TestHeader, rows []TestResult) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	prog := ProgramName(h.Op)
	p("# nccl-tests version %s nccl-headers=%d nccl-library=%d\n", NCCLTestsVersion, NCCLVersionCode, NCCLVersionCode)
	p("# simulated by lfsim: NCCL's algorithms and protocols as lfsim models them\n")
	p("# Collective test starting: %s\n", prog)
	step, unit := h.StepBytes, "bytes"
	if h.StepFactor > 1 {
		step, unit = int64(h.StepFactor), "factor"
	}
	p("# nThread %d nGpus %d minBytes %d maxBytes %d step: %d(%s) warmup iters: %d iters: %d agg iters: %d validation: %d graph: %d unalign: %d\n",
		1, 1, h.MinBytes, h.MaxBytes, step, unit, h.WarmupIters, h.Iters, 1, 0, 0, 0)
	p("#\n")
	p("# Using devices\n")
	for r, host := range h.Hosts {
		p("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\n", r, 0, r+1, host, 0, 0, 0, 0, "lfsim simulated GPU")
	}
	p("#\n")
	p("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "", "", "", "", "")
	p("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "size", "count", "type", "redop", "root",
		"time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", 0, "")
	p("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)", "(elements)", "", "", "",
		"(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", 0, "")
	redop, root := "sum", -1
	switch h.Op {
	case AllGather, AllToAll, Broadcast:
		redop = "none"
	}
	if h.Op.Rooted() {
		root = h.Root
	}
	var bwSum float64
	var bwCount int
	for _, r := range rows {
		p("%12d  %12d  %8s  %6s  %6s", r.Size.Bytes, r.Size.Count, "float", redop, fmt.Sprintf("%6d", root))
		for _, sec := range []float64{r.OutOfPlace, r.InPlace} {
			alg := 0.0 // an empty call's (which lfsim's calls of 0 bytes take no time for)
			if sec > 0 {
				alg = float64(r.Size.Bytes) / 1e9 / sec
			}
			bus := alg * h.Op.BusFactor(h.Ranks)
			p("  %7s  %6s  %6s    N/A", getFloatStr(sec*1e6, 7), getFloatStr(alg, 6), getFloatStr(bus, 6))
			bwSum += bus
			bwCount++
		}
		p("\n")
	}
	avg := 0.0
	if bwCount > 0 {
		avg = bwSum / float64(bwCount)
	}
	p("# %-20s : %d %s\n", "Out of bounds values", 0, "OK")
	p("# %-20s : %s %s\n", "Avg bus bandwidth", strconv.FormatFloat(avg, 'g', 6, 64), "") // C's %g: 6 digits
	p("#\n")
	p("# Collective test concluded: %s\n", prog)
	p("#\n") // finalizeFooter
	p("\n")  // writeErrors, with no NCCL error
	return b.String()
}
