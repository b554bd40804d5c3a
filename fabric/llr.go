package fabric

// Ultra Ethernet's link-level retry (UEC 1.0, 2025): a link resends the
// frames it loses from its sender's replay buffer, so that a faulty
// cable or optic (SetLoss, SetLossFilter) costs a round trip of the link
// rather than an end-to-end retransmission.
//
// A lost frame is one the receiver got with a bad FCS: it sees it, and
// sends a NACK for its sequence number at once; the frames that follow
// it arrive out of sequence and are discarded, until the sender, the
// NACK received, goes back and resends from the lost frame on (go-back-N
// at the link, so frames stay in order). The model keeps that timing
// without numbering frames: from a loss until the sender starts its
// replay, every frame the link carries (data, and credit updates, which
// must stay in order with the data they count; not PFC frames, which are
// MAC control) is held rather than delivered, the lost one first; the
// NACK reaches the sender one round trip of the link after the lost
// frame's last bit left it (the receiver answers as the bad frame ends;
// the NACK's own few bytes, an ordered set, are not charged); then the
// port resends the held frames, ahead of new data and after PFC and
// credit frames already queued, each taking its time on the wire again
// (its credit given back and spent again: llrNext). A resent frame may be lost
// again: another NACK, another replay.
//
// The replay buffer is taken to hold every frame sent in a round trip of
// the link, as it must for the link to run at line rate (the sender
// frees a frame once it is acknowledged): the model neither sizes it nor
// counts its acknowledgements. Not modelled: a NACK lost (it goes on the
// lossless control path), the replay timer that would recover one, and a
// link cut during a replay (the loader refuses llr with link faults).

// llrState is one link direction's link-level retry.
type llrState struct {
	// open: a loss's NACK is on its way back; the frames the link carries
	// now are held (held), the lost one first.
	open bool
	// nacked: the NACK has reached the sender, whose next frame starts
	// the replay (Port.llrNext).
	nacked bool
	held   PacketQueue // lost or out of sequence, to resend
	replay PacketQueue // being resent, in order
	// Nacks counts the losses (one NACK each), Replayed the frames
	// resent, and heldTotal the frames ever held (each carried twice or
	// more: Link.InFlight leaves them out).
	Nacks, Replayed, heldTotal int64
}

// EnableLLR turns link-level retry on for the link (one direction; call
// it for both).
func (l *Link) EnableLLR() { l.llr = &llrState{} }

// LLR returns the link's NACKs and frames replayed (EnableLLR), zeros
// without link-level retry.
func (l *Link) LLR() (nacks, replayed int64) {
	if l.llr == nil {
		return 0, 0
	}
	return l.llr.Nacks, l.llr.Replayed
}

// llrHold keeps a frame the link carries while a NACK is on its way, or
// that it lost (lost: a new NACK goes back).
func (l *Link) llrHold(pkt *Packet, lost bool) {
	r := l.llr
	r.held.Push(pkt)
	r.heldTotal++
	if lost && !r.open {
		r.open = true
		l.updateFastCarry() // what follows is held until the replay
		r.Nacks++
		l.eng.After(2*l.Delay, l.from, portLLRNack, 0, nil)
	} else if lost {
		r.Nacks++ // a frame out of sequence anyway: resent with the rest
	}
}

// llrNacked takes the NACK at the sending port: its next frame starts
// the replay.
func (p *Port) llrNacked() {
	p.out.llr.nacked = true
	p.hasControl = true
	p.Kick()
}

// llrNext returns the next frame to resend, or nil; the port's control
// queue is empty. The first after a NACK ends the hold: what the link
// carries from now on is in sequence again (a frame on the wire when the
// NACK came was held, and is resent after those before it). A data frame
// spent its credit the first time: it is given back here, for the port
// to spend again as the frame starts (the counters stay as they were). A
// credit update is resent as a frame, as it went the first time, with
// the counters it carried then: those after it in the replay are not yet
// counted where it arrives.
func (p *Port) llrNext() *Packet {
	r := p.out.llr
	if r.nacked {
		r.nacked, r.open = false, false
		p.out.updateFastCarry()
		for q := r.replay.Pop(); q != nil; q = r.replay.Pop() {
			r.held.Push(q) // a replay cut short by another loss: after what it lost
		}
		r.held, r.replay = r.replay, r.held
	}
	pkt := r.replay.Pop()
	p.hasControl = r.replay.Len > 0
	if pkt == nil {
		return nil
	}
	r.Replayed++
	if c := p.credit; c != nil && pkt.Kind != KindCredit {
		v := &c.vl[pkt.Priority&7]
		v.fctbs = (v.fctbs - uint32(IBPacketBlocks(pkt.Frame()))) & c.mask
	}
	return pkt
}

// llrPending reports whether the port has frames to resend.
func (p *Port) llrPending() bool {
	r := p.out.llr
	return r != nil && (r.nacked || r.replay.Len > 0)
}

// llrEach calls f for each frame the link holds for its replay.
func (l *Link) llrEach(f func(*Packet)) {
	if l.llr != nil {
		l.llr.held.Each(f)
		l.llr.replay.Each(f)
	}
}
