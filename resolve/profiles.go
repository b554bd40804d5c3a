package resolve

import (
	"fmt"
	"math/bits"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// applySwitch overrides p with what block s gives; path names the block
// in messages.
func (b *builder) applySwitch(p *swtch.Profile, s *scenario.SwitchS, path string) {
	if !s.Set {
		return
	}
	override(&p.Buffer, s.Buffer.SizeV)
	if s.Buffer.Given() { // the whole buffer, or the shared pool alone
		p.SharedPool = s.Buffer.Pool.Shared.V
	}
	override(&p.Latency, s.Latency)
	if s.Forwarding.Set {
		p.CutThrough = s.Forwarding.V == "cut-through"
	}
	override(&p.Reserved, s.Reserved)
	if s.IngressTh.Given() {
		p.IngressThreshold = threshold(&s.IngressTh)
	}
	if s.EgressTh.Given() {
		p.EgressThreshold = threshold(&s.EgressTh)
	}
	b.applyPFC(p, s, path)
	override(&p.EgressFIFO, s.EgressFIFO)
	override(&p.FloodLossless, s.FloodLossless)
	override(&p.Tagger, s.Tagger)
	applyQueueing(p, s)
	b.applyQoS(p, s, path)
	override(&p.ECMPSeed, s.ECMPSeed)
	override(&p.ECMPPerSwitch, s.ECMPPerSwitch)
	b.applyLoadBalance(p, s, path)
	b.applyRangeExtender(p, s, path)
	b.applyUEC(p, s, path)
	if path != "switch" {
		b.transportSwitch(s, path) // the top-level block's is checked with the rest of the transport's
	}
	if path != "switch" && b.s.LinkLayer == fabric.InfiniBand {
		b.ibLoadBalance(s, path) // the top-level block's is checked with the rest of InfiniBand's
	}
	if path != "switch" && s.Has("ib") {
		// The InfiniBand parameters are the network's; a switch gives
		// its own link_layer (ibSwitchDecl).
		b.errorf(s.KeyPos("ib"), path+".ib", "ib is the whole network's: give it in the top-level switch block")
	}
}

// chooses reports whether the load balancing switch.load_balance names
// has the switch choose among a group's ports itself (kind.LoadBalance).
func chooses(name string) bool {
	l, ok := kind.LookupLoadBalance(name)
	return ok && l.Chooses
}

// applyLoadBalance sets the switch's load balancing (swtch.LoadBalance)
// and its modes' parameters, each only with the mode it tunes.
func (b *builder) applyLoadBalance(p *swtch.Profile, s *scenario.SwitchS, path string) {
	if s.LoadBalance.Set {
		p.LoadBalance, _ = swtch.ParseLoadBalance(s.LoadBalance.V) // the schema checked the name
	}
	override(&p.FlowletTimeout, s.FlowletTimeout)
	if s.Spray.Set {
		p.Spray, _ = swtch.ParseSprayMode(s.Spray.V)
	}
	override(&p.AdaptiveBias, s.AdaptiveBias)
	for _, mode := range kind.LoadBalances() {
		for _, key := range mode.Keys {
			if s.Has(key) && p.LoadBalance.String() != mode.Name {
				b.errorf(s.KeyPos(key), path+"."+key, "%s tunes load_balance: %s, and this switch's load_balance is %s", key, mode.Name, p.LoadBalance)
			}
		}
	}
}

// applyPFC overrides p's PFC settings with switch.pfc (s.PFC), checking
// xon against xoff and xoff against the buffer.
func (b *builder) applyPFC(p *swtch.Profile, s *scenario.SwitchS, path string) {
	pf := &s.PFC
	if pf.Has("priorities") {
		p.PFC.Priorities = []uint8{}
		seen := map[int64]bool{}
		for _, pr := range pf.Priorities {
			if !pr.Set {
				continue
			}
			if seen[pr.V] {
				b.errorf(pr.Pos, path+".pfc.priorities", "priority %d is listed twice", pr.V)
				continue
			}
			seen[pr.V] = true
			p.PFC.Priorities = append(p.PFC.Priorities, uint8(pr.V))
		}
	} else {
		p.PFC.Priorities = append([]uint8(nil), p.PFC.Priorities...) // no sharing between profiles
	}
	b.pfcThresholds(p, s, path)
	if pf.Has("headroom") {
		p.PFC.HeadroomAuto, p.PFC.Headroom = pf.Headroom.Auto, pf.Headroom.Size.V
	}
	if pf.Has("response") {
		p.PFC.ResponseAuto, p.PFC.Response = pf.Response.Auto, pf.Response.Time.V
	}
	if w := &pf.Watchdog; w.Set {
		p.PFC.Watchdog = watchdog(p.PFC.Watchdog, w)
	}
}

// pfcThresholds sets XOFF and XON (bytes, alpha or an offset below XOFF)
// and checks them against each other and the buffer.
func (b *builder) pfcThresholds(p *swtch.Profile, s *scenario.SwitchS, path string) {
	pf := &s.PFC
	if pf.XOFF.Bytes.Set {
		p.PFC.XOFF, p.PFC.XOFFAlpha = pf.XOFF.Bytes.V, 0
	}
	override(&p.PFC.XOFFAlpha, pf.XOFF.Dyn.Alpha)
	if pf.XON.Bytes.Set {
		p.PFC.XON, p.PFC.XONOffset = pf.XON.Bytes.V, 0
	}
	if off := pf.XON.Rel.Offset; off.Set {
		p.PFC.XONOffset = off.V
		if off.V > p.PFC.XOFF {
			b.errorf(off.Pos, path+".pfc.xon.offset", "offset (%s) must not exceed xoff (%s)", off.V, p.PFC.XOFF)
		}
	}
	if p.PFC.XONOffset > 0 && p.PFC.XONOffset <= p.PFC.XOFF {
		p.PFC.XON = p.PFC.XOFF - p.PFC.XONOffset
	}
	if (pf.XON.Bytes.Set || pf.XOFF.Bytes.Set) && p.PFC.XON > p.PFC.XOFF {
		at, key := pf.XON.Bytes.Pos, ".pfc.xon"
		if !pf.XON.Bytes.Set {
			at, key = pf.XOFF.Bytes.Pos, ".pfc.xoff"
		}
		b.errorf(at, path+key, "xon (%s) must not exceed xoff (%s)", p.PFC.XON, p.PFC.XOFF)
	}
	limit, what := p.Buffer, "the buffer"
	if p.SharedPool > 0 {
		limit, what = p.SharedPool+p.Reserved, "the shared pool and reserved"
	}
	// An XOFF of the pool and reserved themselves is sent once the pool
	// is full (a SONiC profile's static_th 0, no limit: package sonic).
	if (pf.XOFF.Bytes.Set || s.Buffer.Given()) && p.PFC.XOFFAlpha == 0 && p.PFC.XOFF > limit {
		at, key := pf.XOFF.Bytes.Pos, ".pfc.xoff"
		if !pf.XOFF.Bytes.Set {
			at, key = s.Buffer.Pos, ".buffer"
			if s.Buffer.Pool.Shared.Set {
				at = s.Buffer.Pool.Shared.Pos
			}
		}
		b.errorf(at, path+key, "xoff (%s) must not exceed %s (%s)", p.PFC.XOFF, what, limit)
	}
}

// watchdog is switch.pfc.watchdog over the profile's (old, nil if none).
func watchdog(old *swtch.Watchdog, w *scenario.WatchdogS) *swtch.Watchdog {
	// Keys left out take SCENARIO.md's example values.
	wd := swtch.Watchdog{Detect: 200 * sim.Microsecond, Restore: sim.Millisecond, Action: "drop"}
	if old != nil {
		wd = *old
	}
	override(&wd.Detect, w.Detect)
	override(&wd.Restore, w.Restore)
	override(&wd.Action, w.Action)
	return &wd
}

// applyQueueing overrides p's ECN marking and egress scheduler with
// switch.ecn and switch.scheduler.
func applyQueueing(p *swtch.Profile, s *scenario.SwitchS) {
	if s.Has("ecn") {
		e := &s.ECN
		p.ECN.Enabled = !e.Off
		override(&p.ECN.Kmin, e.Kmin)
		override(&p.ECN.Kmax, e.Kmax)
		override(&p.ECN.Pmax, e.Pmax)
		if e.Mark.Set {
			p.ECN.AtEnqueue = e.Mark.V == "enqueue"
		}
		if e.Has("priorities") {
			marked := uint8(0)
			for _, pr := range e.Priorities {
				marked |= 1 << uint(pr.V&7)
			}
			p.ECN.Unmarked = ^marked
		}
	}
	if s.Has("scheduler") {
		p.DWRR = nil
		if len(s.Scheduler.DWRR) > 0 {
			p.DWRR = map[uint8]int{}
			for prio, w := range s.Scheduler.DWRR {
				p.DWRR[uint8(prio)] = int(w)
			}
		}
	}
}

var retransmits = map[string]hca.Retransmit{"go-back-n": hca.GoBackN, "go-back-0": hca.GoBack0, "selective": hca.Selective}

var placements = map[string]hca.Placement{"in-order": hca.InOrder, "direct": hca.Direct}

// applyHCA overrides p with what block h gives.
// uetAckBytes is the bytes a UET receiver takes between acknowledgements
// (uet-htsim, htsim/sim/uec.cpp: UecSink::_bytes_unacked_threshold).
const uetAckBytes = 16384

func (b *builder) applyHCA(p *hca.Profile, h *scenario.HCAS) {
	if !h.Set {
		return
	}
	overrideNum(&p.MTU, h.MTU)
	if h.Transport.Set {
		row, _ := kind.LookupTransport(h.Transport.V) // the schema checked the name
		p.Transport = row.Framing
	}
	b.applyTCP(p, h)
	overrideNum(&p.Priority, h.Priority)
	b.applyHCAQoS(p, h)
	if h.Retransmit.Set {
		p.Retransmit = retransmits[h.Retransmit.V]
	}
	if h.BDPCap.Given() {
		p.BDPCap, p.BDPCapAuto = int64(h.BDPCap.Size.V), h.BDPCap.Auto
	}
	if h.Placement.Set {
		p.Placement = placements[h.Placement.V]
	}
	switch {
	case p.Transport == fabric.UET && b.s.UET.ROD:
		// UET's reliable ordered delivery (ROD): in order, resent
		// from the gap (resolve/uet.go).
		b.rodProfile(p, h)
	case p.Transport == fabric.UET:
		// UET's reliable unordered delivery (RUD): each packet placed
		// by its offset, SACKed, and resent alone (resolve/uet.go).
		if !h.Retransmit.Set {
			p.Retransmit = hca.Selective
		}
		if !h.Placement.Set {
			p.Placement = hca.Direct
		}
	}
	if p.Transport == fabric.UET {
		// Its ACKs and NACKs in a class of their own, by default the
		// trimmed headers' (resolve/uet.go, hca.uet.ack_priority).
		p.UETAckClass = 1 + b.s.UET.AckPriority
		// Its receiver acknowledges every 16,384 bytes (uet-htsim,
		// htsim/sim/uec.cpp: UecSink::_bytes_unacked_threshold), whole
		// packets of the MTU: 4 at 4,096 (where this block names the
		// transport: a host's own block keeps the fabric's cadence).
		if h.Transport.Set && !h.AckEvery.Set {
			p.AckEvery = max(1, uetAckBytes/p.MTU)
		}
	}
	overrideNum(&p.ReorderWindow, h.ReorderWindow)
	if p.Placement == hca.Direct && p.Retransmit == hca.GoBack0 && (h.Placement.Set || h.Retransmit.Set) {
		at := h.Placement.Pos
		if !h.Placement.Set {
			at = h.Retransmit.Pos
		}
		b.errorf(at, "hca.placement", "direct placement keeps what arrives ahead of a gap, and go-back-0 resends whole messages; use retransmit: go-back-n or selective")
	}
	if h.ReorderWindow.Set && p.Placement != hca.Direct {
		b.errorf(h.ReorderWindow.Pos, "hca.reorder_window", "reorder_window tunes placement: direct, and placement is %s", p.Placement)
	}
	overrideNum(&p.AckTimeout, h.AckTimeout)
	overrideNum(&p.RetryCount, h.RetryCount)
	overrideNum(&p.RNRRetry, h.RNRRetry)
	overrideNum(&p.MinRNRTimer, h.MinRNRTimer)
	overrideNum(&p.MaxRdAtomic, h.MaxRdAtomic)
	overrideNum(&p.AckEvery, h.AckEvery)
	override(&p.DoorbellLatency, h.DoorbellLatency)
	override(&p.DoorbellCost, h.DoorbellCost)
	override(&p.WQEFetchLatency, h.WQEFetchLatency)
	override(&p.DMALatency, h.DMALatency)
	override(&p.TxPktLatency, h.TxPktLatency)
	override(&p.RxPktLatency, h.RxPktLatency)
	override(&p.RTOLow, h.RTOLow)
	override(&p.RTOHigh, h.RTOHigh)
	p.RTOGiven = p.RTOGiven || h.RTOLow.Set || h.RTOHigh.Set
	overrideNum(&p.MaxInline, h.MaxInline)
	override(&p.APM, h.APM)
	b.applyOverlay(p, &h.Overlay, "hca.overlay")
	if p.RTOLow > p.RTOHigh && (h.RTOLow.Set || h.RTOHigh.Set) {
		at := h.RTOLow.Pos
		if !h.RTOLow.Set {
			at = h.RTOHigh.Pos
		}
		b.errorf(at, "hca.rto_low", "rto_low (%s) is above rto_high (%s); IRN uses the low one for short flights", p.RTOLow, p.RTOHigh)
	}
	if h.AckTimeout.Set && p.Transport == fabric.UET && p.RTOHigh > 0 {
		// UET's source timer is the PDS's in either delivery mode,
		// ROD's go-back-N too (hca's ackTimeout).
		b.warnf(h.AckTimeout.Pos, "hca.ack_timeout", "UET's retransmission timer is rto_low and rto_high (%s, %s), whatever its delivery mode: ack_timeout is not used", p.RTOLow, p.RTOHigh)
	}
	if h.Has("rx_rate") {
		p.RxRate = 0
		if !h.RxRate.Line {
			p.RxRate = h.RxRate.Rate.V
		}
	}

	override(&p.CC, h.CC)
	override(&p.PFCWatchdog, h.PFCWatchdog.After)
	if len(p.CCParams) > 0 { // no sharing between profiles
		m := make(map[string]string, len(p.CCParams))
		for k, v := range p.CCParams {
			m[k] = v
		}
		p.CCParams = m
	}
}

// applyCM lays hca.cm over p, a host's connection manager's profile
// (the connection manager is package cm's, which hca.Profile cannot
// name).
func applyCM(p *cm.Profile, h *scenario.CMS) {
	if !h.Set {
		return
	}
	override(&p.QPCommand, h.QPCommand)
	override(&p.MADProcessing, h.MADProcessing)
	overrideNum(&p.RecvQueue, h.RecvQueue)
}

// threshold is switch.ingress_threshold or egress_threshold as the MMU
// takes it: dynamic (alpha) or static (bytes).
func threshold(x *scenario.ThresholdV) swtch.Threshold {
	if x.Dyn.Alpha.Set {
		return swtch.Threshold{Alpha: x.Dyn.Alpha.V}
	}
	return swtch.Threshold{Bytes: x.Bytes.V}
}

// losslessPriorities is the set of priorities that PFC protects on every
// switch, or nil when PFC is off everywhere (a lossy fabric on purpose).
func (b *builder) losslessPriorities() map[uint8]bool {
	profiles := []swtch.Profile{b.s.Switch}
	for _, p := range b.s.SwitchProfiles {
		if p.LinkLayer != "infiniband" || b.s.LinkLayer == fabric.InfiniBand { // an InfiniBand switch of a mixed network has no PFC
			profiles = append(profiles, p)
		}
	}
	count := map[uint8]int{}
	on := false
	for _, p := range profiles {
		for _, pr := range p.PFC.Priorities {
			count[pr]++
			on = true
		}
	}
	if !on {
		return nil
	}
	out := map[uint8]bool{}
	for pr, c := range count {
		out[pr] = c == len(profiles)
	}
	return out
}

// warnLossy warns that a generator's flows go on priority prio, which is
// not lossless on every switch: at its priority: key, or at the generator
// where it has none.
func (b *builder) warnLossy(com *scenario.GenCommon, tv *scenario.TrafficV, path string, prio uint8) {
	at := com.Priority.Pos
	if !com.Priority.Set {
		at = tv.Pos
	}
	b.warnf(at, path, "priority %d is not lossless on every switch (switch.pfc.priorities); its packets can be dropped", prio)
}

// checkBuffers finds, before anything is built, the switches whose buffer
// is smaller than their reserved minimums plus the PFC headroom their
// ports need (what swtch.New would refuse), and reports each at the key
// that sets its buffer: one error per place, naming the first such
// switch and how many more share it. A port's headroom depends on its
// link and its peer, as Build wires them: a host peer sends frames of its
// MTU and answers PAUSE in swtch.PauseResponse; a switch peer answers in
// its profile's response time.
func (b *builder) checkBuffers() {
	if !b.topoOK {
		return
	}
	t, s := b.t, b.s
	maxFrames := s.MaxFrames()
	if ib := maxFrames[fabric.InfiniBand]; s.LinkLayer == fabric.InfiniBand || (s.Mixed() && ib > 0) {
		// Credits per VL: a VL's buffer must hold the largest packet,
		// or it would never be granted (on a mixed network, the
		// InfiniBand side's largest).
		if need := fabric.IBPacketBlocks(ib) * fabric.BlockBytes; s.IB.VLBuffer < need {
			at, path := b.f.Switch.KeyPos("link_layer"), "switch.link_layer"
			if s.Mixed() {
				at, path = b.f.Topology.Pos, "topology"
			}
			if b.f.Switch.IB.VLBuffer.Set {
				at, path = b.f.Switch.IB.VLBuffer.Pos, "switch.ib.vl_buffer"
			}
			b.errorf(at, path, "a VL's buffer (%d bytes) must hold the largest packet, %d bytes (%d credit blocks of 64): raise switch.ib.vl_buffer or lower hca.mtu",
				s.IB.VLBuffer, ib, need/fabric.BlockBytes)
		}
	}
	if s.LinkLayer == fabric.InfiniBand {
		// The LIDs' limit is checked before the routes (checkRouting).
		var used uint8
		var sls uint16
		for _, f := range s.Flows {
			used |= 1 << f.Priority
			sls |= 1 << f.SL
		}
		for _, t := range s.Tests {
			if t.Kind == "perftest" {
				used |= 1 << t.Perftest.Priority
				sls |= 1 << t.Perftest.SL
			} else {
				used |= 1 << t.Pingpong.Priority
				sls |= 1 << t.Pingpong.SL
			}
		}
		for _, g := range s.Poisson {
			sls |= 1 << g.SL
			for _, h := range g.Hosts {
				used |= 1 << s.PoissonPriority(&g, h)
			}
		}
		sent := used                       // by the HCAs
		for _, t := range s.IB.PortSL2VL { // the VLs the ports' own tables move them to
			for sl := range t.Table {
				if sls&(1<<sl) != 0 {
					used |= 1 << t.Table[sl]
				}
			}
		}
		if left := used &^ s.IB.Served; left != 0 {
			b.errorf(b.f.Switch.IB.KeyPos("vlarb"), "switch.ib.vlarb", "the traffic uses VL %d, which the VL arbitration tables never serve (give it an entry with a weight)", bits.TrailingZeros8(left))
		} else if left := sent &^ s.IB.HCAServed; left != 0 {
			b.errorf(b.hcaArbPos, b.hcaArbPath, "the traffic uses VL %d, which an HCA's VL arbitration tables never serve (give it an entry with a weight)", bits.TrailingZeros8(left))
		}
		return
	}
	type failure struct {
		err  error
		path string
		more int
	}
	byPos := map[scenario.Pos]*failure{}
	var order []scenario.Pos
	var links []swtch.PortLink
	for id, node := range t.Nodes {
		if node.Kind != fabric.Switch {
			continue
		}
		links = s.PortLinks(fabric.NodeID(id), links[:0])
		err := s.SwitchProfile(fabric.NodeID(id)).CheckBuffer(node.Name, links, maxFrames[s.LinkLayerOf(fabric.NodeID(id))])
		if err == nil {
			continue
		}
		at, path := b.bufferPos(fabric.NodeID(id))
		if f := byPos[at]; f != nil {
			f.more++
			continue
		}
		byPos[at] = &failure{err: err, path: path}
		order = append(order, at)
	}
	for _, at := range order {
		f := byPos[at]
		msg := f.err.Error()
		if f.more > 0 {
			msg += fmt.Sprintf(" (and %d more switches with this profile)", f.more)
		}
		b.errorf(at, f.path, "%s", msg)
	}
}

// bufferPos is where switch id's buffer is set, and its path: the node's
// declaration in an explicit topology when it has a switch: of its own,
// else switch.buffer, else switch:, else topology:.
func (b *builder) bufferPos(id fabric.NodeID) (scenario.Pos, string) {
	if _, own := b.s.SwitchProfiles[id]; own {
		if at, ok := b.declPos[id]; ok {
			return at, b.declPath[id] + ".switch"
		}
	}
	f := b.f
	switch {
	case f.Switch.Buffer.Set:
		return f.Switch.Buffer.Pos, "switch.buffer"
	case f.Has("switch"):
		return f.KeyPos("switch"), "switch"
	}
	return f.Topology.Pos, "topology"
}

// MaxFrame is the largest frame any host sends (HostFrame), which Build
// gives the switches: on InfiniBand what a switch forwards, a multicast
// copy's GRH included.
func (s *Scenario) MaxFrame() int64 {
	mcast := s.MulticastSenders()
	m := int64(0)
	for _, h := range s.Topology.Hosts() {
		m = max(m, s.HostFrame(h, mcast[h]))
	}
	return m
}

// MaxFrameOf is the largest frame a switch (or any node) id's fabric
// carries, which Build gives the switch (its headroom, its scheduler's
// quantum) and, on InfiniBand, its ports' credits: MaxFrame, or on a
// mixed network the largest frame an endpoint on id's link layer sends,
// so that the InfiniBand side's credits are not sized for the Ethernet
// side's RoCEv2 and overlay frames, nor the Ethernet side's headroom for
// InfiniBand's. Callers for every node take MaxFrames once.
func (s *Scenario) MaxFrameOf(id fabric.NodeID) int64 { return s.MaxFrames()[s.LinkLayerOf(id)] }

// MaxFrames is MaxFrameOf by link layer (fabric.Ethernet,
// fabric.InfiniBand): on a network of one link layer MaxFrame for both.
func (s *Scenario) MaxFrames() [2]int64 {
	if !s.Mixed() {
		m := s.MaxFrame()
		return [2]int64{m, m}
	}
	mcast := s.MulticastSenders()
	var m [2]int64
	for _, e := range s.Topology.Endpoints() {
		ll := s.LinkLayerOf(e)
		m[ll] = max(m[ll], s.HostFrame(e, mcast[e]))
	}
	return m
}

// HostFrame is the largest frame host h sends: an MTU of payload with
// the largest headers its link layer puts around it. On InfiniBand a
// host that sends multicast (mcast) has a GRH on those datagrams
// whatever its profile's GRH says (IBTA vol. 1, 8.3.1; hca's wireTo),
// 40 bytes that take the frame past a 64-byte credit block. The frame
// is the credit a port's VL must have not to be marked paused
// (fabric's EnableCredits), and the transmit arbiters read a VL not
// paused as one with credit for any packet they send.
func (s *Scenario) HostFrame(h fabric.NodeID, mcast bool) int64 {
	mtu := s.HCAProfile(h).MTU
	if s.LinkLayerOf(h) == fabric.InfiniBand {
		return int64(fabric.IBWire(fabric.TransportUD|fabric.OpSendOnlyImm, mtu, s.HCAProfile(h).GRH || mcast))
	}
	return s.SenderFrame(h)
}

// SenderFrame is the largest frame host port n sends on Ethernet: its
// MTU's RoCEv2 frame and its overlay's outer headers, if it has one. A
// switch's headroom for the port facing n is sized for it (PortLinks
// before the build, the port's fabric.Port.SenderFrame in it), port 1 or
// a VPI host's port 2 alike.
func (s *Scenario) SenderFrame(n fabric.NodeID) int64 {
	p := s.HCAProfile(n)
	return fabric.MaxRoCEv2Frame(p.MTU) + int64(p.Overlay.Bytes())
}

// MulticastSenders returns, by node, whether the node sends to a
// multicast group (an mckey's sender).
func (s *Scenario) MulticastSenders() []bool {
	senders := make([]bool, len(s.Topology.Nodes))
	for _, t := range s.Tests {
		if t.Kind == "mckey" {
			senders[t.Src] = true
		}
	}
	return senders
}

// PortLinks appends to out what switch id's ports' headroom depends on,
// port by port, as Build wires the ports: a host peer sends frames of its
// MTU and answers PAUSE in swtch.PauseResponse; a switch peer answers in
// its profile's response time.
func (s *Scenario) PortLinks(id fabric.NodeID, out []swtch.PortLink) []swtch.PortLink {
	t := s.Topology
	for _, ref := range t.Nodes[id].Ports {
		l := t.Links[ref.Link]
		pl := swtch.PortLink{Rate: l.Rate, Delay: l.Delay}
		if t.Nodes[ref.Peer].Kind == fabric.Host {
			pl.PeerFrame = s.SenderFrame(ref.Peer)
			pl.PeerResponse = swtch.PauseResponse(l.Rate)
		} else {
			pl.PeerResponse = s.SwitchProfile(ref.Peer).PFC.ResponseDelay(l.Rate)
		}
		out = append(out, pl)
	}
	return out
}
