package hca

import "github.com/lfsim/lfsim/fabric"

// QueueControl queues a control packet (an ACK, NAK or CNP) for the
// transmit arbiter, as the responder and the notification point do.
func (h *HCA) QueueControl(p *fabric.Packet) {
	h.pushCtrl(p)
}

// ControlQueued returns the control packets waiting, oldest first.
func (h *HCA) ControlQueued() []*fabric.Packet {
	var out []*fabric.Packet
	h.ctrl.Any(func(p *fabric.Packet) bool { out = append(out, p); return false })
	return out
}

// GoBack0Acked returns qp's acked (one past the highest PSN acknowledged
// since the last rewind) and nextPSN.
func (h *HCA) GoBack0Acked(qp *QP) (acked, next int64) { return qp.acked, qp.nextPSN }

// InRing returns how many times qp is in the HCA's transmit rings.
func (h *HCA) InRing(qp *QP) int {
	n := 0
	count := func(ring []*QP) {
		for _, x := range ring {
			if x == qp {
				n++
			}
		}
	}
	if h.arb != nil {
		for i := range h.arb.rings {
			count(h.arb.rings[i])
		}
	} else {
		count(h.active)
	}
	return n
}
