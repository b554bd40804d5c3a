package resolve

import (
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

// Credit-starved links: on a link under credit flow control (InfiniBand's
// credits per VL, IBTA vol. 1, 7.9; Ultra Ethernet's CBFC per traffic
// class, switch.cbfc) a sender may have at most the receiver's buffer
// outstanding, and a block's credit comes back a round trip after the
// block was sent: the two propagation delays, the packet's serialization
// (up to its first 64 bytes into a cut-through switch), the receiving
// switch's latency before the packet leaves its buffer, and (InfiniBand)
// the flow-control packet's serialization. A buffer below
// that round trip × the link's rate holds one VL (one class) to
// buffer / round trip: fabric/credit_test.go's TestCreditLimitedLink and
// assembly's TestIBLongLinkExample and TestCBFCLongLink hold the model to
// that arithmetic. checkCredits warns of every such link at resolve time,
// with the numbers and what lifts it, so that a fabric of long or fast
// links is not limited by its credits without saying so (the first run
// of the nccl-tests-h800 reproduction, NDR links of 1 µs against 64 KiB:
// each NIC carried 24 GB/s of its 50, silently).

// creditKind is which credit a link's receiver grants.
type creditKind uint8

const (
	creditVL       creditKind = iota // InfiniBand's switch.ib.vl_buffer, 12-bit counters
	creditLongHaul                   // a range extender's long haul: its buffer's share per VL
	creditCBFC                       // switch.cbfc's buffer per traffic class
)

// starved is one link's credit arithmetic in its worse direction (from
// sender to the receiver whose buffer it fills).
type starved struct {
	kind    creditKind
	rate    fabric.Rate
	delay   sim.Time
	latency sim.Time     // the receiving switch's (0 at a host)
	cut     bool         // the receiving switch forwards cut-through: its latency runs from a packet's first 64 bytes
	buffer  int64        // what the receiver grants a VL (class), bytes
	frame   int64        // the largest packet (frame, header to FCS), bytes
	at      scenario.Pos // where the warning goes (linkPlace); zero in the key of an explicit topology's link
	path    string
	// Filled by creditArith.
	rtt     sim.Time // the credit round trip
	rttB    int64    // rtt × rate, bytes
	window  int64    // the whole packets the buffer holds × frame, bytes
	allowed float64  // one VL's rate, bits/s: min(rate, window / rtt)
}

// creditArith fills c's round trip and the rate the buffer allows.
func (c *starved) creditArith() {
	blocks := fabric.IBPacketBlocks(c.frame)
	c.rtt = 2*c.delay + c.fixed()
	c.rttB = int64(float64(c.rate) * c.rtt.Seconds() / 8)
	c.window = (c.buffer / fabric.BlockBytes) / blocks * c.frame
	c.allowed = min(float64(c.rate), float64(c.window*8)/c.rtt.Seconds())
}

// bufferFor is the smallest buffer, in whole KiB, whose whole packets
// cover c's round trip (the buffer that runs the link at line rate).
func (c *starved) bufferFor() int64 {
	pkts := (c.rttB + c.frame - 1) / c.frame
	need := pkts * fabric.IBPacketBlocks(c.frame) * fabric.BlockBytes
	return (need + 1023) / 1024 * 1024
}

// longestFor is the longest delay a buffer of buf bytes covers at c's
// rate and latency; negative where none does.
func (c *starved) longestFor(buf int64) sim.Time {
	window := (buf / fabric.BlockBytes) / fabric.IBPacketBlocks(c.frame) * c.frame
	return (fabric.SerializationTime(window, c.rate) - c.fixed()) / 2
}

// fixed is c's round trip less the two propagation delays: the packet's
// serialization up to where the receiving switch starts its latency (the
// whole packet; its first 64 bytes where it forwards cut-through, as
// SCENARIO.md's InfiniBand switches do by default), that latency, and on
// InfiniBand the flow-control packet's serialization.
func (c *starved) fixed() sim.Time {
	in := c.frame
	if c.cut {
		in = min(in, fabric.BlockBytes)
	}
	t := fabric.SerializationTime(in, c.rate) + c.latency
	if c.kind != creditCBFC {
		t += fabric.SerializationTime(fabric.FCPacketBytes, c.rate)
	}
	return t
}

// starvedBelow is the share of a link's rate below which one VL (class)
// held by its credits is warned of: a few percent short is within what
// the credit arithmetic above leaves out (when the receiver grants,
// fabric/credit.go; the cut-through switch's exact start) and what the
// tests' 3% tolerances allow, and not worth a warning.
const starvedBelow = 0.95

// checkCredits warns, link by link, where a link's credit round trip
// × rate exceeds what its receiver's buffer grants a VL (or a CBFC
// class), so that one VL runs below 95% of the link's rate. Identical links
// (same rate, delay, buffer, receiving latency and key) make one
// warning, at the key that gave their rate and delay.
func (b *builder) checkCredits() {
	if !b.topoOK || b.d.ErrorCount() > 0 {
		return
	}
	s, t := b.s, b.t
	maxFrames := s.MaxFrames()
	cbfc := s.UEC.CBFCBuffer
	if s.LinkLayer != fabric.InfiniBand && !s.Mixed() && cbfc == 0 {
		return
	}
	_, explicit := b.f.Topology.Spec.(*scenario.ExplicitS)
	var groups []*starved
	var count []int
	var first []int // the link each group names
	index := map[starved]int{}
	g := b.f.Topology.Generated() // read once: it reflects over the keys
	for i, l := range t.Links {
		at, path := b.linkPlace(g, b.linkOwner(i))
		var worst *starved
		var worstFrom fabric.NodeID
		for _, d := range [2]struct {
			from, to fabric.NodeID
			port     int
		}{{l.A, l.B, l.BPort}, {l.B, l.A, l.APort}} {
			c := starved{rate: l.Rate, delay: l.Delay, at: at, path: path}
			ll := s.LinkLayerOf(d.to)
			switch {
			case ll == fabric.InfiniBand && s.LinkLayerOf(d.from) == fabric.InfiniBand:
				c.kind, c.buffer, c.frame = creditVL, s.IB.VLBuffer, maxFrames[fabric.InfiniBand]
				if share, ok := s.LongHaul(d.to, d.port); ok {
					c.kind, c.buffer = creditLongHaul, share
				}
			case ll == fabric.Ethernet && cbfc > 0:
				c.kind, c.buffer, c.frame = creditCBFC, cbfc, maxFrames[fabric.Ethernet]
			default:
				continue
			}
			if c.frame <= 0 || c.buffer < fabric.IBPacketBlocks(c.frame)*fabric.BlockBytes {
				continue // refused (checkBuffers, checkUEC)
			}
			if t.Nodes[d.to].Kind == fabric.Switch {
				p := s.SwitchProfile(d.to)
				c.latency, c.cut = p.Latency, p.CutThrough
			}
			c.creditArith()
			if c.allowed >= starvedBelow*float64(c.rate) {
				continue
			}
			if worst == nil || c.allowed < worst.allowed {
				worst, worstFrom = &c, d.from
			}
		}
		if worst == nil {
			continue
		}
		key := *worst
		if explicit {
			key.at, key.path = scenario.Pos{}, "" // the links group by their numbers; the first's key is the warning's
		}
		if g, ok := index[key]; ok {
			count[g]++
			continue
		}
		index[key] = len(groups)
		groups = append(groups, worst)
		count = append(count, 1)
		if worstFrom == l.A {
			first = append(first, i)
		} else {
			first = append(first, -1-i)
		}
	}
	for g, c := range groups {
		i, rev := first[g], false
		if i < 0 {
			i, rev = -1-i, true
		}
		l := t.Links[i]
		from, to := l.A, l.B
		if rev {
			from, to = to, from
		}
		// One link is named; identical links are not, since naming one
		// would name another when the hosts change roles (metamorphic's
		// relabel-32000020, -32000874, -32006682: neither a generated
		// topology's order nor a links: file's is the hosts'): the key
		// the warning is at, the group's first, names them.
		name := t.Nodes[from].Name + "->" + t.Nodes[to].Name
		b.warnf(c.at, c.path, "%s", creditWarning(c, count[g], name, s.IB.DataVLs))
	}
}

// creditWarning is the text of c's warning, for the link name or, n
// above 1, the n links of the key the warning is at.
func creditWarning(c *starved, n int, name string, dataVLs int) string {
	var w strings.Builder
	what, unit := "a VL", "VL"
	if c.kind == creditCBFC {
		what, unit = "a traffic class", "class"
	}
	pkt := fmt.Sprintf("a %d-byte packet", c.frame)
	lat := ""
	if c.latency > 0 {
		lat = " + the receiving switch's latency, " + c.latency.String()
	}
	if c.cut && c.frame > fabric.BlockBytes {
		pkt = fmt.Sprintf("a packet's first %d bytes", fabric.BlockBytes)
		lat = " + the receiving switch's cut-through latency, " + c.latency.String()
	}
	subject := "link " + name + " is"
	if n > 1 {
		subject = fmt.Sprintf("%d links are", n)
	}
	key := map[creditKind]string{creditVL: "switch.ib.vl_buffer", creditLongHaul: fmt.Sprintf("range_extender.buffer over %d data VLs", dataVLs), creditCBFC: "switch.cbfc.buffer"}[c.kind]
	fmt.Fprintf(&w, "%s credit-limited: the credit round trip, (2 × %s + %s%s) × %s = %d bytes, exceeds what %s's buffer holds, %d bytes (%s: %d packets of %d bytes), so one %s runs at most %.1f Gb/s of %s (buffer / round trip); ",
		subject, c.delay, pkt, lat, c.rate, c.rttB, what, c.buffer, key, c.window/c.frame, c.frame, unit, c.allowed/1e9, c.rate)
	need := c.bufferFor()
	switch c.kind {
	case creditVL:
		if need <= fabric.MaxVLBuffer {
			fmt.Fprintf(&w, "switch.ib.vl_buffer: %s runs it at line rate (at most %s, what 12-bit credits grant)", fabric.Size(need), fabric.Size(fabric.MaxVLBuffer))
			if d := c.longestFor(c.buffer); d > 0 {
				fmt.Fprintf(&w, ", or links of at most %s", roundNs(d))
			}
			break
		}
		if c.buffer < fabric.MaxVLBuffer {
			more := *c
			more.buffer = fabric.MaxVLBuffer
			more.creditArith()
			fmt.Fprintf(&w, "switch.ib.vl_buffer: %s, the most a VL's 12-bit credits grant, raises it to %.1f Gb/s; ", fabric.Size(fabric.MaxVLBuffer), more.allowed/1e9)
		}
		if d := c.longestFor(fabric.MaxVLBuffer); d > 0 {
			fmt.Fprintf(&w, "line rate needs links of at most %s with %s, or, for a long haul, two range extenders (range_extender), whose own buffer covers it", roundNs(d), fabric.Size(fabric.MaxVLBuffer))
		} else {
			fmt.Fprintf(&w, "no link runs at line rate on one VL at this rate past the switch's latency, even with %s", fabric.Size(fabric.MaxVLBuffer))
		}
	case creditLongHaul:
		total := need * int64(max(dataVLs, 1))
		fmt.Fprintf(&w, "range_extender.buffer: %s (%s a VL) runs it at line rate", fabric.Size(total), fabric.Size(need))
	case creditCBFC:
		fmt.Fprintf(&w, "switch.cbfc: {buffer: %s} runs it at line rate", fabric.Size(need))
		if d := c.longestFor(c.buffer); d > 0 {
			fmt.Fprintf(&w, ", or links of at most %s", roundNs(d))
		}
	}
	return w.String()
}

// linkOwner says which key gave link i its rate and delay (linkPlace
// reads it back): the explicit link's index, or for a generated
// topology -1 (link), -2 (host_link), -3 (fabric_link or bottleneck) by
// the link's ends.
func (b *builder) linkOwner(i int) int {
	t := b.t
	if e, ok := b.f.Topology.Spec.(*scenario.ExplicitS); ok {
		if len(e.Links) == len(t.Links) {
			return i
		}
		return -1
	}
	l := t.Links[i]
	if t.Nodes[l.A].Kind == fabric.Host || t.Nodes[l.B].Kind == fabric.Host {
		return -2
	}
	return -3
}

// linkPlace is where a warning about links of owner o goes (linkOwner):
// the explicit link, or the generator's key that gave them their rate
// and delay, or the topology.
// g is the topology's generated keys (nil for an explicit one).
func (b *builder) linkPlace(g *scenario.TopologyKeysS, o int) (scenario.Pos, string) {
	tv := &b.f.Topology
	if e, ok := tv.Spec.(*scenario.ExplicitS); ok {
		if o >= 0 && o < len(e.Links) {
			return e.Links[o].Pos, e.Links[o].Path
		}
		if e.Has("link") {
			return e.KeyPos("link"), "topology.link"
		}
		return tv.Pos, "topology"
	}
	if g == nil {
		return tv.Pos, "topology"
	}
	var keys []string
	switch o {
	case -2:
		keys = []string{"host_link", "link"}
	case -3:
		keys = []string{"fabric_link", "bottleneck", "link"}
	default:
		keys = []string{"link"}
	}
	for _, k := range keys {
		if g.Has(k) {
			return g.KeyPos(k), "topology." + k
		}
	}
	return tv.Pos, "topology"
}

// roundNs rounds t to the nanosecond, for a message.
func roundNs(t sim.Time) sim.Time {
	return (t + sim.Nanosecond/2) / sim.Nanosecond * sim.Nanosecond
}
