package sim

// A Lane is a FIFO of events that all wait the same delay after they are
// scheduled. Since the clock only moves forward, such events are scheduled
// in the order they fire, so the lane needs no sorting: only its head sits
// among the engine's lane heads, and firing it puts the next one there.
// Every link's arrivals (one propagation delay) and every switch's
// pipeline exits (one latency) share a lane per delay, so the lane heads
// are a handful (seven in the k=16 permutation of docs/PERFORMANCE.md)
// and firing a lane event costs a sift among them, not one through a heap
// of an entry per busy link or per timer; events still fire in exactly
// the (time, insertion order) sequence they would without lanes.
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
// A fired item's slot is not cleared until the ring comes round to it
// again, so h and data should outlive the event (handlers and pooled
// packets do); the lane keeps them reachable until then.
func (e *Engine) PostLane(l *Lane, h LaneHandler, kind int32, n int64, data any) {
	e.postLane(l, h, kind, n, data, false)
}

// PostLaneUnread is PostLane for an event whose handler passes data on
// without reading what it points to (a transmission's end hands its frame
// to the link): the engine then does not prefetch data before the event
// fires (prefetchNext), which would cost a line the event never touches.
func (e *Engine) PostLaneUnread(l *Lane, h LaneHandler, kind int32, n int64, data any) {
	e.postLane(l, h, kind, n, data, true)
}

func (e *Engine) postLane(l *Lane, h LaneHandler, kind int32, n int64, data any, unread bool) {
	// The item is written in place, field by field: building it first
	// and pushing it copied its 64 bytes twice through the stack; and
	// the slot is found here, not by a call (ring.grow is not inlined).
	q := &l.q
	if q.size == len(q.buf) {
		q.expand()
	}
	it := &q.buf[(q.head+q.size)&(len(q.buf)-1)]
	q.size++
	at, seq := e.now+l.delay, e.seq
	it.at, it.seq, it.h, it.data, it.n, it.kind, it.unread = at, seq, h, data, n, kind, unread
	e.seq++
	if q.size == 1 {
		e.pushLaneHead(laneHead{at: at, seq: seq, lane: l})
	} else {
		e.laneWaiting++
	}
}

// laneHead is a nonempty lane's place among the lane heads: its head's
// sort key, kept beside the lane so that sifting reads no lane.
type laneHead struct {
	at   Time
	seq  uint64
	lane *Lane
}

func (a *laneHead) before(b *laneHead) bool { return earlier(a.at, a.seq, b.at, b.seq) }

// pushLaneHead adds a lane that has just become nonempty. The lane heads
// are a binary min-heap of at most MaxLanes entries.
func (e *Engine) pushLaneHead(x laneHead) {
	h := append(e.laneHeads, x)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !x.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
	e.laneHeads = h
}

// siftLaneHeads restores the lane heads' heap below the top.
func (e *Engine) siftLaneHeads() {
	h := e.laneHeads
	n := len(h)
	x := h[0]
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].before(&h[c]) {
			c++
		}
		if !h[c].before(&x) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = x
}

// popLane fires the head of the earliest lane: the event is handed over
// in the engine's scratch Event, its handler in scratchH (not in the
// Event's H, which would cost a conversion between interface types per
// event; Run calls it), and the lane's next event, if any, takes
// its place among the lane heads (one sift instead of a pop and a push).
func (e *Engine) popLane() *Event {
	top := &e.laneHeads[0]
	l := top.lane
	it := l.q.peek()
	ev := &e.scratch
	ev.At, ev.Data, ev.N, ev.Kind = it.at, it.data, it.n, it.kind
	e.scratchH = it.h
	l.q.skip()
	if l.q.size == 0 {
		n := len(e.laneHeads) - 1
		e.laneHeads[0] = e.laneHeads[n]
		e.laneHeads[n] = laneHead{}
		e.laneHeads = e.laneHeads[:n]
	} else {
		next := l.q.peek()
		top.at, top.seq = next.at, next.seq
		e.laneWaiting--
		prefetchRing(l.q.at(laneAhead))
	}
	if h := e.laneHeads; len(h) > 1 && (h[1].before(&h[0]) || len(h) > 2 && h[2].before(&h[0])) {
		// The lane stays on top as often as not: checked here, the sift
		// (a call) runs only when the top moves.
		e.siftLaneHeads()
	}
	return ev
}

// laneItem is a waiting lane event: 64 bytes, read in order.
type laneItem struct {
	at     Time
	seq    uint64
	h      LaneHandler
	data   any
	n      int64
	kind   int32
	unread bool // posted with PostLaneUnread: data is not prefetched
}
