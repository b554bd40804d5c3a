package swtch

import (
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// This file holds what faults and the cures act on: swappable routing
// tables, missing forwarding entries and flooding, cut links, the PFC
// watchdog and Tagger; and what the deadlock detector reads.

type watchdogState struct {
	timer  sim.Timer
	active bool // tripped: ignoring PAUSE until the restore timer
}

func (s *Switch) initClasses() {
	s.classes = slices.Clone(s.Prof.PFC.Priorities)
	slices.Sort(s.classes)
	for p := uint8(0); p < 8; p++ {
		if s.lossless&(1<<p) == 0 {
			s.lossy = p
			break
		}
	}
}

// Routes returns the tables the switch forwards with now.
func (s *Switch) Routes() *fabric.Routes { return s.routes }

// SetRoutes installs new tables (routes recomputed after a failure); only
// this switch's rows are used. Packets already queued keep their egress.
func (s *Switch) SetRoutes(r *fabric.Routes) {
	r = s.groups(r)
	s.routes, s.row = r, r.Row(s.ID)
	for _, p := range s.ports {
		p.SetWarmRoutes(r, s.ID)
	}
}

// SetMissing removes (missing true) or restores the switch's forwarding
// entry for host dst. Without an entry a lossless packet is flooded
// (Profile.FloodLossless) or dropped as no_route.
func (s *Switch) SetMissing(dst fabric.NodeID, missing bool) {
	i := slices.Index(s.missing, dst)
	switch {
	case missing && i < 0:
		s.missing = append(s.missing, dst)
	case !missing && i >= 0:
		s.missing = slices.Delete(s.missing, i, i+1)
	}
	s.updateDegraded()
}

// updateDegraded keeps the degraded flag, which the per-packet path reads
// instead of the missing entries and the cut-link count, in step with
// them.
func (s *Switch) updateDegraded() { s.degraded = len(s.missing) > 0 || s.down > 0 }

// liveRoutes applies missing entries and cut links to a next-hop list:
// an ECMP group loses its members on cut links (hardware fast failover),
// but a list whose every member is cut stays, so that the packet is
// dropped as link_down, as it is until routes converge.
func (s *Switch) liveRoutes(next []int32, dst fabric.NodeID) []int32 {
	if slices.Contains(s.missing, dst) {
		return nil
	}
	if s.down == 0 {
		return next
	}
	s.scratch = s.scratch[:0]
	for _, o := range next {
		if !s.ports[o].Down() {
			s.scratch = append(s.scratch, o)
		}
	}
	if len(s.scratch) == 0 {
		return next
	}
	return s.scratch
}

// flood sends a copy of an admitted lossless packet to every live port
// but the one it came in on; each extra copy is charged to the same
// ingress port and priority.
func (s *Switch) flood(p *fabric.Packet, i int, frame int64) {
	in := s.ports[i]
	sent := false
	for o, port := range s.ports {
		if o == i || port.Down() {
			continue
		}
		c := p
		if sent {
			c = s.copyCharged(p, i, frame)
			s.Stats.Flooded++
		}
		sent = true
		s.forward(c, in, o)
	}
	if !sent {
		s.dropNoRoute(p, i, frame)
	}
}

// copyCharged returns a copy of p, an admitted packet that came in on
// port i, charged to the same ingress port and priority (on Ethernet;
// on InfiniBand the packet's one charge stays until its last copy
// leaves, copyHeld). A copy is
// replicated at egress from the one stored frame (merchant MMUs keep one
// copy and a reference count), so headroom sized for one stream does not
// bound it: when admission refuses it, it is charged beyond headroom
// rather than dropped. On a lossless priority the ingress sends PAUSE
// once the copy brings it to XOFF.
func (s *Switch) copyCharged(p *fabric.Packet, i int, frame int64) *fabric.Packet {
	prio := p.Priority
	if s.credits {
		// InfiniBand: the packet holds its input buffer, once, until
		// its last copy has left (copies.go); there is no PAUSE to send.
		return s.copyHeld(p)
	}
	toHead, _, ok := s.admit(i, prio, frame)
	in := &s.in[s.at(i, prio)]
	if !ok {
		in.head += frame
		s.bufUsed += frame
		toHead = true
	}
	if s.lossless&(1<<prio) != 0 && !in.xoff && (toHead || in.held >= s.xoffLimit()) {
		in.xoff = true
		s.sendPause(i, prio)
	}
	return s.pool.Clone(p)
}

// dropNoRoute drops p, admitted on port i, for want of a route.
func (s *Switch) dropNoRoute(p *fabric.Packet, i int, frame int64) {
	s.release(i, p.Priority, frame)
	s.stats[s.at(i, p.Priority)].Drops[DropNoRoute]++
	s.drop(p, DropNoRoute)
}

// dropQueued drops a packet that was admitted (its buffer is released,
// and the ingress resumes its upstream if that brings it to XON).
func (s *Switch) dropQueued(p *fabric.Packet, why DropReason) {
	i, ip := int(p.InPort), p.InPrio
	if !s.copying || s.lastCopy(p) {
		s.free(i, ip, p.Frame())
	}
	s.stats[s.at(i, ip)].Drops[why]++
	s.drop(p, why)
}

// flushQueue drops everything waiting in an egress queue.
func (s *Switch) flushQueue(o int, prio uint8, why DropReason) {
	for s.queueOf(o, prio).Len > 0 {
		s.dropQueued(s.pop(s.ports[o], prio), why)
	}
}

// PortDown cuts (true) or restores the link of port i at this end: the
// port stops, its egress queues are dropped (reason link_down), and
// packets routed to it are dropped until the routes change.
func (s *Switch) PortDown(i int, down bool) {
	port := s.ports[i]
	if port.Down() == down {
		return
	}
	port.SetDown(down)
	if down {
		s.down++
	} else {
		s.down--
	}
	s.updateDegraded()
	if !down {
		return
	}
	for prio := uint8(0); prio < 8; prio++ {
		s.flushQueue(i, prio, DropLinkDown)
	}
}

// PauseChanged is told by a port when one of its priorities becomes
// paused or free: it arms and disarms the PFC watchdog.
func (s *Switch) PauseChanged(port *fabric.Port, prio uint8, paused bool) {
	wd := s.Prof.PFC.Watchdog
	if wd == nil || s.lossless&(1<<prio) == 0 {
		return
	}
	o := port.Index
	w := &s.wd[o][prio]
	if w.active {
		return
	}
	s.eng.Cancel(w.timer)
	if paused {
		w.timer = s.eng.After(wd.Detect, s, evWatchdog, int64(o)*8+int64(prio), nil)
	}
}

// watchdogCheck runs Detect after a queue became paused and stayed so.
func (s *Switch) watchdogCheck(o int, prio uint8) {
	wd := s.Prof.PFC.Watchdog
	w := &s.wd[o][prio]
	w.timer = sim.Timer{}
	port := s.ports[o]
	if !port.Paused(prio) {
		return
	}
	if s.queueOf(o, prio).Len == 0 {
		// Paused but holding nothing: not stalled yet; look again later.
		w.timer = s.eng.After(wd.Detect, s, evWatchdog, int64(o)*8+int64(prio), nil)
		return
	}
	s.Stats.WatchdogTrips++
	w.active = true
	if wd.Action == "forward" {
		s.ports[o].OwnerBits[bitWDIgnore] |= 1 << prio
		port.Kick()
	} else {
		s.ports[o].OwnerBits[bitWDDrop] |= 1 << prio
		s.flushQueue(o, prio, DropWatchdog)
	}
	s.eng.After(wd.Restore, s, evWatchdogRestore, int64(o)*8+int64(prio), nil)
}

// watchdogRestore ends a trip: the queue honours PAUSE again.
func (s *Switch) watchdogRestore(o int, prio uint8) {
	w := &s.wd[o][prio]
	w.active = false
	s.ports[o].OwnerBits[bitWDIgnore] &^= 1 << prio
	s.ports[o].OwnerBits[bitWDDrop] &^= 1 << prio
	if s.ports[o].Paused(prio) {
		w.timer = s.eng.After(s.Prof.PFC.Watchdog.Detect, s, evWatchdog, int64(o)*8+int64(prio), nil)
	}
}

// SetUpDownRanks gives a Tagger switch the up*/down* order
// (fabric.UpDownRanks); without Profile.Tagger it does nothing.
func (s *Switch) SetUpDownRanks(rank []int32) {
	if s.Prof.Tagger {
		s.rank = rank
	}
}

// tag moves a packet that bounces here (it came down from a higher switch
// and leaves up to another) to the next lossless priority, or past the
// last one to the lossy priority.
func (s *Switch) tag(p *fabric.Packet, in *fabric.Port, out int) {
	me := s.rank[s.ID]
	from, to := s.rank[in.Peer().Node], s.rank[s.ports[out].Peer().Node]
	if from < 0 || to < 0 || from >= me || to >= me {
		return
	}
	if s.lossless&(1<<p.Priority) == 0 {
		return
	}
	for _, c := range s.classes {
		if c > p.Priority {
			p.Priority, p.DSCP = c, c<<3
			return
		}
	}
	// The packet's DSCP follows: the new priority's class selector, which
	// the default DSCP map (dscp >> 3) takes back to it downstream.
	p.Priority, p.DSCP = s.lossy, s.lossy<<3
}

// Waiting reports whether the egress queue of port o and priority prio
// holds packets and may not send them because its link partner paused it
// (a watchdog that ignores the pause makes it not waiting).
func (s *Switch) Waiting(o int, prio uint8) bool {
	return s.queueOf(o, prio).Len > 0 && s.ports[o].Paused(prio) && s.ports[o].OwnerBits[bitWDIgnore]&(1<<prio) == 0
}

// QueueHolds reports whether the egress queue of port o and priority prio
// holds packets that came in on port in with priority inPrio (charged to
// that ingress; they differ only where Tagger or a port's own SL-to-VL
// table moved them).
func (s *Switch) QueueHolds(o int, prio uint8, in int, inPrio uint8) bool {
	q := s.queueOf(o, prio)
	if len(q.sub) == 1 { // one FIFO for every ingress port
		return q.sub[0].Any(func(p *fabric.Packet) bool { return int(p.InPort) == in && p.InPrio == inPrio })
	}
	if q.sub == nil || q.sub[in].Peek() == nil {
		return false
	}
	if s.rank == nil && s.sl2vl == nil { // nothing moves a packet to another priority (VL)
		return prio == inPrio
	}
	return q.sub[in].Any(func(p *fabric.Packet) bool { return p.InPrio == inPrio })
}

// IngressPaused reports whether the switch is pausing the upstream of
// port i on priority prio (its ingress is above XOFF).
func (s *Switch) IngressPaused(i int, prio uint8) bool {
	if s.credits {
		// InfiniBand: the input buffer of i's VL has no room for the
		// upstream's next packet, so it grants no credit for it.
		return s.ports[i].BufferFull(prio)
	}
	return s.ingressOf(i, prio).xoff
}

// SetSL2VL gives the packets that leave by port out, having come in by
// port in (every input port when in is -1), the VL table holds for their
// SL (IBTA vol. 1, 7.6.6: a switch's SL-to-VL mapping table is indexed
// by input and output port). Elsewhere a packet keeps the VL it came in
// on, which the sending port's table chose.
func (s *Switch) SetSL2VL(out, in int, table [16]uint8) {
	n := len(s.ports)
	if s.sl2vl == nil {
		s.sl2vl = make([]*[16]uint8, n*n)
	}
	t := &table
	for i := 0; i < n; i++ {
		if in < 0 || i == in {
			s.sl2vl[out*n+i] = t
		}
	}
}
