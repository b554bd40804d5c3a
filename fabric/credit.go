package fabric

import (
	"unsafe"

	"github.com/lfsim/lfsim/sim"
)

// InfiniBand's link-level flow control (IBTA vol. 1, 7.9): a receiver
// grants credits for its buffer per virtual lane, in 64-byte blocks, and a
// sender never transmits a packet on a VL without credit for all of it. So
// an InfiniBand link never drops a packet for want of buffer.
//
// Each direction of a link keeps, per data VL, at the sender the total
// blocks sent (FCTBS) and the credit limit the receiver last advertised
// (FCCL), and at the receiver the blocks received (ABR) and its buffer's
// use. The receiver advertises FCCL = ABR + free blocks in flow-control
// packets that it sends back ahead of data; both counters are 12 bits,
// modulo 4096, so at most 2048 blocks (128 KiB) can be outstanding per VL.
// A flow-control packet also carries its sender's FCTBS, to which the
// receiver of it sets its ABR: blocks lost on the wire are forgotten and
// no credit leaks (7.9.4.3).
//
// When flow-control packets go: the spec asks for one whenever credits
// change and at least every 65,536 symbol times. The model sends one when
// the buffer has room the last FCCL did not grant, and either that room
// is a quarter of the buffer or more, or the sender may run short of
// credit: the credit granted and not yet received (the last FCCL less
// ABR) is below what it can send before another grant arrives (two of
// the largest packets, a quarter buffer, and the link's bandwidth-delay
// product both ways). Otherwise holding back a grant smaller than a
// quarter buffer costs nothing: the sender has credit to go on. A packet
// already waiting to go carries the newest FCCL when it leaves. So a
// link that runs free carries one flow-control packet per quarter buffer
// rather than one per packet, as a simulator must to stay fast, and a
// credit-limited one (a long link, a full buffer) one per packet,
// exactly as granted. The periodic refresh only repairs credits of
// packets lost on the wire, and is modelled as the refresh after a loss
// (a lossy or cut link) rather than as a timer on every port. Links lose
// no flow-control packet to random loss (as they spare PFC frames); a cut
// link retrains when it comes back, and both ends start their counters
// anew (7.9.4.1).
//
// The long haul between two InfiniBand range extenders (swtch.RangeExtender)
// runs the same flow control with 32-bit counters
// (EnableLongHaulCredits): the extenders' own protocol, which grants
// their deep buffer whole. Only the counters' width differs
// (CreditState.mask), so the 12-bit links' arithmetic and packets are
// InfiniBand's exactly.

// FCPacketBytes is a flow-control packet: Op (4 bits), FCTBS (12), VL (4),
// FCCL (12) and LPCRC (16): 6 bytes.
const FCPacketBytes = 6

// BlockBytes is the unit of InfiniBand credit.
const BlockBytes = 64

// maxCreditBlocks is the most blocks a VL's buffer may grant: with 12-bit
// counters, a sender may send while (FCCL - (FCTBS + blocks)) mod 4096 is
// at most 2048.
const maxCreditBlocks = 2048

// ibCounterMask is the width of InfiniBand's flow-control counters, 12
// bits; a long-haul link's (EnableLongHaulCredits) are 32 bits wide.
const ibCounterMask = 0xFFF

// MaxVLBuffer is the largest receive buffer per VL credits can use,
// 128 KiB.
const MaxVLBuffer = maxCreditBlocks * BlockBytes

// CreditState is one port's flow-control state, both directions' halves:
// as a sender (what the peer granted) and as a receiver (what it grants).
//
// Every packet sent or received on the port reads the first line (the
// sizes and marks) and its VL's record, two VLs to a line: two lines,
// where the counters kept as arrays of eight, one array a field, spread a
// packet's reads over five (TestCreditsLayout). The struct is 384 bytes,
// an allocation class whose objects start on a line.
//
// A port's owner that frees receive buffer far from the port's own
// events (a switch, as a packet leaves by another port) keeps the port's
// CreditState (Port.CreditState) and gives the buffer back through it,
// asking for its lines with the packet's: the port's own lines stay
// where they are.
type CreditState struct {
	// stale counts the frames that were on the wire toward this end when
	// the link was cut, which arrive lost (SetDown).
	stale int64
	// capacity is the receive buffer per VL in blocks; batch and lowWater
	// the grant and the sender's remaining credit that send a
	// flow-control packet (maybeAdvertise).
	capacity, batch, lowWater int64
	// maxBlocks is the largest packet the port's owner sends, in blocks:
	// a VL with less credit is marked paused, for observers, until its
	// credit is back at resumeAt (creditChanged).
	maxBlocks, resumeAt int64
	// mask is the counters' modulus less one (0xFFF, InfiniBand's 12
	// bits; all 32 bits on a long haul between range extenders), and
	// half the most credit outstanding: a sender may send while
	// (FCCL - (FCTBS + blocks)) & mask is at most half.
	mask, half uint32
	port       *Port // whose state this is
	vl         [8]vlCredit
	vls        int // data VLs: 0..vls-1
	// made counts the flow-control packets the port made (each VL's
	// record counts those it received).
	made int64
	// wantUp: this end's link was restored while the other end's was not
	// (SetDown): it waits, down, to train with it.
	wantUp bool
	// ethernet: the link is Ethernet's with Ultra Ethernet's CBFC
	// (EnableCBFC): its credit updates are Ethernet frames.
	ethernet bool
	_        [46]byte // to 384 bytes
}

// vlCredit is one VL's counters (IBTA vol. 1, 7.9.4): as a sender, the
// total blocks sent (FCTBS) and the limit last granted (FCCL); as a
// receiver, the adjusted blocks received (ABR), the FCCL last advertised,
// the blocks the buffer holds, and the flow-control packet waiting in the
// port's control queue, which will carry the newest limit; and the
// flow-control packets received for the VL. The counters are kept in 32
// bits, of which InfiniBand's links use 12 (CreditState.mask); a buffer
// holds at most 2^31 blocks (the range extender's is at most 1 GiB, 2^24).
// 32 bytes: two VLs to a line.
type vlCredit struct {
	fctbs, fccl, abr, advert uint32
	used                     int32
	received                 uint32
	queued                   *Packet
}

// EnableCredits makes the port's link InfiniBand's, with a receive buffer
// of bufferBytes per data VL (VL 0..vls-1) at this end; maxFrame is the
// largest packet this port's owner sends (its credit need marks a VL
// paused for observers). Call it on both ends of a link before the run.
// The peer's sender starts with credit for the whole buffer, as the
// flow-control packets of link training grant it.
func (p *Port) EnableCredits(bufferBytes int64, vls int, maxFrame int64) {
	p.enableCredits(bufferBytes, vls, maxFrame, ibCounterMask, maxCreditBlocks)
}

// EnableLongHaulCredits makes the port's link the long haul between two
// range extenders: credit flow control per VL as InfiniBand's, in 64-byte
// blocks, but with 32-bit counters, so that a VL's buffer of bufferBytes
// (up to 1 GiB) is granted whole rather than the 2,048 blocks (128 KiB)
// 12-bit counters allow. Call it on both ends of the long link (and
// EnableCredits on every other port) before the run.
func (p *Port) EnableLongHaulCredits(bufferBytes int64, vls int, maxFrame int64) {
	p.enableCredits(bufferBytes, vls, maxFrame, 1<<32-1, 1<<31)
}

// CBFCUpdateBytes is a CBFC credit update on the wire: the model sends
// it as a minimum Ethernet frame (64 bytes) with its preamble and gap
// (20), as a PFC frame is sent (PFCWireBytes).
const CBFCUpdateBytes = PFCWireBytes

// EnableCBFC makes the port's link Ethernet's with Ultra Ethernet's
// credit-based flow control (UEC 1.0, 2025): per traffic class (the
// frame's priority, all eight), the receiver grants its buffer of
// bufferBytes and the sender never starts a frame without credit for all
// of it (header to FCS), so the link never drops a frame for want of
// buffer and needs no PFC. It runs InfiniBand's machinery (credits in
// 64-byte units, cumulative counters: the sender's total sent, the
// receiver's limit) with counters 32 bits wide, so that a buffer of up
// to 1 GiB is granted whole, and credit updates that are Ethernet frames
// (CBFCUpdateBytes). maxFrame is the largest frame the port's owner
// sends. Call it on both ends of the link before the run.
func (p *Port) EnableCBFC(bufferBytes int64, maxFrame int64) {
	p.enableCredits(bufferBytes, 8, maxFrame, 1<<32-1, 1<<31)
	p.credit.ethernet = true
	p.cbfc = true
}

// CBFC reports whether the port's link is Ethernet's with credit-based
// flow control (EnableCBFC).
func (p *Port) CBFC() bool { return p.cbfc }

func (p *Port) enableCredits(bufferBytes int64, vls int, maxFrame int64, mask, half uint32) {
	c := &CreditState{vls: vls, capacity: bufferBytes / BlockBytes, maxBlocks: IBPacketBlocks(maxFrame), port: p, mask: mask, half: half}
	// The sender never waits for credit while, at every moment, what it
	// has been granted and not yet spent covers what it can send before
	// the next grant reaches it: a packet being sent, a batch's worth
	// (the longest a grant is held back), and the round trip of the
	// link (data on its way here, the grant on its way back). Below that
	// the receiver grants at once, packet by packet.
	onWire := IBPacketBlocks(int64(float64(p.Rate) * p.peer.out.Delay.Seconds() / 8))
	c.batch = max(c.capacity/4, 1)
	c.lowWater = 2*c.maxBlocks + 2*onWire + c.batch
	p.credit = c
	p.retrain()
}

// retrain starts both ends' credit counters anew, as link training
// does: each end's receiver grants what its buffer has free (ABR 0), and
// the other end's sender takes that as its limit (FCTBS 0). With the
// peer not yet enabled (EnableCredits on the first end) only this end's
// receive half is set.
func (p *Port) retrain() {
	c := p.credit
	reset := func(c *CreditState) {
		for v := 0; v < c.vls; v++ {
			c.vl[v].abr = 0
			c.vl[v].advert = uint32(c.capacity-int64(c.vl[v].used)) & c.mask
			c.vl[v].fctbs = 0
		}
	}
	reset(c)
	if pc := p.peer.credit; pc != nil {
		reset(pc)
		if c.mask != pc.mask {
			panic("fabric: " + p.Name + " and its peer count credits in different widths (EnableLongHaulCredits on one end only)")
		}
		c.resumeAt = min(2*c.maxBlocks, pc.capacity)
		pc.resumeAt = min(2*pc.maxBlocks, c.capacity)
		for v := 0; v < pc.vls; v++ {
			pc.vl[v].fccl = c.vl[v].advert
		}
		for v := 0; v < c.vls; v++ {
			c.vl[v].fccl = pc.vl[v].advert
		}
		p.peer.updateCreditMask()
	}
	p.updateCreditMask()
}

// staleArrival counts off one of the frames that were on the wire toward
// this end when its link was cut, which the cut lost: true, so that
// arrive drops it.
func (p *Port) staleArrival() bool {
	p.credit.stale--
	return true
}

// Credits reports whether the port's link uses credit flow control.
func (p *Port) Credits() bool { return p.credit != nil }

// HasCredit reports whether the peer has granted room for a packet of
// frame bytes on VL vl.
func (p *Port) HasCredit(vl uint8, frame int64) bool {
	c := p.credit
	v := &c.vl[vl&7]
	return (v.fccl-v.fctbs-uint32(IBPacketBlocks(frame)))&c.mask <= c.half
}

// CreditBlocks returns the blocks of credit the peer has granted on vl.
func (p *Port) CreditBlocks(vl uint8) int64 {
	c := p.credit
	v := &c.vl[vl&7]
	return int64((v.fccl - v.fctbs) & c.mask)
}

// spend takes a packet's blocks from its VL's credit as it starts on the
// wire. Sending without credit is a bug of the owner's, which must ask
// HasCredit first.
func (p *Port) spend(pkt *Packet) {
	vl := pkt.Priority & 7
	if !p.HasCredit(vl, pkt.Frame()) {
		panic("fabric: " + p.Name + " sends a packet without credit")
	}
	c := p.credit
	v := &c.vl[vl]
	v.fctbs = (v.fctbs + uint32(IBPacketBlocks(pkt.Frame()))) & c.mask
	p.creditChanged(vl)
}

// received counts a packet arriving into the port's receive buffer.
func (p *Port) receivedBlocks(pkt *Packet) {
	c := p.credit
	vl := pkt.Priority & 7
	b := IBPacketBlocks(pkt.Frame())
	v := &c.vl[vl]
	v.abr = (v.abr + uint32(b)) & c.mask
	v.used += int32(b)
	if int64(v.used) > c.capacity {
		panic("fabric: " + p.Name + " received more than its buffer's credit")
	}
	p.maybeAdvertise(vl)
}

// Release gives back the buffer a packet of frame bytes held on VL vl at
// this port's receiving end (its owner has sent it on, or consumed it);
// the peer gets the credit in a flow-control packet.
func (p *Port) Release(vl uint8, frame int64) { p.credit.Release(vl, frame) }

// CreditState returns the port's flow-control state, nil on Ethernet:
// the same for the whole run (a link's retraining resets its counters).
func (p *Port) CreditState() *CreditState { return p.credit }

// MaxBlocks is the largest packet the port's owner sends, in 64-byte
// blocks (EnableCredits' maxFrame): the credit a VL must have not to be
// marked paused.
func (c *CreditState) MaxBlocks() int64 { return c.maxBlocks }

// Release is Port.Release, reading the port itself only when a
// flow-control packet goes.
func (c *CreditState) Release(vl uint8, frame int64) {
	vl &= 7
	c.vl[vl].used -= int32(IBPacketBlocks(frame))
	c.maybeAdvertise(vl)
}

// Lines returns the address of the state's first line and of VL vl's
// record, for an owner to ask for before Release (sim.PrefetchAddr2).
func (c *CreditState) Lines(vl uint8) (uintptr, uintptr) {
	return uintptr(unsafe.Pointer(c)), uintptr(unsafe.Pointer(&c.vl[vl&7]))
}

// BufferFull reports whether VL vl's receive buffer has no room for the
// largest packet the peer sends: the peer waits for credit until
// something leaves it.
func (p *Port) BufferFull(vl uint8) bool {
	c := p.credit
	return c.capacity-int64(c.vl[vl].used) < p.peer.credit.maxBlocks
}

// BufferedBlocks returns the blocks VL vl's receive buffer holds.
func (p *Port) BufferedBlocks(vl uint8) int64 { return int64(p.credit.vl[vl].used) }

// maybeAdvertise queues a flow-control packet for vl when the sender's
// credit, as this end sees it, is below the low-water mark and the buffer
// has room that the last advertisement did not grant.
func (p *Port) maybeAdvertise(vl uint8) { p.credit.maybeAdvertise(vl) }

func (c *CreditState) maybeAdvertise(vl uint8) {
	v := &c.vl[vl&7]
	if v.queued != nil {
		return // the one waiting will carry the newest limit
	}
	limit := (v.abr + uint32(c.capacity-int64(v.used))) & c.mask
	grant := int64((limit - v.advert) & c.mask)
	if grant == 0 {
		return
	}
	// Held back only while the sender surely has credit to go on. (Not
	// also while this end holds much: what it holds may be stuck, and
	// the sender would wait on a grant that nothing here would send.)
	if remaining := int64((v.advert - v.abr) & c.mask); grant < c.batch && remaining >= c.lowWater {
		return
	}
	if !c.port.down {
		c.port.queueFC(vl)
	}
}

// refreshCredit sends a flow-control packet on vl whatever the counters
// say: after a packet of vl was lost on this port's link, it carries the
// FCTBS that lets the receiver forget the lost blocks (the spec's
// periodic packet, here sent when it is needed).
//
// It is called from the link as the lost packet's transmission ends,
// before the port looks for its next frame: the packet is queued without
// a Kick, which would start it beside the one the port is about to start.
func (p *Port) refreshCredit(vl uint8) {
	if p.credit.vl[vl].queued == nil && !p.down {
		p.control.Push(p.newFC(vl))
		p.hasControl = true
	}
}

// queueFC queues a flow-control packet for vl; it takes its values as it
// starts on the wire (fillCredit).
func (p *Port) queueFC(vl uint8) { p.SendControl(p.newFC(vl)) }

// newFC makes a flow-control packet for vl.
func (p *Port) newFC(vl uint8) *Packet {
	c := p.credit
	pkt := p.pool.Get()
	pkt.Kind = KindCredit
	pkt.Link = InfiniBand
	pkt.Wire = FCPacketBytes
	if c.ethernet {
		pkt.Link, pkt.Wire = Ethernet, CBFCUpdateBytes
	}
	pkt.Priority = vl
	pkt.InPort = -1
	c.vl[vl].queued = pkt
	c.made++
	return pkt
}

// fillCredit writes a flow-control packet's FCTBS and FCCL as it starts
// on the wire: the newest.
func (p *Port) fillCredit(pkt *Packet) {
	c := p.credit
	v := &c.vl[pkt.Priority&7]
	v.queued = nil
	v.advert = (v.abr + uint32(c.capacity-int64(v.used))) & c.mask
	pkt.SetFC(v.fctbs, v.advert)
}

// sendCredit puts an InfiniBand flow-control packet on the link at once,
// with the newest FCTBS and FCCL. It goes ahead of data, when the frame
// being sent ends, as the spec has it, but its 6 bytes (half a nanosecond
// at 100 Gb/s, 0.15% of a 4 KiB packet's time) are not charged to the
// transmitter: a frame that follows it starts at once. That saves the
// engine an event per flow-control packet, and what it changes is well
// below the time of a byte per packet. CBFC's update is an Ethernet frame
// of CBFCUpdateBytes, 2% of a 4 KiB frame's time, and more than one a
// data frame when the receiver grants as frames leave: startNext sends it
// as it sends a PFC frame, taking its time on the wire (review F,
// finding 3), and it never comes here.
func (p *Port) sendCredit(pkt *Packet) {
	p.fillCredit(pkt)
	if p.OnTx != nil {
		p.OnTx(p, pkt)
	}
	p.Stats.TxPackets++
	p.Stats.TxBytes += int64(pkt.Wire)
	p.out.carry(pkt, frameInfo(pkt))
}

// applyCredit takes a flow-control packet from the peer: its FCCL is this
// end's new limit as a sender, and its FCTBS this end's ABR as a
// receiver (blocks lost on the wire are forgotten).
func (p *Port) applyCredit(pkt *Packet) {
	c := p.credit
	vl := pkt.Priority & 7
	fctbs, fccl := pkt.FC()
	v := &c.vl[vl]
	v.received++
	v.fccl = fccl
	if v.abr != fctbs {
		v.abr = fctbs
		p.maybeAdvertise(vl)
	}
	p.creditChanged(vl)
	p.Kick()
}

// creditChanged updates vl's bit of the paused mask observers read
// (updateCreditMask) after its credit changed, with hysteresis: a VL
// becomes paused when its credit is below the owner's largest packet, and
// free again only at twice that (or the peer's whole buffer, if smaller).
// A credit-limited link, whose credit dips below a packet at every send
// and rises at every grant, so reads as waiting for credit all along,
// which it is, rather than as thousands of pauses a millisecond, each
// one a call to every observer.
func (p *Port) creditChanged(vl uint8) {
	c := p.credit
	avail := int64((c.vl[vl&7].fccl - c.vl[vl&7].fctbs) & c.mask)
	bit := uint8(1) << vl
	switch {
	case p.paused&bit == 0 && avail < c.maxBlocks:
		p.setCreditPaused(vl, true)
	case p.paused&bit != 0 && avail >= c.resumeAt:
		p.setCreditPaused(vl, false)
	}
}

// setCreditPaused marks vl paused or free, keeping the time it has been.
func (p *Port) setCreditPaused(vl uint8, paused bool) {
	now := p.eng.Now()
	if paused {
		p.paused |= 1 << vl
		p.pausedSince[vl] = now
		p.pausedUntil[vl] = sim.Never
	} else {
		p.paused &^= 1 << vl
		p.pausedTotal[vl] += now - p.pausedSince[vl]
	}
	p.pauseChanged(vl, paused)
}

// updateCreditMask marks paused, for observers (the deadlock detector,
// the time a port waited for credit), the VLs whose credit is below the
// largest packet its owner sends (creditChanged, VL by VL).
func (p *Port) updateCreditMask() {
	for v := 0; v < p.credit.vls; v++ {
		p.creditChanged(uint8(v))
	}
}

// FCPackets returns the flow-control packets the port made and received.
func (p *Port) FCPackets() (made, received int64) {
	if p.credit == nil {
		return 0, 0
	}
	for v := range p.credit.vl {
		received += int64(p.credit.vl[v].received)
	}
	return p.credit.made, received
}

// SetFC writes a flow-control packet's FCTBS and FCCL (12 bits each on
// InfiniBand's links, 32 on a range extenders' long haul), kept in PSN and
// MSN: a flow-control packet has no BTH or AETH, and every one would
// otherwise need a PacketExt.
func (p *Packet) SetFC(fctbs, fccl uint32) {
	p.PSN, p.MSN = fctbs, fccl
}

// FC returns a flow-control packet's FCTBS and FCCL.
func (p *Packet) FC() (fctbs, fccl uint32) { return p.PSN, p.MSN }

// ShortOf returns the VLs whose credit is below blocks, as a mask.
func (p *Port) ShortOf(blocks int64) uint8 {
	c := p.credit
	var mask uint8
	for v := 0; v < c.vls; v++ {
		if int64((c.vl[v].fccl-c.vl[v].fctbs)&c.mask) < blocks {
			mask |= 1 << v
		}
	}
	return mask
}
