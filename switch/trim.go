package swtch

import "github.com/lfsim/lfsim/fabric"

// Ultra Ethernet's packet trimming (Profile.Trim): a data packet the
// switch would drop for want of buffer (its ingress account or its
// egress queue full, on a lossy class) is cut to its first TrimBytes and
// sent on at the highest priority, so that its receiver learns of the
// loss a queue's wait earlier than a timeout or a gap would tell it (a
// NACK path; what the transports make of it, hca/trimmed.go).

// TrimBytes is a trimmed packet's frame, header to FCS: 64 bytes, the
// size uet-htsim, the UEC's own simulator, trims to (FatTreeSwitch's
// _trim_size and main_uec.cpp's trimsize default, which is also its
// UecBasePacket::ACKSIZE).
const TrimBytes = 64

// TrimPriority is the priority a trimmed packet leaves by: the highest,
// which the strict scheduler serves first, as uet-htsim serves trimmed
// headers ahead of data (its CompositeQueue's _ratio_high of 100,000 to
// _ratio_low's 1: one data packet in 100,001 when both wait). resolve
// refuses trimming where this priority is lossless (switch.pfc: a lossy
// class's trims would be paused, and would pause upstream) or scheduled
// by weight (switch.scheduler: not served first).
const TrimPriority = 7

// trimmable reports whether the switch cuts p rather than drop it: a
// data packet with payload on Ethernet, with trimming on.
func (s *Switch) trimmable(p *fabric.Packet) bool {
	return s.Prof.Trim && p.Kind == fabric.KindData && p.Payload > 0 && p.Link == fabric.Ethernet
}

// trim cuts p to its header: its payload is gone (told to the byte
// ledger as trimmed), its kind says so, and it will leave at
// TrimPriority. One the ingress refused is admitted again as such
// (Switch.Receive: its header charged to TrimPriority, and dropped if even
// that finds no room); a trimmed packet is never reclassified by its DSCP.
func (s *Switch) trim(p *fabric.Packet) {
	s.Stats.Trimmed++
	s.Stats.TrimmedBytes += int64(p.Payload)
	s.pool.Dropped(p, "trimmed", int64(p.Payload))
	p.Kind = fabric.KindTrimmed
	p.Payload = 0
	p.Wire = TrimBytes + fabric.PreambleIFGBytes
	p.Priority = TrimPriority
	if s.towardHost(p.Dst) {
		s.pool.Ext(p).LastHop = true // its receiver's own link: RCCC's, not the path's (hca/trimmed.go)
	}
}

// trimQueued cuts p, charged whole at its ingress, which its egress
// queue refused: its ingress gives the whole frame back and takes only
// its header, charged to TrimPriority as the ingress path charges a
// header it trimmed (review F, finding 5: it stayed on p's own class
// here, so where a trim happened decided whose account held the header),
// and it is queued again at TrimPriority (whose queue may refuse it too:
// then it drops).
func (s *Switch) trimQueued(p *fabric.Packet, out int) {
	i := int(p.InPort)
	s.free(i, p.InPrio, p.Frame())
	s.usePriority(TrimPriority)
	if _, _, ok := s.admit(i, TrimPriority, TrimBytes); !ok {
		s.stats[s.at(i, TrimPriority)].Drops[DropEgress]++
		s.drop(p, DropEgress)
		return
	}
	s.trim(p)
	p.InPrio = TrimPriority
	s.enqueue(p, out)
}
