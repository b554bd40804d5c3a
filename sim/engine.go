package sim

import (
	"math/bits"
	"unsafe"
)

// Engine runs events in time order. Ties break by insertion order, which
// makes runs deterministic.
//
// The queue is three sources merged by (At, seq): lanes (lane.go), FIFOs
// of events that share one delay (link arrivals, switch pipelines,
// transmissions), whose heads sit in a small heap of their own (at most
// MaxLanes entries); a 4-ary min-heap of timers (everything scheduled
// with Schedule or After); and a FIFO for events scheduled at the current
// time, which touches neither. Almost every event of a large run is a
// lane event, and keeping the lane heads apart means firing one sifts
// through a few lane heads instead of through the thousands of PFC and
// retransmission timers waiting further off. Cancelling a timer only
// marks its event; the event is dropped when it reaches the top, so a
// timer cancelled late costs nothing more than one that fires.
type Engine struct {
	now    Time
	seq    uint64
	heap   []heapItem // timers
	nowQ   ring[*Event]
	free   []*Event
	events uint64
	seed   uint64

	lanes       map[Time][]*Lane // by delay, then kind (lane.go)
	laneArr     [MaxLanes]Lane   // the lanes, in the order they were made
	nLanes      int
	laneHeads   []laneHead // a min-heap of the nonempty lanes' heads
	laneWaiting int        // lane events behind their lane's head
	stopped     bool
	dead        int // cancelled events still in the heap

	// horizon is no later than the earliest timer or current-time event:
	// the timer heap's top, or now while the current-time FIFO holds
	// events, or Never when neither holds any. A lane head earlier than
	// it fires next without a look at either (laneFirst); it is brought
	// down as they are scheduled and back up as they fire.
	horizon Time

	// The hand-over (handover.go): arrivals staged during the window
	// that ends at boundary, which is Never without a lookahead.
	lookahead Time
	boundary  Time
	staged    []stagedItem
	nStaged   int // arrivals this engine staged in the window, for their keys
	// One Engine alone stages arrivals in their lanes (stageInLane):
	// the lanes that hold some (by index), and the greatest sender's
	// key among them.
	stagedLanes uint64
	senderMax   uint32
	// The lanes whose staged arrivals are out of order (stageInLane's
	// walk was too long), sorted at the window's end, and the sort's
	// scratch.
	unsortedLanes uint64
	laneScratch   []laneItem
	keyScratch    []uint64
	posScratch    []int32
	runs          []int        // sortStaged's scratch: where the runs in time order start
	mergeBuf      []stagedItem // and mergeRuns'
	// In a Group (group.go): the group, this engine's partition, and
	// the arrivals sent to each other partition during the window; the
	// group hands them over, so boundary stays Never.
	group  *Group
	part   int
	outbox [][]stagedItem // sent during this window, by partition
	sent   [][]stagedItem // sent during the last, for the others to take
	// laneFrom is the partition whose arrivals each lane takes (LaneFrom;
	// Lane's are this engine's own), and fromLanes finds a lane made for
	// another partition's arrivals.
	laneFrom  [MaxLanes]int32
	fromLanes map[laneSource]*Lane
	// sentMin is the earliest time of what this engine staged or sent
	// since its last flush (Never: none).
	sentMin Time

	progressEvery uint64
	progressLeft  uint64 // events until the next call of progress
	progress      func(now Time, events uint64)
	// trace, when set, sees every event before it fires (SetTrace).
	trace func(at Time, target unsafe.Pointer, h Handler)
}

// NewEngine returns an engine at time zero whose random streams derive from
// seed.
func NewEngine(seed uint64) *Engine {
	return &Engine{seed: seed, horizon: Never, boundary: Never, sentMin: Never}
}

// Now returns the current simulated time.
func (e *Engine) Now() Time { return e.now }

// Events returns how many events have fired so far (cancelled ones are not
// counted).
func (e *Engine) Events() uint64 { return e.events }

// Seed returns the run's seed.
func (e *Engine) Seed() uint64 { return e.seed }

// Pending returns how many events are scheduled, cancelled ones included.
func (e *Engine) Pending() int {
	n := len(e.heap) + e.nowQ.len() + len(e.laneHeads) + e.laneWaiting + len(e.staged)
	for m := e.stagedLanes; m != 0; m &= m - 1 {
		n += int(e.laneArr[bits.TrailingZeros64(m)].staged)
	}
	return n
}

func (e *Engine) alloc() *Event {
	if n := len(e.free); n > 0 {
		ev := e.free[n-1]
		e.free = e.free[:n-1]
		return ev
	}
	// Grow by a slab so that a run allocates events in few large blocks.
	slab := make([]Event, 256)
	for i := range slab[1:] {
		e.free = append(e.free, &slab[i+1])
	}
	return &slab[0]
}

func (e *Engine) recycle(ev *Event) {
	ev.gen++
	ev.H = nil
	ev.Data = nil
	e.free = append(e.free, ev)
}

// Schedule arranges for h.HandleEvent to be called at time at with kind, n
// and data. A time in the past is an error of the caller's model and panics.
func (e *Engine) Schedule(at Time, h Handler, kind int32, n int64, data any) Timer {
	if at < e.now {
		panic("sim: event scheduled in the past")
	}
	ev := e.alloc()
	ev.At, ev.H, ev.Kind, ev.N, ev.Data = at, h, kind, n, data
	ev.seq = e.seq
	e.seq++
	e.horizon = min(e.horizon, at)
	if at == e.now {
		e.nowQ.push(ev)
	} else {
		e.push(ev)
	}
	return Timer{ev: ev, gen: ev.gen}
}

// After schedules an event d after now.
func (e *Engine) After(d Time, h Handler, kind int32, n int64, data any) Timer {
	return e.Schedule(e.now+d, h, kind, n, data)
}

// Cancel stops a pending timer from firing and reports whether it was
// pending. Cancelling a timer that already fired or was cancelled does
// nothing.
func (e *Engine) Cancel(t Timer) bool {
	if !t.Pending() {
		return false
	}
	t.ev.H = nil    // marks it cancelled
	t.ev.Data = nil // let the payload go now rather than when the event surfaces
	if t.ev.At != e.now || e.nowQ.len() == 0 {
		e.dead++
		if e.dead > 256 && 2*e.dead > len(e.heap) {
			e.compact()
		}
	}
	return true
}

// compact drops cancelled events from the heap once they are the majority.
// A timer rearmed on every ACK (cancel, schedule) otherwise leaves one
// cancelled event per ACK waiting for its far-off time, and the heap, and
// memory, would grow with time simulated. Rebuilding costs one pass over
// the heap, paid for by the cancellations since the last one.
func (e *Engine) compact() {
	h := e.heap[:0]
	for _, it := range e.heap {
		if it.ev.H == nil {
			e.recycle(it.ev)
			continue
		}
		h = append(h, it)
	}
	for i := len(h); i < len(e.heap); i++ {
		e.heap[i] = heapItem{}
	}
	e.heap = h
	e.dead = 0
	for i := (len(h) - 2) / 4; i >= 0; i-- {
		e.siftDown(i)
	}
	e.settleHorizon()
}

// siftDown restores the heap below i.
func (e *Engine) siftDown(i int) {
	h := e.heap
	n := len(h)
	it := h[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+4, n); j++ {
			if h[j].before(h[m]) {
				m = j
			}
		}
		if !h[m].before(it) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = it
}

// Stop makes Run return after the event being handled.
func (e *Engine) Stop() { e.stopped = true }

// OnProgress calls fn every `every` events with the current time and event
// count, so that a command line can show progress. The engine itself never
// reads the wall clock.
func (e *Engine) OnProgress(every uint64, fn func(now Time, events uint64)) {
	e.progressEvery, e.progress = every, fn
	if fn != nil {
		e.progressLeft = every - e.events%every
	}
}

// SetTrace calls fn before each event fires, with its time and its
// target: a lane event's target pointer (h nil), or a timer's handler
// (target nil). It is for measurement (which node each event belongs to,
// for planning a partitioned run); nil turns it off, and off it costs a
// test per event.
func (e *Engine) SetTrace(fn func(at Time, target unsafe.Pointer, h Handler)) { e.trace = fn }

// heapItem keeps a timer's sort key beside its pointer, so that sifting
// compares keys in the heap's own array instead of loading each event.
type heapItem struct {
	at  Time
	seq uint64
	ev  *Event
}

// source says where the next event comes from.
type source uint8

const (
	fromNone  source = iota
	fromTimer        // the timer heap's top
	fromLane         // the head of the lane atop the lane heads
	fromNow          // the current-time FIFO
)

// peek says where the next event due at or before until comes from.
// Timers and lane heads at the current time were scheduled before it
// began, so they precede everything in the current-time FIFO.
func (e *Engine) peek(until Time) source {
	src, at := fromNone, Never
	var seq uint64
	if len(e.heap) > 0 {
		src, at, seq = fromTimer, e.heap[0].at, e.heap[0].seq
	}
	if len(e.laneHeads) > 0 {
		if h := &e.laneHeads[0]; src == fromNone || earlier(h.at, h.seq(), at, seq) {
			src, at = fromLane, h.at
		}
	}
	switch {
	case src != fromNone && at == e.now:
		return src
	case e.nowQ.len() > 0:
		return fromNow
	case src != fromNone && at <= until:
		return src
	}
	return fromNone
}

// laneFirst reports whether the next event is the earliest lane's head,
// due at or before until: peek's answer in its common case, without the
// rest of its cases. A lane head at the horizon itself is left to peek,
// which breaks the tie by insertion order.
func (e *Engine) laneFirst(until Time) bool {
	h := e.laneHeads
	return len(h) != 0 && h[0].at < e.horizon && h[0].at <= until
}

// settleHorizon brings the horizon up to the earliest timer or
// current-time event, after one of them was taken, or to the window's
// end if that is earlier (a lane head past it waits for the staged
// arrivals: crossWindow).
func (e *Engine) settleHorizon() {
	switch {
	case e.nowQ.size != 0:
		e.horizon = e.now
	case len(e.heap) != 0:
		e.horizon = min(e.heap[0].at, e.boundary)
	default:
		e.horizon = e.boundary
	}
}

// next removes and returns the next live timer or current-time event due
// at or before until. It returns nil when there is none, with lane true
// when the next event is a lane's head instead, which it leaves in place
// (Run takes it). The queue's top is looked at before it is taken, so an
// event past until stays where it is.
func (e *Engine) next(until Time) (ev *Event, lane bool) {
	if e.now > until {
		return nil, false
	}
	for {
		// The window's arrivals enter when the next thing to fire,
		// arrivals staged included, is past the window's end and fires
		// in this Run: where a Group opens that window. Not when Run is
		// about to stop short of it (an observer's point may still send
		// into the window, as it may into an unopened one of a Group's).
		if n := min(e.nextAt(), e.sentMin); e.lookahead > 0 && e.group == nil && n >= e.boundary && n <= until {
			e.crossWindow(until)
		}
		switch e.peek(until) {
		case fromLane:
			return nil, true
		case fromTimer:
			ev = e.pop()
		case fromNow:
			ev = e.nowQ.pop()
		default:
			return nil, false
		}
		e.settleHorizon()
		if ev.H == nil { // cancelled
			if e.dead > 0 {
				e.dead--
			}
			e.recycle(ev)
			continue
		}
		return ev, false
	}
}

// Run fires events in order until none is left, the next one is later than
// until, Stop is called, or done (if not nil) returns true after an event.
// When it stops for until, the clock is advanced to until. It returns the
// number of events fired during the call.
func (e *Engine) Run(until Time, done func() bool) uint64 {
	e.stopped = false
	start := e.events
	for !e.stopped {
		var ev *Event
		lane := e.laneFirst(until) // almost every event of a large run
		if !lane {
			if ev, lane = e.next(until); ev == nil && !lane {
				// Nothing left before until: the clock moves there.
				if until != Never && until > e.now {
					e.now = until
				}
				break
			}
		}
		e.events++
		if lane {
			// The head of the earliest lane, taken here: as a call
			// returning the item's fields it cost about 20 instructions.
			top := &e.laneHeads[0]
			l := e.lane(top)
			q := &l.q
			it := q.slot(q.head)
			target, data := it.target, it.data
			e.now = it.at
			q.head = (q.head + 1) & q.mask
			q.size--
			if q.size == 0 {
				e.dropLaneHead()
			} else {
				next := q.slot(q.head)
				top.at, top.key = next.at, next.key
				e.laneWaiting--
				prefetch(uintptr(unsafe.Pointer(q.slot(q.head + laneAhead))))
			}
			if h := e.laneHeads; len(h) > 1 && (h[1].before(&h[0]) || len(h) > 2 && h[2].before(&h[0])) {
				// The lane stays on top as often as not: checked here,
				// the sift (a call) runs only when the top moves.
				e.siftLaneHeads()
			}
			e.prefetchNext()
			if e.trace != nil {
				e.trace(e.now, target, nil)
			}
			l.kind.Fire(target, data)
		} else {
			e.now = ev.At
			e.prefetchNext()
			if e.trace != nil {
				e.trace(e.now, nil, ev.H)
			}
			ev.H.HandleEvent(ev)
			e.recycle(ev)
		}
		// A countdown, not events % progressEvery: a division per event.
		if e.progressLeft--; e.progressLeft == 0 && e.progress != nil {
			e.progressLeft = e.progressEvery
			e.progress(e.now, e.events)
		}
		if done != nil && done() {
			break
		}
	}
	return e.events - start
}

// earlier is the engine's one order of events: by time, then by the
// order they were scheduled in (seq), which makes runs deterministic.
func earlier(at Time, seq uint64, thanAt Time, thanSeq uint64) bool {
	return at < thanAt || (at == thanAt && seq < thanSeq)
}

func (a heapItem) before(b heapItem) bool { return earlier(a.at, a.seq, b.at, b.seq) }

// push and pop keep a 4-ary heap: shallower than a binary heap, and its
// four children's keys sit side by side in memory.
func (e *Engine) push(ev *Event) {
	it := heapItem{at: ev.At, seq: ev.seq, ev: ev}
	h := append(e.heap, it)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !it.before(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = it
	e.heap = h
}

func (e *Engine) pop() *Event {
	top := e.heap[0].ev
	n := len(e.heap) - 1
	e.heap[0] = e.heap[n]
	e.heap[n] = heapItem{}
	e.heap = e.heap[:n]
	if n > 0 {
		e.siftDown(0)
	}
	return top
}

// ring is a growable FIFO, the current-time events' (lanes have their
// own, laneRing). Its size is a power of two.
type ring[T any] struct {
	buf        []T
	head, size int
}

func (r *ring[T]) len() int { return r.size }

func (r *ring[T]) push(x T) { *r.grow() = x }

// grow adds a slot at the tail and returns it, for the caller to fill.
func (r *ring[T]) grow() *T {
	if r.size == len(r.buf) {
		r.expand()
	}
	x := &r.buf[(r.head+r.size)&(len(r.buf)-1)]
	r.size++
	return x
}

// expand doubles a full ring's buffer (16 slots at first).
func (r *ring[T]) expand() {
	nb := make([]T, max(16, 2*len(r.buf)))
	for i := 0; i < r.size; i++ {
		nb[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = nb, 0
}

// peek returns the head in place.
func (r *ring[T]) peek() *T { return &r.buf[r.head] }

func (r *ring[T]) pop() T {
	x := r.buf[r.head]
	var zero T
	r.buf[r.head] = zero // let what it points to go
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.size--
	return x
}
