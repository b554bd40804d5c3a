package hca

import (
	"errors"
	"slices"

	"github.com/lfsim/lfsim/fabric"
)

// ErrNotUD is AttachMcast's error for a QP that is not UD: only UD QPs
// take multicast datagrams (IBTA vol. 1, 10.5.2.2).
var ErrNotUD = errors.New("hca: only a UD QP can be attached to a multicast group")

// ErrMcastAttached is AttachMcast's error for a second QP of one HCA on
// a group: lfsim delivers a group's datagram to one QP per HCA (a NIC
// copies it to each attached QP; lfsim does not model that copy yet).
var ErrMcastAttached = errors.New("hca: another QP of this HCA is attached to the group; lfsim delivers to one per HCA")

// AttachMcast attaches a UD qp to multicast group g (ibv_attach_mcast):
// every datagram for g that reaches this HCA (the fabric's trees carry
// it, fabric.MulticastTree) is delivered to the QP, if its Q_Key
// matches. One QP per HCA and group (ErrMcastAttached).
func (h *HCA) AttachMcast(qp *QP, g fabric.NodeID) error {
	if qp.Type != UD {
		return ErrNotUD
	}
	if h.cold != nil {
		for _, o := range h.cold.mcast[g] {
			if o != qp && !o.destroyed {
				return ErrMcastAttached
			}
		}
	}
	c := h.coldPart()
	if c.mcast == nil {
		c.mcast = map[fabric.NodeID][]*QP{}
	}
	if !slices.Contains(c.mcast[g], qp) {
		c.mcast[g] = append(c.mcast[g], qp)
	}
	return nil
}

// DetachMcast detaches qp from group g (ibv_detach_mcast).
func (h *HCA) DetachMcast(qp *QP, g fabric.NodeID) {
	if h.cold == nil {
		return
	}
	l := h.cold.mcast[g]
	if i := slices.Index(l, qp); i >= 0 {
		h.cold.mcast[g] = slices.Delete(l, i, i+1)
	}
}

// member reports whether a QP of this HCA is attached to group g (a
// packet for g is its to take).
func (h *HCA) member(g fabric.NodeID) bool {
	return fabric.IsMulticast(g) && h.cold != nil && len(h.cold.mcast[g]) > 0
}

// receiveMulticast delivers a datagram for a group to the QP attached
// to it; one destroyed since drops it as closed_qp.
func (h *HCA) receiveMulticast(p *fabric.Packet) {
	for _, qp := range h.cold.mcast[p.Dst] {
		if !qp.destroyed {
			h.receiveUD(qp, p)
			return
		}
	}
	h.Stats.ClosedQPDrops++
	h.discard(p, "closed_qp")
}
