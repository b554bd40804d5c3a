package sim

import "unsafe"

// prefetchNext asks the CPU for what the next events will touch first,
// while the current one runs. A large run keeps far more state than the
// caches hold, and almost every event starts with misses; asked for early,
// they overlap the current event's work instead of following it
// (docs/PERFORMANCE.md). For a timer or a current-time event, its Event.
// For a lane event, two steps: the event after next (the next of the
// next event's lane, or the head of another lane) has its target's first
// three lines and its data asked for; the next event, whose were asked
// for one event ago, is handed to its kind's Warm, which asks for what
// the event will reach through them (a switch's egress queue, ingress
// account and routing entry). These are guesses only: the current event
// may schedule an earlier one, and then nothing is lost but the
// prefetches.
func (e *Engine) prefetchNext() {
	src := fromLane
	if !e.laneFirst(Never) {
		src = e.peek(Never)
	}
	switch src {
	case fromNow:
		prefetch(uintptr(unsafe.Pointer(*e.nowQ.peek())))
	case fromTimer:
		prefetch(uintptr(unsafe.Pointer(e.heap[0].ev)))
	case fromLane:
		l := e.lane(&e.laneHeads[0])
		q := &l.q
		it := q.slot(q.head)
		// Its target and data are not asked for again: events are dense
		// in simulated time (about eight per simulated nanosecond in the
		// k=16 permutation) and a new one lands a transmission or more
		// ahead, so one event ago's guess of the event after next was
		// this one.
		if w := l.kind.Warm; w != nil {
			w(it.target, it.data)
		}
		// The event after it: the next of its lane, or the head of
		// another lane (the heap's second level holds the next smallest),
		// compared by the keys the lane heads keep, not by reading the
		// other lanes' items.
		var it2 *laneItem
		if q.size > 1 {
			it2 = q.slot(q.head + 1)
		}
		if h := e.laneHeads; len(h) > 1 {
			c := &h[1]
			if len(h) > 2 && h[2].before(c) {
				c = &h[2]
			}
			if it2 == nil || c.at < it2.at || c.at == it2.at && c.key < it2.key {
				l = e.lane(c)
				it2 = l.q.slot(l.q.head)
			}
		}
		if it2 != nil {
			data := uintptr(it2.data)
			if l.unread {
				data = 0
			}
			prefetchTarget(uintptr(it2.target), data)
		}
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

// Prefetch2 asks for the cache lines at a and b in one call (see
// Prefetch; a nil pointer is harmless): the call into assembly, about ten
// instructions around each PREFETCHT0, is paid once.
func Prefetch2[A, B any](a *A, b *B) {
	prefetch2(uintptr(unsafe.Pointer(a)), uintptr(unsafe.Pointer(b)))
}

// Prefetch3 asks for the lines at a, b and c in one call (Prefetch2).
func Prefetch3[A, B, C any](a *A, b *B, c *C) {
	prefetch3(uintptr(unsafe.Pointer(a)), uintptr(unsafe.Pointer(b)), uintptr(unsafe.Pointer(c)))
}

// PrefetchAddr2 asks for the lines at two addresses, for a model that
// keeps the addresses of state it will need rather than pointers to it
// (fabric's warm hints): nothing is read there, and an address that is
// no longer the state's costs a wasted fetch only.
func PrefetchAddr2(a, b uintptr) { prefetch2(a, b) }

// laneAhead is how far ahead of its head a lane's ring is asked for as
// its events fire. A lane's items are written in order and read in order
// a delay later, by when the caches have let them go, and the hardware
// does not stream them back (seven lanes advance at their own paces in
// the k=16 run): reading the new head's time after a pop was 11% of that
// run. Four items ahead (a dozen to a few dozen events, by the lane) is
// early enough for the line to arrive and late enough for it to stay;
// eight gained nothing more (docs/PERFORMANCE.md).
const laneAhead = 4
