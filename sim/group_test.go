package sim

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// toyNet is a network of nodes that only meet through links, as
// DESIGN.md's locality rule has it: a node's event logs itself, then by
// its own random stream sends a message over one of its links (an
// arrival handed over, one link delay later) and sets or cancels timers
// of its own, some for the same instant, and now and then an event
// handed over to a neighbour (HandOverEvent). Delays are multiples of 100 ps,
// so that many events share their time (as in a fabric of equal links).
type toyNet struct {
	nodes []*toyNode
}

type toyNode struct {
	id     int
	e      *Engine
	rng    *rand.Rand
	links  []toyLink
	log    []string
	timers []Timer
	sent   int
	budget int
	msgs   []int64
}

type toyLink struct {
	lane *Lane // in the far end's engine
	to   *toyNode
	key  uint32
}

var toyKind = &LaneKind{}

func init() {
	toyKind.Fire = func(t, d unsafe.Pointer) { (*toyNode)(t).fire("msg", *(*int64)(d)) }
}

func (n *toyNode) HandleEvent(ev *Event) {
	if ev.Kind == 1 {
		n.fire("oob", ev.N)
		return
	}
	n.fire("timer", ev.N)
}

func (n *toyNode) fire(what string, id int64) {
	n.log = append(n.log, fmt.Sprintf("%d %s %d", n.e.Now(), what, id))
	if n.budget <= 0 {
		return
	}
	n.budget--
	if n.rng.IntN(4) != 0 {
		l := n.links[n.rng.IntN(len(n.links))]
		n.sent++
		n.msgs = append(n.msgs, int64(n.id)*1_000_000+int64(n.sent))
		n.e.HandOver(l.lane, l.key, unsafe.Pointer(l.to), unsafe.Pointer(&n.msgs[len(n.msgs)-1]))
	}
	if n.rng.IntN(2) == 0 {
		n.sent++
		n.timers = append(n.timers, n.e.After(Time(n.rng.IntN(12))*100, n, 0, int64(n.id)*1_000_000+int64(n.sent), nil))
	}
	if n.rng.IntN(6) == 0 {
		// Out of band, as an application's close: an event handed over.
		l := n.links[n.rng.IntN(len(n.links))]
		n.sent++
		n.e.HandOverEvent(l.to.e, Time(1000+100*n.rng.IntN(4)), 1<<31|uint32(n.id), l.to, 1, int64(n.id)*1_000_000+int64(n.sent), nil)
	}
	if n.rng.IntN(9) == 0 && len(n.timers) > 0 {
		n.e.Cancel(n.timers[n.rng.IntN(len(n.timers))])
	}
}

// newToyNet builds nodes nodes with 3 links each (to random others, with
// delays of 1000, 1500 or 2000 ps), node i on engineOf(i); each link's
// lane is the far end's engine's Lane, which every partition that sends
// there shares (the hand-over sorts what they send), or with
// toyLaneFrom its LaneFrom, one for each partition sending to it (a
// fabric's links).
func newToyNet(seed uint64, nodes int, engineOf func(i int) *Engine) *toyNet {
	return newToyNetLanes(seed, nodes, engineOf, false)
}

func newToyNetLanes(seed uint64, nodes int, engineOf func(i int) *Engine, toyLaneFrom bool) *toyNet {
	t := &toyNet{}
	for i := 0; i < nodes; i++ {
		t.nodes = append(t.nodes, &toyNode{id: i, e: engineOf(i), rng: rand.New(rand.NewPCG(seed, uint64(i))), budget: 400,
			msgs: make([]int64, 0, 1000)})
	}
	r := rand.New(rand.NewPCG(seed, 99))
	for i, n := range t.nodes {
		for k := 0; k < 3; k++ {
			j := r.IntN(nodes - 1)
			if j >= i {
				j++
			}
			to := t.nodes[j]
			delay := Time(1000 + 500*r.IntN(3))
			lane := to.e.Lane(delay, toyKind)
			if toyLaneFrom {
				lane = to.e.LaneFrom(delay, toyKind, n.e)
			}
			n.links = append(n.links, toyLink{lane: lane, to: to, key: uint32(i*3 + k)})
		}
	}
	for i, n := range t.nodes {
		for k := 0; k < 3; k++ {
			n.e.Schedule(Time(r.IntN(5))*100, n, 0, int64(i)*1_000_000-int64(k), nil)
		}
	}
	return t
}

// toyStops are where a run is stopped and resumed, in the test's even
// seeds: inside windows, at a window's start and at its last instant.
var toyStops = []Time{999, 1999, 2000, 5000, 5001, 12345, 12999}

// act is an observer's action at a stop (as a fault at an observation
// point): a node chosen by the time fires, sending and scheduling as in
// any of its events, while no engine runs.
func (t *toyNet) act(at Time) {
	n := t.nodes[int(at)%len(t.nodes)]
	n.fire("act", int64(at))
	for _, l := range n.links { // one message on every link, the shortest's due a lookahead on
		n.sent++
		n.msgs = append(n.msgs, int64(n.id)*1_000_000+int64(n.sent))
		n.e.HandOver(l.lane, l.key, unsafe.Pointer(l.to), unsafe.Pointer(&n.msgs[len(n.msgs)-1]))
	}
}

func (t *toyNet) logs() [][]string {
	var out [][]string
	for _, n := range t.nodes {
		out = append(out, n.log)
	}
	return out
}

// TestGroupMatchesOneEngine: issue 31's determinism, at the engine. The
// toy network's nodes log their events in the same order whether one
// Engine runs them all or a Group of 1, 2, 3 or 8 partitions on 1 or 2
// workers (stopped now and then or not, with a node acting at each stop
// while none runs, as a fault does), with nodes dealt to partitions
// in runs or round robin, and each partition's arrivals in a lane of
// their own (LaneFrom) or in a lane the partitions share (Lane). Without
// the hand-over (one Engine, no lookahead) the order differs: what the
// test compares is not trivially equal.
func TestGroupMatchesOneEngine(t *testing.T) {
	const nodes = 24
	for seed := uint64(1); seed <= 6; seed++ {
		e := NewEngine(seed)
		e.SetLookahead(1000)
		one := newToyNet(seed, nodes, func(int) *Engine { return e })
		if seed%2 == 0 {
			for _, stop := range toyStops {
				e.Run(stop, nil)
				one.act(stop)
			}
		}
		e.Run(Never, nil)
		want := one.logs()
		events := 0
		for _, l := range want {
			events += len(l)
		}
		if events < nodes*300 {
			t.Fatalf("seed %d: %d events, want at least %d", seed, events, nodes*300)
		}

		plain := NewEngine(seed)
		old := newToyNet(seed, nodes, func(int) *Engine { return plain })
		plain.Run(Never, nil)
		if slices.EqualFunc(old.logs(), want, slices.Equal) {
			t.Errorf("seed %d: the order without hand-over is the same; the test cannot fail", seed)
		}

		for _, parts := range []int{1, 2, 3, 8} {
			for _, workers := range []int{1, 2} {
				for _, dealt := range []string{"runs", "round robin", "runs, lanes by sender"} {
					g := NewGroup(seed, parts, workers, 1000)
					net := newToyNetLanes(seed, nodes, func(i int) *Engine {
						if dealt != "round robin" {
							return g.Engine(i * parts / nodes)
						}
						return g.Engine(i % parts)
					}, strings.HasSuffix(dealt, "by sender"))
					if seed%2 == 0 {
						for _, stop := range toyStops {
							g.Run(stop, nil)
							net.act(stop)
						}
					}
					n := g.Run(Never, nil)
					if got := net.logs(); !slices.EqualFunc(got, want, slices.Equal) {
						for i := range got {
							if !slices.Equal(got[i], want[i]) {
								t.Fatalf("seed %d, %d partitions (%s), %d workers: node %d's events differ from one engine's:\n%q\nwant\n%q",
									seed, parts, dealt, workers, i, got[i][:min(len(got[i]), 12)], want[i][:min(len(want[i]), 12)])
							}
						}
					}
					if g.Events() != e.Events() || g.Pending() != 0 || n == 0 {
						t.Errorf("seed %d, %d partitions: %d events (%d pending), one engine %d", seed, parts, g.Events(), g.Pending(), e.Events())
					}
				}
			}
		}
	}
}

// TestGroupEach: Each runs f once for every partition, on as many
// goroutines as the group has workers (partitions w, w+workers, ... on
// worker w), and returns when all have: with 2 workers of 5 partitions,
// two partitions' calls meet (each waits for the other to start), which
// one goroutine running them in turn would never do (it gives up after
// a minute, and fails).
func TestGroupEach(t *testing.T) {
	for _, tc := range []struct{ parts, workers int }{{1, 1}, {5, 1}, {5, 2}, {3, 3}} {
		g := NewGroup(1, tc.parts, tc.workers, 100)
		ran := make([]int, tc.parts)
		var met chan struct{}
		if tc.workers > 1 {
			met = make(chan struct{})
		}
		apart := true
		g.Each(func(i int) {
			ran[i]++ // each partition's own slot
			if met != nil && i < 2 {
				// Partitions 0 and 1 are on different workers.
				select {
				case <-met:
				case met <- struct{}{}:
				case <-time.After(time.Minute):
					apart = false
				}
			}
		})
		if !apart {
			t.Errorf("%+v: partitions 0 and 1 did not run at once", tc)
		}
		for i, r := range ran {
			if r != 1 {
				t.Errorf("%+v: partition %d's f ran %d times; want 1", tc, i, r)
			}
		}
	}
}

// TestLaneFrom: in a Group, a link's arrivals from another partition
// get a lane of their own in the receiver's engine, one per sending
// partition (and the same one when asked again), apart from the lane
// the receiver's own arrivals of that delay take; from the receiver
// itself, or on one Engine, LaneFrom is Lane. Handed over, such a lane's
// arrivals enter it with no sort: after a window, nothing waits among
// the receiver's staged items, and they fire in the order one engine
// gives them.
func TestLaneFrom(t *testing.T) {
	g := NewGroup(1, 3, 1, 1000)
	a, b, c := g.Engine(0), g.Engine(1), g.Engine(2)
	own := b.Lane(1000, toyKind)
	fromA, fromC := b.LaneFrom(1000, toyKind, a), b.LaneFrom(1000, toyKind, c)
	if fromA == own || fromC == own || fromA == fromC || b.LaneFrom(1000, toyKind, a) != fromA || b.LaneFrom(1000, toyKind, b) != own {
		t.Errorf("lanes: own %p, from a %p, from c %p: want three, each found again", own, fromA, fromC)
	}
	if e := NewEngine(1); e.LaneFrom(1000, toyKind, nil) != e.Lane(1000, toyKind) {
		t.Error("one engine: LaneFrom is not Lane")
	}
	// a sends four arrivals to b's node, two at one instant with keys
	// out of order, and b sends itself one.
	var got []int64
	node := &toyNode{id: 0, e: b}
	kind := &LaneKind{Fire: func(_, d unsafe.Pointer) { got = append(got, *(*int64)(d)) }}
	fromA, own = b.LaneFrom(2000, kind, a), b.Lane(2000, kind)
	msgs := []int64{1, 2, 3, 4, 5}
	send := func(e *Engine, l *Lane, key uint32, m int) {
		e.HandOver(l, key, unsafe.Pointer(node), unsafe.Pointer(&msgs[m]))
	}
	a.Schedule(100, handlerFunc(func(*Event) { send(a, fromA, 9, 0); send(a, fromA, 3, 1) }), 0, 0, nil)
	a.Schedule(200, handlerFunc(func(*Event) { send(a, fromA, 5, 2) }), 0, 0, nil)
	b.Schedule(100, handlerFunc(func(*Event) { send(b, own, 4, 3) }), 0, 0, nil)
	a.Schedule(200, handlerFunc(func(*Event) { send(a, fromA, 1, 4) }), 0, 0, nil)
	g.Run(2150, nil) // the arrivals at 2100 have fired; those at 2200 wait in a's lane
	// The staged list keeps its array after a flush: none means no
	// arrival ever went that way (stageHandedOver took them all).
	if cap(b.staged) != 0 || fromA.q.size != 2 || own.q.size != 0 || len(got) != 3 {
		t.Errorf("at 2150: room for %d staged, %d in the lane from a, %d in b's own, %d fired; want 0, 2, 0, 3", cap(b.staged), fromA.q.size, own.q.size, len(got))
	}
	g.Run(Never, nil)
	// At 2100: keys 3 (a), 4 (b), 9 (a); at 2200: keys 1, 5.
	if want := []int64{2, 4, 1, 5, 3}; !slices.Equal(got, want) {
		t.Errorf("fired %v, want %v", got, want)
	}
}

type handlerFunc func(*Event)

func (f handlerFunc) HandleEvent(ev *Event) { f(ev) }

// TestCrewStops: a Group on several workers keeps its crew's goroutines
// from window to window (crew.go), and they end once the group is no
// longer held: its cleanup stops them. Without the cleanup, or with a
// crew that held its group between windows, the goroutines would stay
// (the test gives up after 1,000 collections, and fails).
func TestCrewStops(t *testing.T) {
	func() {
		g := NewGroup(1, 4, 3, 1000)
		net := newToyNetLanes(3, 24, func(i int) *Engine { return g.Engine(i % 4) }, true)
		g.Run(Never, nil)
		if g.Windows() < 10 || len(net.nodes[0].log) == 0 {
			t.Fatalf("%d windows run", g.Windows())
		}
		if n := crewWorkers.Load(); n < 2 {
			t.Errorf("%d crew goroutines while the group is held, want 2 or more", n)
		}
	}()
	// Every group of the tests before is let go too.
	for i := 0; crewWorkers.Load() > 0; i++ {
		if i == 1000 {
			t.Fatalf("%d crew goroutines after the groups were let go, want 0", crewWorkers.Load())
		}
		runtime.GC()
		runtime.Gosched()
	}
}

// TestCrewPanicOnCaller: a model's panic in worker 0's share (the
// caller's) unwinds out of Run, and a caller that recovers it (the
// metamorphic runner does) lets the group go: the crew's goroutines end
// as TestCrewStops's do, and the other workers were done with the window
// when Run's panic reached the caller. Before the fix the crew kept the
// group (its job) for good, so neither the goroutines nor the network
// were ever collected.
func TestCrewPanicOnCaller(t *testing.T) {
	before := crewWorkers.Load()
	var otherDone bool
	func() {
		defer func() {
			if r := recover(); r != "model" {
				t.Errorf("recovered %v, want the model's panic", r)
			}
		}()
		g := NewGroup(1, 2, 2, 1000)
		g.Engine(0).Schedule(5500, handlerFunc(func(*Event) { panic("model") }), 0, 0, nil)
		e1 := g.Engine(1)
		e1.Schedule(5000, handlerFunc(func(*Event) {
			// Busy past the caller's panic, within the same window.
			for i := 0; i < 1000; i++ {
				runtime.Gosched()
			}
			otherDone = true
		}), 0, 0, nil)
		g.Run(Never, nil)
	}()
	if !otherDone {
		t.Error("Run's panic reached the caller before worker 1 was done with the window")
	}
	for i := 0; crewWorkers.Load() > before; i++ {
		if i == 1000 {
			t.Fatalf("%d crew goroutines after the group that panicked was let go, want %d", crewWorkers.Load(), before)
		}
		runtime.GC()
		runtime.Gosched()
	}
}

// TestHandedOverFallback: what a lane made for another partition's
// arrivals (LaneFrom) cannot take in the order it was handed over (an
// arrival earlier than the lane's last; one sent by a partition the
// lane is not for; an event) waits among the staged items, and then
// every staged arrival is sorted: they fire in the order of (time,
// sender's key, place) as one engine's would, the receiver's own
// arrival among them, each case alone and all together. Without the
// check of the lane's last time the earlier arrival would sit behind a
// later one in the lane's ring (the first case fails: 2200's arrivals
// fire before 2100's); without arrivalsStaged's check, the second (c's
// arrival would fire after every arrival in a lane of its time).
func TestHandedOverFallback(t *testing.T) {
	for _, tc := range []struct {
		name              string
		earlier, c, event bool
	}{
		{"an arrival earlier than the lane's last", true, false, false},
		{"an arrival from a partition the lane is not for", false, true, false},
		{"an event", false, false, true},
		{"all", true, true, true},
	} {
		g := NewGroup(1, 3, 1, 1000)
		a, b, c := g.Engine(0), g.Engine(1), g.Engine(2)
		var got []string
		kind := &LaneKind{Fire: func(_, d unsafe.Pointer) { got = append(got, *(*string)(d)) }}
		fromA, own := b.LaneFrom(2000, kind, a), b.LaneFrom(2100, kind, b)
		names := []string{"2200 s1", "2100 s5", "2200 s0", "2100 s2", "2100 s4 (c)", "2100 s3 (own)", "2100 event"}
		item := func(at Time, sender uint32, place, name int) stagedItem {
			return stagedItem{at: at, key: stagedKey(sender, place, uint32(fromA.index)), target: unsafe.Pointer(b), data: unsafe.Pointer(&names[name])}
		}
		want := []string{"2100 s2", "2100 s3 (own)", "2100 s4 (c)", "2100 s5", "2100 event", "2200 s0", "2200 s1"}
		// As a sent them, but for s5, earlier than the one before.
		if tc.earlier {
			a.sent[b.part] = append(a.sent[b.part], item(2200, 1, 0, 0), item(2100, 5, 1, 1), item(2200, 0, 2, 2), item(2100, 2, 3, 3))
		} else {
			a.sent[b.part] = append(a.sent[b.part], item(2100, 2, 3, 3), item(2100, 5, 4, 1), item(2200, 1, 5, 0), item(2200, 0, 6, 2))
		}
		if tc.c { // c hands over into the lane made for a's
			c.sent[b.part] = append(c.sent[b.part], item(2100, 4, 0, 4))
		} else {
			want = slices.DeleteFunc(want, func(s string) bool { return s == names[4] })
		}
		b.HandOver(own, 3, unsafe.Pointer(b), unsafe.Pointer(&names[5]))
		if tc.event {
			b.HandOverEvent(b, 2100, 1<<31, handlerFunc(func(*Event) { got = append(got, names[6]) }), 0, 0, nil)
		} else {
			want = slices.DeleteFunc(want, func(s string) bool { return s == names[6] })
		}
		g.takeHandedOver(b)
		b.Run(Never, nil)
		if !slices.Equal(got, want) {
			t.Errorf("%s: fired %q, want %q", tc.name, got, want)
		}
	}
}
