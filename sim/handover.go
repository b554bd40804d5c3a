package sim

import (
	"cmp"
	"math/bits"
	"slices"
	"unsafe"
)

// The hand-over: a same-time order that does not depend on how the
// network is cut (DESIGN.md, rule 1; issue 31).
//
// Events between nodes cross links, and a link's frame arrives at least
// the lookahead (the smallest link delay) after it was sent. A
// partitioned run takes advantage of that: each worker runs its own
// nodes up to the end of a window one lookahead long, and the frames
// that crossed between partitions are handed over at the window's end.
// Ordered by the engine's insertion sequence, an arrival handed over
// that way would come after every event its node scheduled during the
// window, where in a one-worker run it would come among them: the two
// runs would break same-time ties differently, and their results would
// differ.
//
// So every run, one worker included, hands every arrival over at the end
// of the window in which it was sent (HandOver): it is staged, and when
// the clock is about to pass the window's end the staged arrivals are
// sorted by (time, the key their sender gave: its port's number) and
// enter their lanes then, with insertion sequences in that order. An
// arrival then fires after the events its node scheduled before the
// window's end and before those scheduled after it, and among same-time
// arrivals in the order of their senders' numbers: neither depends on
// which nodes share a worker. Events that stay in a node (timers, a
// switch's pipeline, a transmission's end) keep the insertion order,
// which within one node is the node's own order.
//
// How the arrivals wait differs, not their order: one Engine alone
// keeps each in its lane's ring behind the lane's items (stageInLane)
// and numbers them where they are (flushLanes). A Group's engine does
// the same with its own arrivals; another partition's come in at the
// window's end into lanes of their own, one a sending partition
// (LaneFrom, stageHandedOver), and are numbered with them. Only what
// cannot go in that way (an event handed over, an arrival into a lane
// several partitions share) makes the engine keep them in a list and
// sort it (flushStaged), as Group engines all did before issue 50.
//
// The windows are [kL, (k+1)L) for the lookahead L: the same for every
// worker count. An arrival sent in one is due at or after the next one
// begins, since its delay is at least L, so staging it never delays it.

// stagedItem is an arrival waiting for its window's end: its lane item,
// with its order key where the sequence will go.
type stagedItem struct {
	at     Time
	key    uint64 // the sender's key, its place among the staged, the lane's index (stagedKey)
	target unsafe.Pointer
	data   unsafe.Pointer
}

// stagedKey orders the arrivals due at the same time: by the sender's key
// (32 bits), then by the order they were staged in (26 bits, so that
// items of one sender keep theirs and every key is unique, which lets an
// unstable sort give one answer), with the lane's index below
// (laneBits). A window's staged arrivals number fewer than 2^26 (67
// million; HandOver panics beyond).
func stagedKey(sender uint32, place int, lane uint32) uint64 {
	return uint64(sender)<<32 | uint64(place)<<laneBits | uint64(lane)
}

const maxStaged = 1 << (32 - laneBits)

// SetLookahead turns the hand-over on for windows of l (the smallest
// delay of the lanes given to HandOver), or off with 0. It is set before
// the first event is scheduled.
func (e *Engine) SetLookahead(l Time) {
	if l < 0 {
		panic("sim: a negative lookahead")
	}
	e.lookahead = l
	e.boundary = Never
	if l > 0 && e.group == nil {
		e.boundary = e.windowEnd(e.now)
	}
	e.settleHorizon()
}

// Lookahead returns the windows' length, or 0 when arrivals are not
// handed over.
func (e *Engine) Lookahead() Time { return e.lookahead }

// windowEnd is the end of the window that holds t.
func (e *Engine) windowEnd(t Time) Time { return (t/e.lookahead + 1) * e.lookahead }

// HandOver schedules an event l's delay after now, as PostLane does, for
// an event that crosses from one node to another (a frame's arrival over
// a link): with a lookahead it is staged until the end of the window,
// and then ordered among the window's arrivals by key (the sending
// port's number); arrivals of the same time and key keep the order they
// were sent in (an InfiniBand port sends its flow-control packets in no
// time, beside its frames). l's delay must be at least the lookahead.
func (e *Engine) HandOver(l *Lane, key uint32, target, data unsafe.Pointer) {
	if e.lookahead == 0 {
		e.PostLane(l, target, data)
		return
	}
	// The place is counted over the window's staged arrivals of every
	// partition the sender's engine sends to: for one sender they rise
	// in the order it sent them, which is all the key needs. In a Group,
	// an arrival for one of this engine's own lanes waits in it as on
	// one engine; one for another partition waits in this engine's
	// outbox, and that partition puts it in the lane made for this
	// one's arrivals (LaneFrom, takeHandedOver).
	if e.group == nil || l.eng == e && e.laneFrom[l.index] == int32(e.part) {
		e.stageInLane(l, key, target, data)
		return
	}
	e.stage(l.eng, stagedItem{at: e.now + l.delay, key: stagedKey(key, e.nStaged, uint32(l.index)), target: target, data: data})
}

// stageInLane is HandOver on one Engine alone: the arrival waits in its
// lane's ring, behind the lane's items (staged), with its staged key,
// until the window's end, where flushLanes gives it its order. A lane's
// arrivals all wait its delay, so they are staged in time order; those
// of one time are kept in key order as they come (one walks back past
// the same-time ones with greater keys, which are usually few: a port's
// frames go out in order, and ports tend to send at one instant in the
// order of their own arrivals; past maxStagedWalk of them the lane is
// sorted at the window's end instead). This puts each arrival in place once,
// where staging them apart and sorting them at the window's end
// copied each twice and sorted them (docs/PERFORMANCE.md: the
// hand-over's cost, issue 31).
func (e *Engine) stageInLane(l *Lane, key uint32, target, data unsafe.Pointer) {
	place := e.nStaged
	if e.nStaged++; e.nStaged > maxStaged {
		panic("sim: more than 2^26 arrivals in one window")
	}
	at := e.now + l.delay
	e.sentMin = min(e.sentMin, at)
	e.senderMax = max(e.senderMax, key)
	k := stagedKey(key, place, uint32(l.index))
	q := &l.q
	n := q.size + int(l.staged)
	if n == q.mask+1 {
		q.expandTo(n)
	}
	if l.staged == 0 {
		e.stagedLanes |= 1 << l.index
	}
	l.staged++
	i := q.head + n
	if e.unsortedLanes&(1<<l.index) == 0 {
		for j, w := l.staged-1, 0; j > 0; j, w = j-1, w+1 {
			prev := q.slot(i - 1)
			if prev.at != at || prev.key < k {
				break
			}
			if w == maxStagedWalk {
				e.unsortedLanes |= 1 << l.index
				break
			}
			*q.slot(i) = *prev
			i--
		}
	}
	it := q.slot(i)
	it.at, it.key, it.target, it.data = at, k, target, data
}

// stageHandedOver puts it, an arrival that partition from handed over
// to this engine, in its lane's staged arrivals as stageInLane would
// have on from's engine, and reports whether it could: the lane takes
// from's arrivals alone (LaneFrom) and it is not earlier than the last
// staged there. Otherwise it waits among the staged items, sorted at
// the flush.
func (e *Engine) stageHandedOver(it *stagedItem, from int) bool {
	index := it.key & (1<<laneBits - 1)
	l := &e.laneArr[index]
	if e.laneFrom[index] != int32(from) || it.data == unsafe.Pointer(&eventMark) {
		return false
	}
	q := &l.q
	n := q.size + int(l.staged)
	if l.staged > 0 && q.slot(q.head+n-1).at > it.at {
		return false
	}
	// nStaged, whose bits flushLanes gives the places, then holds its
	// place too (its window's own arrivals are all staged already).
	e.nStaged = max(e.nStaged, stagedPlace(it.key)+1)
	e.senderMax = max(e.senderMax, uint32(it.key>>32))
	if n == q.mask+1 {
		q.expandTo(n)
	}
	if l.staged == 0 {
		e.stagedLanes |= 1 << l.index
	}
	l.staged++
	i := q.head + n
	if e.unsortedLanes&(1<<l.index) == 0 {
		for j, w := l.staged-1, 0; j > 0; j, w = j-1, w+1 {
			prev := q.slot(i - 1)
			if prev.at != it.at || prev.key < it.key {
				break
			}
			if w == maxStagedWalk {
				e.unsortedLanes |= 1 << l.index
				break
			}
			*q.slot(i) = *prev
			i--
		}
	}
	*q.slot(i) = laneItem(*it)
	return true
}

// maxStagedWalk bounds stageInLane's walk back past the same-time
// arrivals with greater keys. Beyond it the lane's staged arrivals are
// left out of order and sorted once at the window's end (sortLaneStaged):
// in a fabric whose hosts send in step (a permutation started at one
// instant) thousands of arrivals share a time and a lane, and the walk
// grew with their number squared: 2,230 instructions a packet-hop at
// k=32 against 108 at k=8 (docs/PERFORMANCE.md, a hop's cost against the
// fabric's size, issue 50).
const maxStagedWalk = 128

// sortLaneStaged puts lane l's staged arrivals, which stageInLane left
// out of order, in order of time and key, as its walk would have. They
// are in time order already; each time's keys are sorted as integers
// (unique: a key holds its arrival's place among the window's staged,
// by which the arrival is found again), which costs about half what a
// sort of the 32-byte items by a comparison function does.
func (e *Engine) sortLaneStaged(l *Lane) {
	q := &l.q
	n := int(l.staged)
	buf, keys := e.laneScratch[:0], e.keyScratch[:0]
	pmin, pmax := maxStaged, 0
	for j := q.size; j < q.size+n; j++ {
		it := *q.slot(q.head + j)
		buf = append(buf, it)
		keys = append(keys, it.key)
		p := stagedPlace(it.key)
		pmin, pmax = min(pmin, p), max(pmax, p)
	}
	pos := slices.Grow(e.posScratch[:0], pmax-pmin+1)[:pmax-pmin+1]
	for i := range buf {
		pos[stagedPlace(buf[i].key)-pmin] = int32(i)
	}
	for s := 0; s < n; {
		end := s + 1
		for end < n && buf[end].at == buf[s].at {
			end++
		}
		slices.Sort(keys[s:end])
		s = end
	}
	for j, k := range keys {
		*q.slot(q.head + q.size + j) = buf[pos[stagedPlace(k)-pmin]]
	}
	e.laneScratch, e.keyScratch, e.posScratch = buf[:0], keys[:0], pos[:0]
}

// stagedPlace is the place among the window's staged arrivals that
// stagedKey put in key.
func stagedPlace(key uint64) int {
	return int(key>>laneBits) & (maxStaged - 1)
}

// stage keeps it, an arrival for engine to (this one, or another of its
// Group), until the window's end, and counts it among the window's.
func (e *Engine) stage(to *Engine, it stagedItem) {
	if e.nStaged++; e.nStaged > maxStaged {
		panic("sim: more than 2^26 arrivals in one window")
	}
	e.sentMin = min(e.sentMin, it.at)
	if to != e { // another partition's (Group)
		e.outbox[to.part] = append(e.outbox[to.part], it)
		return
	}
	e.staged = append(e.staged, it)
}

// eventMark marks a staged item that is an event (HandOverEvent), whose
// target is a *handed, rather than a lane's item.
var eventMark byte

// handed is an event on its way to another engine: the receiver makes
// an Event of its own from it when it enters (an Event stays with the
// engine that made it, whose Timers may still look at it). One is
// allocated per event handed over; they are rare (a flow's close).
type handed struct {
	h    Handler
	kind int32
	n    int64
	data any
}

// HandOverEvent schedules h.HandleEvent for delay after now on engine to
// (this engine, or another of its Group), handed over as an arrival is:
// for what one node's application tells another's out of band (a
// connection's close), which must take at least the lookahead (delay
// below it panics). It cannot be cancelled. key orders it among the
// arrivals due at the same time, as HandOver's; it must not be a port's
// number: it is at least 2^31 (it panics otherwise), so that an event
// comes after the arrivals of its time that a port sent.
func (e *Engine) HandOverEvent(to *Engine, delay Time, key uint32, h Handler, kind int32, n int64, data any) {
	if e.lookahead == 0 {
		to.Schedule(e.now+delay, h, kind, n, data)
		return
	}
	if delay < e.lookahead {
		panic("sim: an event handed over sooner than the lookahead")
	}
	if key < 1<<31 {
		panic("sim: an event handed over with a port's key (below 2^31)")
	}
	hd := &handed{h: h, kind: kind, n: n, data: data}
	e.stage(to, stagedItem{at: e.now + delay, key: stagedKey(key, e.nStaged, 0), target: unsafe.Pointer(hd), data: unsafe.Pointer(&eventMark)})
}

// crossWindow is called before an event at or after the window's end
// would be chosen: the window's staged arrivals enter their lanes, and
// the window moves to the one the next event is in, or, if that is after
// until (where Run will stop the clock) or there is none, the one until
// or now is in. So the window is always the one the clock will be in
// when the next event fires, even one scheduled from outside the run.
func (e *Engine) crossWindow(until Time) {
	e.flushStaged()
	t := min(e.nextAt(), until)
	if t == Never {
		t = e.now
	}
	e.boundary = e.windowEnd(max(t, e.now))
	e.settleHorizon()
}

// nextAt is the time of the earliest event scheduled (cancelled timers
// included, staged arrivals not).
func (e *Engine) nextAt() Time {
	t := Never
	if e.nowQ.size != 0 {
		return e.now
	}
	if len(e.heap) != 0 {
		t = e.heap[0].at
	}
	if len(e.laneHeads) != 0 {
		t = min(t, e.laneHeads[0].at)
	}
	return t
}

// flushStaged puts the staged arrivals into their lanes in the order of
// (time, key), each with an insertion sequence above every one given
// before and below every one given after, in that order.
func (e *Engine) flushStaged() {
	if e.group != nil && e.stagedLanes != 0 && e.arrivalsStaged() {
		// Arrivals wait among the staged items as well as in lanes (one
		// handed over to a lane it could not go in): all are sorted.
		e.unstageLanes()
	}
	if e.stagedLanes != 0 && !e.flushLanes() {
		if e.renumber(); !e.flushLanes() {
			e.unstageLanes()
		}
	}
	s := e.staged
	e.nStaged, e.sentMin, e.senderMax = 0, Never, 0
	if len(s) == 0 {
		return
	}
	e.sortStaged(s)
	for i := range s {
		it := &s[i]
		if it.data == unsafe.Pointer(&eventMark) {
			hd := (*handed)(it.target)
			ev := e.alloc()
			ev.At, ev.H, ev.Kind, ev.N, ev.Data = it.at, hd.h, hd.kind, hd.n, hd.data
			ev.seq = e.seq
			e.seq++
			e.push(ev)
			e.horizon = min(e.horizon, ev.At)
			continue
		}
		l := &e.laneArr[it.key&(1<<laneBits-1)]
		q := &l.q
		if q.full() {
			q.expand()
		}
		slot := q.slot(q.head + q.size)
		q.size++
		key := e.seq<<laneBits | uint64(l.index)
		e.seq++
		slot.at, slot.key, slot.target, slot.data = it.at, key, it.target, it.data
		if q.size == 1 {
			e.pushLaneHead(laneHead{at: it.at, key: key})
		} else {
			e.laneWaiting++
		}
	}
	clear(s) // what the items point to is the lanes' now
	e.staged = s[:0]
}

// flushLanes gives the arrivals staged in lanes (stageInLane) their
// insertion sequences, where they are, and makes them the lanes' items.
// Only arrivals of the same time are ever compared by sequence, and
// those of one lane are already in key order, so the sequences need not
// be consecutive: an arrival whose key has sender s and place p (below
// 2^b, b enough bits for the window's places) gets seq + s<<b + p, and
// the window takes the block of (largest sender + 1)<<b sequences. The
// order is the one sorting every staged arrival by (time, key) and
// numbering them in turn would give, without the sort. It returns false,
// and changes nothing, when the block would take the sequences past
// 2^56: a k=32 fat tree's windows take up to about 2^31 sequences each
// (50,000 ports, 2^15 places), so after some 2^25 windows (33 ms
// simulated with 1 us links). The pending events are then numbered
// again from 0 (renumber), and the window tried again; if it still does
// not fit (a sender's key of 2^31 or more), unstageLanes falls back to
// the sort.
func (e *Engine) flushLanes() bool {
	b := uint(bits.Len(uint(e.nStaged)))
	block := (uint64(e.senderMax) + 1) << b
	if e.senderMax >= 1<<31 || e.seq+block+uint64(len(e.staged)) >= 1<<56 {
		return false
	}
	base := e.seq
	for m := e.stagedLanes; m != 0; m &= m - 1 {
		l := &e.laneArr[bits.TrailingZeros64(m)]
		if e.unsortedLanes&(1<<l.index) != 0 {
			e.sortLaneStaged(l)
		}
		q := &l.q
		n := int(l.staged)
		for j := q.size; j < q.size+n; j++ {
			it := q.slot(q.head + j)
			u := it.key >> laneBits
			it.key = (base+(u>>(32-laneBits))<<b+u&(maxStaged-1))<<laneBits | uint64(l.index)
		}
		if q.size == 0 {
			it := q.slot(q.head)
			e.pushLaneHead(laneHead{at: it.at, key: it.key})
			e.laneWaiting += n - 1
		} else {
			e.laneWaiting += n
		}
		q.size += n
		l.staged = 0
	}
	e.stagedLanes = 0
	e.unsortedLanes = 0
	e.seq = base + block
	return true
}

// renumber gives every pending event (timers, current-time events and
// lane items; staged arrivals have no sequence yet) a sequence from 0 in
// the order of the ones they had, so that a long run's sequences, spent
// by flushLanes's blocks, start low again. Only the order of sequences
// matters, so nothing fires differently. It costs a sort of the pending
// events, once in some 2^25 windows at most.
func (e *Engine) renumber() {
	var seqs []uint64
	for _, it := range e.heap {
		seqs = append(seqs, it.seq)
	}
	for i := 0; i < e.nowQ.size; i++ {
		seqs = append(seqs, e.nowQ.buf[(e.nowQ.head+i)&(len(e.nowQ.buf)-1)].seq)
	}
	for i := 0; i < e.nLanes; i++ {
		q := &e.laneArr[i].q
		for j := 0; j < q.size; j++ {
			seqs = append(seqs, q.slot(q.head+j).key>>laneBits)
		}
	}
	slices.Sort(seqs)
	seqs = slices.Compact(seqs)
	to := func(old uint64) uint64 {
		i, _ := slices.BinarySearch(seqs, old)
		return uint64(i)
	}
	for i := range e.heap {
		it := &e.heap[i]
		it.seq = to(it.seq)
		it.ev.seq = it.seq
	}
	for i := 0; i < e.nowQ.size; i++ {
		ev := e.nowQ.buf[(e.nowQ.head+i)&(len(e.nowQ.buf)-1)]
		ev.seq = to(ev.seq)
	}
	for i := 0; i < e.nLanes; i++ {
		q := &e.laneArr[i].q
		for j := 0; j < q.size; j++ {
			it := q.slot(q.head + j)
			it.key = to(it.key>>laneBits)<<laneBits | it.key&(1<<laneBits-1)
		}
	}
	for i := range e.laneHeads {
		h := &e.laneHeads[i]
		h.key = to(h.key>>laneBits)<<laneBits | h.key&(1<<laneBits-1)
	}
	e.seq = uint64(len(seqs))
}

// arrivalsStaged reports whether a lane's arrival (not a handed-over
// event) waits among the staged items.
func (e *Engine) arrivalsStaged() bool {
	for i := range e.staged {
		if e.staged[i].data != unsafe.Pointer(&eventMark) {
			return true
		}
	}
	return false
}

// unstageLanes moves the arrivals staged in lanes among the others
// (staged), for flushStaged's sort.
func (e *Engine) unstageLanes() {
	for m := e.stagedLanes; m != 0; m &= m - 1 {
		l := &e.laneArr[bits.TrailingZeros64(m)]
		q := &l.q
		for j := q.size; j < q.size+int(l.staged); j++ {
			e.staged = append(e.staged, stagedItem(*q.slot(q.head + j)))
		}
		l.staged = 0
	}
	e.stagedLanes = 0
	e.unsortedLanes = 0 // sortStaged sorts each time's arrivals by key
}

// sortStaged orders a window's arrivals by (time, key). They come in
// runs already in time order (one lane's, as they were sent; in a Group,
// each partition's sent to this one), so the runs are merged by time
// and then each group of the same time sorted by key (in a fabric of
// equal links and frames most arrivals share their time with others).
// Keys are unique (stagedKey), so the order is one.
func (e *Engine) sortStaged(s []stagedItem) {
	runs := append(e.runs[:0], 0)
	for i := 1; i < len(s); i++ {
		if s[i].at < s[i-1].at {
			runs = append(runs, i)
		}
	}
	e.runs = runs
	switch {
	case len(runs) > 64:
		slices.SortFunc(s, cmpStaged)
		return
	case len(runs) > 1:
		e.mergeRuns(s, runs)
	}
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j].at == s[i].at {
			j++
		}
		if run := s[i:j]; len(run) <= 16 {
			insertionSortStaged(run)
		} else {
			slices.SortFunc(run, cmpStagedKey)
		}
		i = j
	}
}

// mergeRuns merges s's runs in time order (starting at the indexes runs)
// pairwise, until s is in time order.
func (e *Engine) mergeRuns(s []stagedItem, runs []int) {
	if cap(e.mergeBuf) < len(s) {
		e.mergeBuf = make([]stagedItem, len(s))
	}
	src, dst := s, e.mergeBuf[:len(s)]
	for len(runs) > 1 {
		next := runs[:0]
		for i := 0; i < len(runs); i += 2 {
			lo, mid, hi := runs[i], len(s), len(s)
			if i+1 < len(runs) {
				mid = runs[i+1]
			}
			if i+2 < len(runs) {
				hi = runs[i+2]
			}
			a, b, out := src[lo:mid], src[mid:hi], dst[lo:lo]
			for len(a) > 0 && len(b) > 0 {
				if b[0].at < a[0].at {
					out, b = append(out, b[0]), b[1:]
				} else {
					out, a = append(out, a[0]), a[1:]
				}
			}
			_ = append(append(out, a...), b...) // into dst[lo:hi], in place
			next = append(next, lo)
		}
		runs = next
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
	clear(e.mergeBuf)
}

func cmpStaged(a, b stagedItem) int {
	if a.at != b.at {
		return cmp.Compare(a.at, b.at)
	}
	return cmp.Compare(a.key, b.key)
}

func cmpStagedKey(a, b stagedItem) int { return cmp.Compare(a.key, b.key) }

// insertionSortStaged sorts a short run of one time by key.
func insertionSortStaged(s []stagedItem) {
	for i := 1; i < len(s); i++ {
		x := s[i]
		j := i
		for j > 0 && s[j-1].key > x.key {
			s[j] = s[j-1]
			j--
		}
		s[j] = x
	}
}

// NextAt returns when the earliest event still to fire is due, arrivals
// staged for the window's end included (and, in a Group, those sent to
// other partitions), or Never when none is. Cancelled timers do not
// count: those at the top of the queue are dropped first. Whether one is
// still there depends on when its engine last compacted its queue, which
// depends on every timer the engine holds, so a run cut differently
// would otherwise see a different next event: an observer's point, or
// the sample a run takes when nothing is left (assembly's drive).
func (e *Engine) NextAt() Time {
	if len(e.heap) != 0 && e.heap[0].ev.H == nil {
		for len(e.heap) != 0 && e.heap[0].ev.H == nil {
			ev := e.pop()
			if e.dead > 0 {
				e.dead--
			}
			e.recycle(ev)
		}
		e.settleHorizon()
	}
	return min(e.nextAt(), e.sentMin)
}

// AdvanceTo moves the clock to t, which no event still to fire may
// precede: a run stopped before t (Run(t-1)) is then at t, where an
// observer looks at it.
func (e *Engine) AdvanceTo(t Time) {
	if t < e.now {
		return
	}
	if e.NextAt() < t {
		panic("sim: the clock moved past an event")
	}
	e.now = t
}
