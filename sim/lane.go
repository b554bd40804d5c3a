package sim

import "unsafe"

// A Lane is a FIFO of events of one kind (LaneKind) that all wait the
// same delay after they are scheduled. Since the clock only moves
// forward, such events are scheduled in the order they fire, so the lane
// needs no sorting: only its head sits among the engine's lane heads, and
// firing it puts the next one there. Every link's arrivals (one
// propagation delay) and every switch's pipeline exits (one latency) share
// a lane per delay, so the lane heads are a handful (seven in the k=16
// permutation of docs/PERFORMANCE.md) and firing a lane event costs a
// sift among them, not one through a heap of an entry per busy link or
// per timer; events still fire in exactly the (time, insertion order)
// sequence they would without lanes.
//
// Lane events cannot be cancelled; timers belong in the heap (Schedule,
// After).
type Lane struct {
	delay  Time
	kind   *LaneKind // what its events are
	index  uint16    // in the engine's laneArr, below MaxLanes
	unread bool      // kind.Unread, beside what the lookahead reads
	// staged counts the arrivals handed over into the lane during the
	// window, which wait in its ring behind its items until the
	// window's end (Engine.stageInLane); a lane that is handed over to
	// is never posted to.
	staged uint32
	q      laneRing // 56 bytes so far
	eng    *Engine  // whose lane it is (a Group's engines hand over to each other's); 64 bytes in all: a lane is found from its index by a shift
}

// A LaneKind is what a lane's events are: the function each one fires
// and the one that warms its state ahead. Both are given the event's
// target (the model the event is for, a port or a switch) and its data
// (a packet), as PostLane was. A kind is a static value of the model
// that defines it (fabric's port arrivals, swtch's pipeline exits), made
// once; Fire and Warm convert the pointers back to their types.
//
// Events by kind, not by an interface and an any per event: the lane
// knows its events' functions, so an item is 32 bytes (time, order,
// target, data) instead of 64, the engine calls Fire with the item's
// fields in registers instead of building an Event, and no handler
// switches on a kind or asserts a type. What an event needs to know
// beyond its target and data lies in them (the frame a port is sending,
// the egress port a switch chose for a packet) (docs/PERFORMANCE.md,
// eleventh round).
type LaneKind struct {
	// Fire handles one event.
	Fire func(target, data unsafe.Pointer)
	// Warm is the engine's hint, one event ahead (just before the event
	// before it fires), that the event is next: it asks for the state the
	// event will reach through its target (sim.Prefetch), beyond the
	// target's first three lines and the data's first, which the engine
	// asked for an event earlier still and which it may read. It must
	// change nothing but what is in the caches. Nil: nothing to ask for.
	Warm func(target, data unsafe.Pointer)
	// Unread says that Fire passes data on without reading what it
	// points to (a transmission's end hands its frame to the link): the
	// engine then does not ask for it ahead, which would cost a line the
	// event never touches.
	Unread bool
}

// Delay returns the lane's delay.
func (l *Lane) Delay() Time { return l.delay }

// MaxLanes bounds how many lanes an engine makes: the delays asked for
// first (link delays and pipeline latencies at build time, then the
// transmit times of the common frame sizes) get them, and a delay asked
// for later goes without. Without a bound a run would make a lane for
// every odd frame size it ever sends, and its memory would grow with time.
const MaxLanes = 64

// Lane returns the engine's lane for events of kind delay after now,
// making it on first use, or nil once MaxLanes lanes exist (the caller
// then schedules with After). delay must be above 0 (events at the
// current time have their own FIFO already), and kind not nil. The lanes
// of one delay are found by a map of integer keys, then by kind among the
// few of them.
func (e *Engine) Lane(delay Time, kind *LaneKind) *Lane {
	if delay <= 0 {
		panic("sim: a lane's delay must be above 0")
	}
	same := e.lanes[delay]
	for _, l := range same {
		if l.kind == kind {
			return l
		}
	}
	if e.nLanes >= MaxLanes {
		return nil
	}
	if e.lanes == nil {
		e.lanes = map[Time][]*Lane{}
	}
	l := e.newLane(delay, kind, e.part)
	e.lanes[delay] = append(same, l)
	return l
}

// newLane makes the next lane, for arrivals from partition from.
func (e *Engine) newLane(delay Time, kind *LaneKind, from int) *Lane {
	l := &e.laneArr[e.nLanes]
	l.delay, l.index, l.kind, l.unread, l.eng = delay, uint16(e.nLanes), kind, kind.Unread, e
	l.q.mask = -1
	e.laneFrom[e.nLanes] = int32(from)
	e.nLanes++
	return l
}

// laneSource finds a lane made for another partition's arrivals.
type laneSource struct {
	delay Time
	kind  *LaneKind
	from  int
}

// LaneFrom is Lane for events that engine from hands over to this one
// (HandOver): a link's arrivals, asked of the receiver's engine. In a
// Group, arrivals from another partition get a lane of their own
// (while MaxLanes/2 lanes or fewer exist; then they share Lane's), so
// that takeHandedOver puts them in it in the order they were sent, as
// the lane's own engine stages its own arrivals (stageInLane), with no
// sort. Otherwise (one engine, or from this one) it is Lane.
func (e *Engine) LaneFrom(delay Time, kind *LaneKind, from *Engine) *Lane {
	if e.group == nil || from == nil || from == e || from.group != e.group {
		return e.Lane(delay, kind)
	}
	if delay <= 0 {
		panic("sim: a lane's delay must be above 0")
	}
	k := laneSource{delay, kind, from.part}
	if l, ok := e.fromLanes[k]; ok {
		return l
	}
	if e.nLanes >= MaxLanes/2 {
		return e.Lane(delay, kind)
	}
	if e.fromLanes == nil {
		e.fromLanes = map[laneSource]*Lane{}
	}
	l := e.newLane(delay, kind, from.part)
	e.fromLanes[k] = l
	return l
}

// PostLane schedules an event l's delay after now, as After would, for
// l's kind's Fire(target, data). Lane events cannot be cancelled (so
// PostLane returns no Timer), and they need no Event of their own while
// they wait: the lane keeps their fields in its FIFO, in order. A fired
// item's slot is not cleared until the ring comes round to it again, so
// target and data should outlive the event (models and pooled packets
// do); the lane keeps them reachable until then.
func (e *Engine) PostLane(l *Lane, target, data unsafe.Pointer) {
	// The item is written in place, field by field, and its slot found
	// here, not by a call.
	q := &l.q
	if q.full() {
		q.expand()
	}
	it := q.slot(q.head + q.size)
	q.size++
	at, key := e.now+l.delay, e.seq<<laneBits|uint64(l.index)
	it.at, it.key, it.target, it.data = at, key, target, data
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
func (e *Engine) lane(a *laneHead) *Lane { return &e.laneArr[a.key&(1<<laneBits-1)] }

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

// dropLaneHead takes the top off the lane heads, whose lane has emptied;
// the last takes its place, for Run's check and sift to settle. (Run takes
// a lane's head itself: its lane stays on the heads as long as it has
// items, with the next one's key, which costs one sift instead of a pop
// and a push.)
func (e *Engine) dropLaneHead() {
	k := len(e.laneHeads) - 1
	e.laneHeads[0] = e.laneHeads[k]
	e.laneHeads = e.laneHeads[:k]
}

// laneItem is a waiting lane event: 32 bytes, read in order.
type laneItem struct {
	at     Time
	key    uint64 // its insertion order and lane, as laneHead's key
	target unsafe.Pointer
	data   unsafe.Pointer
}

// laneRing is a lane's FIFO of waiting items, a ring whose size is a
// power of two (16 items at first), kept as the address of its array and
// its mask rather than a slice: a slot is then one and, one shift and
// one add from the index. A fired item's slot is not cleared
// (Engine.PostLane).
type laneRing struct {
	base       unsafe.Pointer // the array of mask+1 items; it keeps the array alive
	mask       int            // its size - 1; -1 before the first item
	head, size int
}

// slot returns the item at index i of the ring, i taken modulo its size,
// without a bounds check: the mask keeps i inside the array, and the
// engine asks only for slots of a ring that has one (a lane with items,
// or a post after expand). The checks cost about 18 instructions a lane
// event in hpcc-320 (docs/PERFORMANCE.md, eleventh round).
func (r *laneRing) slot(i int) *laneItem {
	return (*laneItem)(unsafe.Add(r.base, uintptr(i&r.mask)*unsafe.Sizeof(laneItem{})))
}

// full reports whether the ring has no free slot.
func (r *laneRing) full() bool { return r.size == r.mask+1 }

// expand doubles a full ring's array.
func (r *laneRing) expand() { r.expandTo(r.size) }

// expandTo doubles the array of a ring whose n items from its head (its
// items and the lane's staged arrivals) fill it.
func (r *laneRing) expandTo(n int) {
	nb := make([]laneItem, max(16, 2*(r.mask+1)))
	for i := 0; i < n; i++ {
		nb[i] = *r.slot(r.head + i)
	}
	r.base, r.mask, r.head = unsafe.Pointer(unsafe.SliceData(nb)), len(nb)-1, 0
}
