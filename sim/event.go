package sim

// Handler receives the events scheduled for it. A handler must not keep the
// *Event after HandleEvent returns: the engine recycles it.
type Handler interface {
	HandleEvent(ev *Event)
}

// Event is one scheduled happening. Events come from the engine's free list
// and go back to it after they fire or are found cancelled, so scheduling
// allocates nothing in steady state.
type Event struct {
	// At is when the event fires.
	At Time
	// H is who handles it.
	H Handler
	// Data is a pointer argument (a packet, a QP). Storing a pointer in an
	// interface does not allocate.
	Data any
	// N is a small integer argument (a port number, a priority, a PSN).
	N int64

	seq uint64 // insertion order: ties at the same At fire in this order

	// Kind tells the handler what happened; its meaning is the handler's.
	Kind int32

	gen uint32 // bumped on every recycle so stale Timers are inert
	// A cancelled event has no handler (H is nil): the event stays 64
	// bytes, one cache line.
}

// Timer is a handle to a scheduled event that may be cancelled. The zero
// Timer is valid and refers to nothing.
type Timer struct {
	ev  *Event
	gen uint32
}

// Pending reports whether the timer's event is still due to fire.
func (t Timer) Pending() bool {
	return t.ev != nil && t.ev.gen == t.gen && t.ev.H != nil
}

// At returns when a pending timer fires, or Never.
func (t Timer) At() Time {
	if !t.Pending() {
		return Never
	}
	return t.ev.At
}
