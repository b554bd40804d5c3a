package collective

import (
	"strings"

	"github.com/lfsim/lfsim/sim"
)

// Protocol is one of NCCL's three protocols, in NCCL's order
// (NCCL_PROTO_LL, NCCL_PROTO_LL128, NCCL_PROTO_SIMPLE).
//
// What lfsim models of each is what sets a collective's time: the
// bytes a step puts on the wire for its data, the data one step (one
// work request, one buffer slot) carries, and the latency a step adds
// (ProtocolLatency):
//
//   - LL (low latency): 8-byte lines of 4 bytes of data and a 4-byte
//     flag, which the receiving GPU polls, so no fence and no proxy
//     round trip: 50% of the wire is data. Its buffer is 512 KiB
//     (NCCL's DEFAULT_LL_BUFFSIZE: NCCL_LL_LINES_PER_THREAD 8 ×
//     NCCL_LL_MAX_NTHREADS 512 × NCCL_STEPS 8 × 16-byte lines), a step
//     64 KiB of lines, 32 KiB of data.
//   - LL128: 128-byte lines of 120 bytes of data and 8 of flag, 93.75%;
//     its buffer NCCL_LL128_ELEMS_PER_THREAD 120 ×
//     NCCL_LL128_MAX_NTHREADS 640 × NCCL_STEPS × 8 bytes, a step
//     614,400 bytes of lines, 576,000 of data.
//   - Simple: the data as it is, with a memory fence and a flag per step
//     (and a flush of the GPU's view of the network's writes), so the
//     highest latency; its buffer 4 MiB (DEFAULT_BUFFSIZE), a step
//     512 KiB; a ring's chunk is ALLREDUCE_CHUNKSTEPS (NCCL_STEPS/2 = 4)
//     steps, 2 MiB, which a ring's all_reduce, reduce_scatter and
//     all_gather send as two slices of two steps each (Sliced).
//
// Sources: NCCL's src/include/device.h (NCCL_STEPS, the LL and LL128
// line layouts), src/init.cc (the buffer sizes), src/include/collectives.h
// (the chunk steps) and src/enqueue.cc (calcCollChunking: stepSize is a
// buffer over NCCL_STEPS; a chunk is chunkSteps steps for a ring under
// Simple, one step otherwise; LL halves it and LL128 keeps 120/128 of it
// as data).
type Protocol uint8

// The protocols.
const (
	LL Protocol = iota
	LL128
	Simple
)

var protoNames = [...]string{"LL", "LL128", "Simple"}

// Protocols lists the protocols' names as a scenario gives them
// (lower case), in NCCL's order.
func Protocols() []string { return []string{"ll", "ll128", "simple"} }

func (p Protocol) String() string { return protoNames[p] }

// ParseProtocol reads a protocol's name, in any case.
func ParseProtocol(s string) (Protocol, bool) {
	for i, n := range protoNames {
		if strings.EqualFold(n, s) {
			return Protocol(i), true
		}
	}
	return 0, false
}

// StepData is the data one step of p carries: one work request, one of
// the NCCL_STEPS slots of the connection's buffer.
func (p Protocol) StepData() int64 {
	switch p {
	case LL:
		return 32 << 10
	case LL128:
		return 576000
	}
	return 512 << 10
}

// Wire is the bytes that carry data bytes of p: twice the data for LL,
// 128 for every 120 (or part) for LL128, the data itself for Simple.
func (p Protocol) Wire(data int64) int64 {
	switch p {
	case LL:
		return 2 * data
	case LL128:
		return (data + 119) / 120 * 128
	}
	return data
}

// MaxWire is the largest work request any plan puts on the wire (a
// Simple ring's slice, SliceMax): a connection's slots are that large.
const MaxWire = SliceMax

// Slices of a Simple ring (all_reduce, reduce_scatter, all_gather), as
// NCCL runs them: its primitives are ProtoSimple<SlicePerChunk,
// StepPerSlice> with ALLREDUCE_CHUNKSTEPS/ALLREDUCE_SLICESTEPS = 2
// slices a chunk and ALLREDUCE_SLICESTEPS = NCCL_STEPS/4 = 2 buffer
// steps a slice (src/include/collectives.h; the same for ALLGATHER_ and
// REDUCESCATTER_; src/device/all_reduce.h, runRing). Each slice is one
// message of the network proxy: the GPU posts its size in the slot's
// connFifo (src/device/prims_simple.h, waitPeer: "connFifo[step %
// NCCL_STEPS].size = nelts * sizeof(T)", then step += StepPerSlice) and
// the proxy sends it whole and moves on by sliceSteps
// (src/transport/net.cc, sendProxyProgress: "sub->transmitted +=
// args->sliceSteps"), so a connection has NCCL_STEPS/StepPerSlice = 4
// slices on their way at most. Broadcast and reduce (BROADCAST_ and
// REDUCE_SLICESTEPS 1) and trees (chunkSteps 1, ProtoSimple<1, 1>) send
// a step per message.
const (
	SlicePerChunk = 2
	StepPerSlice  = 2
	// SliceMax is a slice of a chunk of NCCL's size: StepPerSlice
	// Simple steps, 1 MiB.
	SliceMax = StepPerSlice * 512 << 10
)

// Sliced reports whether op on algorithm a under p sends NCCL's slices
// (a Simple ring's all_reduce, reduce_scatter and all_gather).
func Sliced(op Op, a Algorithm, p Protocol) bool {
	return a == Ring && p == Simple && (op == AllReduce || op == ReduceScatter || op == AllGather)
}

// sliceOf is the first slice of a chunk of c bytes: NCCL's genericOp
// takes max(divUp(nelem, 16·SlicePerChunk)·16, sliceSize/32) elements
// (src/device/prims_simple.h), sliceSize being StepPerSlice steps: for
// floats (4 bytes, the model's data) half the chunk in whole 64-byte
// groups, at least 32 KiB, and no more than the chunk; the second slice
// is the rest (none, a message of 0 bytes, which NCCL's proxy sends as
// well, for a chunk of at most 32 KiB). A chunk beyond NCCL's (2 MiB;
// chunk: larger, which NCCL's tuner would see clamped to the buffer)
// goes in slices of SliceMax.
func sliceOf(c int64) int64 {
	return min(SliceMax, c, max((c+127)/128*64, SliceMax/32))
}

// Steps is NCCL_STEPS: the slots of a connection's buffer, so the steps
// a sender may have on their way to a receiver.
const Steps = 8

// DefaultChunk is the data a channel moves per step of one loop (NCCL's
// chunkSize) for algorithm a under p: ALLREDUCE_CHUNKSTEPS (4) steps for
// a ring under Simple, 2 MiB; NCCL's p2p chunk (128 KiB) for direct
// sends under Simple; one step otherwise.
func DefaultChunk(a Algorithm, p Protocol) int64 {
	switch {
	case a == Ring && p == Simple:
		return 4 * p.StepData()
	case a == Direct && p == Simple:
		return P2PChunk
	}
	return p.StepData()
}

// Hardware is where a step goes, in NCCL's tuning terms.
type Hardware uint8

// NVLink is a step inside a server (its scale-up domain); Net a step
// over the network.
const (
	NVLink Hardware = iota
	Net
)

// usec is a latency of NCCL's tuning tables (microseconds, as floats).
func usec(f float64) sim.Time { return sim.Time(f * float64(sim.Microsecond)) }

// BaseLatency is what a collective pays once, from its call to its
// first step, for algorithm a under p: NCCL's baseLatencies (tree:
// 6.8, 14.0, 8.4 µs for LL, LL128, Simple; ring 6.6, 14.0, 8.4;
// src/graph/tuning.cc, ncclTunerConstantsDefaults). Halving-doubling
// and direct sends take the ring's.
func BaseLatency(a Algorithm, p Protocol) sim.Time {
	if a == Tree {
		return usec([...]float64{6.8, 14.0, 8.4}[p])
	}
	return usec([...]float64{6.6, 14.0, 8.4}[p])
}

// ProtocolLatency is the latency NCCL's tuning gives one step of
// algorithm a under p over hardware hw (its hwLatencies): NVLink ring
// 0.6, 1.9, 3.4 µs, tree 0.6, 1.25, 4.0; network ring 2.7, 4.0, 14.0,
// tree 5.0, 8.5, 14.0 (LL, LL128, Simple). A ring whose servers hold one
// rank each takes the tree's network figure, as tuning.cc does ("With
// ppn=1 latencies are fully exposed, use the Tree network latency").
// NCCL's figure is a whole step on real hardware; lfsim simulates the
// wire, the switches and the NICs of the step itself, and adds as a
// delay only the rest (the GPU kernel's and the proxy thread's part):
// this figure less the path's own latency (Plan's users subtract it).
func ProtocolLatency(a Algorithm, p Protocol, hw Hardware, onePerServer bool) sim.Time {
	tree := a == Tree || hw == Net && onePerServer
	switch {
	case hw == NVLink && tree:
		return usec([...]float64{0.6, 1.25, 4.0}[p])
	case hw == NVLink:
		return usec([...]float64{0.6, 1.9, 3.4}[p])
	case tree:
		return usec([...]float64{5.0, 8.5, 14.0}[p])
	}
	return usec([...]float64{2.7, 4.0, 14.0}[p])
}
