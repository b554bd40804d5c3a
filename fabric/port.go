package fabric

import (
	"math/rand/v2"
	"unsafe"

	"github.com/lfsim/lfsim/sim"
)

// Owner is the node a port belongs to: it chooses what the port sends and
// takes what the port receives.
type Owner interface {
	// NextPacket returns the packet the port should start sending now, or
	// nil when there is none or everything waiting is paused. It must skip
	// priorities for which port.Paused is true. The port calls it whenever
	// it falls idle; an owner with new work calls port.Kick.
	NextPacket(port *Port) *Packet
	// Receive takes a packet whose last bit has arrived on port. PFC frames
	// never reach it: the port acts on them itself.
	Receive(p *Packet, port *Port)
}

// PortStats are a port's counters. Byte counts are wire bytes (preamble
// and gap included), so that bytes × 8 / rate is time on the wire.
type PortStats struct {
	TxPackets, TxBytes int64
	RxPackets, RxBytes int64
	// Busy is the time the transmitter spent sending.
	Busy sim.Time
	// PauseSent and ResumeSent count PFC frames sent (a resume is a frame
	// whose quanta are all zero); PauseRecv and ResumeRecv those received.
	PauseSent, ResumeSent, PauseRecv, ResumeRecv int64
	// ControlDiscarded counts PFC frames the port made but never sent:
	// its link was cut before they went (they are in PauseSent or
	// ResumeSent, which count frames made).
	ControlDiscarded int64
	// PauseRecvPrio counts received PFC frames that paused each priority
	// (quanta above 0).
	PauseRecvPrio [8]int64
}

// Port is one end of a full-duplex link: a transmitter that sends one
// frame at a time at the port's rate, with per-priority pause state set by
// PFC frames from the peer, and a receiver that hands arrivals to the
// owner.
//
// What every frame touches comes first (TestPortHotFields): the
// transmitter's state and the owner's bits in the first cache line; in
// the second, the link's arrival lane, so that a transmission's end hands
// its frame on without reading the Link, the addresses of the owner's
// state for the next frame (warmHints) and the receiver's count; the
// sending frame's info, the port's index and the per-frame counters in
// the third. The engine asks for all three lines two events ahead
// (sim.LaneKind). Ports are allocated one by one, 640 bytes each, so
// each starts on a line.
type Port struct {
	eng     *sim.Engine
	owner   Owner
	peer    *Port     // the other end: where frames arrive
	sending *Packet   // the frame on the transmitter now; nil when idle
	lane    *sim.Lane // the transmit lane used last (txLane)
	Rate    Rate

	choosing   bool  // inside owner.NextPacket: a Kick now must wait
	down       bool  // the link is cut: nothing is sent or received
	paused     uint8 // bit i: priority i is paused
	hasControl bool  // control holds frames
	// fastCarry: the link's frames go straight into its arrival lane
	// (up, no random loss, a lane for its delay), so the end of a
	// transmission need not read the Link (Link.carry).
	fastCarry bool
	// OwnerBits are three bytes of per-port state the owner keeps here,
	// in the line every frame touches, rather than in a line of its own
	// (a switch: its non-empty egress priorities and its PFC watchdog's
	// masks). The port never reads them.
	OwnerBits [3]uint8

	// OnTx, if set, is told of every frame (data and PFC) as its first bit
	// goes on the wire; the peer's OnTx sees the other direction. It must
	// not keep pkt (copy what it needs) and must not change it.
	OnTx        func(p *Port, pkt *Packet)
	arrivalLane *sim.Lane // the link's lane (Link.lane), for fastCarry
	warm        warmHints // where the owner's state for the next frame is
	txStride    uint8     // warm.txAt's stride by slot (Port.warmSlot)
	rxStride    uint8     // warm.rxAt's stride by slot
	warmMask    uint8     // the priorities with a slot at warm.txAt and warm.rxAt
	// cbfc: the link is Ethernet's with Ultra Ethernet's credit-based
	// flow control (EnableCBFC): its frames spend credit as
	// InfiniBand's packets do.
	cbfc bool
	// number is the port's place among the network's ports (node by
	// node, port by port): the key that orders its frames among the
	// arrivals due at the same time (sim.Engine.HandOver).
	number uint32
	// arrived counts the frames that reached the port (down or not), and
	// pausesArrived the PFC frames among them: with its link's counts of
	// frames carried, they give what is still on the wire (Link.InFlight).
	arrived int64
	// sendingInfo is the frameInfo of sending, which the end of its
	// transmission and its warm hint read here rather than in the frame.
	sendingInfo int64
	Index       int
	Stats       PortStats // its first five counters are per frame

	control       PacketQueue // PFC frames, sent before data and never paused
	otherLane     *sim.Lane   // the transmit lane used before lane
	pausesArrived int64       // the PFC frames among arrived
	out           *Link
	// credit is the link's InfiniBand flow control (credit.go); nil on
	// Ethernet.
	credit *CreditState

	Node NodeID
	// applying counts the PFC frames received (in PauseRecv or
	// ResumeRecv) that wait out ResponseDelay before they act, in the
	// engine: the conservation check's census finds them there.
	applying int32
	Name     string // "s0:p8"
	// ResponseDelay is how long after a PAUSE arrives the transmitter
	// starts honouring it (on top of finishing the frame in flight).
	ResponseDelay sim.Time
	// SenderFrame is the largest frame (header to FCS) this port's node
	// sends, when known (a host's, from its MTU); 0 means unknown. The
	// peer's headroom bound uses it.
	SenderFrame int64
	// OnPause, if set, is told of every PFC frame the port sends.
	OnPause func(p *Port, prio uint8, quanta uint16)
	// OnPauseState, if set, is told whenever a priority of this port's
	// transmitter becomes paused (paused true) or free again; an observer
	// (the deadlock detector) uses it. The owner is told first, when it
	// implements PauseObserver.
	OnPauseState func(p *Port, prio uint8, paused bool)

	pool *Pool

	pausedUntil [8]sim.Time
	pausedSince [8]sim.Time
	pausedTotal [8]sim.Time
	wake        sim.Timer

	observer PauseObserver // the owner, when it wants pause transitions
}

// PauseObserver is implemented by an owner that wants to know when one of
// its port's priorities becomes paused or free (a PFC watchdog).
type PauseObserver interface {
	PauseChanged(port *Port, prio uint8, paused bool)
}

// Port event kinds.
const (
	portTxDone int32 = iota // Data: the frame (its frameInfo is Port.sendingInfo)
	portPauseWake
	portApplyPause
	portArrive  // a frame's last bit reaches the port; Data: the frame
	portLLRNack // link-level retry: a NACK reaches the sender (llr.go)
)

// frameInfo packs what the end of a transmission needs to know of the
// frame being sent (Port.sendingInfo), so that neither the port, the link
// nor the warm hint reads the packet: after the frame's serialization,
// thousands of other events later in a large run, it has left the caches.
// Bits 0-23: the wire bytes; 24-27: the kind; 28-31: the priority.
func frameInfo(pkt *Packet) int64 {
	return int64(pkt.Wire)&(1<<24-1) | int64(pkt.Kind&15)<<24 | int64(pkt.Priority&7)<<28
}

// infoWire, infoKind and infoPrio unpack frameInfo.
func infoWire(n int64) int64      { return n & (1<<24 - 1) }
func infoKind(n int64) PacketKind { return PacketKind(n >> 24 & 15) }
func infoPrio(n int64) uint8      { return uint8(n >> 28 & 7) }

var _ sim.Handler = (*Port)(nil)

// The port's lane events (sim.LaneKind): the end of a transmission, whose
// frame the port hands to the link without reading it, and a frame's
// arrival. Their Warm asks for what the owner will read (warmHints), and
// the end of a transmission for the link too, when the frame will go
// through it. (Set in init: the kinds' functions reach the lanes that
// name the kinds.)
var txDoneKind, arriveKind *sim.LaneKind

func init() {
	txDoneKind = &sim.LaneKind{
		Fire: txDone,
		Warm: func(t, _ unsafe.Pointer) {
			p := (*Port)(t)
			p.warmTx(infoPrio(p.sendingInfo))
			if !p.fastCarry {
				sim.Prefetch(p.out)
			}
		},
		Unread: true,
	}
	arriveKind = &sim.LaneKind{
		Fire: arrive,
		// The frame's first line was asked for an event before, with the
		// port's (the engine's lookahead).
		Warm: func(t, d unsafe.Pointer) {
			pkt := (*Packet)(d)
			(*Port)(t).warmRx(pkt.Priority&7, pkt.Dst)
		},
	}
}

// Engine returns the engine the port's events run on (its node's
// partition's).
func (p *Port) Engine() *sim.Engine { return p.eng }

// SetOwner attaches the node that drives the port.
func (p *Port) SetOwner(o Owner) {
	p.owner = o
	p.observer, _ = o.(PauseObserver)
}

// Owner returns the node that drives the port (SetOwner's).
func (p *Port) Owner() Owner { return p.owner }

// pauseChanged tells the owner and the observer of a transition.
func (p *Port) pauseChanged(prio uint8, paused bool) {
	if p.observer != nil {
		p.observer.PauseChanged(p, prio, paused)
	}
	if p.OnPauseState != nil {
		p.OnPauseState(p, prio, paused)
	}
}

// Down reports whether the port's link is cut (SetDown).
func (p *Port) Down() bool { return p.down }

// SetDown cuts (true) or restores the port's side of its link: while down
// the transmitter sends nothing (PFC frames queued for it are discarded),
// every pause in force ends, and the link drops what is on it and what
// arrives. Owners flush their own queues for the port.
func (p *Port) SetDown(down bool) {
	if p.credit != nil {
		// InfiniBand: a link trains, and is up, only once both ends are;
		// an end restored first waits, down, for the other (credit.go).
		if down {
			p.credit.wantUp = false
		} else if p.down && p.peer.down && !p.peer.credit.wantUp {
			p.credit.wantUp = true
			return
		}
	}
	if p.down == down {
		return
	}
	p.down = down
	p.out.down = down
	p.out.updateFastCarry()
	if down {
		for pkt := p.control.Pop(); pkt != nil; pkt = p.control.Pop() {
			p.discardControl(pkt)
		}
		p.hasControl = false
		now := p.eng.Now()
		p.expirePauses()
		for prio := uint8(0); prio < 8; prio++ {
			if p.Paused(prio) {
				p.pausedTotal[prio] += now - p.pausedSince[prio]
				p.paused &^= 1 << prio
				p.pauseChanged(prio, false)
			}
		}
		if p.credit != nil {
			// What is on the wire toward this end when the link is cut
			// is lost, even if the cut ends before it would arrive.
			p.credit.stale = int64(p.peer.out.InFlight())
		}
		p.armWake()
		return
	}
	if p.credit != nil && p.peer.credit.wantUp {
		// The other end was waiting: both come up, the link retrains,
		// and both ends' credits start anew.
		p.peer.credit.wantUp = false
		p.peer.down, p.peer.out.down = false, false
		p.peer.out.updateFastCarry()
		p.retrain()
		p.peer.Kick()
	}
	p.Kick()
}

// discardControl drops a link-control packet that will not be sent (its
// link was cut).
func (p *Port) discardControl(pkt *Packet) {
	p.Stats.ControlDiscarded++
	if pkt.Kind == KindCredit {
		p.credit.vl[pkt.Priority].queued = nil
	}
	p.pool.Put(pkt)
}

// Applying returns the PFC frames received that have yet to act
// (ResponseDelay).
func (p *Port) Applying() int64 { return int64(p.applying) }

// EachPacket calls f for each packet the port holds: the frame it is
// sending (which the engine holds too, as its transmission's end) and
// the PFC frames waiting to go.
func (p *Port) EachPacket(f func(*Packet)) {
	if p.sending != nil {
		f(p.sending)
	}
	p.control.Each(f)
	p.out.llrEach(f)
}

// Peer returns the port at the other end of the link.
func (p *Port) Peer() *Port { return p.peer }

// Link returns the link this port transmits on.
func (p *Port) Link() *Link { return p.out }

// Busy reports whether a frame is being sent.
func (p *Port) Busy() bool { return p.sending != nil }

// Sending returns the frame being transmitted, or nil.
func (p *Port) Sending() *Packet { return p.sending }

// Paused reports whether the transmitter may not start frames of priority
// prio now.
func (p *Port) Paused(prio uint8) bool { return p.paused&(1<<prio) != 0 }

// PausedMask returns the paused priorities as a bit mask.
func (p *Port) PausedMask() uint8 { return p.paused }

// PausedTime is how long priority prio has been paused so far, including a
// pause still in force.
func (p *Port) PausedTime(prio uint8) sim.Time {
	t := p.pausedTotal[prio]
	if p.Paused(prio) {
		t += min(p.eng.Now(), p.pausedUntil[prio]) - p.pausedSince[prio]
	}
	return t
}

// Kick asks an idle transmitter to look for work. A Kick from inside the
// owner's NextPacket (a rate change as a packet is built) does nothing:
// the port is about to start that packet anyway.
func (p *Port) Kick() {
	if p.sending == nil && !p.choosing {
		p.startNext()
	}
}

// SendControl queues a PFC frame ahead of all data; it goes out when the
// frame in flight ends.
func (p *Port) SendControl(pkt *Packet) {
	if p.down {
		p.discardControl(pkt)
		return
	}
	p.control.Push(pkt)
	p.hasControl = true
	p.Kick()
}

// SendPause sends a PFC frame for one priority: quanta 0 resumes.
func (p *Port) SendPause(prio uint8, quanta uint16) {
	pkt := p.pool.Get()
	pkt.Kind = KindPause
	pkt.Priority = prio
	pkt.PauseEnable = 1 << prio
	if quanta != 0 { // a RESUME's quanta are zeros: it needs no PacketExt
		p.pool.Ext(pkt).PauseQuanta[prio] = quanta
	}
	pkt.Wire = PFCWireBytes
	pkt.InPort = -1
	if quanta == 0 {
		p.Stats.ResumeSent++
	} else {
		p.Stats.PauseSent++
	}
	if p.OnPause != nil {
		p.OnPause(p, prio, quanta)
	}
	p.SendControl(pkt)
}

func (p *Port) startNext() {
	if p.down {
		return
	}
	var pkt *Packet
	for p.hasControl {
		if p.control.Len == 0 || p.control.head.Kind == KindCredit && p.llrPending() {
			// link-level retry's replay (llr.go); a credit update waits
			// for it, lest it overtake the frames it counts (PFC goes first)
			pkt = p.llrNext()
			p.hasControl = p.hasControl || p.control.Len > 0
			if pkt != nil || p.control.Len == 0 || p.down {
				break
			}
			continue
		}
		pkt = p.control.Pop()
		p.hasControl = p.control.Len > 0 || p.llrPending()
		if pkt.Kind != KindCredit {
			break
		}
		if pkt.Link == Ethernet {
			// CBFC's update is a frame: it takes its time on the wire
			p.fillCredit(pkt)
			break
		}
		p.sendCredit(pkt)
		pkt = nil
	}
	if pkt == nil {
		p.choosing = true
		pkt = p.owner.NextPacket(p)
		p.choosing = false
		if pkt == nil {
			return
		}
	}
	if pkt.Link == InfiniBand || p.cbfc && pkt.Kind != KindCredit { // the packet's line, then the port's (read at the end of the frame anyway); a credit update spends none
		p.spend(pkt)
	}
	p.sending = pkt
	if p.OnTx != nil {
		p.OnTx(p, pkt)
	}
	d := SerializationTime(int64(pkt.Wire), p.Rate)
	p.Stats.Busy += d
	p.sendingInfo = frameInfo(pkt)
	if l := p.txLane(d); l != nil {
		p.eng.PostLane(l, unsafe.Pointer(p), unsafe.Pointer(pkt))
	} else {
		p.eng.After(d, p, portTxDone, 0, pkt)
	}
}

// txLane returns the engine's lane for transmissions lasting d, or nil
// (then the heap takes the event): frames of one size take one lane, and
// a port remembers the last two it used (a host alternates data and ACKs).
func (p *Port) txLane(d sim.Time) *sim.Lane {
	switch {
	case d <= 0:
		return nil
	case p.lane != nil && p.lane.Delay() == d:
		return p.lane
	case p.otherLane != nil && p.otherLane.Delay() == d:
		p.lane, p.otherLane = p.otherLane, p.lane
		return p.lane
	}
	l := p.eng.Lane(d, txDoneKind)
	if l != nil {
		p.otherLane, p.lane = p.lane, l
	}
	return l
}

// HandleEvent runs the port's own events.
func (p *Port) HandleEvent(ev *sim.Event) {
	switch ev.Kind {
	case portTxDone:
		txDone(unsafe.Pointer(p), unsafe.Pointer(ev.Data.(*Packet)))
	case portArrive:
		arrive(unsafe.Pointer(p), unsafe.Pointer(ev.Data.(*Packet)))
	case portPauseWake:
		p.expirePauses()
		p.armWake()
		p.Kick()
	case portLLRNack:
		p.llrNacked()
	case portApplyPause:
		pkt := ev.Data.(*Packet)
		p.applying--
		p.applyPause(pkt)
		p.pool.Put(pkt)
	}
}

// txDone ends the transmission of the frame d on the port t: the frame
// goes on the link, and the transmitter looks for the next one. It is
// txDoneKind's Fire itself, rather than a method the kind's function
// calls, so that the engine's call reaches the body.
func txDone(t, d unsafe.Pointer) {
	p, pkt := (*Port)(t), (*Packet)(d)
	info := p.sendingInfo
	p.sending = nil
	p.Stats.TxPackets++
	p.Stats.TxBytes += infoWire(info)
	if p.fastCarry && !infoKind(info).LinkControl() {
		// Link.carry's common case, without reading the link.
		p.eng.HandOver(p.arrivalLane, p.number, unsafe.Pointer(p.peer), unsafe.Pointer(pkt))
	} else {
		p.out.carry(pkt, info)
	}
	p.startNext()
}

// arrive takes the frame d whose last bit has reached the port t
// (arriveKind's Fire itself, as txDone).
func arrive(t, d unsafe.Pointer) {
	p, pkt := (*Port)(t), (*Packet)(d)
	p.arrived++
	if pkt.Kind == KindPause {
		p.pausesArrived++
	}
	credited := pkt.Link == InfiniBand || p.cbfc
	if credited && p.credit.stale > 0 && p.staleArrival() || p.down {
		p.out.countCut(pkt.Kind) // counted on the link of the port's own direction
		p.pool.Dropped(pkt, "link_down", int64(pkt.Payload))
		p.pool.Put(pkt)
		return
	}
	p.Stats.RxPackets++
	p.Stats.RxBytes += int64(pkt.Wire)
	if !pkt.Kind.LinkControl() {
		pkt.InPort = int32(p.Index)
		if credited {
			p.receivedBlocks(pkt)
		}
		p.owner.Receive(pkt, p)
		return
	}
	if pkt.Kind == KindCredit {
		p.applyCredit(pkt)
		p.pool.Put(pkt)
		return
	}
	if pkt.PauseQuanta() == [8]uint16{} {
		p.Stats.ResumeRecv++
	} else {
		p.Stats.PauseRecv++
	}
	if p.ResponseDelay > 0 {
		p.applying++
		p.eng.After(p.ResponseDelay, p, portApplyPause, 0, pkt)
		return
	}
	p.applyPause(pkt)
	p.pool.Put(pkt)
}

// applyPause sets each enabled priority's pause timer from the frame: a
// new frame replaces the timer, and quanta 0 ends the pause (802.1Qbb).
func (p *Port) applyPause(pkt *Packet) {
	now := p.eng.Now()
	p.expirePauses()
	resumed := false
	quanta := pkt.PauseQuanta()
	for prio := uint8(0); prio < 8; prio++ {
		if pkt.PauseEnable&(1<<prio) == 0 {
			continue
		}
		q := quanta[prio]
		if q == 0 {
			if p.Paused(prio) {
				p.pausedTotal[prio] += now - p.pausedSince[prio]
				p.paused &^= 1 << prio
				resumed = true
				p.pauseChanged(prio, false)
			}
			continue
		}
		p.Stats.PauseRecvPrio[prio]++
		p.pausedUntil[prio] = now + PauseDuration(q, p.Rate)
		if !p.Paused(prio) {
			p.paused |= 1 << prio
			p.pausedSince[prio] = now
			p.pauseChanged(prio, true)
		}
	}
	p.armWake()
	if resumed {
		p.Kick()
	}
}

// expirePauses ends pauses whose time has run out.
func (p *Port) expirePauses() {
	now := p.eng.Now()
	for prio := uint8(0); prio < 8; prio++ {
		if p.Paused(prio) && p.pausedUntil[prio] <= now {
			p.pausedTotal[prio] += p.pausedUntil[prio] - p.pausedSince[prio]
			p.paused &^= 1 << prio
			p.pauseChanged(prio, false)
		}
	}
}

// armWake keeps one timer at the earliest pause expiry.
func (p *Port) armWake() {
	next := sim.Never
	for prio := uint8(0); prio < 8; prio++ {
		if p.Paused(prio) && p.pausedUntil[prio] < next {
			next = p.pausedUntil[prio]
		}
	}
	if p.wake.At() == next {
		return
	}
	p.eng.Cancel(p.wake)
	if next != sim.Never {
		p.wake = p.eng.Schedule(next, p, portPauseWake, 0, nil)
	}
}

// Link is one direction of a cable: it carries frames from a transmitting
// port to the peer after the propagation delay. Frames leave a port one at
// a time and all take the same delay, so they arrive in order: each
// arrival is an event for the receiving port, carrying its frame, in the
// engine's lane for that delay (sim.Lane), shared by every link of the
// same length. While the link is up, loses nothing at random and has a
// lane, the transmitting port posts its data frames' arrivals itself
// (Port.fastCarry) and the link is not touched at all; its counts of
// frames and bytes carried are the port's.
type Link struct {
	from       *Port
	to         *Port
	eng        *sim.Engine
	lane       *sim.Lane // nil for a zero delay, or when the engine has no lane left
	down       bool
	lossRate   float64
	lossRNG    *rand.Rand
	lossFilter func(*Packet) bool
	// llr is the link's link-level retry (llr.go), nil without.
	llr *llrState

	Delay sim.Time
	// Lost counts frames the link dropped (SetLoss, SetLossFilter).
	Lost int64
	// DownDrops counts packets (frames other than PFC frames) lost because
	// the link was cut (Port.SetDown): sent into a cut link, or arriving
	// at a cut port. PausesCut counts the PFC frames lost so, and
	// CreditsCut InfiniBand flow-control packets: they are not packets (a
	// run's packets.sent leaves them out).
	DownDrops  int64
	PausesCut  int64
	CreditsCut int64
	sentDown   int64 // the frames, PFC frames too, that were sent into the cut link
	pausesSent int64 // PFC frames handed on to the receiving port
}

// From is the node of the link's transmitting end.
func (l *Link) From() NodeID { return l.from.Node }

// To is the node of the link's receiving end.
func (l *Link) To() NodeID { return l.to.Node }

// Packets returns the frames put on the link (those lost included): every
// frame its port sent.
func (l *Link) Packets() int64 { return l.from.Stats.TxPackets }

// Bytes returns the wire bytes of Packets.
func (l *Link) Bytes() int64 { return l.from.Stats.TxBytes }

// SetLoss makes the link drop each frame other than PFC frames with
// probability rate (a faulty cable or optic; 0 turns it off), drawing from
// rng, which should be the link's own stream.
func (l *Link) SetLoss(rate float64, rng *rand.Rand) {
	l.lossRate, l.lossRNG = rate, rng
	l.updateFastCarry()
}

// SetLossFilter makes the link lose the frames lose selects (other than
// PFC and credit frames), as SetLoss loses frames at random: a test, or a
// program, that must lose one chosen frame (the last of a message, an
// ACK) gives the frame itself. nil turns it off.
func (l *Link) SetLossFilter(lose func(*Packet) bool) {
	l.lossFilter = lose
	l.updateFastCarry()
}

// updateFastCarry says whether the transmitting port may skip the link
// (Port.fastCarry): while it is up, loses nothing, has a lane and holds
// no frames for a link-level retry's replay (llr.go: a frame skipping the
// link would overtake those held while a NACK is on its way).
func (l *Link) updateFastCarry() {
	p := l.from
	p.arrivalLane = l.lane
	p.fastCarry = !l.down && l.lossRate == 0 && l.lossFilter == nil && l.lane != nil && (l.llr == nil || !l.llr.open)
}

// carry puts a frame on the link; info is its frameInfo, so that the
// packet need not be read.
func (l *Link) carry(pkt *Packet, info int64) {
	kind := infoKind(info)
	if l.down {
		l.countCut(kind)
		l.sentDown++
		l.from.pool.Dropped(pkt, "link_down", int64(pkt.Payload))
		l.from.pool.Put(pkt)
		return
	}
	lost := !kind.LinkControl() && (l.lossRate > 0 && l.lossRNG.Float64() < l.lossRate || l.lossFilter != nil && l.lossFilter(pkt))
	if l.llr != nil && kind != KindPause && (lost || l.llr.open) {
		l.llrHold(pkt, lost) // resent from the replay buffer (llr.go)
		return
	}
	if lost {
		l.Lost++
		l.from.pool.Dropped(pkt, "loss", int64(pkt.Payload))
		if l.from.credit != nil {
			l.from.refreshCredit(pkt.Priority)
		}
		l.from.pool.Put(pkt)
		return
	}
	if kind == KindPause {
		l.pausesSent++
	}
	if l.lane != nil {
		l.eng.HandOver(l.lane, l.from.number, unsafe.Pointer(l.to), unsafe.Pointer(pkt))
	} else {
		l.eng.After(l.Delay, l.to, portArrive, 0, pkt)
	}
}

// countCut counts a frame of kind the cut link lost.
func (l *Link) countCut(kind PacketKind) {
	switch kind {
	case KindPause:
		l.PausesCut++
	case KindCredit:
		l.CreditsCut++
	default:
		l.DownDrops++
	}
}

// InFlight returns the frames on the wire.
func (l *Link) InFlight() int {
	held := int64(0)
	if l.llr != nil {
		held = l.llr.heldTotal // carried, not delivered: resent (llr.go)
	}
	return int(l.Packets() - l.Lost - l.sentDown - held - l.to.arrived)
}

// PausesInFlight returns the PFC frames on the wire.
func (l *Link) PausesInFlight() int { return int(l.pausesSent - l.to.pausesArrived) }

// LaneKinds are the port's lane kinds, whose events' data are packets:
// a census of the packets a run holds (the conservation check) reads
// the engine's lanes of these kinds.
func LaneKinds() []*sim.LaneKind { return []*sim.LaneKind{txDoneKind, arriveKind} }
