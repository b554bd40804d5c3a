package swtch

import (
	"math/bits"

	"github.com/lfsim/lfsim/fabric"
)

// A switch keeps its per-port state by priority (ingress accounts,
// counters, egress queues: 272 bytes a priority) only for the priorities
// it uses, each in a slot: port i's state of priority prio is element
// i*np + slot of Switch.in, stats and queues, where slot is prio's rank
// among the priorities with a slot (slotMask): the slots are in
// ascending order of priority. The ranks are kept in a table of 8 bytes
// in the switch's hot lines (Switch.slot): a count of bits each time
// took 9 instructions and 5 more registers, a few times a packet. A RoCE fabric uses one or two priorities
// of the eight; kept for all eight, this state was 2.2 KB a port, 90 MB
// of a k=32 fat tree (docs/PERFORMANCE.md, "Memory at k=32").
//
// New gives slots to the priorities its profile names (PFC's lossless
// ones, DWRR's weighted ones, Tagger's lossy one); a packet of another
// priority gives its priority a slot when it first arrives or is queued
// (usePriority), which lays the state out again. What reads a priority
// without a slot (the accessors) reads an empty queue and zero counters.

// at is the index of port's state of priority prio in in, stats and
// queues; prio must have a slot.
func (s *Switch) at(port int, prio uint8) int {
	return port*int(s.np) + int(s.slot[prio&7])
}

// has reports whether prio has a slot.
func (s *Switch) has(prio uint8) bool { return s.slotMask&(1<<(prio&7)) != 0 }

// usePriority gives prio a slot if it has none.
func (s *Switch) usePriority(prio uint8) {
	if !s.has(prio) {
		s.addSlots(1 << (prio & 7))
	}
}

// addSlots gives each priority of mask a slot, laying the per-port state
// out again with its values, and points the ports' warm hints at it.
func (s *Switch) addSlots(mask uint8) {
	mask |= s.slotMask
	if mask == s.slotMask {
		return
	}
	old, oldNp, oldSlot := s.slotMask, int(s.np), s.slot
	np := bits.OnesCount8(mask)
	var slot [8]uint8
	for prio := range slot {
		slot[prio] = uint8(bits.OnesCount8(mask & (1<<prio - 1)))
	}
	n := len(s.ports)
	in, stats, queues := make([]ingress, n*np), make([]PortPrio, n*np), make([]egressQueue, n*np)
	for port := 0; port < n; port++ {
		for prio := range 8 {
			if old&(1<<prio) == 0 {
				continue
			}
			from, to := port*oldNp+int(oldSlot[prio]), port*np+int(slot[prio])
			in[to], stats[to], queues[to] = s.in[from], s.stats[from], s.queues[from]
		}
	}
	s.in, s.stats, s.queues, s.np, s.slotMask, s.slot = in, stats, queues, uint8(np), mask, slot
	for i, p := range s.ports {
		fabric.SetWarmTx(p, s.queues[i*np:(i+1)*np], mask)
		fabric.SetWarmRx(p, s.in[i*np:(i+1)*np], mask)
	}
}

// queueOf is the egress queue of port o and priority prio, or an empty
// one when prio has no slot (it must not be changed).
func (s *Switch) queueOf(o int, prio uint8) *egressQueue {
	if !s.has(prio) {
		return &emptyQueue
	}
	return &s.queues[s.at(o, prio)]
}

// ingressOf is the ingress account of port i and priority prio, or an
// empty one when prio has no slot (it must not be changed).
func (s *Switch) ingressOf(i int, prio uint8) *ingress {
	if !s.has(prio) {
		return &emptyIngress
	}
	return &s.in[s.at(i, prio)]
}

var (
	emptyQueue   egressQueue
	emptyIngress ingress
)
