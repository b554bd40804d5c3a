package swtch

import "github.com/lfsim/lfsim/sim"

// Head-of-queue lifetime (InfiniBand): a packet that has waited at the
// head of its output VL for HOQLifetime, because the downstream granted
// no credit for it, is discarded, and its input buffer's credit goes
// back upstream. A credit loop, where every buffer waits on the next one,
// is broken so: one discard frees room, and the loop drains (the RC
// senders resend what was lost). The switch looks at a port when its
// NextPacket finds a VL blocked, at the earliest moment a head could
// expire; a head that leaves in time is not touched.

// armHOQ schedules port o's check for the earliest expiry among its
// heads blocked for credit, unless one is pending. (A head that waits
// behind a long transmission, with credit, is not blocked: its expiry
// would come round again and again at the same moment.)
func (s *Switch) armHOQ(o int) {
	if s.hoqTimer[o].Pending() {
		return
	}
	port := s.ports[o]
	next := sim.Never
	occupied := port.OwnerBits[bitOccupied]
	for vl := uint8(0); occupied != 0; vl, occupied = vl+1, occupied>>1 {
		if occupied&1 != 0 && !port.HasCredit(vl, s.queues[s.at(o, vl)].peek().Frame()) {
			next = min(next, s.hoqSince[o][vl]+s.hoq)
		}
	}
	if next != sim.Never {
		s.hoqTimer[o] = s.eng.Schedule(max(next, s.eng.Now()), s, evHOQ, int64(o), nil)
	}
}

// hoqCheck discards the heads of port o that have waited past the
// lifetime for credit, then rearms.
func (s *Switch) hoqCheck(o int) {
	s.hoqTimer[o] = sim.Timer{} // this one has fired (the engine recycles it after)
	port := s.ports[o]
	now := s.eng.Now()
	for vl := uint8(0); vl < 8; vl++ {
		q := s.queueOf(o, vl)
		for q.Len > 0 && now-s.hoqSince[o][vl] >= s.hoq && !port.HasCredit(vl, q.peek().Frame()) {
			p := s.pop(port, vl)
			s.hoqSince[o][vl] = now
			s.dropQueued(p, DropHOQ)
		}
	}
	if s.creditBlocked(port) != 0 {
		s.armHOQ(o)
	}
	port.Kick()
}
