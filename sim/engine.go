package sim

// Engine runs events in time order. Ties break by insertion order, which
// makes runs deterministic.
//
// The queue is a 4-ary min-heap keyed by (At, seq), plus a FIFO for events
// scheduled at the current time, which never touch the heap, plus lanes
// (lane.go): FIFOs of events that share one delay (link arrivals, switch
// pipelines, transmissions), of which only the heads are in the heap.
// Cancelling a timer only marks its event; the event is dropped when it
// reaches the top, so a timer cancelled late costs nothing more than one
// that fires.
type Engine struct {
	now    Time
	seq    uint64
	heap   []heapItem
	nowQ   ring[*Event]
	free   []*Event
	events uint64
	seed   uint64

	lanes       map[Time]*Lane // by delay (lane.go)
	laneWaiting int            // lane events behind their lane's head
	scratch     Event          // a firing lane event (popTop)
	stopped     bool
	dead        int // cancelled events still in the heap

	progressEvery uint64
	progress      func(now Time, events uint64)
}

// NewEngine returns an engine at time zero whose random streams derive from
// seed.
func NewEngine(seed uint64) *Engine {
	return &Engine{seed: seed}
}

// Now returns the current simulated time.
func (e *Engine) Now() Time { return e.now }

// Events returns how many events have fired so far (cancelled ones are not
// counted).
func (e *Engine) Events() uint64 { return e.events }

// Seed returns the run's seed.
func (e *Engine) Seed() uint64 { return e.seed }

// Pending returns how many events are scheduled, cancelled ones included.
func (e *Engine) Pending() int { return len(e.heap) + e.nowQ.len() + e.laneWaiting }

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

// compact drops cancelled events from the heap once they are the majority
// (lane heads stay: their lanes follow them).
// A timer rearmed on every ACK (cancel, schedule) otherwise leaves one
// cancelled event per ACK waiting for its far-off time, and the heap, and
// memory, would grow with time simulated. Rebuilding costs one pass over
// the heap, paid for by the cancellations since the last one.
func (e *Engine) compact() {
	h := e.heap[:0]
	for _, it := range e.heap {
		if it.lane == nil && it.ev.H == nil {
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
}

// heapItem keeps an event's sort key beside its pointer, so that sifting
// compares keys in the heap's own array instead of loading each event.
type heapItem struct {
	at   Time
	seq  uint64
	ev   *Event
	lane *Lane // the lane ev heads, if it waits in one (lane.go)
}

// next removes and returns the next live event due at or before until, or
// nil when there is none. The heap's top is looked at before it is taken,
// so an event past until stays where it is.
func (e *Engine) next(until Time) *Event {
	if e.now > until {
		return nil
	}
	for {
		var ev *Event
		switch {
		case len(e.heap) > 0 && e.heap[0].at == e.now:
			// Heap events at the current time were scheduled before it began,
			// so they precede everything in the current-time FIFO.
			ev = e.popTop()
		case e.nowQ.len() > 0:
			ev = e.nowQ.pop()
		case len(e.heap) > 0 && e.heap[0].at <= until:
			ev = e.popTop()
		default:
			return nil
		}
		if ev.H == nil { // cancelled
			if e.dead > 0 {
				e.dead--
			}
			e.recycle(ev)
			continue
		}
		return ev
	}
}

// popTop removes the heap's top event. When it heads a lane, the lane's
// next event takes its place at the top and sinks from there (one sift
// instead of a pop and a push), and the one that fires is handed over in
// the engine's scratch Event.
func (e *Engine) popTop() *Event {
	top := e.heap[0]
	l := top.lane
	if l == nil {
		return e.pop()
	}
	it := l.q.peek()
	ev := &e.scratch
	ev.At, ev.H, ev.Data, ev.N, ev.Kind = it.at, it.h, it.data, it.n, it.kind
	l.q.pop()
	if l.q.size == 0 {
		e.pop()
		return ev
	}
	next := l.q.peek()
	e.heap[0] = heapItem{at: next.at, seq: next.seq, lane: l}
	e.laneWaiting--
	e.siftDown(0)
	return ev
}

// Run fires events in order until none is left, the next one is later than
// until, Stop is called, or done (if not nil) returns true after an event.
// When it stops for until, the clock is advanced to until. It returns the
// number of events fired during the call.
func (e *Engine) Run(until Time, done func() bool) uint64 {
	e.stopped = false
	start := e.events
	for !e.stopped {
		ev := e.next(until)
		if ev == nil {
			// Nothing left before until: the clock moves there.
			if until != Never && until > e.now {
				e.now = until
			}
			break
		}
		e.now = ev.At
		e.events++
		e.prefetchNext()
		ev.H.HandleEvent(ev)
		if ev == &e.scratch {
			ev.H, ev.Data = nil, nil
		} else {
			e.recycle(ev)
		}
		if e.progress != nil && e.events%e.progressEvery == 0 {
			e.progress(e.now, e.events)
		}
		if done != nil && done() {
			break
		}
	}
	return e.events - start
}

func less(a, b *Event) bool {
	return a.At < b.At || (a.At == b.At && a.seq < b.seq)
}

func (a heapItem) before(b heapItem) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// push and pop keep a 4-ary heap: shallower than a binary heap, and its
// four children's keys sit side by side in memory.
func (e *Engine) push(ev *Event) { e.pushItem(heapItem{at: ev.At, seq: ev.seq, ev: ev}) }

func (e *Engine) pushItem(it heapItem) {
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

// ring is a growable FIFO: the current-time events (of *Event) and each
// lane's waiting items (of laneItem). Its size is a power of two.
type ring[T any] struct {
	buf        []T
	head, size int
}

func (r *ring[T]) len() int { return r.size }

func (r *ring[T]) push(x T) {
	if r.size == len(r.buf) {
		nb := make([]T, max(16, 2*len(r.buf)))
		for i := 0; i < r.size; i++ {
			nb[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
		}
		r.buf, r.head = nb, 0
	}
	r.buf[(r.head+r.size)&(len(r.buf)-1)] = x
	r.size++
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
