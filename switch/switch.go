package swtch

import (
	"math/bits"
	"math/rand/v2"
	"sort"
	"unsafe"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// Switch is a switch with one shared buffer (see mmu.go), per-priority
// egress queues that serve ingress ports round robin, strict-priority or
// DWRR scheduling across priorities, PFC, RED/ECN and per-flow ECMP.
//
// A packet is admitted when its last bit arrives and charged to its
// ingress port and priority; if that crosses XOFF on a lossless priority, a
// PAUSE goes upstream at once, ahead of data. After the pipeline latency
// (less the frame's serialization with cut-through) it joins the egress
// queue its route picks. When it starts to leave, its bytes are released,
// and a RESUME goes upstream once the ingress port and priority have
// drained to XON.
type Switch struct {
	// What every packet touches comes first: four cache lines of a switch
	// (TestSwitchHotFields), with the profile's per-packet values copied
	// out of Prof, rather than the ten lines a packet touched when they
	// were spread out. A k=16 fat-tree has 320 switches, far more than the
	// caches hold, so every line is a miss.
	eng  *sim.Engine
	pool *fabric.Pool
	// slot is each priority's slot (slots.go: at), where it has one.
	slot     [8]uint8
	row      *fabric.RouteRow // this switch's part of routes
	in       []ingress        // per ingress port and slot (slots.go: at)
	queues   []egressQueue    // per egress port and slot
	pipeLane *sim.Lane        // store-and-forward's latency (forward)
	// cutLanes are the last two cut-through latencies and their lanes.
	cutLanes [2]struct {
		d sim.Time
		l *sim.Lane
	}
	pipeline int64 // packets admitted and not yet queued at egress

	// Buffer accounting (mmu.go), bytes.
	sharedSize int64
	sharedUsed int64
	bufUsed    int64

	// From Prof, read for every packet.
	latency   sim.Time
	ecmpMix   uint64 // fabric.MixSeed(ecmpSeed), what a packet's hash starts from
	reserved  int64
	xoff      int64   // Prof.PFC.XOFF
	xoffAlpha float64 // Prof.PFC.XOFFAlpha
	xon       int64   // Prof.PFC.XON
	xonOffset int64   // Prof.PFC.XONOffset

	ID            fabric.NodeID
	lossless      uint8 // bit i: priority i is lossless
	weighted      uint8 // bit i: priority i is scheduled by DWRR
	cutThrough    bool  // Prof.CutThrough
	ecnEnqueue    bool  // Prof.ECN.Enabled && Prof.ECN.AtEnqueue
	ecnDequeue    bool  // Prof.ECN.Enabled && !Prof.ECN.AtEnqueue
	degraded      bool  // a port is down or a forwarding entry is missing
	floodLossless bool  // Prof.FloodLossless
	// credits: the links are InfiniBand's (Prof.LinkLayer), or
	// Ethernet's with CBFC (Prof.CBFC): a packet is admitted without a
	// check (the upstream sent it on credit for this port's buffer), and
	// its credit goes back when it leaves.
	credits bool
	// balance is Prof.LoadBalance; lb its state, nil for ECMP.
	balance LoadBalance
	// np is the slots per port, slotMask the priorities with a slot
	// (slots.go: at).
	np       uint8
	slotMask uint8
	// copying: on InfiniBand, copies of some multicast packet are in
	// the switch, and copies says which (copies.go).
	copying bool
	// trustDSCP is Prof.TrustDSCP: an arriving packet's priority is its
	// DSCP's (qos.go); byTC, that strict priorities are served in the
	// order of their traffic classes (Prof.Prio2TC is not the identity).
	trustDSCP bool
	byTC      bool
	lb        *balancer
	Stats     Stats // its first three counters are per packet

	// rxCredit is each port's credit state on InfiniBand
	// (fabric.Port.CreditState): a packet that leaves gives its ingress
	// port's buffer back through it, its lines asked for with the
	// packet's (dequeue).
	rxCredit []*fabric.CreditState

	// OnBlocked, if set, is told when a packet joins an empty egress
	// queue whose priority is paused (the deadlock detector's cue; read
	// only then, so out of the hot lines).
	OnBlocked func(s *Switch, port int, prio uint8)

	routes *fabric.Routes // row is the switch's part of them

	// Prof is the switch's profile, fixed once New returns.
	Prof Profile
	// What Receive reads of these for every packet, together (80 bytes,
	// two lines where Prof ends as it does).
	ports []*fabric.Port
	down  int     // ports whose link is cut (PortDown), to skip reading the ports while none is
	rank  []int32 // up*/down* ranks by NodeID, for Tagger
	// sl2vl holds InfiniBand SL-to-VL tables of its own for some pairs
	// of output and input port ([out*ports+in]; SetSL2VL); nil where the
	// VL a packet came in on is the VL it leaves on.
	sl2vl   []*[16]uint8
	Name    string
	missing []fabric.NodeID // destinations whose forwarding entry is gone

	ecnRNG *rand.Rand
	// ecmpSeed is the seed the switch hashes flows with (ECMPSeed); a
	// packet's hash starts from ecmpMix, in the hot lines.
	ecmpSeed uint64

	reservedTotal int64
	headroomTotal int64
	// headroom is each port's headroom for each lossless priority, bytes.
	headroom []int64
	// stats are the counters per port and slot.
	stats []PortPrio
	// refresh is the PAUSE refresh timer of each port and lossless
	// priority ([port*lossless priorities + rank among them]).
	refresh []sim.Timer

	// The egress queues' FIFOs and rings by priority (queue.go), made
	// when a priority is first queued; perQueue is the FIFOs of one queue.
	fifos    [8]egressFIFOs
	perQueue int

	// DWRR state per egress port, by traffic class (qos.go: with the
	// identity Prof.Prio2TC, a class is its priority).
	dwrrOrder []uint8 // weighted traffic classes, ascending
	quantum   [8]int64
	deficit   [][8]int64
	dwrrAt    []int
	dwrrFresh []bool
	// tcPrios are each traffic class's priorities (qos.go); qos the
	// rest of the classes, made only where the profile configures them.
	tcPrios [8]uint8
	qos     *classes

	// Faults, the PFC watchdog and Tagger (faults.go).
	scratch []int32
	wd      [][8]watchdogState
	classes []uint8 // lossless priorities, ascending
	lossy   uint8   // where Tagger sends a packet past the last lossless priority

	// hoq is Prof.HOQLifetime; hoqSince, when it is set, the time each
	// egress queue's head became its head, and hoqTimer each port's
	// next check (hoq.go).
	hoq      sim.Time
	hoqSince [][8]sim.Time
	hoqTimer []sim.Timer
	// dwrrTries bounds nextDWRR's turns (New).
	dwrrTries int
	// highSent is, per port, what the strict priorities have sent since a
	// weighted queue last did (Prof.HighLimit).
	highSent []int64
	// mcast is, per multicast group, the ports of the group's tree at
	// this switch (SetMulticast; looked up, never iterated).
	mcast map[fabric.NodeID][]int32
	// copies maps each copy of a packet still in the switch, on
	// InfiniBand, to the count of its packet's copies still here; spare
	// are counts to reuse (copies.go).
	copies map[*fabric.Packet]*int32
	spare  []*int32
}

// The switch's bytes of fabric.Port.OwnerBits.
const (
	bitOccupied = iota // bit i set when priority i's egress queue is not empty
	bitWDIgnore        // priorities whose PAUSE the watchdog ignores
	bitWDDrop          // priorities the watchdog drops
)

// Switch event kinds.
const (
	evForward int32 = iota // a pipeline's exit (Packet.OutPort: the egress port)
	evPauseRefresh
	evWatchdog
	evWatchdogRestore
	evHOQ // N: the egress port whose head-of-queue lifetimes to check
)

var (
	_ fabric.Owner = (*Switch)(nil)
	_ sim.Handler  = (*Switch)(nil)
)

// New attaches a switch to its ports. The peers' ResponseDelay must be set
// already (it enters the headroom bound). maxFrame is the largest frame
// (header to FCS) anyone in the network sends; hostFrame gives it per host
// port, for the senders' side of the headroom bound (nil: maxFrame).
func New(eng *sim.Engine, pool *fabric.Pool, id fabric.NodeID, name string, prof Profile,
	ports []*fabric.Port, routes *fabric.Routes, maxFrame int64) *Switch {
	n := len(ports)
	s := &Switch{
		ID: id, Name: name, Prof: prof, eng: eng, pool: pool, ports: ports, routes: routes,
		ecnRNG:   eng.Rand("switch/" + name + "/ecn"),
		headroom: make([]int64, n),

		latency: prof.Latency, ecmpSeed: prof.ECMPSeed, ecmpMix: fabric.MixSeed(prof.ECMPSeed), reserved: int64(prof.Reserved),
		xoff: int64(prof.PFC.XOFF), xoffAlpha: prof.PFC.XOFFAlpha,
		xon: int64(prof.PFC.XON), xonOffset: int64(prof.PFC.XONOffset),
		cutThrough: prof.CutThrough, floodLossless: prof.FloodLossless,
		credits:    prof.LinkLayer == "infiniband" || prof.CBFC,
		hoq:        prof.HOQLifetime,
		ecnEnqueue: prof.ECN.Enabled && prof.ECN.AtEnqueue,
		ecnDequeue: prof.ECN.Enabled && !prof.ECN.AtEnqueue,
	}
	if s.balance = prof.LoadBalance; s.balance != ECMP {
		s.lb = newBalancer(s)
		routes = s.groups(routes)
		s.routes = routes
	}
	if s.routes != nil {
		s.row = s.routes.Row(id)
	} else {
		s.row = &fabric.RouteRow{}
	}
	if s.hoq > 0 {
		s.hoqSince, s.hoqTimer = make([][8]sim.Time, n), make([]sim.Timer, n)
	}
	s.perQueue = n
	if prof.EgressFIFO {
		s.perQueue = 1
	}
	if prof.ECMPPerSwitch {
		s.ecmpSeed = fabric.SwitchECMPSeed(prof.ECMPSeed, name)
		s.ecmpMix = fabric.MixSeed(s.ecmpSeed)
	}
	if s.credits {
		s.rxCredit = make([]*fabric.CreditState, n)
		for i, p := range ports {
			s.rxCredit[i] = p.CreditState()
		}
	}
	for _, p := range ports {
		p.SetWarmRoutes(routes, id)
	}
	lossless := 0
	for _, p := range prof.PFC.Priorities {
		s.lossless |= 1 << p
		lossless++
	}
	// What only some scenarios use is made only for them: 384 bytes a
	// port, 16 MB in a k=32 fat tree (docs/PERFORMANCE.md, "Memory at
	// k=32").
	if s.lossless != 0 {
		s.refresh = make([]sim.Timer, n*bits.OnesCount8(s.lossless)) // PAUSE refreshes, by lossless priority
	}
	if prof.PFC.Watchdog != nil {
		s.wd = make([][8]watchdogState, n)
	}
	if len(prof.DWRR) > 0 {
		s.deficit, s.dwrrAt, s.dwrrFresh = make([][8]int64, n), make([]int, n), make([]bool, n)
	}
	s.initClasses()
	if prof.Latency > 0 && !prof.CutThrough {
		s.pipeLane = eng.Lane(prof.Latency, exitKind) // made before any transmit lane
	}
	for _, p := range ports {
		p.SetOwner(s)
		p.ResponseDelay = prof.PFC.ResponseDelay(p.Rate)
	}
	for i, p := range ports {
		peer := p.Peer()
		s.headroom[i] = prof.PortHeadroom(PortLink{Rate: p.Rate, Delay: p.Link().Delay, PeerFrame: peer.SenderFrame, PeerResponse: peer.ResponseDelay}, maxFrame)
		s.headroomTotal += s.headroom[i] * int64(lossless)
	}
	s.reservedTotal = prof.reservedTotal(n)
	s.sharedSize = int64(prof.Buffer) - s.reservedTotal - s.headroomTotal
	if prof.SharedPool > 0 { // the buffer is what the shared pool, reserved and headroom make
		s.sharedSize = int64(prof.SharedPool)
		s.Prof.Buffer = prof.SharedPool + fabric.Size(s.reservedTotal+s.headroomTotal)
	}
	s.initQoS(n)
	for tc, w := range prof.DWRR {
		s.weighted |= s.tcPrios[tc&7]
		s.dwrrOrder = append(s.dwrrOrder, tc)
		s.quantum[tc] = int64(w) * maxFrame
	}
	sort.Slice(s.dwrrOrder, func(a, b int) bool { return s.dwrrOrder[a] < s.dwrrOrder[b] })
	// Slots for the priorities the profile names; others get theirs as
	// their first packet comes (slots.go).
	slots := s.lossless | s.weighted
	if prof.Tagger && s.lossless != 0 {
		slots |= 1 << s.lossy
	}
	s.addSlots(slots)
	if prof.DWRRUnit > 0 {
		for tc, w := range prof.DWRR {
			s.quantum[tc] = int64(w) * prof.DWRRUnit
		}
	}
	if prof.HighLimit > 0 {
		s.highSent = make([]int64, n)
	}
	// A turn adds a quantum: a queue whose quantum is below a frame (64
	// bytes a unit, on InfiniBand) needs several rounds to send one, and
	// the search goes round that often before it gives up.
	rounds := int64(1)
	for _, tc := range s.dwrrOrder {
		if q := s.quantum[tc]; q > 0 {
			rounds = max(rounds, (maxFrame+q-1)/q)
		}
	}
	s.dwrrTries = (2*len(s.dwrrOrder) + 1) * int(rounds)
	for i := range s.dwrrFresh {
		s.dwrrFresh[i] = true
	}
	return s
}

// ECMPSeed is the seed the switch hashes flows with to choose among equal
// next hops (Profile.ECMPSeed, mixed with its name when
// Profile.ECMPPerSwitch).
func (s *Switch) ECMPSeed() uint64 { return s.ecmpSeed }

// Headroom returns the headroom of a port's lossless queues, bytes.
func (s *Switch) Headroom(port int) int64 { return s.headroom[port] }

// Ports returns the switch's ports.
func (s *Switch) Ports() []*fabric.Port { return s.ports }

// PortPrio returns the counters of a port and priority.
func (s *Switch) PortPrio(port int, prio uint8) *PortPrio {
	if !s.has(prio) {
		return &PortPrio{}
	}
	pp := &s.stats[s.at(port, prio)]
	in, q := &s.in[s.at(port, prio)], &s.queues[s.at(port, prio)]
	pp.PeakIngress = in.peak
	pp.TxPackets, pp.TxBytes = q.txPackets, q.txBytes
	return pp
}

// QueueBytes is the egress queue depth of port and priority, frame bytes.
func (s *Switch) QueueBytes(port int, prio uint8) int64 { return s.queueOf(port, prio).Bytes }

// QueueStats returns the time averages of an egress queue so far.
func (s *Switch) QueueStats(port int, prio uint8) QueueStats {
	if !s.has(prio) {
		return QueueStats{}
	}
	q := &s.queues[s.at(port, prio)]
	now := s.eng.Now()
	if now == 0 {
		return QueueStats{}
	}
	q.account(now)
	return QueueStats{MeanPackets: q.lenArea / float64(now), MeanBytes: q.byteArea / float64(now)}
}

// IngressBytes is what port and priority hold in the buffer, headroom
// included.
func (s *Switch) IngressBytes(port int, prio uint8) int64 {
	in := s.ingressOf(port, prio)
	return in.held + in.head
}

// PeakIngress is the most that port and priority ever held, bytes.
func (s *Switch) PeakIngress(port int, prio uint8) int64 { return s.ingressOf(port, prio).peak }

// BufferUsed is the buffer in use, bytes.
func (s *Switch) BufferUsed() int64 { return s.bufUsed }

// Queued is the number of packets waiting in egress queues.
func (s *Switch) Queued() (packets int) {
	for i := range s.queues {
		packets += s.queues[i].Len
	}
	return packets
}

// InPipeline is the number of packets between admission and the egress
// queue.
func (s *Switch) InPipeline() int64 { return s.pipeline }

// Receive admits a packet whose last bit has arrived.
func (s *Switch) Receive(p *fabric.Packet, in *fabric.Port) {
	frame := p.Frame()
	if s.trustDSCP && p.Kind != fabric.KindTrimmed {
		p.Priority = s.qos.dscp2prio[p.DSCP&63] // classified by its DSCP (qos.go)
	}
	prio := p.Priority
	i := in.Index
	p.InPrio = prio
	s.usePriority(prio)
	if s.credits {
		s.charge(i, prio, frame, 0) // its credit was the check
	} else {
		k := s.at(i, prio) // once, for the account and its counters
		toHead, why, ok := s.admitAt(k, i, prio, frame)
		if !ok {
			if why == DropBuffer && s.trimmable(p) {
				s.trim(p)
				s.Receive(p, in) // its header, at TrimPriority (trim.go)
				return
			}
			s.stats[k].Drops[why]++
			s.drop(p, why)
			return
		}
		// (copyCharged has the same check for copies: a call here
		// would not inline, and this runs for every packet.)
		if in := &s.in[k]; s.lossless&(1<<prio) != 0 && !in.xoff && (toHead || in.held >= s.xoffLimit()) {
			in.xoff = true
			s.sendPause(i, prio)
		}
	}
	s.Stats.PeakBuffer = max(s.Stats.PeakBuffer, s.bufUsed)
	next := s.row.Next(p.Dst)
	if s.degraded {
		next = s.liveRoutes(next, p.Dst)
	}
	if len(next) == 0 {
		if fabric.IsMulticast(p.Dst) {
			s.multicast(p, i, frame)
			return
		}
		if s.lossless&(1<<prio) != 0 && s.floodLossless {
			s.flood(p, i, frame)
			return
		}
		s.dropNoRoute(p, i, frame)
		return
	}
	out := next[0]
	if len(next) > 1 {
		if s.balance == ECMP {
			out = fabric.PickPort(next, p.Flow.HashMixed(s.ecmpMix))
		} else {
			k := s.choose(p, next)
			out = next[k]
			p.Path = p.Path*uint16(len(next)) + uint16(k)
		}
	} else if s.credits && s.Prof.LMC > 0 {
		// InfiniBand with several LIDs per port: the LID's own entry.
		out, _ = s.row.LFTPort(p.Dst, int(p.Flow.SrcPort)&(1<<s.Prof.LMC-1))
	}
	if int(out) >= 0 && s.down > 0 && s.ports[out].Down() {
		s.release(i, prio, frame)
		s.stats[s.at(i, prio)].Drops[DropLinkDown]++
		s.drop(p, DropLinkDown)
		return
	}
	if s.rank != nil {
		s.tag(p, in, int(out))
	}
	if s.sl2vl != nil {
		if t := s.sl2vl[int(out)*len(s.ports)+i]; t != nil {
			p.Priority = t[p.SL&15]
		}
	}
	s.forward(p, in, int(out))
}

// forward sends an admitted packet through the pipeline to egress out.
func (s *Switch) forward(p *fabric.Packet, in *fabric.Port, out int) {
	delay := s.latency
	if s.cutThrough && s.ports[out].Rate <= in.Peer().Rate {
		// The header was enough to start: the frame could have been on its
		// way since its first bytes arrived. The saving is at most the
		// pipeline latency, since the model sees the frame at its last bit.
		// It arrived at the rate its sender sent it, the peer's (a
		// slow-link fault may slow one direction of a link only).
		saved := fabric.SerializationTime(max(0, int64(p.Wire)-fabric.MinFrameBytes), in.Peer().Rate)
		delay = max(0, delay-saved)
	}
	s.pipeline++
	p.OutPort = int32(out)
	if s.balance == Adaptive {
		s.lb.committed[out] += p.Frame() // until exit
	}
	if s.cutThrough {
		// Cut-through latencies differ by frame size and rate, but a
		// run has few of each: a lane per latency (the last two
		// remembered), as transmissions have (fabric.Port.txLane).
		if l := s.cutLane(delay); l != nil {
			s.eng.PostLane(l, unsafe.Pointer(s), unsafe.Pointer(p))
			return
		}
		s.eng.After(delay, s, evForward, 0, p)
		return
	}
	// Store-and-forward: every packet waits the same latency, in the
	// engine's lane for it (sim.Lane), which every switch of this latency
	// shares.
	if s.pipeLane != nil {
		s.eng.PostLane(s.pipeLane, unsafe.Pointer(s), unsafe.Pointer(p))
		return
	}
	s.eng.After(delay, s, evForward, 0, p)
}

// cutLane returns the engine's pipeline lane for a cut-through latency d,
// or nil (d is 0, or the engine has no lane left).
func (s *Switch) cutLane(d sim.Time) *sim.Lane {
	switch {
	case d <= 0:
		return nil
	case s.cutLanes[0].l != nil && s.cutLanes[0].d == d:
		return s.cutLanes[0].l
	case s.cutLanes[1].l != nil && s.cutLanes[1].d == d:
		s.cutLanes[0], s.cutLanes[1] = s.cutLanes[1], s.cutLanes[0]
		return s.cutLanes[0].l
	}
	l := s.eng.Lane(d, exitKind)
	if l != nil {
		s.cutLanes[1] = s.cutLanes[0]
		s.cutLanes[0].d, s.cutLanes[0].l = d, l
	}
	return l
}

func (s *Switch) drop(p *fabric.Packet, why DropReason) {
	s.Stats.Drops[why]++
	s.Stats.DropBytes += int64(p.Payload)
	s.pool.Dropped(p, why.String(), int64(p.Payload))
	s.pool.Put(p)
}

// EachPacket calls f for each packet waiting in the switch's egress
// queues (those in its pipeline the engine holds; those being sent, the
// ports).
func (s *Switch) EachPacket(f func(*fabric.Packet)) {
	for o := range s.queues { // by port, then priority
		for i := range s.queues[o].sub {
			s.queues[o].sub[i].Each(f)
		}
	}
}

// sendPause asks the upstream of port i to stop priority prio for the
// longest pause, and arms a refresh at half that time so that the pause
// never lapses while XOFF holds.
func (s *Switch) sendPause(i int, prio uint8) {
	port := s.ports[i]
	port.SendPause(prio, fabric.MaxQuanta)
	s.stats[s.at(i, prio)].PauseSent++
	half := fabric.PauseDuration(fabric.MaxQuanta, port.Rate) / 2
	s.refresh[s.refreshAt(i, prio)] = s.eng.After(half, s, evPauseRefresh, int64(i)*8+int64(prio), nil)
}

// refreshAt is the index in refresh of port i's lossless priority prio.
func (s *Switch) refreshAt(i int, prio uint8) int {
	return i*bits.OnesCount8(s.lossless) + bits.OnesCount8(s.lossless&(1<<(prio&7)-1))
}

// HandleEvent runs the switch's own events.
func (s *Switch) HandleEvent(ev *sim.Event) {
	switch ev.Kind {
	case evForward:
		s.exit(ev.Data.(*fabric.Packet))
	case evHOQ:
		s.hoqCheck(int(ev.N))
	case evWatchdog:
		s.watchdogCheck(int(ev.N/8), uint8(ev.N%8))
	case evWatchdogRestore:
		s.watchdogRestore(int(ev.N/8), uint8(ev.N%8))
	case evPauseRefresh:
		i, prio := int(ev.N/8), uint8(ev.N%8)
		if !s.in[s.at(i, prio)].xoff {
			return
		}
		if s.atXON(i, prio) {
			s.resume(i, prio) // a dynamic XON may have risen meanwhile
			return
		}
		s.sendPause(i, prio)
	}
}

func (s *Switch) enqueue(p *fabric.Packet, out int) {
	prio := p.Priority
	s.usePriority(prio) // Tagger or an SL-to-VL table may have moved it
	q := &s.queues[s.at(out, prio)]
	if q.sub == nil {
		f := &s.fifos[prio]
		if f.fifos == nil {
			n := len(s.ports)
			f.fifos, f.rings = make([]fabric.PacketFIFO, n*s.perQueue), make([]int32, n*n)
		}
		*q = f.queue(out, s.perQueue, len(s.ports))
	}
	if !s.credits && s.lossless&(1<<prio) == 0 && q.Bytes+p.Frame() > s.Prof.EgressThreshold.Limit(s.sharedFree()) {
		if s.trimmable(p) {
			s.trimQueued(p, out)
			return
		}
		s.dropQueued(p, DropEgress)
		return
	}
	port := s.ports[out]
	if (s.down > 0 && port.Down()) || port.OwnerBits[bitWDDrop]&(1<<prio) != 0 {
		why := DropLinkDown
		if !port.Down() {
			why = DropWatchdog
		}
		s.dropQueued(p, why)
		return
	}
	if s.ecnEnqueue && s.maybeMark(p, q.Bytes) {
		s.Stats.Marked++
		s.stats[s.at(out, prio)].Marked++
	}
	q.push(p, s.eng.Now())
	if s.credits && s.hoq > 0 && q.Len == 1 { // credits first: hoq is on a cold line
		s.hoqSince[out][prio] = s.eng.Now()
	}
	port.OwnerBits[bitOccupied] |= 1 << prio
	s.Stats.Forwarded++
	if q.Len == 1 && port.Paused(prio) && s.OnBlocked != nil {
		s.OnBlocked(s, out, prio)
	}
	port.Kick()
}

// NextPacket chooses what an egress port sends next: priorities without a
// DWRR weight by strict priority (7 first), then the weighted ones by DWRR;
// within a priority, ingress ports round robin.
func (s *Switch) NextPacket(port *fabric.Port) *fabric.Packet {
	paused := port.PausedMask() &^ port.OwnerBits[bitWDIgnore]
	if s.credits {
		paused = s.creditBlocked(port)
	}
	if ready := port.OwnerBits[bitOccupied] &^ (paused | s.weighted); ready != 0 {
		if s.weighted != 0 && s.Prof.HighLimit > 0 {
			return s.nextHigh(port, ready, paused)
		}
		if s.byTC {
			return s.dequeue(port, s.highestClass(ready))
		}
		return s.dequeue(port, uint8(bits.Len8(ready)-1)) // the highest priority ready
	}
	if len(s.dwrrOrder) > 0 {
		return s.nextDWRR(port)
	}
	return nil
}

// nextHigh sends the highest strict priority ready, unless the strict
// priorities have sent Prof.HighLimit bytes while a weighted queue
// waited: then one packet of the weighted queues goes first.
func (s *Switch) nextHigh(port *fabric.Port, ready, paused uint8) *fabric.Packet {
	o := port.Index
	if s.highSent[o] >= s.Prof.HighLimit && port.OwnerBits[bitOccupied]&^paused&s.weighted != 0 {
		if p := s.nextDWRR(port); p != nil {
			s.highSent[o] = 0
			return p
		}
	}
	p := s.dequeue(port, uint8(bits.Len8(ready)-1))
	s.highSent[o] += p.Frame()
	return p
}

// creditBlocked returns the priorities (VLs) of port's egress whose head
// packet the downstream has not granted credit for.
//
// Only the VLs the port marks paused can be blocked: an InfiniBand port
// marks a VL paused while its credit is below the largest packet the
// switch sends (fabric.Port.creditChanged), so on the others any head
// fits, and its packet, most likely a line not in the cache, is not read.
func (s *Switch) creditBlocked(port *fabric.Port) uint8 {
	var blocked uint8
	short := port.OwnerBits[bitOccupied] & port.PausedMask()
	for vl := uint8(0); short != 0; vl, short = vl+1, short>>1 {
		if short&1 != 0 && !port.HasCredit(vl, s.queues[s.at(port.Index, vl)].peek().Frame()) {
			blocked |= 1 << vl
		}
	}
	if blocked != 0 && s.hoq > 0 {
		s.armHOQ(port.Index)
	}
	return blocked
}

// nextDWRR is deficit weighted round robin (Shreedhar and Varghese,
// SIGCOMM 1995) over the weighted traffic classes: a class's turn adds
// its quantum (weight × the largest frame, or × DWRRUnit) to its
// deficit, and it sends while its head fits. A class that empties loses
// its deficit; a paused one keeps it. Within a class of several
// priorities, those ready take turns (classHead). ETS (IEEE 802.1Qaz,
// switch.scheduler.ets) is this with the shares as weights: what the
// strict classes leave is split by them, and an idle or paused class's
// share goes to the others, since the round skips it.
func (s *Switch) nextDWRR(port *fabric.Port) *fabric.Packet {
	o := port.Index
	n := len(s.dwrrOrder)
	for tries := 0; tries < s.dwrrTries; tries++ {
		tc := s.dwrrOrder[s.dwrrAt[o]]
		prio, q, empty := s.classHead(port, tc)
		if q == nil {
			if empty {
				s.deficit[o][tc] = 0
			}
			s.dwrrAt[o] = (s.dwrrAt[o] + 1) % n
			s.dwrrFresh[o] = true
			continue
		}
		if s.dwrrFresh[o] {
			s.deficit[o][tc] += s.quantum[tc]
			s.dwrrFresh[o] = false
		}
		if f := q.peek().Frame(); f <= s.deficit[o][tc] {
			s.deficit[o][tc] -= f
			if s.qos != nil && s.qos.tcLast != nil {
				s.qos.tcLast[o][tc] = prio
			}
			return s.dequeue(port, prio)
		}
		s.dwrrAt[o] = (s.dwrrAt[o] + 1) % n
		s.dwrrFresh[o] = true
	}
	return nil
}

// pop takes the head of an egress queue, keeping the port's mask of
// non-empty priorities.
func (s *Switch) pop(port *fabric.Port, prio uint8) *fabric.Packet {
	return s.popQueue(port, prio, &s.queues[s.at(port.Index, prio)])
}

// popQueue is pop from q, port's egress queue of priority prio, which
// the caller has found already (dequeue).
func (s *Switch) popQueue(port *fabric.Port, prio uint8, q *egressQueue) *fabric.Packet {
	p := q.pop(s.eng.Now())
	if q.Len == 0 {
		port.OwnerBits[bitOccupied] &^= 1 << prio
	} else if s.credits && s.hoq > 0 {
		s.hoqSince[port.Index][prio] = s.eng.Now()
	}
	return p
}

// dequeue takes the next packet of an egress queue, frees its buffer, and
// marks it if ECN marks at dequeue.
func (s *Switch) dequeue(port *fabric.Port, prio uint8) *fabric.Packet {
	o := port.Index
	k := s.at(o, prio)
	q := &s.queues[k]
	if q.next != nil {
		// The packet, its FIFO and its ingress account are cold (it has
		// waited a transmission or more), and each would be found through
		// the one before: asked for together, they arrive together. In a
		// single FIFO the ingress port is the packet's to tell.
		in := int(q.nextFIFO)
		if len(q.sub) > 1 {
			sim.Prefetch3(q.next, &q.sub[in], &s.in[s.at(in, prio)])
			if s.credits {
				// Its ingress port's credit lines, for the VL it likely
				// came on (the same, unless SL2VL moves it).
				sim.PrefetchAddr2(s.rxCredit[in].Lines(prio))
			}
		} else {
			sim.Prefetch2(q.next, &q.sub[in])
		}
	}
	p := s.popQueue(port, prio, q)
	if !s.copying || s.lastCopy(p) {
		s.free(int(p.InPort), p.InPrio, p.Frame())
	}
	if s.ecnDequeue && s.maybeMark(p, q.Bytes) {
		s.Stats.Marked++
		s.stats[k].Marked++
	}
	q.txPackets++
	q.txBytes += int64(p.Wire)
	if p.INT != nil && p.Kind == fabric.KindData {
		// HPCC's telemetry: the egress's queue as the packet leaves it, the
		// bytes the port has sent with this packet, the time and the rate.
		// Only requests collect it; an ACK carries its request's stack back
		// unchanged, so that the sender sees its own path and not the
		// reverse one (HPCC, SIGCOMM 2019, §3.2 and §4.2; the authors'
		// simulator stamps UDP data packets only).
		p.INT.Push(fabric.INTHop{QLen: q.Bytes, TxBytes: port.Stats.TxBytes + int64(p.Wire), TS: s.eng.Now(), Rate: port.Rate})
	}
	return p
}

func (s *Switch) resume(i int, prio uint8) {
	s.in[s.at(i, prio)].xoff = false
	s.eng.Cancel(s.refresh[s.refreshAt(i, prio)])
	s.ports[i].SendPause(prio, 0)
	s.stats[s.at(i, prio)].ResumeSent++
}

// exitKind is a packet's exit from the pipeline into its egress queue
// (sim.LaneKind).
var exitKind = &sim.LaneKind{
	Fire: func(t, d unsafe.Pointer) { (*Switch)(t).exit((*fabric.Packet)(d)) },
	Warm: func(t, d unsafe.Pointer) { (*Switch)(t).warmExit((*fabric.Packet)(d)) },
}

// exit takes a packet out of the pipeline into the egress queue its
// route chose (Packet.OutPort).
func (s *Switch) exit(p *fabric.Packet) {
	s.pipeline--
	if s.balance == Adaptive {
		s.lb.committed[p.OutPort] -= p.Frame()
	}
	s.enqueue(p, int(p.OutPort))
}

// warmExit asks for the egress queue, the ingress FIFO the packet will
// join and the egress port's first line, all that a pipeline exit will
// read (exitKind's Warm). The packet's first line, which says where they
// are, was asked for an event before (the engine's lookahead).
func (s *Switch) warmExit(p *fabric.Packet) {
	out := int(p.OutPort)
	prio := p.Priority & 7
	if uint(out) >= uint(len(s.ports)) || !s.has(prio) {
		return
	}
	q := &s.queues[s.at(out, prio)]
	if f := s.fifos[prio].fifos; f != nil {
		in := 0
		if s.perQueue > 1 {
			in = int(p.InPort)
		}
		if i := out*s.perQueue + in; uint(i) < uint(len(f)) {
			sim.Prefetch3(q, s.ports[out], &f[i])
			return
		}
	}
	sim.Prefetch2(q, s.ports[out])
}

// LaneKinds are the switch's lane kinds, whose events' data are packets
// (fabric.LaneKinds says why this is asked).
func LaneKinds() []*sim.LaneKind { return []*sim.LaneKind{exitKind} }
