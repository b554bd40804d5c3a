package sim

import "unsafe"

// iface is how Go lays out an interface value: a type word and a pointer
// to the value. Only the pointer is read, to prefetch what it points to.
type iface struct {
	_    unsafe.Pointer
	data unsafe.Pointer
}

// prefetchNext asks the CPU for the first cache line of what the next
// event will touch first while the current one runs: a lane event's
// handler and argument (a port or switch, and a packet), or a timer's
// Event. A large run keeps far more state than the caches hold, and
// almost every event starts with misses on these; asking one event early
// overlaps them with the current event's work (the k=16 permutation of
// docs/PERFORMANCE.md runs about 15% faster). It is a guess only: the
// current event may schedule an earlier one, and then nothing is lost but
// the prefetch.
func (e *Engine) prefetchNext() {
	switch e.peek(Never) {
	case fromNow:
		prefetch(uintptr(unsafe.Pointer(*e.nowQ.peek())))
	case fromTimer:
		prefetch(uintptr(unsafe.Pointer(e.heap[0].ev)))
	case fromLane:
		it := e.laneHeads[0].lane.q.peek()
		prefetch(uintptr((*iface)(unsafe.Pointer(&it.h)).data))
		prefetch(uintptr((*iface)(unsafe.Pointer(&it.data)).data))
	}
}

// Prefetch asks the CPU for the cache line at p, for a model that knows
// which cold state it will need soon (a switch, the packet its egress
// queue sends next). It changes nothing but timing; nil is ignored.
func Prefetch[T any](p *T) {
	if p != nil {
		prefetch(uintptr(unsafe.Pointer(p)))
	}
}

// laneAhead is how far ahead of its head a lane's ring is asked for as
// its events fire. A lane's items are written in order and read in order
// a delay later, by when the caches have let them go, and the hardware
// does not stream them back (seven lanes advance at their own paces in
// the k=16 run): reading the new head's time after a pop was 11% of that
// run. Four items ahead (a dozen to a few dozen events, by the lane) is early
// enough for the line to arrive and late enough for it to stay; eight
// gained nothing more (docs/PERFORMANCE.md).
const laneAhead = 4

// prefetchRing asks for a lane item's own cache line.
func prefetchRing(it *laneItem) { prefetch(uintptr(unsafe.Pointer(it))) }
