package sim

// A Lane is a FIFO of events that all wait the same delay after they are
// scheduled. Since the clock only moves forward, such events are scheduled
// in the order they fire, so the lane needs no sorting: only its head sits
// in the engine's heap, and firing it puts the next one there. Every
// link's arrivals (one propagation delay) and every switch's pipeline
// exits (one latency) share a lane per delay, which keeps the heap a few
// dozen entries deep instead of one entry per busy link; events still fire
// in exactly the (time, insertion order) sequence they would without
// lanes.
//
// Lane events cannot be cancelled; timers belong in the heap (Schedule,
// After).
type Lane struct {
	delay Time
	q     ring[laneItem]
}

// Delay returns the lane's delay.
func (l *Lane) Delay() Time { return l.delay }

// MaxLanes bounds how many lanes an engine makes: the delays asked for
// first (link delays and pipeline latencies at build time, then the
// transmit times of the common frame sizes) get them, and a delay asked
// for later goes without. Without a bound a run would make a lane for
// every odd frame size it ever sends, and its memory would grow with time.
const MaxLanes = 64

// Lane returns the engine's lane for events delay after now, making it on
// first use, or nil once MaxLanes lanes exist (the caller then schedules
// with After). delay must be above 0 (events at the current time have
// their own FIFO already).
func (e *Engine) Lane(delay Time) *Lane {
	if delay <= 0 {
		panic("sim: a lane's delay must be above 0")
	}
	if l := e.lanes[delay]; l != nil {
		return l
	}
	if len(e.lanes) >= MaxLanes {
		return nil
	}
	if e.lanes == nil {
		e.lanes = map[Time]*Lane{}
	}
	l := &Lane{delay: delay}
	e.lanes[delay] = l
	return l
}

// PostLane schedules an event l's delay after now, as After would, for
// h.HandleEvent(ev) with kind, n and data. Lane events cannot be
// cancelled (so PostLane returns no Timer), and they need no Event of
// their own while they wait: the lane keeps their fields in its FIFO, in
// order, and the engine hands the handler a scratch Event when one fires.
func (e *Engine) PostLane(l *Lane, h Handler, kind int32, n int64, data any) {
	it := laneItem{at: e.now + l.delay, seq: e.seq, h: h, data: data, n: n, kind: kind}
	e.seq++
	l.q.push(it)
	if l.q.size == 1 {
		e.pushItem(heapItem{at: it.at, seq: it.seq, lane: l})
	} else {
		e.laneWaiting++
	}
}

// laneItem is a waiting lane event: 64 bytes, read in order.
type laneItem struct {
	at   Time
	seq  uint64
	h    Handler
	data any
	n    int64
	kind int32
}
