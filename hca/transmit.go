package hca

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// The transmit path: the arbiter that feeds the port (NextPacket),
// control packets first, then one packet from the next QP with work in
// round-robin order; what holds a QP back (pauses, credits, its rate
// limiter, its window), and the wire size of what it sends.

func (h *HCA) activate(qp *QP) {
	h.unpark(qp)
	if !qp.active && qp.hasWork() {
		h.touched(qp).active = true // (touched: its RCCC count, creditwait.go)
		if h.arb != nil {
			qp.ring = qp.Priority & 15
			h.arb.rings[qp.ring] = append(h.arb.rings[qp.ring], qp)
		} else {
			h.active = append(h.active, qp)
		}
	}
	h.kick()
}

// nextControl takes the oldest control packet whose priority port may
// send now, or nil.
func (h *HCA) nextControl(port *fabric.Port) *fabric.Packet {
	ctrl := &h.ctrl
	if port != h.port {
		ctrl = &h.cold.ctrl2 // the second port's (dualport.go)
	}
	p := ctrl.Peek()
	if p == nil {
		return nil
	}
	if !port.Paused(p.Priority) {
		return ctrl.Pop()
	}
	if port.CBFC() {
		// Ethernet with CBFC: a control packet goes on a class with
		// credit for the largest frame the port sends, which covers it.
		return ctrl.PopUnpaused(port.ShortOf(port.CreditState().MaxBlocks()))
	}
	if port.Credits() {
		// ACKs, NAKs and CNPs fit the blocks of the largest of them, a
		// CNP (42 bytes; 82 with a GRH: two blocks).
		return ctrl.PopUnpaused(port.ShortOf(fabric.IBPacketBlocks(int64(fabric.IBWire(fabric.OpCNP, 0, h.Prof.GRH)))))
	}
	return ctrl.PopUnpaused(port.PausedMask())
}

// deactivate takes the i-th QP out of its transmit ring, whose parking
// is pk (nil: none); the QP is not parked.
func (h *HCA) deactivate(ring *[]*QP, pk *parking, i int) {
	r := *ring
	h.touched(r[i]).active = false // (touched: its RCCC count, creditwait.go)
	copy(r[i:], r[i+1:])
	r[len(r)-1] = nil
	*ring = r[:len(r)-1]
	if pk != nil {
		pk.remove(i)
	}
}

// NextPacket is the transmit arbiter: control packets (ACK, NAK, atomic
// responses, CNPs) first, the oldest whose priority is not paused (a CNP
// on its own priority passes ACKs held by a PAUSE of theirs, as a NIC
// queues per traffic class), then one packet from the next QP in round-robin
// order whose priority is not paused and that may send now: its READ
// responses before its requests, and requests only when the WQE's
// doorbell and fetch are done, the QP's rate limiter and window allow,
// and (for READ and atomics) fewer than max_rd_atomic are outstanding.
// A QP held back by time sets a wake timer.
func (h *HCA) NextPacket(port *fabric.Port) *fabric.Packet {
	if p := h.nextControl(port); p != nil {
		return h.encap(h.sendControl(p))
	}
	now := h.eng.Now()
	if h.arb != nil {
		return h.encap(h.arb.next(h, port, now))
	}
	return h.encap(h.fromRing(&h.active, &h.cursor, &h.park, port, now))
}

// sendControl counts control packet p as sent now and returns it.
func (h *HCA) sendControl(p *fabric.Packet) *fabric.Packet {
	h.Stats.TxPackets++
	if p.Kind == fabric.KindAck {
		if qp := h.QP(p.SrcQP); qp != nil && qp.queuedAck == p {
			qp.queuedAck = nil
		}
	}
	p.SentAt = h.eng.Now()
	return p
}

// nextData is NextPacket's data packet: one from the next QP that may
// send now, or nil (NextPacket's tail, written there again so that it
// makes no extra call a packet: nextData is too large to inline).
func (h *HCA) nextData(port *fabric.Port) *fabric.Packet {
	now := h.eng.Now()
	if h.arb != nil {
		return h.encap(h.arb.next(h, port, now))
	}
	return h.encap(h.fromRing(&h.active, &h.cursor, &h.park, port, now))
}

// fromRing takes one packet from the next QP of ring in round-robin
// order (from *cursor) that may send now, dropping the QPs that have no
// work left; nil if none may. *park is the ring's parking (parking.go):
// the QPs the port refused, which a round passes by unread while the
// port still refuses them all.
func (h *HCA) fromRing(ring *[]*QP, cursor *int, park **parking, port *fabric.Port, now sim.Time) *fabric.Packet {
	pk := h.parkingFor(park, len(*ring))
	if pk != nil && len(pk.wakes) > 0 && pk.wakes[0].at <= now {
		h.releaseHeld(pk, *ring, now)
	}
	all := pk != nil && pk.n > 0 && pk.refusesAll(port)
	skip := all || pk != nil && pk.nHeld > 0
	for n := len(*ring); n > 0; {
		if *cursor >= len(*ring) {
			*cursor = 0
		}
		if skip {
			if k := pk.run(*cursor, min(n, len(*ring)-*cursor), all); k > 0 {
				if parkCheck {
					h.checkParked((*ring)[*cursor:*cursor+k], port)
				}
				*cursor += k // as reading each would: each is refused
				n -= k
				continue
			}
		}
		n--
		qp := (*ring)[*cursor]
		h.ArbiterReads++
		if qp.parked {
			pk.unpark(*cursor, qp)
		}
		if !qp.hasWork() {
			h.deactivate(ring, pk, *cursor)
			continue
		}
		if blocks, no := h.refuses(qp, port); no {
			if pk != nil && qp.tcp == nil {
				pk.park(*cursor, qp, blocks)
			}
			*cursor++
			continue
		}
		*cursor++
		h.heldTo = 0
		if p := h.sendFrom(qp, port, now); p != nil {
			return p
		}
		if pk != nil && h.heldTo > now && qp.tcp == nil && !qp.srPending() {
			pk.hold(*cursor-1, qp) // time holds it: passed by until its wake
		}
	}
	return nil
}

// refuses reports whether port cannot take qp's next packet now: the QP
// sends from the HCA's other port (dualport.go), or its priority is
// paused and, on InfiniBand, its VL's credit does not cover the packet,
// which needs blocks (0 on Ethernet, where a pause refuses any).
func (h *HCA) refuses(qp *QP, port *fabric.Port) (blocks int64, no bool) {
	if qp.port2 != (port != h.port) {
		return 0, true
	}
	if !port.Paused(qp.Priority) {
		return 0, false
	}
	if !port.Credits() {
		return 0, true
	}
	frame := h.nextFrame(qp)
	return fabric.IBPacketBlocks(frame), !port.HasCredit(qp.Priority, frame)
}

// sendFrom takes qp's next packet if it may send one now, port having
// taken it (refuses); nil if not (and a wake timer if time holds it
// back).
func (h *HCA) sendFrom(qp *QP, port *fabric.Port, now sim.Time) *fabric.Packet {
	if t := qp.tcp; t != nil {
		if t.await {
			return nil // MPA's Responder waits for the Initiator's first FPDU
		}
		if r := t.rsp; r != nil && qp.State != QPErr {
			// iWARP: the READ responses' own TCP stream resends what it
			// lost first, and holds new responses to its window (while
			// requests, on their stream, may go).
			if r.snd.lost > 0 {
				if p := h.rspResend(qp); p != nil {
					return p
				}
			}
			if len(qp.rdJobs) > 0 && qp.rdJobs[0].nak == 0 && h.rspHold(qp) {
				if qp.sendIdx < len(qp.sq) || t.snd.lost > 0 {
					return h.sendRequest(qp, now)
				}
				return nil
			}
		}
	}
	if len(qp.rdJobs) > 0 {
		// READ responses are the responder's data: its rate limiter
		// (congestion control's reaction point) paces them as it paces
		// requests.
		if j := qp.rdJobs[0]; j.nak != 0 {
			// The responses owed before a failed request are sent: its
			// NAK goes next (failAfterReads).
			qp.rdJobs = nil
			h.sendAck(qp, h.standIn(qp), j.nak, j.psn)
			return h.NextPacket(port)
		}
		if qp.Rate > 0 && qp.nextTx > now {
			h.wakeAt(qp, qp.nextTx)
			return nil
		}
		if j := qp.rdJobs[0]; j.gen != h.mrGen {
			// A region was deregistered since the READ's was
			// last found: if it was this one, the NAK this queues
			// goes next.
			if h.mrs[j.mr.RKey] != j.mr {
				h.readAccessLost(qp)
				return h.NextPacket(port)
			}
			j.gen = h.mrGen
		}
		return h.nextReadResponse(qp)
	}
	return h.sendRequest(qp, now)
}

// sendRequest takes qp's next request (a resend first) if it may send
// one now; nil if not.
func (h *HCA) sendRequest(qp *QP, now sim.Time) *fabric.Packet {
	if qp.State != QPRTS {
		return nil
	}
	if qp.tcpPending() {
		if p := h.tcpResend(qp); p != nil {
			return p
		}
		if qp.sendIdx >= len(qp.sq) {
			return nil
		}
	}
	if qp.srPending() {
		if p := h.srRetransmit(qp, now); p != nil {
			return p
		}
		if qp.sendIdx >= len(qp.sq) {
			return nil
		}
	}
	if t := h.holdUntil(qp); t > now {
		if t != sim.Never {
			h.wakeAt(qp, t)
		}
		return nil
	}
	return h.nextRequest(qp)
}

// wakeAt has the transmit arbiter look at qp again at t, when its rate
// limiter lets it send.
func (h *HCA) wakeAt(qp *QP, t sim.Time) {
	h.heldTo = t
	if qp.wake.At() != t {
		h.eng.Cancel(qp.wake)
		qp.wake = h.eng.Schedule(t, h, evWake, 0, qp)
	}
}

// holdUntil is when qp's next request may go: now or earlier when it may
// go now, Never while it waits for an ACK, a response or an RNR timer.
func (h *HCA) holdUntil(qp *QP) sim.Time {
	if qp.rnrWait.Pending() {
		return sim.Never
	}
	w := qp.sq[qp.sendIdx]
	if qp.Type == RC {
		if qp.tcp != nil {
			if h.tcpHold(qp) {
				return sim.Never
			}
		} else if qp.Window > 0 && h.inFlight(qp)*int64(qp.pmtu) >= qp.Window ||
			h.Prof.Transport == fabric.UET && qp.nextPSN-qp.una >= srWindow {
			// UET: no PSN past what the receiver tracks (uet.go).
			return sim.Never
		} else if qp.Credits != nil && !qp.Credits.CanSend() {
			h.creditHeld(qp) // nor without its credit (rccc.go)
			return sim.Never
		}
		if (w.Op.isRead() || w.Op.isAtomic()) && !w.reqSent() && qp.rdOut >= qp.maxRdAtomic {
			return sim.Never
		}
	}
	return max(w.ready, qp.nextTx)
}

// inFlight is the packets qp's window holds: on UET those neither
// acknowledged nor SACKed (uetInFlight), elsewhere every PSN from the
// oldest unacknowledged one (flightFrom).
func (h *HCA) inFlight(qp *QP) int64 { return h.inFlightTo(qp, qp.nextPSN) }

// inFlightTo is inFlight had qp sent every PSN before end.
func (h *HCA) inFlightTo(qp *QP, end int64) int64 {
	if h.Prof.Transport == fabric.UET {
		return uetInFlight(qp, end)
	}
	return end - h.flightFrom(qp)
}

// wire returns the bytes a packet with opcode op and payload bytes
// occupies on the HCA's link, and the link's layer.
func (h *HCA) wire(op fabric.Opcode, payload int) (int32, fabric.LinkLayer) {
	if h.Prof.LinkLayer == fabric.InfiniBand {
		return int32(fabric.IBWire(op, payload, h.Prof.GRH)), fabric.InfiniBand
	}
	if o := h.Prof.Overlay; o != nil {
		return h.overlayWire(o, op, payload), fabric.Ethernet
	}
	switch h.Prof.Transport {
	case fabric.RoCEv1:
		return int32(fabric.RoCEv1Wire(op, payload)), fabric.Ethernet
	case fabric.UET:
		return int32(fabric.UETWire(op, payload)), fabric.Ethernet
	case fabric.IWARP:
		if op.Operation() == fabric.OpAcknowledge {
			return int32(fabric.TCPAckWire(h.Prof.TCP.Timestamps, false)), fabric.Ethernet
		}
		return int32(fabric.IWARPWire(op, payload, h.Prof.TCP.MPA, h.Prof.TCP.Timestamps)), fabric.Ethernet
	}
	return int32(fabric.RoCEv2Wire(op, payload)), fabric.Ethernet
}

// Wire is the bytes a packet of opcode op (its transport's bits with its
// operation's) with payload bytes takes on the HCA's link as the HCA
// frames it (wire): its link layer, transport and overlay, without the
// INT header a QP's packets may add.
func (h *HCA) Wire(op fabric.Opcode, payload int) int64 {
	w, _ := h.wire(op, payload)
	return int64(w)
}

// wireTo is wire for a packet to dst: on InfiniBand a multicast packet
// has a GRH whatever Profile.GRH says (its DGID is the group's MGID;
// IBTA vol. 1, 8.3.1).
func (h *HCA) wireTo(op fabric.Opcode, payload int, dst fabric.NodeID) (int32, fabric.LinkLayer) {
	if h.Prof.LinkLayer == fabric.InfiniBand && !h.Prof.GRH && fabric.IsMulticast(dst) {
		return int32(fabric.IBWire(op, payload, true)), fabric.InfiniBand
	}
	return h.wire(op, payload)
}

// nextFrame returns the frame of the next packet qp would send: a READ
// response, or its next request (as nextRequest builds it), for the
// credit it needs on InfiniBand.
func (h *HCA) nextFrame(qp *QP) int64 {
	mtu := int64(qp.pmtu)
	var op fabric.Opcode
	var payload int64
	dst := qp.Remote
	if len(qp.rdJobs) > 0 {
		j := qp.rdJobs[0]
		payload = min(mtu, j.left)
		op = fabric.OpReadResponseMiddle
		if i := j.size - j.left; i == 0 || j.psn == j.end-1 {
			op = fabric.OpReadResponseOnly // an AETH: First, Last and Only have one
		}
	} else {
		if qp.sendIdx >= len(qp.sq) {
			return 0
		}
		w := qp.sq[qp.sendIdx]
		op = opcodeFor(w.Op, qp.sendOff, w.reqPkts)
		if !w.Op.isRead() && !w.Op.isAtomic() {
			payload = min(mtu, w.Size-qp.sendOff*mtu)
		}
		if qp.Type == UD && w.wr.AH != nil {
			dst = w.wr.AH.Dest
		}
	}
	wire, link := h.wireTo(qp.Type.transport()|op, int(payload), dst)
	if qp.INT && len(qp.rdJobs) == 0 {
		// A request of a QP whose packets carry INT (HPCC) goes with
		// its INT header (request's), as its credit must cover.
		wire += fabric.INTHeaderBytes
	}
	if link == fabric.InfiniBand {
		return int64(wire)
	}
	return int64(wire) - fabric.PreambleIFGBytes
}
