package swtch

import (
	"fmt"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// The MMU keeps the buffer as real switches do (Broadcom's scheme, as
// SONiC configures it): each ingress port and priority may hold a reserved
// minimum, then draw on the shared pool up to a threshold (static, or
// dynamic: alpha × free shared buffer); a lossless priority then sends
// PAUSE upstream and takes what is still arriving into its port's headroom,
// a pool set aside for it. Lossy traffic over its threshold is dropped.
// Egress queues are accounted too: a lossy egress queue over its threshold
// drops; lossless queues are bounded by PFC at ingress instead.

// ingress is one ingress port and priority's share of the buffer, bytes:
// what it holds outside headroom and in it, and whether it has paused its
// upstream (XOFF), and the most it has held (PortPrio's PeakIngress, kept
// here to be beside what it follows). 32 bytes, so that admitting or
// freeing a frame touches one cache line.
type ingress struct {
	held, head int64
	peak       int64
	xoff       bool
	_          [7]byte
}

// sharedFree is the shared pool still free, bytes.
func (s *Switch) sharedFree() int64 { return s.sharedSize - s.sharedUsed }

// xoffLimit is what a lossless ingress port and priority may hold outside
// headroom before pausing its upstream.
func (s *Switch) xoffLimit() int64 {
	if s.xoffAlpha > 0 {
		return s.reserved + int64(s.xoffAlpha*float64(max(s.sharedFree(), 0)))
	}
	return s.xoff
}

// xonLevel is where a paused ingress port and priority resumes its
// upstream.
func (s *Switch) xonLevel() int64 {
	if s.xonOffset > 0 {
		return s.xoffLimit() - s.xonOffset
	}
	return min(s.xon, s.xoffLimit())
}

// sharedPart is how much of n bytes held by one port and priority is in
// the shared pool rather than its reserved minimum.
func (s *Switch) sharedPart(n int64) int64 { return max(0, n-s.reserved) }

// admit charges a frame to its ingress port and priority. It returns
// whether the frame went into headroom, or the reason it must be dropped.
func (s *Switch) admit(i int, prio uint8, frame int64) (headroom bool, drop DropReason, ok bool) {
	return s.admitAt(s.at(i, prio), i, prio, frame)
}

// admitAt is admit of the ingress account at index k, s.at(i, prio),
// which the caller has worked out (Receive).
func (s *Switch) admitAt(k, i int, prio uint8, frame int64) (headroom bool, drop DropReason, ok bool) {
	in := &s.in[k]
	cur := in.held
	need := s.sharedPart(cur+frame) - s.sharedPart(cur)
	free := s.sharedFree()
	if s.lossless&(1<<prio) != 0 {
		if cur+frame <= s.xoffLimit() && need <= free {
			s.chargeIn(in, frame, need)
			return false, 0, true
		}
		if in.head+frame > s.headroom[i] {
			return false, DropHeadroom, false
		}
		in.head += frame
		s.bufUsed += frame
		pp := &s.stats[k]
		pp.PeakHeadroom = max(pp.PeakHeadroom, in.head)
		in.peak = max(in.peak, in.held+in.head)
		return true, 0, true
	}
	limit := s.reserved + s.Prof.IngressThreshold.Limit(free)
	if cur+frame > limit || need > free {
		return false, DropBuffer, false
	}
	s.chargeIn(in, frame, need)
	return false, 0, true
}

func (s *Switch) charge(i int, prio uint8, frame, shared int64) {
	s.chargeIn(&s.in[s.at(i, prio)], frame, shared)
}

// chargeIn is charge of the ingress account in, which the caller has
// found already (admit): the index is not worked out again.
func (s *Switch) chargeIn(in *ingress, frame, shared int64) {
	in.held += frame
	s.sharedUsed += shared
	s.bufUsed += frame
	in.peak = max(in.peak, in.held+in.head)
}

// release frees a frame's bytes from its ingress port and priority:
// headroom first, then shared, then reserved.
func (s *Switch) release(i int, prio uint8, frame int64) {
	if s.credits {
		// No shared pool or headroom on InfiniBand: the port's buffer
		// per VL, whose credit goes back upstream.
		s.in[s.at(i, prio)].held -= frame
		s.bufUsed -= frame
		s.rxCredit[i].Release(prio, frame)
		return
	}
	s.releaseIn(&s.in[s.at(i, prio)], frame)
}

// releaseIn is release's Ethernet case on the ingress account in.
func (s *Switch) releaseIn(in *ingress, frame int64) {
	fromHead := min(in.head, frame)
	in.head -= fromHead
	rest := frame - fromHead
	before := s.sharedPart(in.held)
	in.held -= rest
	s.sharedUsed -= before - s.sharedPart(in.held)
	s.bufUsed -= frame
}

// free releases a frame that leaves the switch (sent or dropped after
// admission) and resumes its ingress's upstream if that brings it to XON.
// The ingress account's index is worked out once, for the release and
// the XON check (it was three times, about 15 instructions a hop).
func (s *Switch) free(i int, prio uint8, frame int64) {
	in := &s.in[s.at(i, prio)]
	if s.credits {
		s.release(i, prio, frame)
	} else {
		s.releaseIn(in, frame)
	}
	if in.xoff && s.atXON(i, prio) {
		s.resume(i, prio)
	}
}

// atXON reports whether an ingress port and priority has drained to its
// XON level, its headroom empty. Holding nothing beyond the reserved
// minimum is XON too, however low an XON offset below a dynamic XOFF puts
// the level (even below zero, when the pool is nearly full): as the HPCC
// authors' MMU resumes when an ingress has no shared bytes left
// (switch-mmu.cc, CheckShouldResume), else a drained port would pause its
// upstream for ever.
func (s *Switch) atXON(i int, prio uint8) bool {
	in := &s.in[s.at(i, prio)]
	return in.head == 0 && in.held <= max(s.xonLevel(), s.reserved)
}

// Check reports a configuration whose buffer cannot hold its reserved
// minimums and headroom.
func (s *Switch) Check() error {
	if s.sharedSize < 0 {
		return bufferError(s.Name, s.Prof, s.reservedTotal, s.headroomTotal)
	}
	return nil
}

func bufferError(name string, prof Profile, reserved, headroom int64) error {
	return fmt.Errorf("switch %s: the buffer (%d bytes) is smaller than its reserved minimums (%d) plus headroom (%d); raise switch.buffer or lower headroom",
		name, prof.Buffer, reserved, headroom)
}

// PortLink is what a switch port's PFC headroom depends on: the port's
// rate and its cable's delay, the largest frame its peer sends (0: the
// network's largest) and its peer's PAUSE response time.
type PortLink struct {
	Rate         fabric.Rate
	Delay        sim.Time
	PeerFrame    int64
	PeerResponse sim.Time
}

// PortHeadroom is a port's headroom per lossless priority: the IEEE
// bound (HeadroomBound) with pfc.headroom auto, the profile's otherwise.
// maxFrame is the largest frame anyone in the network sends.
func (p Profile) PortHeadroom(l PortLink, maxFrame int64) int64 {
	if !p.PFC.HeadroomAuto {
		return int64(p.PFC.Headroom)
	}
	sender := maxFrame
	if l.PeerFrame > 0 {
		sender = l.PeerFrame
	}
	return HeadroomBound(l.Rate, l.Delay, sender, maxFrame, l.PeerResponse)
}

// reservedTotal is the reserved minimums of a switch of n ports: one per
// port and priority.
func (p Profile) reservedTotal(n int) int64 { return int64(p.Reserved) * int64(n) * 8 }

// CheckBuffer is Check before the switch exists: an error when the buffer
// is smaller than the reserved minimums plus the headroom of ports
// (PortHeadroom per port and lossless priority), as New would find.
func (p Profile) CheckBuffer(name string, ports []PortLink, maxFrame int64) error {
	if p.SharedPool > 0 {
		return nil // the buffer is what the pool, reserved and headroom make
	}
	var headroom int64
	for _, l := range ports {
		headroom += p.PortHeadroom(l, maxFrame) * int64(len(p.PFC.Priorities))
	}
	if reserved := p.reservedTotal(len(ports)); int64(p.Buffer)-reserved-headroom < 0 {
		return bufferError(name, p, reserved, headroom)
	}
	return nil
}
