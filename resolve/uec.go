package resolve

import (
	"fmt"
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/scenario"
	swtch "github.com/lfsim/lfsim/switch"
)

// Ultra Ethernet's link layer (UEC 1.0, 2025): switch.trim on any switch
// block; switch.cbfc and switch.llr, the network's links', on the
// top-level block only.

// UEC is the network's Ultra Ethernet link layer.
type UEC struct {
	// CBFCBuffer is each Ethernet port's receive buffer per traffic
	// class under credit-based flow control (fabric.Port.EnableCBFC),
	// bytes; 0 when switch.cbfc is off.
	CBFCBuffer int64
	// LLR is switch.llr: every Ethernet link resends the frames it
	// loses from its replay buffer (fabric.Link.EnableLLR).
	LLR bool
}

// DefaultCBFCBuffer is switch.cbfc's buffer per port and traffic class
// when cbfc: true gives none: 128 KiB, the most InfiniBand's 12-bit
// credit counters grant a VL (fabric.MaxVLBuffer). UEC 1.0 leaves the
// buffer to the implementation; at 100 Gb/s it covers a round trip of
// 10 us, a link of about 1 km, at line rate.
const DefaultCBFCBuffer = fabric.MaxVLBuffer

// applyUEC lays switch block s's trim over p, and for the top-level
// block (path "switch") reads cbfc and llr; a switch's own block may not
// give them.
func (b *builder) applyUEC(p *swtch.Profile, s *scenario.SwitchS, path string) {
	override(&p.Trim, s.Trim)
	if path != "switch" {
		for _, k := range []string{"cbfc", "llr"} {
			if s.Has(k) {
				b.errorf(s.KeyPos(k), path+"."+k, "%s is the whole network's links': give it in the top-level switch block", k)
			}
		}
		return
	}
	if s.Has("cbfc") && s.CBFC.On {
		p.CBFC = true
		b.s.UEC.CBFCBuffer = DefaultCBFCBuffer
		overrideNum(&b.s.UEC.CBFCBuffer, s.CBFC.Buffer)
		// Credits keep every class lossless: no PFC.
		p.PFC.Priorities = []uint8{}
	}
	b.s.UEC.LLR = s.LLR.V
}

// checkUEC refuses what Ultra Ethernet's link layer does not run with,
// once the link layer and the topology are known.
func (b *builder) checkUEC() {
	sw := &b.f.Switch
	if sw.Has("cbfc") && sw.CBFC.On {
		at := sw.KeyPos("cbfc")
		switch {
		case b.s.LinkLayer == fabric.InfiniBand || b.s.Mixed():
			b.errorf(at, "switch.cbfc", "cbfc is Ethernet's credit-based flow control; InfiniBand's links have credits of their own (switch.ib.vl_buffer)")
		case sw.Has("pfc"):
			b.errorf(sw.KeyPos("pfc"), "switch.pfc", "with switch.cbfc the links are lossless by credits, without PFC: remove switch.pfc")
		case b.s.Switch.TrustDSCP:
			b.errorf(sw.KeyPos("trust"), "switch.trust", "with switch.cbfc a frame's credits are its traffic class's on the wire (its 802.1p priority): use trust: pcp")
		}
		if sw.CBFC.Buffer.Set {
			at = sw.CBFC.Buffer.Pos
		}
		// The largest frame is the hosts' (MaxFrames reads the topology):
		// without one there is nothing to check the buffer against.
		if b.topoOK {
			if need := fabric.IBPacketBlocks(b.s.MaxFrames()[fabric.Ethernet]) * fabric.BlockBytes; b.s.UEC.CBFCBuffer < need {
				b.errorf(at, "switch.cbfc.buffer", "a class's buffer (%d bytes) must hold the largest frame, %d bytes (%d credits of 64 bytes): raise switch.cbfc.buffer or lower hca.mtu",
					b.s.UEC.CBFCBuffer, need, need/fabric.BlockBytes)
			}
		}
	}
	if sw.LLR.V {
		for i := range b.f.Faults {
			if f := &b.f.Faults[i]; f.Action.V == "down" {
				b.errorf(f.Action.Pos, fmt.Sprintf("faults[%d].action", i), "a link cut under switch.llr is not modelled (what its replay buffer holds when the link goes down): use action: loss, or llr: false")
			}
		}
	}
	if sw.LLR.V && (b.s.LinkLayer == fabric.InfiniBand || b.s.Mixed()) {
		b.errorf(sw.KeyPos("llr"), "switch.llr", "llr is Ultra Ethernet's link-level retry, for Ethernet links")
	}
	b.checkTrim(sw, &b.s.Switch, "switch", b.s.LinkLayer == fabric.InfiniBand)
}

// checkTrim refuses switch block s's trim (path names the block; p is
// the switch's profile with the block laid on) where it would trim
// nothing: on an InfiniBand switch (ib), or with switch.cbfc, as neither
// drops a packet for want of buffer; and where a trimmed header would not
// be sent first (review F, finding 5). A header leaves at
// swtch.TrimPriority, which the strict scheduler serves ahead of data, as
// uet-htsim serves its trimmed headers: if PFC makes that priority
// lossless, the headers of lossy classes are charged to a lossless class
// and can pause it upstream (a pause storm that starts at a lossy class);
// if the scheduler gives its class a weight, DWRR shares the link between
// the headers and the data they are about.
func (b *builder) checkTrim(s *scenario.SwitchS, p *swtch.Profile, path string, ib bool) {
	if !s.Has("trim") || !s.Trim.V {
		return
	}
	tc := uint8(swtch.TrimPriority)
	if p.Prio2TC != nil {
		tc = p.Prio2TC[swtch.TrimPriority]
	}
	_, weighted := p.DWRR[tc]
	switch at := s.KeyPos("trim"); {
	case ib:
		b.errorf(at, path+".trim", "trim is Ultra Ethernet's packet trimming, for Ethernet switches: InfiniBand's links drop nothing for want of buffer")
	case b.f.Switch.Has("cbfc") && b.f.Switch.CBFC.On:
		b.errorf(at, path+".trim", "with switch.cbfc nothing is dropped for want of buffer: nothing to trim (remove trim, or cbfc)")
	case slices.Contains(p.PFC.Priorities, swtch.TrimPriority):
		b.errorf(at, path+".trim", "a trimmed header leaves at priority %d, which switch.pfc.priorities makes lossless: lossy classes' trims would be paused and would pause upstream; keep priority %d lossy", swtch.TrimPriority, swtch.TrimPriority)
	case weighted:
		b.errorf(at, path+".trim", "a trimmed header leaves at priority %d, to be sent ahead of data, but switch.scheduler gives its traffic class (%d) a weight: leave that class strict", swtch.TrimPriority, tc)
	}
}

// atomicTraffic refuses atomics where the transport's row has none (UET's
// first step: its SES atomic headers are not modelled; iWARP says so in
// rdmapTraffic).
func (b *builder) atomicTraffic(tv *scenario.TrafficV, path string) {
	t := b.transportRow()
	if t.Atomics || t.RDMAP {
		return
	}
	if g, ok := tv.Gen.(*scenario.PerftestS); ok && g.Test.Set && (g.Test.V == "atomic_bw" || g.Test.V == "atomic_lat") {
		b.errorf(g.Test.Pos, path+".test", "atomics on %s are not modelled yet", t.Title)
	}
	if com := genCommon(tv.Gen); com != nil && com.Op.Set && com.Op.V == "atomic" {
		b.errorf(com.Op.Pos, path+".op", "atomics on %s are not modelled yet", t.Title)
	}
}
