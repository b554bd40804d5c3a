package hca

import "github.com/lfsim/lfsim/fabric"

// The adapter as an overlay's tunnel endpoint (hca.overlay; fabric's
// overlay.go): with Profile.Overlay set, every frame it sends is sized
// with the outer headers (overlayWire) and leaves encapsulated
// (NextPacket: its Flow the outer 5-tuple the underlay's switches hash),
// and every frame it takes is decapsulated before the transport reads
// it (process). Without one, each of these is one branch on a nil
// pointer.

// encap is NextPacket's packet p (nil: none) as it leaves: in the
// overlay's outer headers, if the HCA has one. Small enough to inline,
// so that without an overlay NextPacket keeps its frame.
func (h *HCA) encap(p *fabric.Packet) *fabric.Packet {
	if o := h.Prof.Overlay; o != nil && p != nil {
		h.pool.Encapsulate(p, o)
	}
	return p
}

// overlayWire is wire's size of a packet with opcode op and payload
// bytes under overlay o: the transport's bare frame, wrapped.
func (h *HCA) overlayWire(o *fabric.Overlay, op fabric.Opcode, payload int) int32 {
	if h.Prof.Transport == fabric.IWARP {
		if op.Operation() == fabric.OpAcknowledge {
			return o.Wire(fabric.TCPAckFrame(h.Prof.TCP.Timestamps, false))
		}
		return o.Wire(fabric.IWARPFrame(op, payload, h.Prof.TCP.MPA, h.Prof.TCP.Timestamps))
	}
	return o.Wire(fabric.RoCEv2Frame(op, payload)) // the resolver refuses an overlay on RoCEv1 and InfiniBand
}

// overlaid is the wire size of a bare frame of frame bytes (header to
// FCS, unpadded) as the HCA sends it: wrapped by its overlay, if any.
func (h *HCA) overlaid(frame int) int32 { return h.Prof.Overlay.Wire(frame) }
