package hca

import (
	"math/bits"

	"github.com/lfsim/lfsim/fabric"
)

// Placement is how an RC receiver treats a packet that arrives ahead of a
// gap in the PSNs, as it does when switches spread a flow's packets over
// several paths (swtch.LoadBalance).
//
// In order (the InfiniBand spec's responder, and every RoCE NIC until
// recently) the packet is a sign of loss: go-back-N NAKs the gap and drops
// what follows it, selective repeat (IRN) keeps it and NACKs with a SACK,
// and either way the requester resends. Under spraying nothing was lost:
// the resends are spurious, and the counters show them.
//
// Direct placement (IRN's, SIGCOMM 2018, §3.2; what NICs built for
// spraying do) writes a WRITE's or READ response's payload at its address
// as it arrives, whatever its order, and tracks the PSNs by bitmap; a
// message completes once all its packets are in. A SEND is held until
// the gap before it fills, since its RECV's buffer fills in order (the
// spec's rule), in a bounded buffer (the srWindow PSNs past the gap). A
// gap is a loss only when it stays open while ReorderWindow later PSNs
// arrive: then the receiver NAKs it once (go-back-N; selective repeat
// SACKs from then on), and the requester's timeout finds a lost tail.
//
// The model executes a held or placed request packet when the gap fills,
// in PSN order, so that one code path keeps the responder's accounting;
// what arrives early is counted (HCA.Placed, HCA.ReorderHeld) and its
// bytes land with the gap's filling. A READ response is placed at once.
type Placement uint8

// Placements.
const (
	InOrder Placement = iota
	Direct
)

func (p Placement) String() string { return [...]string{"in-order", "direct"}[p] }

// rxOrder is what a QP's receiving side measured of the order its data
// packets came in, made at the first packet out of order or off the
// first path.
type rxOrder struct {
	// high is one past the highest PSN received.
	high int64
	// Reordered counts the packets that arrived after a later PSN;
	// DistSum and DistMax sum and bound their distance (high - 1 - PSN).
	Reordered, DistSum, DistMax int64
	// paths0 and paths are a bitmap of the fabric.Packet.Path values
	// seen: paths0 the first 64 (a k=16 fat tree's paths: the word is in
	// the struct's one line, which every sprayed packet reads), paths
	// the rest, as long as the largest needs.
	paths0 uint64
	paths  []uint64
}

func (q *QP) order() *rxOrder {
	if q.rx == nil {
		q.rx = &rxOrder{}
		q.rx.addPath(q.lastPath)
	}
	return q.rx
}

// addPath sets path's bit.
func (o *rxOrder) addPath(path uint16) {
	if path < 64 {
		o.paths0 |= 1 << path
		return
	}
	w := int(path/64) - 1
	if w >= len(o.paths) {
		o.paths = append(o.paths, make([]uint64, w+1-len(o.paths))...)
	}
	o.paths[w] |= 1 << (path % 64)
}

// noteArrival records data packet p with PSN psn arriving at qp: its path,
// and how far out of order it came. expected is the PSN the receiver
// expects (the responder's ePSN; for READ responses the next one
// wanted): a packet at it or past it, with nothing yet past it, is in
// order, and costs a comparison.
func (q *QP) noteArrival(p *fabric.Packet, psn, expected int64) {
	if p.Path != q.lastPath {
		q.order().addPath(p.Path)
		q.lastPath = p.Path
	}
	if q.rx == nil && psn <= expected {
		return
	}
	o := q.order()
	if psn < o.high {
		d := o.high - 1 - psn
		o.Reordered++
		o.DistSum += d
		o.DistMax = max(o.DistMax, d)
		return
	}
	o.high = psn + 1
}

// Order is what the QP measured of its data packets' arrival: the
// distinct paths they took (1 when all took one), how many came after a
// later PSN, and the largest and mean distance back.
func (q *QP) Order() (paths int, reordered, distMax int64, distMean float64) {
	if q.rx == nil {
		return 1, 0, 0, 0
	}
	o := q.rx
	if o.Reordered > 0 {
		distMean = float64(o.DistSum) / float64(o.Reordered)
	}
	paths = bits.OnesCount64(o.paths0)
	for _, w := range o.paths {
		paths += bits.OnesCount64(w)
	}
	return paths, o.Reordered, o.DistMax, distMean
}

// placeAhead takes request p with PSN psn past the gap at ePSN under
// direct placement: a WRITE's packet is placed, any other held; the gap
// is NAKed once when ReorderWindow PSNs past it have arrived.
func (h *HCA) placeAhead(qp *QP, p *fabric.Packet, psn int64) {
	if h.Prof.Transport == fabric.UET {
		// UET's RUD: no gap is a loss at the receiver (uet.go).
		if h.srKeep(qp, p, psn, true) {
			h.uetGap(qp, p)
		}
		return
	}
	if !h.srKeep(qp, p, psn, true) || psn-qp.ePSN >= int64(h.Prof.ReorderWindow) {
		h.gapLost(qp, p, psn) // beyond the buffer (dropped) or past the window
	}
}

// gapLost answers a gap that has stayed open past the reorder window:
// go-back-N NAKs it once, selective repeat SACKs what arrived.
func (h *HCA) gapLost(qp *QP, p *fabric.Packet, psn int64) {
	if h.Prof.Retransmit == Selective {
		if a := h.sendAck(qp, p, fabric.SyndromeNAKSeqErr, qp.ePSN); a != nil {
			h.pool.Ext(a).SackPSN = uint32(psn) & psnMask
		}
		return
	}
	if !qp.nakSent {
		qp.nakSent = true
		h.sendAck(qp, p, fabric.SyndromeNAKSeqErr, qp.ePSN)
	}
}

// placeable reports whether a request packet of opcode op can be placed
// ahead of a gap: a WRITE's, but not one with immediate data, whose RECV
// is consumed in order.
func placeable(op fabric.Opcode) bool {
	return op >= fabric.OpWriteFirst && op <= fabric.OpWriteLast || op == fabric.OpWriteOnly
}

// placeResponse places READ response p (PSN psn, past want, the next the
// READ w waits for) at its offset in w's buffers, and marks it in the
// QP's bitmap; the in-order response that fills the gap takes it in
// (readResponse). A gap open past ReorderWindow is asked for again, once.
func (h *HCA) placeResponse(qp *QP, w *WQE, p *fabric.Packet, psn, want int64) {
	if qp.rdHave == nil {
		qp.rdHave = make([]int64, srWindow)
	}
	i := psn % srWindow
	if qp.rdHave[i] == psn+1 {
		return // placed already (a response to a request sent again)
	}
	qp.rdHave[i] = psn + 1 // the PSN, not a flag: another READ's may share the slot later
	h.Placed++
	if p.Data() != nil {
		h.scatter(w.wr.SGL, (psn-w.FirstPSN)*int64(qp.pmtu), p.Data())
	}
	qp.ReadDelivered += int64(p.Payload)
	if psn-want >= int64(h.Prof.ReorderWindow) && w.retryAt != want && qp.tcp == nil {
		h.Stats.OutOfOrder++
		h.rewind(qp, want)
	}
}

// ucPlace is the UC responder under direct placement. UC has no
// acknowledgements and never resends, so a gap is taken for a loss only
// once ReorderWindow later PSNs have arrived past it (or one beyond the
// buffer): until then what comes after it is kept (a WRITE's packets
// placed, a SEND's held) and taken in, in order, when the gap fills. A
// gap given up loses the message it falls in, as UC loses any message it
// misses a packet of (ucInOrder), and what was kept of that message goes
// with it; a packet that comes after its gap was given up is discarded.
func (h *HCA) ucPlace(qp *QP, p *fabric.Packet, psn int64, op fabric.Opcode) {
	switch {
	case psn < qp.ePSN:
		h.Stats.OutOfOrder++
		h.discard(p, "uc_incomplete")
	case psn > qp.ePSN:
		if h.srKeep(qp, p, psn, true) {
			for psn-qp.ePSN >= int64(h.Prof.ReorderWindow) && h.ucSkip(qp) {
			}
			return
		}
		// Beyond the buffer: every gap before it is given up.
		for h.ucSkip(qp) {
		}
		h.ucInOrder(qp, p, psn, op)
		h.replay(qp)
	default:
		h.ucInOrder(qp, p, psn, op)
		h.replay(qp)
	}
}

// ucSkip gives up the gap at ePSN: the lowest kept packet is taken in as
// the next in order (ucInOrder drops the message the gap fell in), then
// those after it without a gap. It reports whether a packet was kept.
func (h *HCA) ucSkip(qp *QP) bool {
	s := qp.sr
	if s == nil || s.buf == nil || !receives(qp) {
		return false
	}
	for d := int64(1); d < srWindow; d++ {
		psn := qp.ePSN + d
		i := psn % srWindow
		b := s.buf[i]
		if b == nil || expand(b.PSN, qp.ePSN) != psn {
			continue
		}
		s.take(i)
		// The gap is lost (srKeep counted b out of order already): the
		// message in progress goes, and b is next in order.
		if qp.inMsg {
			h.ucDrop(qp, b)
		}
		qp.ePSN = psn
		h.ucInOrder(qp, b, psn, b.Opcode.Operation())
		h.pool.Put(b)
		h.replay(qp)
		return true
	}
	return false
}

// receives reports whether qp's receive side takes packets (RTR, RTS or
// SQD).
func receives(qp *QP) bool {
	return qp.State == QPRTR || qp.State == QPRTS || qp.State == QPSQD
}
