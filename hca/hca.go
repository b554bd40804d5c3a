package hca

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// Stats are an HCA's counters.
type Stats struct {
	TxPackets     int64 // every packet the HCA originated (PFC frames excepted)
	DataPackets   int64 // request packets sent, retransmissions included
	Retransmitted int64 // request packets sent more than once
	AcksSent      int64
	NaksSent      int64
	Timeouts      int64
	Duplicates    int64 // request packets received twice
	OutOfOrder    int64 // request packets received ahead of a gap (dropped)
	RxPackets     int64 // packets received from the wire (PFC frames excepted)
}

// HCA is one host's RDMA NIC with a single port. Requester QPs with work
// share the port through a round-robin transmit arbiter, one packet at a
// time; ACKs and NAKs go ahead of data.
type HCA struct {
	ID    fabric.NodeID
	Name  string
	IP    uint32
	Prof  Profile
	Stats Stats

	eng  *sim.Engine
	pool *fabric.Pool
	port *fabric.Port

	qps    []*QP // by QPN - firstQPN
	active []*QP // requesters with work, in round-robin order
	cursor int
	ctrl   fabric.PacketQueue

	// OnComplete, if set, is called when a WQE completes (any status).
	OnComplete func(qp *QP, w *WQE)
}

// firstQPN is the first QP number handed out: QP0 and QP1 are the special
// management QPs of InfiniBand.
const firstQPN = 2

// HCA event kinds.
const (
	evPost int32 = iota
	evTimeout
)

var (
	_ fabric.Owner = (*HCA)(nil)
	_ sim.Handler  = (*HCA)(nil)
)

// New attaches an HCA to its port.
func New(eng *sim.Engine, pool *fabric.Pool, id fabric.NodeID, name string, ip uint32, prof Profile, port *fabric.Port) *HCA {
	h := &HCA{ID: id, Name: name, IP: ip, Prof: prof, eng: eng, pool: pool, port: port}
	port.SetOwner(h)
	return h
}

// Port returns the HCA's port.
func (h *HCA) Port() *fabric.Port { return h.port }

// CreateQP makes an RC QP and returns it; Connect moves it to RTS.
func (h *HCA) CreateQP() *QP {
	qp := &QP{QPN: uint32(firstQPN + len(h.qps)), State: QPInit, Priority: h.Prof.Priority}
	h.qps = append(h.qps, qp)
	return qp
}

// Connect ties qp to the remote QP and moves it through RTR to RTS, as
// ibv_modify_qp does after the connection parameters are exchanged.
func (h *HCA) Connect(qp *QP, remote fabric.NodeID, remoteIP uint32, remoteQPN uint32) {
	qp.Remote, qp.RemoteQPN = remote, remoteQPN
	qp.flow = fabric.FlowKey{SrcIP: h.IP, DstIP: remoteIP, SrcPort: fabric.RoCEv2SourcePort(qp.QPN), DstPort: fabric.RoCEv2Port}
	qp.State = QPRTS
}

// QP returns the QP with number qpn, or nil.
func (h *HCA) QP(qpn uint32) *QP {
	i := int(qpn) - firstQPN
	if i < 0 || i >= len(h.qps) {
		return nil
	}
	return h.qps[i]
}

// PostWrite posts an RDMA WRITE of size bytes on qp at time at (now or
// later), as ibv_post_send would. It returns the WQE, which records the
// completion.
func (h *HCA) PostWrite(qp *QP, id int, size int64, at sim.Time) *WQE {
	w := &WQE{ID: id, Size: size}
	h.eng.Schedule(at, h, evPost, 0, &post{qp: qp, wqe: w})
	return w
}

type post struct {
	qp  *QP
	wqe *WQE
}

// HandleEvent runs the HCA's own events.
func (h *HCA) HandleEvent(ev *sim.Event) {
	switch ev.Kind {
	case evPost:
		p := ev.Data.(*post)
		h.post(p.qp, p.wqe)
	case evTimeout:
		h.timeout(ev.Data.(*QP))
	}
}

func (h *HCA) post(qp *QP, w *WQE) {
	w.Posted = h.eng.Now()
	mtu := int64(h.Prof.MTU)
	w.NPkts = max(1, (w.Size+mtu-1)/mtu)
	w.FirstPSN = qp.endPSN
	qp.endPSN += w.NPkts
	qp.sq = append(qp.sq, w)
	if qp.State != QPRTS {
		h.complete(qp, w, WCFlushed)
		return
	}
	h.activate(qp)
}

func (h *HCA) activate(qp *QP) {
	if !qp.active && qp.hasWork() {
		qp.active = true
		h.active = append(h.active, qp)
	}
	h.port.Kick()
}

// NextPacket is the transmit arbiter: ACKs and NAKs first, then one packet
// from the next requester QP in round-robin order whose priority is not
// paused.
func (h *HCA) NextPacket(port *fabric.Port) *fabric.Packet {
	if p := h.ctrl.Peek(); p != nil && !port.Paused(p.Priority) {
		h.Stats.TxPackets++
		return h.ctrl.Pop()
	}
	for n := len(h.active); n > 0; n-- {
		if h.cursor >= len(h.active) {
			h.cursor = 0
		}
		qp := h.active[h.cursor]
		if !qp.hasWork() {
			h.deactivate(h.cursor)
			continue
		}
		h.cursor++
		if port.Paused(qp.Priority) {
			continue
		}
		return h.nextRequest(qp)
	}
	return nil
}

func (h *HCA) deactivate(i int) {
	h.active[i].active = false
	copy(h.active[i:], h.active[i+1:])
	h.active[len(h.active)-1] = nil
	h.active = h.active[:len(h.active)-1]
}

// nextRequest builds the packet for qp.nextPSN.
func (h *HCA) nextRequest(qp *QP) *fabric.Packet {
	psn := qp.nextPSN
	w := qp.wqeAt(psn)
	i := psn - w.FirstPSN
	mtu := int64(h.Prof.MTU)
	payload := min(mtu, w.Size-i*mtu)
	last := i == w.NPkts-1
	var op fabric.Opcode
	switch {
	case w.NPkts == 1:
		op = fabric.OpWriteOnly
	case i == 0:
		op = fabric.OpWriteFirst
	case last:
		op = fabric.OpWriteLast
	default:
		op = fabric.OpWriteMiddle
	}
	p := h.pool.Get()
	p.Kind = fabric.KindData
	p.Opcode = fabric.TransportRC | op
	p.Priority = qp.Priority
	p.Src, p.Dst = h.ID, qp.Remote
	p.Flow = qp.flow
	p.DestQP, p.SrcQP = qp.RemoteQPN, qp.QPN
	p.PSN = uint32(psn) & psnMask
	p.AckReq = last || (h.Prof.AckEvery > 0 && (psn+1)%int64(h.Prof.AckEvery) == 0)
	if i == 0 {
		p.DMALen = uint32(w.Size)
	}
	p.Payload = int32(payload)
	p.Wire = int32(fabric.RoCEv2Wire(p.Opcode, int(payload)))
	p.SentAt = h.eng.Now()
	p.InPort = -1

	h.Stats.DataPackets++
	h.Stats.TxPackets++
	if psn < qp.maxSent {
		h.Stats.Retransmitted++
		w.Retransmits++
	} else {
		qp.maxSent = psn + 1
	}
	qp.nextPSN++
	if !qp.timer.Pending() {
		h.armTimer(qp)
	}
	return p
}

func (h *HCA) armTimer(qp *QP) {
	h.eng.Cancel(qp.timer)
	if d := h.Prof.AckTimeoutDuration(); d > 0 {
		qp.timer = h.eng.After(d, h, evTimeout, 0, qp)
	}
}

// Receive takes a packet from the wire.
func (h *HCA) Receive(p *fabric.Packet, _ *fabric.Port) {
	h.Stats.RxPackets++
	if qp := h.QP(p.DestQP); qp != nil {
		switch p.Kind {
		case fabric.KindData:
			h.respond(qp, p)
		case fabric.KindAck:
			h.acknowledged(qp, p)
		}
	}
	h.pool.Put(p)
}

// respond is the RC responder: accept the expected PSN, NAK the first
// packet after a gap, re-ACK duplicates.
func (h *HCA) respond(qp *QP, p *fabric.Packet) {
	psn := expand(p.PSN, qp.ePSN)
	switch {
	case psn == qp.ePSN:
		qp.ePSN++
		qp.nakSent = false
		qp.Delivered += int64(p.Payload)
		if qp.FirstDelivery == 0 {
			qp.FirstDelivery = h.eng.Now()
		}
		qp.LastDelivery = h.eng.Now()
		op := p.Opcode.Operation()
		if op == fabric.OpWriteLast || op == fabric.OpWriteOnly {
			qp.msn++
		}
		if p.AckReq {
			h.sendAck(qp, p, fabric.SyndromeACK, psn)
		}
	case psn > qp.ePSN:
		h.Stats.OutOfOrder++
		if !qp.nakSent {
			qp.nakSent = true
			h.sendAck(qp, p, fabric.SyndromeNAKSeqErr, qp.ePSN)
		}
	default:
		h.Stats.Duplicates++
		if p.AckReq {
			h.sendAck(qp, p, fabric.SyndromeACK, qp.ePSN-1)
		}
	}
}

func (h *HCA) sendAck(qp *QP, req *fabric.Packet, syndrome uint8, psn int64) {
	a := h.pool.Get()
	a.Kind = fabric.KindAck
	a.Opcode = fabric.TransportRC | fabric.OpAcknowledge
	a.Priority = req.Priority
	a.Src, a.Dst = h.ID, req.Src
	a.Flow = fabric.FlowKey{SrcIP: req.Flow.DstIP, DstIP: req.Flow.SrcIP, SrcPort: req.Flow.SrcPort, DstPort: fabric.RoCEv2Port}
	a.DestQP = qp.RemoteQPN
	a.PSN = uint32(psn) & psnMask
	a.Syndrome = syndrome
	a.MSN = qp.msn
	a.Wire = int32(fabric.RoCEv2Wire(a.Opcode, 0))
	a.SentAt = h.eng.Now()
	a.InPort = -1
	if syndrome == fabric.SyndromeACK {
		h.Stats.AcksSent++
	} else {
		h.Stats.NaksSent++
	}
	h.ctrl.Push(a)
	h.port.Kick()
}

// acknowledged is the requester's side of an ACK or NAK.
func (h *HCA) acknowledged(qp *QP, p *fabric.Packet) {
	if qp.State != QPRTS {
		return
	}
	psn := expand(p.PSN, qp.una)
	switch {
	case p.Syndrome == fabric.SyndromeACK:
		h.advance(qp, psn+1)
	case p.Syndrome == fabric.SyndromeNAKSeqErr:
		// Everything before psn arrived; go back to psn.
		h.advance(qp, psn)
		if psn >= qp.una && psn < qp.nextPSN {
			h.rewind(qp, psn)
		}
	}
}

// advance acknowledges everything before una and completes the WQEs that
// end there.
func (h *HCA) advance(qp *QP, una int64) {
	if una <= qp.una || una > qp.maxSent {
		return
	}
	qp.una = una
	qp.retries = 0
	for len(qp.sq) > 0 {
		w := qp.sq[0]
		if w.FirstPSN+w.NPkts > una {
			break
		}
		qp.sq = qp.sq[1:]
		h.complete(qp, w, WCSuccess)
	}
	if qp.una < qp.nextPSN {
		h.armTimer(qp)
	} else {
		h.eng.Cancel(qp.timer)
	}
}

// rewind restarts sending at psn. Go-back-0 restarts at the first packet
// of the WQE that holds psn.
func (h *HCA) rewind(qp *QP, psn int64) {
	if h.Prof.Retransmit == GoBack0 {
		if w := qp.wqeAt(psn); w != nil {
			psn = w.FirstPSN
		}
	}
	qp.nextPSN = psn
	h.activate(qp)
}

func (h *HCA) timeout(qp *QP) {
	if qp.State != QPRTS || qp.una >= qp.nextPSN {
		return
	}
	h.Stats.Timeouts++
	qp.retries++
	if qp.retries > h.Prof.RetryCount {
		h.fail(qp, WCRetryExceeded)
		return
	}
	h.rewind(qp, qp.una)
	h.armTimer(qp)
}

// fail completes the head WQE with status and flushes the rest, moving the
// QP to the error state.
func (h *HCA) fail(qp *QP, status WCStatus) {
	qp.State = QPErr
	h.eng.Cancel(qp.timer)
	for i, w := range qp.sq {
		if i == 0 {
			h.complete(qp, w, status)
		} else {
			h.complete(qp, w, WCFlushed)
		}
	}
	qp.sq = nil
}

func (h *HCA) complete(qp *QP, w *WQE, status WCStatus) {
	w.Status = status
	w.Completed = h.eng.Now()
	if h.OnComplete != nil {
		h.OnComplete(qp, w)
	}
}
