package sim

// Observation points against the hand-over (a review of issue 31's work
// found these): one engine and a Group must enter a window's arrivals at
// the same moment relative to what an observer does at a point, whether
// the point is at a window's end, inside a window, or inside one the
// Group has not opened yet.

import (
	"fmt"
	"testing"
	"unsafe"
)

type eNode struct {
	name string
	e    *Engine
	log  *[]string
}

var eKind = &LaneKind{}

func init() {
	eKind.Fire = func(t, d unsafe.Pointer) {
		n := (*eNode)(t)
		*n.log = append(*n.log, n.name+" got "+*(*string)(d))
	}
}

type sender struct {
	e    *Engine
	lane *Lane
	key  uint32
	msg  string
}

func (s *sender) HandleEvent(*Event) {
	s.e.HandOver(s.lane, s.key, unsafe.Pointer(tgt), unsafe.Pointer(&s.msg))
}

var tgt *eNode

// A scene is played on engOf(i) for its nodes, stopped with run(until)
// and moved to an observer's point with adv(t).
type scene func(engOf func(i int) *Engine, run func(Time), adv func(Time)) []string

// bothWays plays sc on one engine with a lookahead of 1000 ps and on a
// Group of parts partitions, one worker, and returns what each logged.
func bothWays(sc scene, parts int) (one, grp []string) {
	e := NewEngine(1)
	e.SetLookahead(1000)
	one = sc(func(int) *Engine { return e }, func(u Time) { e.Run(u, nil) }, e.AdvanceTo)
	g := NewGroup(1, parts, 1, 1000)
	grp = sc(g.Engine, func(u Time) { g.Run(u, nil) }, g.AdvanceTo)
	return one, grp
}

// A at 100 sends over a 1500 ps link (key 5): due 1600. The run stops at
// 599 (nothing else is pending), an observer at 600 has B send over a
// 1000 ps link (key 3): due 1600 too. The group orders B's first (key
// 3); one engine?
func runEarly(engOf func(i int) *Engine, run func(Time), adv func(Time)) []string {
	var log []string
	tgt = &eNode{name: "C", e: engOf(2), log: &log}
	a := &sender{e: engOf(0), key: 5, msg: "A"}
	b := &sender{e: engOf(1), key: 3, msg: "B"}
	a.lane = engOf(2).Lane(1500, eKind)
	b.lane = engOf(2).Lane(1000, eKind)
	a.e.Schedule(100, a, 0, 0, nil)
	run(599)
	adv(600)
	b.HandleEvent(nil)
	run(Never)
	return log
}

func TestEarlyFlush(t *testing.T) {
	one, grp := bothWays(runEarly, 3)
	if one[0] != grp[0] {
		t.Errorf("one engine logged %q, a group %q", one, grp)
	}
}

func runEnd(engOf func(i int) *Engine, run func(Time), adv func(Time)) []string {
	var log []string
	tgt = &eNode{name: "C", e: engOf(2), log: &log}
	a := &sender{e: engOf(0), key: 5, msg: "A"}
	b := &sender{e: engOf(1), key: 3, msg: "B"}
	a.lane = engOf(2).Lane(1500, eKind)
	b.lane = engOf(2).Lane(1000, eKind)
	a.e.Schedule(500, a, 0, 0, nil)
	x := &sender{e: engOf(0), key: 9, msg: "X"} // keeps the engine busy
	x.lane = engOf(2).Lane(1000, eKind)
	engOf(0).Schedule(1500, x, 0, 0, nil)
	run(999)
	adv(1000)
	b.HandleEvent(nil) // at a window end point
	run(Never)
	return log
}

func TestWindowEndPoint(t *testing.T) {
	one, grp := bothWays(runEnd, 3)
	if one[0] != grp[0] {
		t.Errorf("one engine logged %q, a group %q", one, grp)
	}
}

type logTimer struct{ log *[]string }

func (l logTimer) HandleEvent(*Event) { *l.log = append(*l.log, "C timer") }

func TestPointTimer(t *testing.T) {
	one, grp := bothWays(func(engOf func(int) *Engine, run func(Time), adv func(Time)) []string {
		var log []string
		tgt = &eNode{name: "C", e: engOf(2), log: &log}
		a := &sender{e: engOf(0), key: 5, msg: "A"}
		a.lane = engOf(2).Lane(1500, eKind)
		a.e.Schedule(500, a, 0, 0, nil)                             // due 2000
		engOf(1).Schedule(1700, logTimer{new([]string)}, 0, 0, nil) // something later
		run(999)
		adv(1000)
		engOf(2).Schedule(2000, logTimer{&log}, 0, 0, nil)
		run(Never)
		return log
	}, 3)
	if one[0] != grp[0] {
		t.Errorf("one engine logged %q, a group %q", one, grp)
	}
}

// A point inside a window that no event has opened yet: X (key 9, sent at
// 900 over 1000: due 1900) ... the point at 1200 has B send Y (key 5,
// over 1500: due 2700); an event at 1500 has C send Z (key 3, over 1200:
// due 2700). Y and Z reach D at 2700.
func TestUnopenedWindowPoint(t *testing.T) {
	one, grp := bothWays(func(engOf func(int) *Engine, run func(Time), adv func(Time)) []string {
		var log []string
		tgt = &eNode{name: "D", e: engOf(3), log: &log}
		x := &sender{e: engOf(0), key: 9, msg: "X", lane: engOf(3).Lane(1000, eKind)}
		y := &sender{e: engOf(1), key: 5, msg: "Y", lane: engOf(3).Lane(1500, eKind)}
		z := &sender{e: engOf(2), key: 3, msg: "Z", lane: engOf(3).Lane(1200, eKind)}
		x.e.Schedule(900, x, 0, 0, nil)
		z.e.Schedule(1500, z, 0, 0, nil)
		run(999)
		adv(1000)
		run(1199)
		adv(1200)
		y.HandleEvent(nil)
		run(Never)
		return log
	}, 4)
	if fmt.Sprint(one) != fmt.Sprint(grp) {
		t.Errorf("one engine logged %q, a group %q", one, grp)
	}
}

// The toy network stopped as drive stops a run: Run(t-1), AdvanceTo(t),
// then a node acts at t, for t on the events' 100 ps lattice (window
// ends, mid-window, quiet stretches).
func TestGroupMatchesOneEngineDriveStops(t *testing.T) {
	const nodes = 24
	bad := 0
	for seed := uint64(1); seed <= 40; seed++ {
		var stops []Time
		for s := Time(300); s < 40000; s += Time(100 * (1 + (int(seed)*7+len(stops)*13)%23)) {
			stops = append(stops, s)
		}
		// play runs the toy network on engOf's engines, stopped at each
		// of stops with run(s-1), adv(s) and a node's act.
		play := func(engOf func(i int) *Engine, run func(Time), adv func(Time)) *toyNet {
			net := newToyNet(seed, nodes, engOf)
			for _, n := range net.nodes {
				n.budget = 60
			}
			for _, s := range stops {
				run(s - 1)
				adv(s)
				net.act(s)
			}
			run(Never)
			return net
		}
		e := NewEngine(seed)
		e.SetLookahead(1000)
		want := play(func(int) *Engine { return e }, func(u Time) { e.Run(u, nil) }, e.AdvanceTo).logs()
		for _, parts := range []int{2, 3, 8} {
			g := NewGroup(seed, parts, 2, 1000)
			got := play(func(i int) *Engine { return g.Engine(i % parts) }, func(u Time) { g.Run(u, nil) }, g.AdvanceTo).logs()
			for i := range got {
				if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
					bad++
					t.Errorf("seed %d, %d partitions: node %d differs", seed, parts, i)
					break
				}
			}
		}
	}
	t.Logf("%d mismatches", bad)
}

// TestNextAtSkipsCancelled: a cancelled timer is not the next event,
// whether or not its engine has compacted its queue since (which depends
// on every timer the engine holds, so on how a run is cut): NextAt
// drops cancelled timers at the queue's top, and the engine runs on
// from the next live one.
func TestNextAtSkipsCancelled(t *testing.T) {
	e := NewEngine(1)
	h := &recorder{e: e}
	a := e.Schedule(10, h, 0, 1, nil)
	b := e.Schedule(20, h, 0, 2, nil)
	e.Schedule(30, h, 0, 3, nil)
	e.Cancel(a)
	if got := e.NextAt(); got != 20 {
		t.Errorf("next at %d with the timer at 10 cancelled, want 20", got)
	}
	e.Cancel(b)
	if got := e.NextAt(); got != 30 {
		t.Errorf("next at %d with the timers at 10 and 20 cancelled, want 30", got)
	}
	e.Run(Never, nil)
	if len(h.got) != 1 || h.got[0] != 3 || e.Now() != 30 {
		t.Errorf("fired %v, now %d; want the timer at 30 alone", h.got, e.Now())
	}
	c := e.Schedule(40, h, 0, 4, nil)
	e.Cancel(c)
	if got := e.NextAt(); got != Never {
		t.Errorf("next at %d with only a cancelled timer left, want none", got)
	}
}
