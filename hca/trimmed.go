package hca

import "github.com/lfsim/lfsim/fabric"

// A trimmed packet (Ultra Ethernet's trimming, swtch.Profile.Trim): a
// request a switch cut to its header rather than drop. Its receiver
// learns of the loss at once, and RoCE's transports make of it what they
// make of a gap, without waiting for the next packet or a timeout:
//
//   - an RC request at or past the expected PSN, under go-back-N or
//     go-back-0 (the IB spec's receiver): a NAK (PSN sequence error) for
//     the expected PSN, once until it arrives, as for a packet ahead of a
//     gap: the requester resends from there;
//   - under selective retransmission (IRN): a NAK with the expected PSN
//     that names the trimmed one (fabric.PacketExt.Trimmed, SackPSN),
//     which the requester resends alone, ahead of recovery's holes and
//     however often it was resent before (each trim, one resend);
//   - under go-back-N with direct placement: a NAK for the expected PSN
//     when the trimmed one is it; a trimmed packet past a gap is a loss
//     the gap's own NAK covers;
//   - anything else (a READ response, UC, UD, iWARP's TCP segments) is a
//     loss, discarded: its transport recovers as from a drop.
//
// UET's RUD (uet.go) takes the selective-retransmission case: its trim
// NACK names the trimmed PSN, which alone is resent; a gap is never
// NAKed. UET's ROD (hca.uet.delivery: rod, resolve/uet.go) takes the
// go-back-N case: the expected PSN trimmed is NAKed once until it
// arrives, as a gap is, so a resend of it that is trimmed again waits
// for the sender's timeout. NAKing every trimmed copy of the expected
// PSN instead (a trim NACK names its packet) was tried: each NAK sends
// the sender back to it, resending all it sent since, and no flow of
// the 16:1 incast without a control (example uet-trim-incast) completed
// in 20 ms, where 14 of 16 do by 3.9 ms with one NAK; under NSCC with a
// 256 KiB switch buffer the incast took 17.8 ms against 4.46.

// trimmedArrival takes a trimmed packet for qp.
func (h *HCA) trimmedArrival(qp *QP, p *fabric.Packet) {
	h.coldPart().trimmed++
	op := p.Opcode.Operation()
	if qp.Type != RC || h.iwarp() || op >= fabric.OpReadResponseFirst && op <= fabric.OpReadResponseOnly ||
		qp.State != QPRTR && qp.State != QPRTS && qp.State != QPSQD {
		return
	}
	psn := expand(p.PSN, qp.ePSN)
	switch {
	case psn < qp.ePSN:
		// A trimmed duplicate: the first copy arrived.
	case h.Prof.Retransmit != Selective && h.Prof.Placement != Direct:
		h.nakGap(qp, p)
	case h.Prof.Retransmit == Selective:
		// IRN: a NAK that names the trimmed PSN, which the requester
		// resends alone (srSacked).
		if a := h.sendAck(qp, p, fabric.SyndromeNAKSeqErr, qp.ePSN); a != nil {
			x := h.pool.Ext(a)
			x.SackPSN, x.Trimmed = uint32(psn)&psnMask, true
			x.LastHop = p.Ext != nil && p.Ext.LastHop
		}
	default:
		if psn == qp.ePSN {
			h.nakGap(qp, p)
		}
	}
}
