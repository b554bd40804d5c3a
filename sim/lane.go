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
// Lanes suit events that are rarely cancelled: a cancelled lane event
// stays in its lane until it reaches the head (and counts toward the
// heap's compaction as if it were in the heap).
type Lane struct {
	delay Time
	q     itemRing // keys beside the events, so that firing the head need not load the next event
}

// Delay returns the lane's delay.
func (l *Lane) Delay() Time { return l.delay }

// Lane returns the engine's lane for events delay after now, making it on
// first use. delay must be above 0 (events at the current time have their
// own FIFO already).
func (e *Engine) Lane(delay Time) *Lane {
	if delay <= 0 {
		panic("sim: a lane's delay must be above 0")
	}
	if l := e.lanes[delay]; l != nil {
		return l
	}
	if e.lanes == nil {
		e.lanes = map[Time]*Lane{}
	}
	l := &Lane{delay: delay}
	e.lanes[delay] = l
	return l
}

// AfterLane schedules an event l's delay after now, as After would.
func (e *Engine) AfterLane(l *Lane, h Handler, kind int32, n int64, data any) Timer {
	ev := e.alloc()
	ev.At, ev.H, ev.Kind, ev.N, ev.Data = e.now+l.delay, h, kind, n, data
	ev.seq = e.seq
	e.seq++
	it := heapItem{at: ev.At, seq: ev.seq, ev: ev, lane: l}
	l.q.push(it)
	if l.q.size == 1 {
		e.pushItem(it)
	} else {
		e.laneWaiting++
	}
	return Timer{ev: ev, gen: ev.gen}
}

// itemRing is a growable FIFO of heap items.
type itemRing struct {
	buf        []heapItem
	head, size int
}

func (r *itemRing) push(it heapItem) {
	if r.size == len(r.buf) {
		nb := make([]heapItem, max(64, 2*len(r.buf)))
		for i := 0; i < r.size; i++ {
			nb[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
		}
		r.buf, r.head = nb, 0
	}
	r.buf[(r.head+r.size)&(len(r.buf)-1)] = it
	r.size++
}

func (r *itemRing) peek() heapItem { return r.buf[r.head] }

func (r *itemRing) pop() {
	r.buf[r.head] = heapItem{}
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.size--
}
