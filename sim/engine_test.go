package sim

import (
	"container/heap"
	"math/rand/v2"
	"slices"
	"testing"
)

type recorder struct {
	e   *Engine
	got []int64
}

func (r *recorder) HandleEvent(ev *Event) { r.got = append(r.got, ev.N) }

func TestEngineOrderAndTies(t *testing.T) {
	e := NewEngine(1)
	r := &recorder{e: e}
	// Same time: insertion order. Earlier time first regardless of order.
	e.Schedule(5, r, 0, 3, nil)
	e.Schedule(5, r, 0, 4, nil)
	e.Schedule(1, r, 0, 1, nil)
	e.Schedule(3, r, 0, 2, nil)
	e.Run(Never, nil)
	want := []int64{1, 2, 3, 4}
	if len(r.got) != len(want) {
		t.Fatalf("got %v want %v", r.got, want)
	}
	for i := range want {
		if r.got[i] != want[i] {
			t.Fatalf("got %v want %v", r.got, want)
		}
	}
}

// chain schedules, at the current time, one more event from inside a
// handler; it must run after heap events already due at that time.
type chain struct {
	e   *Engine
	got []int64
}

func (c *chain) HandleEvent(ev *Event) {
	c.got = append(c.got, ev.N)
	if ev.N == 1 {
		c.e.Schedule(c.e.Now(), c, 0, 3, nil)
	}
}

func TestEngineCurrentTimeFIFOAfterHeap(t *testing.T) {
	e := NewEngine(1)
	c := &chain{e: e}
	e.Schedule(10, c, 0, 1, nil)
	e.Schedule(10, c, 0, 2, nil)
	e.Run(Never, nil)
	if len(c.got) != 3 || c.got[0] != 1 || c.got[1] != 2 || c.got[2] != 3 {
		t.Fatalf("got %v, want [1 2 3]", c.got)
	}
}

func TestEngineCancelAndStaleTimer(t *testing.T) {
	e := NewEngine(1)
	r := &recorder{e: e}
	a := e.Schedule(10, r, 0, 1, nil)
	e.Schedule(20, r, 0, 2, nil)
	if !a.Pending() || a.At() != 10 {
		t.Fatal("timer should be pending at 10")
	}
	if !e.Cancel(a) || e.Cancel(a) {
		t.Fatal("first cancel true, second false")
	}
	e.Run(Never, nil)
	if len(r.got) != 1 || r.got[0] != 2 {
		t.Fatalf("got %v, want [2]", r.got)
	}
	// The cancelled event has been recycled: a new event may reuse it, and
	// the stale handle must not cancel the new one.
	b := e.Schedule(30, r, 0, 3, nil)
	if e.Cancel(a) {
		t.Fatal("stale timer cancelled something")
	}
	e.Run(Never, nil)
	if b.Pending() || len(r.got) != 2 {
		t.Fatalf("got %v", r.got)
	}
	if e.Events() != 2 {
		t.Fatalf("events %d, want 2 (cancelled events are not counted)", e.Events())
	}
}

func TestEngineRunUntilAndCondition(t *testing.T) {
	e := NewEngine(1)
	r := &recorder{e: e}
	for i := int64(1); i <= 10; i++ {
		e.Schedule(Time(i)*Microsecond, r, 0, i, nil)
	}
	e.Run(5*Microsecond, nil)
	if len(r.got) != 5 || e.Now() != 5*Microsecond {
		t.Fatalf("after until: %v at %v", r.got, e.Now())
	}
	e.Run(Never, func() bool { return len(r.got) == 7 })
	if len(r.got) != 7 {
		t.Fatalf("after condition: %v", r.got)
	}
	e.Run(Second, nil)
	if len(r.got) != 10 || e.Now() != Second {
		t.Fatalf("after drain: %v at %v", r.got, e.Now())
	}
	// Progress comes at every multiple of its period in events fired,
	// counted from the engine's start, whenever it was asked for.
	var at []uint64
	start := e.Events()
	e.OnProgress(3, func(_ Time, events uint64) { at = append(at, events) })
	for i := int64(0); i < 10; i++ {
		e.After(Nanosecond, r, 0, i, nil)
	}
	e.Run(Never, nil)
	var want []uint64
	for n := start + 1; n <= start+10; n++ {
		if n%3 == 0 {
			want = append(want, n)
		}
	}
	if !slices.Equal(at, want) {
		t.Fatalf("progress at events %v, want %v (started at %d)", at, want, start)
	}
}

func TestEngineMatchesReferenceOrder(t *testing.T) {
	// Random schedules, including ties and cancellations, against a
	// straightforward sort by (time, insertion).
	rng := rand.New(rand.NewPCG(7, 7))
	e := NewEngine(1)
	r := &recorder{e: e}
	type item struct {
		at  Time
		n   int64
		cut bool
	}
	var items []item
	for i := 0; i < 5000; i++ {
		at := Time(rng.IntN(300))
		tm := e.Schedule(at, r, 0, int64(i), nil)
		cut := rng.IntN(10) == 0
		if cut {
			e.Cancel(tm)
		}
		items = append(items, item{at, int64(i), cut})
	}
	e.Run(Never, nil)
	var want []int64
	for at := Time(0); at < 300; at++ {
		for _, it := range items {
			if it.at == at && !it.cut {
				want = append(want, it.n)
			}
		}
	}
	if len(want) != len(r.got) {
		t.Fatalf("%d events fired, want %d", len(r.got), len(want))
	}
	for i := range want {
		if want[i] != r.got[i] {
			t.Fatalf("event %d: got %d want %d", i, r.got[i], want[i])
		}
	}
}

func TestStreamsAreIndependentAndStable(t *testing.T) {
	a1, a2 := Stream(1, "a"), Stream(1, "a")
	b := Stream(1, "b")
	c := Stream(2, "a")
	x := a1.Uint64()
	if x != a2.Uint64() {
		t.Fatal("same seed and name must give the same stream")
	}
	if x == b.Uint64() || x == c.Uint64() {
		t.Fatal("different names or seeds should give different streams")
	}
}

// self reschedules itself: the steady state of a simulation, where each
// event schedules about one more.
type self struct {
	e   *Engine
	rng *rand.Rand
}

func (s *self) HandleEvent(ev *Event) {
	s.e.After(Time(1+s.rng.IntN(1000))*Nanosecond, s, 0, 0, nil)
}

// BenchmarkEngine measures events per second with 1024 pending events, the
// size of a fabric with about a thousand busy links. Allocations per event
// must be 0.
func BenchmarkEngine(b *testing.B) {
	e := NewEngine(1)
	s := &self{e: e, rng: rand.New(rand.NewPCG(1, 2))}
	for i := 0; i < 1024; i++ {
		e.After(Time(i)*Nanosecond, s, 0, 0, nil)
	}
	e.Run(Millisecond, nil) // warm the free list
	b.ReportAllocs()
	b.ResetTimer()
	start := e.Events()
	target := start + uint64(b.N)
	e.Run(Never, func() bool { return e.Events() >= target })
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// heapEvents is the container/heap baseline the engine must beat.
type heapEvents []*Event

func (h heapEvents) Len() int { return len(h) }
func (h heapEvents) Less(i, j int) bool {
	return h[i].At < h[j].At || (h[i].At == h[j].At && h[i].seq < h[j].seq)
}
func (h heapEvents) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *heapEvents) Push(x any)   { *h = append(*h, x.(*Event)) }
func (h *heapEvents) Pop() any {
	old := *h
	n := len(old) - 1
	x := old[n]
	*h = old[:n]
	return x
}

// BenchmarkContainerHeap runs the same workload as BenchmarkEngine on
// container/heap with the same free list, as the baseline.
func BenchmarkContainerHeap(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := &heapEvents{}
	var seq uint64
	var now Time
	pool := make([]Event, 1024)
	for i := range pool {
		pool[i].At = Time(i) * Nanosecond
		pool[i].seq = seq
		seq++
		heap.Push(h, &pool[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := heap.Pop(h).(*Event)
		now = ev.At
		ev.At = now + Time(1+rng.IntN(1000))*Nanosecond
		ev.seq = seq
		seq++
		heap.Push(h, ev)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// TestRunUntilIgnoresCancelledHead: a cancelled timer due before the stop
// time must not let a later event fire (a bug once let a run stopped at
// 50 ms go on to a 67 ms ACK timeout).
func TestRunUntilIgnoresCancelledHead(t *testing.T) {
	e := NewEngine(1)
	r := &recorder{e: e}
	early := e.Schedule(10, r, 0, 1, nil)
	e.Schedule(100, r, 0, 2, nil)
	e.Cancel(early)
	e.Run(50, nil)
	if len(r.got) != 0 || e.Now() != 50 {
		t.Fatalf("fired %v, now %v; want nothing fired and now 50", r.got, e.Now())
	}
	e.Run(Never, nil)
	if len(r.got) != 1 || r.got[0] != 2 {
		t.Fatalf("fired %v, want [2]", r.got)
	}
}

// TestRearmedTimerDoesNotGrowTheHeap: a timer rearmed on every ACK
// (cancel, schedule far ahead) must not leave its cancelled events piling
// up in the queue until their far-off times: the heap stays bounded by the
// live events, whatever the number of rearms.
func TestRearmedTimerDoesNotGrowTheHeap(t *testing.T) {
	e := NewEngine(1)
	r := &recorder{e: e}
	var live []Timer
	for i := 0; i < 100; i++ {
		live = append(live, e.Schedule(Second, r, 0, int64(i), nil))
	}
	for k := 0; k < 100000; k++ {
		i := k % len(live)
		e.Cancel(live[i])
		live[i] = e.Schedule(Second+Time(k), r, 0, int64(i), nil)
		if e.Pending() > 1000 {
			t.Fatalf("after %d rearms %d events are pending for 100 live timers", k, e.Pending())
		}
	}
	e.Run(Never, nil)
	if len(r.got) != 100 {
		t.Fatalf("%d timers fired, want 100", len(r.got))
	}
}
