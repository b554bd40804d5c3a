package resolve

import (
	"fmt"
	"slices"

	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

// Collectives (issue 48): the collective and nccl_tests generators,
// checked and resolved here and run by assembly over package
// collective's model (see its package comment for what is modelled).

// CommSpec is what a collective and nccl_tests share: the ranks and how
// their connections are laid out and run.
type CommSpec struct {
	// Hosts are the ranks, in rank order (hosts:, default every host).
	Hosts []fabric.NodeID
	// Algorithm is algorithm: (default ring, direct for all_to_all).
	Algorithm collective.Algorithm
	// Protocol is protocol: when ProtocolSet; else NCCL's tuning
	// chooses by size (collective.Tune).
	Protocol    collective.Protocol
	ProtocolSet bool
	// Channels is channels: (default 2: NCCL's rings and trees over one
	// NIC per GPU take 2 channels each, and NCCL_NCHANNELS_PER_NET_PEER's
	// default is 2); QPs is qps:, NCCL_IB_QPS_PER_CONNECTION (default 1).
	Channels, QPs int
	// Chunk is chunk: (0: NCCL's, collective.DefaultChunk).
	Chunk int64
	// Root is root:'s index in Hosts (default 0).
	Root int
	// RailAware and PXN are rail_aware: and pxn: (default true), which
	// matter on GPU servers only.
	RailAware, PXN bool
	// Start is start: (default 0), when the first call is made.
	Start sim.Time
	// Priority is the QPs' priority (priority:, default the hosts' HCA's).
	Priority    uint8
	PrioritySet bool
	Generator   int
	Pos         scenario.Pos
}

// Collective is one collective generator: Op of Size on the ranks,
// called Iterations times on each, each call when the rank's previous
// one (and its calls of the collectives After) are done.
type Collective struct {
	CommSpec
	Op         collective.Op
	Size       int64
	Iterations int
	// After are earlier collectives, by index in Scenario.Collectives.
	After []int
}

// NCCLTest is one nccl_tests generator: op's nccl-tests program
// (all_reduce_perf, ...) from MinBytes to MaxBytes, times StepFactor
// (or plus StepBytes when StepFactor is 1) each time, Iters timed calls
// after WarmupIters.
type NCCLTest struct {
	CommSpec
	Op                 collective.Op
	MinBytes, MaxBytes int64
	StepFactor         int
	StepBytes          int64
	Iters, WarmupIters int
}

// nccl-tests' defaults (src/common.cu: minBytes, maxBytes 32 MiB,
// stepBytes 1 MiB, stepFactor 1, iters 20, warmup_iters 1).
const (
	ncclTestsBytes     = 32 << 20
	ncclTestsStepBytes = 1 << 20
	ncclTestsIters     = 20
	ncclTestsWarmup    = 1
)

// commSpec resolves the keys a collective and nccl_tests share; ok is
// false after an error.
func (b *builder) commSpec(gen int, tv *scenario.TrafficV, path string, c *scenario.CommS, op collective.Op) (CommSpec, bool) {
	s := CommSpec{Algorithm: collective.DefaultAlgorithm(op), Channels: 2, QPs: 1, RailAware: true, PXN: true,
		Start: c.Start.V, Generator: gen, Pos: tv.Pos}
	hosts, _, ok := b.hostList(&c.Hosts, path+".hosts")
	if !ok {
		return s, false
	}
	s.Hosts = hosts
	if len(hosts) < 2 {
		pos := c.Hosts.Pos
		if !c.Hosts.Set {
			pos = tv.Pos
		}
		b.errorf(pos, path+".hosts", "a collective needs at least 2 ranks (hosts), not %d", len(hosts))
		return s, false
	}
	if c.Algorithm.Set {
		s.Algorithm, _ = collective.ParseAlgorithm(c.Algorithm.V)
		if !s.Algorithm.Supports(op) {
			b.errorf(c.Algorithm.Pos, path+".algorithm", "%s does not run %s; %s runs on %s", c.Algorithm.V, op, op, collective.SupportedBy(op))
			return s, false
		}
	}
	if n := len(hosts); s.Algorithm == collective.HalvingDoubling && n&(n-1) != 0 {
		b.errorf(c.Algorithm.Pos, path+".algorithm", "halving_doubling needs a power of two of ranks, not %d (MPICH's and Gloo's steps for the others are not modelled)", n)
		return s, false
	}
	if c.Protocol.Set {
		s.Protocol, _ = collective.ParseProtocol(c.Protocol.V)
		s.ProtocolSet = true
		if !s.Algorithm.Uses(s.Protocol) {
			b.errorf(c.Protocol.Pos, path+".protocol", "%s does not run on %s; %s runs on %s", s.Algorithm, c.Protocol.V, s.Algorithm, collective.ProtocolsOf(s.Algorithm))
			return s, false
		}
	}
	overrideNum(&s.Channels, c.Channels)
	overrideNum(&s.QPs, c.QPs)
	if c.Chunk.Set {
		s.Chunk = int64(c.Chunk.V)
	}
	if c.RailAware.Set {
		s.RailAware = c.RailAware.V
		why := ""
		switch {
		case s.Algorithm == collective.Tree && !s.RailAware:
			why = "a tree's chains are always on the rails (NCCL's tree pattern: each server's GPUs in a chain, its head on the channel's rail); rail_aware: false is for rings"
		case s.Algorithm == collective.HalvingDoubling:
			why = "halving_doubling pairs rank r with r XOR 2^k, as MPICH and Gloo do, which know no rails; rail_aware is for rings"
		case s.Algorithm == collective.Direct:
			why = "direct sends to every peer at once and lays no ring (whether a send to another rail goes through the GPU on that rail is pxn); rail_aware is for rings"
		}
		if why != "" {
			b.errorf(c.RailAware.Pos, path+".rail_aware", "%s", why)
			return s, false
		}
	}
	if c.PXN.Set {
		s.PXN = c.PXN.V
		why := ""
		switch s.Algorithm {
		case collective.Tree:
			why = "a tree never relays a step (each server's chain head sends from its own NIC, on the channel's rail); pxn is for rings and direct"
		case collective.HalvingDoubling:
			why = "halving_doubling sends each step from its rank's own NIC, as MPICH and Gloo do, which know no PXN; pxn is for rings and direct"
		}
		if why != "" {
			b.errorf(c.PXN.Pos, path+".pxn", "%s", why)
			return s, false
		}
	}
	if c.Priority.Set {
		// On InfiniBand a QP's priority is its VL: a number the file
		// gave as an 802.1p priority went there unchecked, past
		// switch.ib.data_vls a VL without credits (a panic: "sends a
		// packet without credit") or one no VL arbitration table serves
		// (a call that never ends). A flow takes sl: there; a
		// collective has none, and runs on SL 0.
		for _, h := range hosts {
			if b.s.LinkLayerOf(h) == fabric.InfiniBand {
				b.errorf(c.Priority.Pos, path+".priority", "an 802.1p priority is Ethernet's, and rank %s is on InfiniBand, where a collective's QPs use SL 0 (VL 0): remove priority", b.s.Topology.Nodes[h].Name)
				return s, false
			}
		}
		s.Priority, s.PrioritySet = uint8(c.Priority.V), true
	}
	if c.Root.Set {
		id, found := b.host(c.Root, path+".root")
		if !found {
			return s, false
		}
		s.Root = slices.Index(hosts, id)
		if s.Root < 0 {
			b.errorf(c.Root.Pos, path+".root", "the root %s is not one of the collective's hosts", scenario.Show(c.Root.V))
			return s, false
		}
		if !op.Rooted() {
			b.errorf(c.Root.Pos, path+".root", "%s has no root (broadcast and reduce have)", op)
			return s, false
		}
	}
	if b.s.Servers != nil {
		// The layout on GPU servers (rails need every server to hold
		// the same GPUs of the collective), as assembly will make it.
		places := make([]collective.Place, len(hosts))
		for i, h := range hosts {
			places[i] = collective.Place{Server: -1}
			if sv, g, ok := b.s.ServerOf(h); ok {
				places[i] = collective.Place{Server: sv, GPU: g}
			}
		}
		comm, err := collective.NewComm(places, collective.Options{Algorithm: s.Algorithm, Channels: s.Channels, RailAware: s.RailAware, PXN: s.PXN})
		if err != nil {
			pos := c.Hosts.Pos
			if !c.Hosts.Set {
				pos = tv.Pos
			}
			b.errorf(pos, path+".hosts", "%v", err)
			return s, false
		}
		b.countCollective(&s, networkLinks(&s, comm))
	} else {
		b.countCollective(&s, networkLinks(&s, nil))
	}
	if c.Start.Set && c.Start.V >= b.s.Stop.At {
		b.warnf(c.Start.Pos, path+".start", "starts at %s, not before stop.at (%s); it will not run", c.Start.V, b.s.Stop.At)
	}
	return s, true
}

// collective checks a collective generator and adds it to
// Scenario.Collectives.
func (b *builder) collective(gen int, tv *scenario.TrafficV, path string, g *scenario.CollectiveS) {
	if !g.Op.Set || !g.Size.Set {
		return
	}
	op, _ := collective.ParseOp(g.Op.V)
	spec, ok := b.commSpec(gen, tv, path, &g.CommS, op)
	if !ok {
		return
	}
	c := Collective{CommSpec: spec, Op: op, Size: int64(g.Size.V), Iterations: 1}
	b.collectiveSize(&c, g.Size.Pos, path+".size")
	overrideNum(&c.Iterations, g.Iterations)
	for _, a := range g.After {
		if !a.Set {
			return
		}
		k := slices.IndexFunc(b.s.Collectives, func(x Collective) bool { return int64(x.Generator) == a.V })
		if k < 0 {
			b.errorf(a.Pos, path+".after", "traffic[%d] is not an earlier collective; after lists the traffic: indices of collectives above this one%s", a.V, b.collectiveIndices())
			return
		}
		c.After = append(c.After, k)
	}
	b.s.Collectives = append(b.s.Collectives, c)
}

// collectiveSize rounds c's size down to what an NCCL call of floats
// carries (collective.CallSize: whole floats, per rank for all_gather,
// reduce_scatter and all_to_all), as nccl-tests' count = size /
// sizeof(float) does, and says so when that changes it; a size of 0 is
// run as NCCL runs a call of count 0, at once and with no traffic, and
// said so too.
func (b *builder) collectiveSize(c *Collective, at scenario.Pos, path string) {
	n := len(c.Hosts)
	size := collective.CallSize(c.Op, c.Size, n)
	per := ""
	switch c.Op {
	case collective.AllGather, collective.ReduceScatter, collective.AllToAll:
		per = fmt.Sprintf(" per rank (%s over %d ranks takes a count per rank)", c.Op, n)
	}
	switch {
	case size == c.Size && size > 0:
		return
	case c.Size == 0:
		b.warnf(at, path, "a collective of 0 bytes: NCCL returns at once for a count of 0 (no kernel, no traffic); each call takes no time")
	case size == 0:
		b.warnf(at, path, "%d bytes is less than a float (4 bytes)%s: NCCL's count rounds to 0, a call it returns from at once; each call takes no time", c.Size, per)
	default:
		b.warnf(at, path, "%d bytes is not a whole number of floats (4 bytes)%s: rounded down to %d bytes, as nccl-tests' count = size / sizeof(float) does", c.Size, per, size)
	}
	c.Size = size
}

// collectiveIndices names the earlier collectives' indices, for a message.
func (b *builder) collectiveIndices() string {
	if len(b.s.Collectives) == 0 {
		return " (there is none)"
	}
	var s []string
	for _, c := range b.s.Collectives {
		s = append(s, fmt.Sprint(c.Generator))
	}
	return fmt.Sprintf(" (%s)", b.list(s))
}

// ncclTests checks an nccl_tests generator and adds it to
// Scenario.NCCLTests.
func (b *builder) ncclTests(gen int, tv *scenario.TrafficV, path string, g *scenario.NCCLTestsS) {
	if !g.Op.Set {
		return
	}
	op, _ := collective.ParseOp(g.Op.V)
	spec, ok := b.commSpec(gen, tv, path, &g.CommS, op)
	if !ok {
		return
	}
	t := NCCLTest{CommSpec: spec, Op: op, MinBytes: ncclTestsBytes, MaxBytes: ncclTestsBytes, StepFactor: 1,
		StepBytes: ncclTestsStepBytes, Iters: ncclTestsIters, WarmupIters: ncclTestsWarmup}
	if g.MinBytes.Set {
		t.MinBytes = int64(g.MinBytes.V)
	}
	if g.MaxBytes.Set {
		t.MaxBytes = int64(g.MaxBytes.V)
	}
	overrideNum(&t.StepFactor, g.StepFactor)
	overrideNum(&t.Iters, g.Iters)
	overrideNum(&t.WarmupIters, g.WarmupIters)
	if g.StepBytes.Set {
		t.StepBytes = int64(g.StepBytes.V)
	}
	if t.MinBytes > t.MaxBytes {
		at := g.MinBytes.Pos
		if !g.MinBytes.Set {
			at = g.MaxBytes.Pos
		}
		b.errorf(at, path+".minbytes", "minbytes (%s) is above maxbytes (%s), as nccl-tests refuses (\"invalid sizes for 'minbytes' and 'maxbytes'\")", fabric.Size(t.MinBytes), fabric.Size(t.MaxBytes))
		return
	}
	if n := len(t.Sizes()); n > maxNCCLTestSizes {
		b.errorf(tv.Pos, path, "this nccl_tests runs %d sizes; at most %d are supported (raise stepfactor or stepbytes)", n, maxNCCLTestSizes)
		return
	}
	switch {
	case t.MinBytes > 0:
	case t.StepFactor > 1 && t.MaxBytes > 0:
		// nccl-tests' warm-up (src/common.cu: size = size * 2) and its
		// timed loop (TimeTest: size = size * stepfactor) never leave 0.
		b.warnf(g.MinBytes.Pos, path+".minbytes", "minbytes 0 times stepfactor %d stays 0: nccl-tests would run 0 bytes forever; this runs it once and no other size (give minbytes above 0)", t.StepFactor)
	default:
		// nccl-tests' warm-up (src/common.cu, since f2015cb: for size =
		// minbytes; size <= maxbytes; size = size * 2) doubles whatever
		// the step, so from 0 it never ends, with stepbytes too and with
		// maxbytes 0.
		b.warnf(g.MinBytes.Pos, path+".minbytes", "minbytes 0 doubled stays 0: nccl-tests' warm-up (size = size * 2, whatever stepbytes or stepfactor) would run 0 bytes forever and never time a size; this warms up 0 bytes once and goes on (give minbytes above 0)")
	}
	b.s.NCCLTests = append(b.s.NCCLTests, t)
}

// maxNCCLTestSizes bounds an nccl_tests generator's sizes.
const maxNCCLTestSizes = 1000

// Sizes are the sizes nccl-tests runs, in order (its TimeTest loop:
// times stepfactor when above 1, else plus stepbytes).
func (t *NCCLTest) Sizes() []int64 {
	var out []int64
	for size := t.MinBytes; size <= t.MaxBytes && len(out) <= maxNCCLTestSizes; {
		out = append(out, size)
		next := size + t.StepBytes
		if t.StepFactor > 1 {
			next = size * int64(t.StepFactor)
		}
		if next <= size {
			break // 0 times anything, or an overflow
		}
		size = next
	}
	return out
}
