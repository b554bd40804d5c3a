package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// laneWorkload: each event, when it fires, schedules up to two more: one
// with a delay from a small set (through a lane when lanes is true, else
// with After), one with a random delay (a timer, some of them cancelled
// later; lane events cannot be), and stops at total events. It records the firing order.
type laneWorkload struct {
	e      *Engine
	rng    *rand.Rand
	lanes  bool
	delays []Time
	got    []int64
	next   int64
	total  int64
	timers []Timer
}

// workloadKind fires a laneWorkload's lane events as its timers fire.
var workloadKind = &LaneKind{}

// A lane event's number travels in its data, a pointer to the number.
func init() {
	workloadKind.Fire = func(t, d unsafe.Pointer) { (*laneWorkload)(t).fire(*(*int64)(d)) }
	benchKind.Fire = func(t, d unsafe.Pointer) { (*laneBench)(t).fire((*int64)(d)) }
}

func (w *laneWorkload) HandleEvent(ev *Event) { w.fire(ev.N) }

func (w *laneWorkload) fire(n int64) {
	w.got = append(w.got, n)
	if w.next >= w.total {
		return
	}
	d := w.delays[w.rng.IntN(len(w.delays))]
	w.next++
	if w.lanes {
		n := w.next
		w.e.PostLane(w.e.Lane(d, workloadKind), unsafe.Pointer(w), unsafe.Pointer(&n))
	} else {
		w.e.After(d, w, 0, w.next, nil)
	}
	if w.rng.IntN(3) == 0 {
		w.next++
		w.timers = append(w.timers, w.e.After(Time(w.rng.IntN(5000)), w, 0, w.next, nil))
	}
	if w.rng.IntN(7) == 0 && len(w.timers) > 0 {
		w.e.Cancel(w.timers[w.rng.IntN(len(w.timers))])
	}
}

// TestLanesKeepOrder: events scheduled through lanes fire in exactly the
// order they fire when scheduled with After (time, then insertion order),
// cancellations included, and a run stopped at a time and resumed gives
// the same sequence.
func TestLanesKeepOrder(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		var orders [2][]int64
		for i, lanes := range []bool{false, true} {
			e := NewEngine(seed)
			w := &laneWorkload{e: e, rng: rand.New(rand.NewPCG(seed, 7)), lanes: lanes,
				delays: []Time{1000, 500, 1000, 335, 7}, total: 20000}
			for k := 0; k < 50; k++ {
				w.next++
				e.Schedule(Time(k*13), w, 0, w.next, nil)
			}
			for at := Time(100_000); e.Pending() > 0; at += 100_000 {
				e.Run(at, nil)
			}
			orders[i] = w.got
		}
		if !slices.Equal(orders[0], orders[1]) {
			t.Fatalf("seed %d: lanes change the order (%d and %d events)", seed, len(orders[0]), len(orders[1]))
		}
	}
}

// BenchmarkEngineLanes is BenchmarkEngine's workload with delays from a
// few fixed values, through lanes.
func BenchmarkEngineLanes(b *testing.B) {
	e := NewEngine(1)
	delays := []Time{1000, 500, 335}
	h := &laneBench{e: e}
	for i, d := range delays {
		h.lanes[i] = e.Lane(d, benchKind) // found once, as models keep theirs
	}
	for i := range h.ns {
		h.ns[i] = int64(i)
		e.PostLane(h.lanes[i%3], unsafe.Pointer(h), unsafe.Pointer(&h.ns[i]))
	}
	b.ResetTimer()
	h.left = b.N
	e.Run(Never, nil)
}

// BenchmarkEngineHandOver is BenchmarkEngineLanes's workload with every
// event handed over (Engine.HandOver, a frame's arrival), windows of the
// smallest delay: what the tie rule costs an event on one engine.
func BenchmarkEngineHandOver(b *testing.B) {
	e := NewEngine(1)
	delays := []Time{1000, 500, 335}
	h := &laneBench{e: e, handOver: true}
	for i, d := range delays {
		h.lanes[i] = e.Lane(d, benchKind)
	}
	e.SetLookahead(335)
	for i := range h.ns {
		h.ns[i] = int64(i)
		e.HandOver(h.lanes[i%3], uint32(i%64), unsafe.Pointer(h), unsafe.Pointer(&h.ns[i]))
	}
	b.ResetTimer()
	h.left = b.N
	e.Run(Never, nil)
}

type laneBench struct {
	handOver bool
	e        *Engine
	lanes    [3]*Lane
	left     int
	ns       [1024]int64 // the events' numbers, their data
}

var benchKind = &LaneKind{}

func (h *laneBench) fire(n *int64) {
	if h.left <= 0 {
		return
	}
	h.left--
	if h.handOver {
		h.e.HandOver(h.lanes[*n%3], uint32(*n%64), unsafe.Pointer(h), unsafe.Pointer(n))
		return
	}
	h.e.PostLane(h.lanes[*n%3], unsafe.Pointer(h), unsafe.Pointer(n))
}

// TestEventIsOneCacheLine: an event is 64 bytes, so that firing one loads
// one cache line, and a lane event half of one.
func TestEventIsOneCacheLine(t *testing.T) {
	if size := unsafe.Sizeof(laneItem{}); size != 32 {
		t.Errorf("laneItem is %d bytes, want 32", size)
	}
	if size := unsafe.Sizeof(Event{}); size != 64 {
		t.Errorf("Event is %d bytes, want 64", size)
	}
	// A lane is found from a lane head's index by a shift, and a lane
	// head moves in a sift as two words (lane.go).
	if size := unsafe.Sizeof(Lane{}); size != 64 {
		t.Errorf("Lane is %d bytes, want 64", size)
	}
	if size := unsafe.Sizeof(laneHead{}); size != 16 {
		t.Errorf("laneHead is %d bytes, want 16", size)
	}
	if MaxLanes > 1<<laneBits {
		t.Errorf("MaxLanes (%d) does not fit a lane head's %d bits of index", MaxLanes, laneBits)
	}
}

// TestLanesAreBounded: an engine makes at most MaxLanes lanes, one per
// delay and kind; later ones get none (their callers use the heap), and a
// delay and kind that has a lane keeps it.
func TestLanesAreBounded(t *testing.T) {
	e := NewEngine(1)
	other := &LaneKind{}
	for d := Time(1); d <= MaxLanes/2; d++ {
		if e.Lane(d, benchKind) == nil || e.Lane(d, other) == nil {
			t.Fatalf("no lane for delay %d of %d", d, MaxLanes/2)
		}
	}
	if e.Lane(3, benchKind) == e.Lane(3, other) {
		t.Errorf("two kinds share a lane")
	}
	if l := e.Lane(MaxLanes+1, benchKind); l != nil {
		t.Errorf("lane made past MaxLanes")
	}
	if l := e.Lane(7, other); l == nil || l.Delay() != 7 {
		t.Errorf("delay 7 lost its lane")
	}
}
