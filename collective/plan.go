package collective

import "fmt"

// Need is a step's wait: Count steps in all must have arrived on in-link
// In (a rank's local index), counted from the start of the call.
type Need struct {
	In    int32
	Count int64
}

// Send is a step's send: Bytes of data on out-link Out (local index).
type Send struct {
	Out   int32
	Bytes int64
}

// Step is one step of a stream, as NCCL's primitives do one: wait for
// what it needs to have arrived, then send (a reduction or copy on the
// GPU is taken as free).
type Step struct {
	Wait  [3]Need
	NWait int8
	Send  [3]Send
	NSend int8
}

func (s *Step) wait(in int32, count int64) {
	s.Wait[s.NWait] = Need{in, count}
	s.NWait++
}

func (s *Step) send(out int32, bytes int64) {
	s.Send[s.NSend] = Send{out, bytes}
	s.NSend++
}

// Stream is a sequence of steps a rank runs in order, as one of NCCL's
// thread groups runs its primitives: a ring channel, a tree's reduce or
// broadcast half, a peer's sends. A stream's steps are computed when
// they are reached, not stored: a 1,024-rank ring all-reduce has two
// thousand steps per channel and rank.
type Stream interface {
	// Len is the number of steps.
	Len() int64
	// Step is step i (0 <= i < Len()).
	Step(i int64) Step
	// Count tells add the steps the stream sends on each out-link and
	// waits for on each in-link, in all.
	Count(add func(out bool, link int32, n int64))
}

// Spec is one operation: what a Plan runs on a Comm.
type Spec struct {
	Op Op
	// Size is the operation's size as nccl-tests prints it (its
	// doc/PERFORMANCE.md): every rank's buffer for all_reduce,
	// broadcast and reduce; reduce_scatter's input (n times each rank's
	// result); all_gather's output (n times each rank's part);
	// all_to_all's buffer, of which each rank sends Size/n to every
	// rank.
	Size  int64
	Proto Protocol
	// Root is broadcast's and reduce's root, a rank.
	Root int
	// Chunk is the data a channel moves per step of one loop (NCCL's
	// chunkSize); 0 takes DefaultChunk. A step's work request carries at
	// most min(Chunk, Proto.StepData()), or where the plan is Sliced a
	// slice (half the chunk, at most SliceMax).
	Chunk int64
}

// Plan is one operation on a communicator: each rank's streams.
type Plan struct {
	Comm *Comm
	Spec Spec
	// Channels is how many of the communicator's channels carry data:
	// all, unless the size is smaller than them (a byte each at least);
	// none for a size of 0; for direct sends those NCCL gives a send of
	// a peer's bytes (p2pChannels).
	Channels int
	ranks    [][]Stream
	// counts are, by rank, its out- and in-links' steps in one call.
	outCount, inCount [][]int64
}

// Empty reports whether the plan moves nothing (a size of 0): its calls
// end as they are made, with no base latency (Rank.Kick).
func (p *Plan) Empty() bool { return p.Spec.Size == 0 }

// Streams are rank r's streams.
func (p *Plan) Streams(r int) []Stream { return p.ranks[r] }

// OutSteps and InSteps are the steps one call sends on each out-link
// and waits for on each in-link of rank r (by local index).
func (p *Plan) OutSteps(r int) []int64 { return p.outCount[r] }

// InSteps: see OutSteps.
func (p *Plan) InSteps(r int) []int64 { return p.inCount[r] }

// NewPlan plans s on c.
func NewPlan(c *Comm, s Spec) (*Plan, error) {
	a := c.Opt.Algorithm
	if !a.Supports(s.Op) {
		return nil, fmt.Errorf("%s does not run %s (it runs on %s)", a, s.Op, SupportedBy(s.Op))
	}
	if s.Size < 0 {
		return nil, fmt.Errorf("a negative size")
	}
	if s.Op.Rooted() && (s.Root < 0 || s.Root >= c.N()) {
		return nil, fmt.Errorf("root %d is not a rank (0..%d)", s.Root, c.N()-1)
	}
	if s.Chunk <= 0 {
		s.Chunk = DefaultChunk(a, s.Proto)
	}
	p := &Plan{Comm: c, Spec: s, ranks: make([][]Stream, c.N()), Channels: c.Opt.Channels}
	if s.Size == 0 {
		// A call of count 0: NCCL discards it (src/enqueue.cc,
		// taskAppend), no kernel, no step.
		p.Channels = 0
		p.count()
		return p, nil
	}
	if s.Size < int64(p.Channels) {
		p.Channels = int(max(1, s.Size))
	}
	switch a {
	case Ring:
		p.planRing()
	case Tree:
		p.planTree()
	case HalvingDoubling:
		p.planHalvingDoubling()
	case Direct:
		p.planDirect()
	}
	p.count()
	return p, nil
}

// piece is the data one work request of the plan carries at most, but
// for a Sliced ring's (ringStream's slices).
func (p *Plan) piece() int64 { return min(p.Spec.Chunk, p.Spec.Proto.StepData()) }

// Sliced reports whether the plan sends NCCL's slices (Sliced).
func (p *Plan) Sliced() bool { return Sliced(p.Spec.Op, p.Comm.Opt.Algorithm, p.Spec.Proto) }

// Depth is the work requests a connection of the plan may have on
// their way: NCCL_STEPS buffer steps, StepPerSlice to a slice where the
// plan is Sliced (4), one each otherwise (8).
func (p *Plan) Depth() int64 {
	if p.Sliced() {
		return Steps / StepPerSlice
	}
	return Steps
}

// channelBytes is channel ch's part of d bytes: d split as evenly as
// whole bytes allow over the plan's channels, the first ones a byte
// larger.
func (p *Plan) channelBytes(d int64, ch int) int64 {
	n := int64(p.Channels)
	b := d / n
	if int64(ch) < d%n {
		b++
	}
	return b
}

// count fills the plan's per-link step counts from its streams.
func (p *Plan) count() {
	c := p.Comm
	p.outCount = make([][]int64, c.N())
	p.inCount = make([][]int64, c.N())
	for r := range p.ranks {
		p.outCount[r] = make([]int64, len(c.Out[r]))
		p.inCount[r] = make([]int64, len(c.In[r]))
		for _, st := range p.ranks[r] {
			st.Count(func(out bool, l int32, n int64) {
				if out {
					p.outCount[r][l] += n
				} else {
					p.inCount[r][l] += n
				}
			})
		}
	}
}

// ceilDiv is a/b rounded up, for a >= 0, b > 0.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// clamp bounds v to [0, hi].
func clamp(v, hi int64) int64 { return max(0, min(v, hi)) }
