package sim

import "unsafe"

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
	index uint64 // in the engine's laneArr, below MaxLanes
	q     laneRing
	_     [8]byte // 64 bytes: a lane is found from its index by a shift
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
	if e.nLanes >= MaxLanes {
		return nil
	}
	if e.lanes == nil {
		e.lanes = map[Time]*Lane{}
	}
	l := &e.laneArr[e.nLanes]
	l.delay, l.index = delay, uint64(e.nLanes)
	e.nLanes++
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
	it := q.slot(q.head + q.size)
	q.size++
	at, key := e.now+l.delay, e.seq<<laneBits|l.index
	it.at, it.key, it.h, it.data, it.n, it.kind, it.unread = at, key, h, data, n, kind, unread
	e.seq++
	if q.size == 1 {
		e.pushLaneHead(laneHead{at: at, key: key})
	} else {
		e.laneWaiting++
	}
}

// laneHead is a nonempty lane's place among the lane heads: its head's
// sort key, kept beside the lane so that sifting reads no lane. The key
// is the head's insertion order (seq) above the lane's index: seqs are
// unique, so comparing keys compares seqs, and the lane comes with the
// comparison. 16 bytes and no pointer, so that moving one in a sift is two
// words with no write barrier. (A seq needs 64 - laneBits = 58 bits:
// 2.9e17 events, decades of simulating at a billion a second.)
type laneHead struct {
	at  Time
	key uint64
}

// laneBits is the bits of a laneHead's key that hold the lane's index.
const laneBits = 6

func (a *laneHead) before(b *laneHead) bool { return earlier(a.at, a.key, b.at, b.key) }

// seq is the head's insertion order.
func (a *laneHead) seq() uint64 { return a.key >> laneBits }

// lane returns the lane whose head a is.
func (e *Engine) lane(a *laneHead) *Lane { return &e.laneArr[a.key&(MaxLanes-1)] }

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

// siftLaneHeads restores the lane heads' heap below the top. The keys
// are compared as scalars in registers, not through before's pointers,
// which kept the moving head in memory: a level costs about 25
// instructions rather than 40 (docs/PERFORMANCE.md, eleventh round).
func (e *Engine) siftLaneHeads() {
	h := e.laneHeads
	n := uint(len(h))
	if n == 0 {
		return
	}
	xat, xkey := h[0].at, h[0].key
	i := uint(0)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		cat, ckey := h[c].at, h[c].key
		if d := c + 1; d < n {
			if dat, dkey := h[d].at, h[d].key; dat < cat || dat == cat && dkey < ckey {
				c, cat, ckey = d, dat, dkey
			}
		}
		if xat < cat || xat == cat && xkey < ckey {
			break
		}
		h[i] = laneHead{at: cat, key: ckey}
		i = c
	}
	h[i] = laneHead{at: xat, key: xkey}
}

// popLane fires the head of the earliest lane: the event is handed over
// in the engine's scratch Event, its handler in scratchH (not in the
// Event's H, which would cost a conversion between interface types per
// event; Run calls it), and the lane's next event, if any, takes
// its place among the lane heads (one sift instead of a pop and a push).
func (e *Engine) popLane() *Event {
	top := &e.laneHeads[0]
	q := &e.lane(top).q
	it := q.slot(q.head)
	ev := &e.scratch
	ev.At, ev.Data, ev.N, ev.Kind = it.at, it.data, it.n, it.kind
	e.scratchH = it.h
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.size--
	if q.size == 0 {
		n := len(e.laneHeads) - 1
		e.laneHeads[0] = e.laneHeads[n]
		e.laneHeads[n] = laneHead{}
		e.laneHeads = e.laneHeads[:n]
	} else {
		next := q.slot(q.head)
		top.at, top.key = next.at, next.key
		e.laneWaiting--
		prefetchRing(q.slot(q.head + laneAhead))
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
	key    uint64 // its insertion order and lane, as laneHead's key
	h      LaneHandler
	data   any
	n      int64
	kind   int32
	unread bool // posted with PostLaneUnread: data is not prefetched
}

// laneRing is a lane's FIFO of waiting items, a ring whose size is a
// power of two (16 items at first). A fired item's slot is not cleared
// (Engine.PostLane).
type laneRing struct {
	buf        []laneItem
	head, size int
}

// slot returns the item at index i of the ring, i taken modulo its size,
// without a bounds check: the mask keeps i inside the buffer, and the
// engine asks only for slots of a ring that has one (a lane with items,
// or a post after expand). The checks cost about 18 instructions a lane
// event in hpcc-320 (docs/PERFORMANCE.md, eleventh round).
func (r *laneRing) slot(i int) *laneItem {
	return (*laneItem)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(r.buf)), uintptr(i&(len(r.buf)-1))*unsafe.Sizeof(laneItem{})))
}

// expand doubles a full ring's buffer.
func (r *laneRing) expand() {
	nb := make([]laneItem, max(16, 2*len(r.buf)))
	for i := 0; i < r.size; i++ {
		nb[i] = *r.slot(r.head + i)
	}
	r.buf, r.head = nb, 0
}
