package hca

import (
	"unsafe"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// The receive path: a packet from the wire through the NIC's receive
// buffer (PFC PAUSE on Ethernet, credits on InfiniBand) and its
// per-packet pipeline to the transport logic of its QP (process), and
// the CNPs a CE mark calls for (the notification point).

// rxKind is a packet's end of the receive pipeline (sim.LaneKind). It has
// no Warm: the packet's processing starts from the HCA's first lines and
// the packet, which the engine asks for itself.
var rxKind = &sim.LaneKind{
	Fire: func(t, d unsafe.Pointer) { (*HCA)(t).process((*fabric.Packet)(d)) },
}

// Receive takes a packet from the wire. With a receive drain rate below
// line rate the packet waits in the NIC's receive buffer, which sends PFC
// PAUSE on the packet's priority above RxXoff and RESUME below RxXon;
// then the per-packet pipeline (RxPktLatency) runs before the transport
// logic sees it.
func (h *HCA) Receive(p *fabric.Packet, _ *fabric.Port) {
	if p.Dst != h.ID && !h.isPort2(p.Dst) && !h.member(p.Dst) {
		h.Stats.Misdelivered++
		h.discard(p, "misdelivered")
		h.release(p)
		h.pool.Put(p)
		return
	}
	h.Stats.RxPackets++
	if (h.rxRate > 0 || h.rxHung || h.rxBusy) && (p.Link == fabric.InfiniBand || h.port.CBFC()) {
		// InfiniBand (or Ethernet with CBFC): the receive buffer is the
		// port's per VL (traffic class), and the credits it holds back
		// stop the sender; no PAUSE.
		h.rxq.Push(p)
		if !h.rxBusy && !h.rxHung {
			h.startDrain()
		}
		return
	}
	if h.rxRate > 0 || h.rxHung || h.rxBusy {
		if h.wdTripped && h.rxq.Bytes+p.Frame() > h.Prof.RxBuffer {
			h.Stats.RxBufferDrops++
			h.discard(p, "nic_buffer")
			h.release(p)
			h.pool.Put(p)
			return
		}
		h.rxq.Push(p)
		if !h.rxPaused && h.rxq.Bytes > h.Prof.RxXoff {
			h.rxPaused = true
			h.sendPause(p.Priority, fabric.MaxQuanta)
		} else if h.rxPaused && h.rxq.Bytes > h.Prof.RxXoff {
			// refresh a pause that is half over
			if h.eng.Now()-h.rxPauseAt > fabric.PauseDuration(fabric.MaxQuanta, h.port.Rate)/2 {
				h.sendPause(p.Priority, fabric.MaxQuanta)
			}
		}
		if !h.rxBusy && !h.rxHung {
			h.startDrain()
		}
		return
	}
	h.afterPipeline(p)
}

func (h *HCA) sendPause(prio uint8, quanta uint16) {
	if quanta > 0 && h.wdTripped {
		return // the watchdog stopped this NIC's PAUSE
	}
	if quanta == 0 {
		h.Stats.ResumeSent++
	} else {
		h.Stats.PauseSent++
		h.rxPauseAt = h.eng.Now()
	}
	h.port.SendPause(prio, quanta)
}

func (h *HCA) startDrain() {
	p := h.rxq.Peek()
	h.rxBusy = true
	rate := h.rxRate
	if rate == 0 {
		rate = h.port.Rate
	}
	h.eng.After(fabric.SerializationTime(int64(p.Wire), rate), h, evRxDrain, 0, nil)
}

func (h *HCA) rxDrained() {
	p := h.rxq.Pop()
	h.rxBusy = false
	if h.rxPaused && h.rxq.Bytes <= h.Prof.RxXon {
		h.rxPaused = false
		h.sendPause(h.Prof.Priority, 0)
	}
	if h.rxq.Len > 0 && !h.rxHung {
		h.startDrain()
	}
	h.afterPipeline(p)
}

func (h *HCA) afterPipeline(p *fabric.Packet) {
	if d := h.rxLatency; d > 0 {
		// Every packet waits the same latency: the engine's lane for it
		// (sim.Lane) keeps them in order without the heap.
		if h.rxLane == nil || h.rxLane.Delay() != d {
			h.rxLane = h.eng.Lane(d, rxKind)
		}
		if h.rxLane != nil {
			h.eng.PostLane(h.rxLane, unsafe.Pointer(h), unsafe.Pointer(p))
		} else {
			h.eng.After(d, h, evRx, 0, p)
		}
		return
	}
	h.process(p)
}

// process is the transport logic for one arrived packet.
func (h *HCA) process(p *fabric.Packet) {
	h.release(p)
	if h.Prof.Overlay != nil {
		p.Decapsulate()
	}
	qp := h.QP(p.DestQP)
	if qp == nil && p.DestQP == GSIQPN && p.Kind == fabric.KindData {
		// The host's CM is always there (the kernel's): QP1 is made when
		// the first MAD comes, so that a REQ to a port nobody listens on
		// is refused with a REJ (gsi.go).
		qp = h.qp1()
	}
	if qp == nil && fabric.IsMulticast(p.Dst) && p.DestQP == fabric.MulticastQPN {
		h.receiveMulticast(p)
		h.pool.Put(p)
		return
	}
	if qp == nil {
		if p.Kind == fabric.KindSetup {
			// iWARP's connection set-up and tear-down: no QP takes the
			// segment, the NIC's table of connections does (iwconn.go).
			h.iwSegment(p)
			h.pool.Put(p)
			return
		}
		if p.DestQP >= firstQPN && p.DestQP < h.nextQPN {
			h.Stats.ClosedQPDrops++
			h.discard(p, "closed_qp")
		} else {
			h.Stats.BadQPDrops++
			h.discard(p, "bad_qp")
		}
		h.pool.Put(p)
		return
	}
	if p.ECN == fabric.CE && p.Kind == fabric.KindData {
		h.Stats.ECNMarked++
		if !h.Prof.EchoECN && !h.iwarp() {
			h.maybeCNP(qp, p)
		}
	}
	if p.Ext != nil && p.Ext.Pull != 0 && (p.Kind == fabric.KindData || p.Kind == fabric.KindTrimmed) {
		// RCCC: a request's pull target (rccc.go).
		if k := h.creditSink(qp); k != nil {
			if p.Kind == fabric.KindData {
				k.PullTarget(p.Ext.Pull)
			} else {
				k.Trimmed(p.Ext.Pull)
			}
		}
	}
	if k := qp.CreditSink; k != nil && (p.Kind == fabric.KindData || p.Kind == fabric.KindTrimmed) {
		k.Arrived(p.ECN == fabric.CE, p.Kind == fabric.KindTrimmed, p.Ext != nil && p.Ext.LastHop)
	}
	switch p.Kind {
	case fabric.KindData:
		if t := qp.tcp; t != nil && t.await {
			t.await = false // the Initiator's first FPDU: the Responder may send
			h.activate(qp)
		}
		switch op := p.Opcode.Operation(); {
		case op >= fabric.OpReadResponseFirst && op <= fabric.OpReadResponseOnly:
			h.readResponse(h.touched(qp), p) // (touched: its RCCC count, creditwait.go)
		case qp.Type == UD:
			h.receiveUD(qp, p)
		default:
			h.respond(qp, p)
		}
	case fabric.KindTrimmed:
		h.trimmedArrival(h.touched(qp), p)
	case fabric.KindAck:
		if p.TSeq() != 0 {
			h.rspAcked(qp, p) // iWARP: an ACK of this QP's READ responses
			break
		}
		h.acknowledged(qp, p)
		if qp.Credits != nil {
			h.heard(qp)
		}
		if qp.CC != nil {
			qp.CC.OnAck(h.eng.Now(), p)
		}
		if qp.Entropy != nil {
			qp.Entropy.Feedback(h.eng.Now(), p.Flow.SrcPort, p.ECE == 0 && (p.Ext == nil || !p.Ext.Trimmed))
		}
	case fabric.KindCNP:
		if p.Ext != nil && p.Ext.Probe {
			h.answerProbe(qp, p) // UET's SLEEK probe (uet.go), not a CNP
			break
		}
		if p.Ext != nil && p.Ext.Credit != 0 {
			h.creditArrival(qp, p) // RCCC's, not a CNP (rccc.go)
			break
		}
		h.Stats.CNPsReceived++
		qp.CNPs++
		if qp.OnCNP != nil {
			qp.OnCNP(qp)
		}
		if qp.CC != nil {
			qp.CC.OnCNP(h.eng.Now())
		}
	}
	if qp.sr != nil && qp.sr.held == p {
		qp.sr.held = nil // kept ahead of a gap (srKeep): its replay frees it
		return
	}
	h.pool.Put(p)
}

// release gives an arrived packet's credit back to the link's sender
// (InfiniBand, or Ethernet with CBFC): the packet has left the receive
// buffer.
func (h *HCA) release(p *fabric.Packet) {
	if p.Link == fabric.InfiniBand || h.port.CBFC() {
		port := h.port
		if h.isPort2(p.Dst) {
			port = h.cold.port2
		}
		port.Release(p.Priority, p.Frame())
	}
}

// discard tells the run's byte ledger (fabric.Pool.OnDrop) that p's
// payload goes no further: the NIC refused it for reason.
func (h *HCA) discard(p *fabric.Packet, reason string) {
	h.pool.Dropped(p, reason, int64(p.Payload))
}

// maybeCNP sends a CNP to the sender of a CE-marked packet: at most one
// per QP per CNPInterval, or one per window of CNPInterval when
// Prof.CNPWindowed. qp.lastCNP is the time of the last CNP, or the start
// of the window it was sent in.
func (h *HCA) maybeCNP(qp *QP, req *fabric.Packet) {
	now := h.eng.Now()
	if qp.cnpSent && now-qp.lastCNP < h.Prof.CNPInterval {
		return
	}
	if iv := h.Prof.CNPInterval; qp.cnpSent && h.Prof.CNPWindowed && iv > 0 {
		qp.lastCNP += (now - qp.lastCNP) / iv * iv
	} else {
		qp.lastCNP = now
	}
	qp.cnpSent = true
	c := h.pool.Get()
	c.Kind = fabric.KindCNP
	c.Opcode = fabric.OpCNP
	c.Priority, c.DSCP = h.Prof.CNPPriority, h.Prof.CNPDSCP
	if h.Prof.LinkLayer == fabric.InfiniBand {
		c.Priority, c.SL = qp.Priority, req.SL // the BECN goes back on the data's SL and VL: there may be no other
	}
	c.Src, c.Dst = h.local(req), req.Src
	c.Flow = fabric.FlowKey{SrcIP: req.Flow.DstIP, DstIP: req.Flow.SrcIP, SrcPort: req.Flow.SrcPort, DstPort: fabric.RoCEv2Port}
	c.DestQP, c.SrcQP = req.SrcQP, qp.QPN
	c.Wire, c.Link = h.wire(fabric.OpCNP, 0)
	c.InPort = -1
	h.Stats.CNPsSent++
	h.pushCtrl(c)
}

// LaneKinds are the HCA's lane kinds, whose events' data are packets
// that have arrived and wait in its receive pipeline (fabric.LaneKinds
// says why this is asked).
func LaneKinds() []*sim.LaneKind { return []*sim.LaneKind{rxKind} }
