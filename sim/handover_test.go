package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// namer notes what fired, by name, in order.
type namer struct {
	e   *Engine
	got []string
}

var namerKind = &LaneKind{}

func init() {
	namerKind.Fire = func(t, d unsafe.Pointer) {
		r := (*namer)(t)
		r.got = append(r.got, *(*string)(d))
	}
}

func (r *namer) HandleEvent(ev *Event) {
	if f, ok := ev.Data.(func()); ok {
		f()
		return
	}
	r.got = append(r.got, ev.Data.(string))
}

// TestHandOverOrder: with a lookahead of 1000 ps, arrivals sent in one
// window enter at its end ordered by (time, key), whatever order they were
// sent in; those of one key keep theirs. A timer scheduled before that
// window's end fires before same-time arrivals, one scheduled after it
// after them.
func TestHandOverOrder(t *testing.T) {
	names := func(s ...string) []unsafe.Pointer {
		var ps []unsafe.Pointer
		for i := range s {
			ps = append(ps, unsafe.Pointer(&s[i]))
		}
		return ps
	}
	e := NewEngine(1)
	e.SetLookahead(1000)
	r := &namer{e: e}
	l := e.Lane(1000, namerKind)
	d := names("key5", "key2", "key5-second", "key9-later", "key1-later")
	// At 100: the timer for 1100 is scheduled in the arrivals' window.
	e.Schedule(100, r, 0, 0, func() {
		e.Schedule(1100, r, 0, 0, "timer-before")
		e.HandOver(l, 5, unsafe.Pointer(r), d[0])
		e.HandOver(l, 2, unsafe.Pointer(r), d[1])
		e.HandOver(l, 5, unsafe.Pointer(r), d[2])
		if e.Pending() != 7 {
			t.Errorf("pending %d, want 7 (three staged, four timers)", e.Pending())
		}
	})
	// At 1050, in the next window, a timer for 1100: after the arrivals.
	e.Schedule(1050, r, 0, 0, func() { e.Schedule(1100, r, 0, 0, "timer-after") })
	// Sent at 500 and 600, due at 1500 and 1600: 1 comes later in time,
	// so its key does not put it first.
	e.Schedule(500, r, 0, 0, func() { e.HandOver(l, 9, unsafe.Pointer(r), d[3]) })
	e.Schedule(600, r, 0, 0, func() { e.HandOver(l, 1, unsafe.Pointer(r), d[4]) })
	e.Run(Never, nil)
	want := []string{"timer-before", "key2", "key5", "key5-second", "timer-after", "key9-later", "key1-later"}
	if !slices.Equal(r.got, want) {
		t.Errorf("fired %q, want %q", r.got, want)
	}
	if e.Now() != 1600 || e.Pending() != 0 {
		t.Errorf("ended at %v with %d pending, want 1600 ps and none", e.Now(), e.Pending())
	}
}

// TestHandOverOff: without a lookahead, HandOver is PostLane: insertion
// order.
func TestHandOverOff(t *testing.T) {
	e := NewEngine(1)
	r := &namer{e: e}
	l := e.Lane(1000, namerKind)
	a, b := "first", "second"
	e.HandOver(l, 9, unsafe.Pointer(r), unsafe.Pointer(&a))
	e.HandOver(l, 1, unsafe.Pointer(r), unsafe.Pointer(&b))
	e.Run(Never, nil)
	if !slices.Equal(r.got, []string{"first", "second"}) {
		t.Errorf("fired %q, want insertion order", r.got)
	}
}

// TestHandOverAcrossRuns: a run stopped between windows and resumed, with
// events scheduled from outside while it was stopped, fires what one
// uninterrupted run fires.
func TestHandOverAcrossRuns(t *testing.T) {
	run := func(stops []Time) []string {
		e := NewEngine(1)
		e.SetLookahead(1000)
		r := &namer{e: e}
		l := e.Lane(1000, namerKind)
		names := []string{"a", "b", "c", "d"}
		for i, at := range []Time{300, 2200, 2300, 5100} {
			k := uint32(len(names) - i)
			e.Schedule(at, r, 0, 0, func() {
				e.HandOver(l, k, unsafe.Pointer(r), unsafe.Pointer(&names[i]))
				e.HandOver(l, k+10, unsafe.Pointer(r), unsafe.Pointer(&names[i]))
				e.After(1000, r, 0, 0, "t"+names[i])
			})
		}
		for _, s := range stops {
			e.Run(s, nil)
		}
		e.Run(Never, nil)
		return r.got
	}
	whole := run(nil)
	if len(whole) != 12 {
		t.Fatalf("fired %q, want 12 events", whole)
	}
	for _, stops := range [][]Time{{999, 1000, 1001}, {2250, 3000}, {4000, 5100, 6099}, {1, 2, 3, 1300, 3299}} {
		if got := run(stops); !slices.Equal(got, whole) {
			t.Errorf("stopped at %v: fired %q, want %q", stops, got, whole)
		}
	}
}

// TestSortStaged: the merge of runs in time order and the sort by key
// within a time give what one sort by (time, key) gives, for 1 to 100
// runs (past 64 it sorts the whole).
func TestSortStaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	e := NewEngine(1)
	for _, runs := range []int{1, 2, 3, 7, 64, 65, 100} {
		var s []stagedItem
		for r := 0; r < runs; r++ {
			at := Time(rng.IntN(50))
			for k := rng.IntN(40); k > 0; k-- {
				at += Time(rng.IntN(3)) // many equal times
				s = append(s, stagedItem{at: at, key: stagedKey(uint32(rng.IntN(1000)), len(s), 0)})
			}
		}
		want := slices.Clone(s)
		slices.SortFunc(want, cmpStaged)
		e.sortStaged(s)
		if !slices.Equal(s, want) {
			t.Errorf("%d runs: not in (time, key) order", runs)
		}
	}
}

// TestHandOverSequencesRunOut: when a window's block of sequences
// (flushLanes) would take them past 2^56, one Engine numbers its pending
// events again from 0 (renumber), and the order stays the one of a run
// that never came near: the toy network's logs are the same from a start
// at 0 and from ones half a whole run's sequences, and 2^10, below 2^56,
// and those runs end with sequences far below where they started.
func TestHandOverSequencesRunOut(t *testing.T) {
	run := func(seq0 uint64) ([][]string, uint64) {
		e := NewEngine(7)
		e.SetLookahead(1000)
		e.seq = seq0
		net := newToyNet(7, 24, func(int) *Engine { return e })
		for _, stop := range toyStops {
			e.Run(stop, nil)
			net.act(stop)
		}
		e.Run(Never, nil)
		return net.logs(), e.seq
	}
	want, whole := run(0)
	for _, below := range []uint64{whole / 2, 1 << 10} {
		got, end := run(1<<56 - below)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%d below 2^56: the order differs from a run from 0", below)
		}
		if end >= 1<<56-below {
			t.Errorf("%d below 2^56: the run ended at sequence %d; it never numbered them again", below, end)
		}
	}
}

// TestHandOverSortFallback: an arrival whose sender's key is 2^31 or
// more does not fit flushLanes's blocks; the window's arrivals are then
// sorted (unstageLanes), in the same (time, key) order.
func TestHandOverSortFallback(t *testing.T) {
	e := NewEngine(1)
	e.SetLookahead(1000)
	r := &namer{e: e}
	l := e.Lane(1000, namerKind)
	names := []string{"big+5", "three", "big+1", "three-second"}
	e.Schedule(100, r, 0, 0, func() {
		for i, k := range []uint32{1<<31 + 5, 3, 1<<31 + 1, 3} {
			e.HandOver(l, k, unsafe.Pointer(r), unsafe.Pointer(&names[i]))
		}
	})
	e.Run(Never, nil)
	if want := []string{"three", "three-second", "big+1", "big+5"}; !slices.Equal(r.got, want) {
		t.Errorf("fired %q, want %q", r.got, want)
	}
}

// TestHandOverLongWalk: arrivals sent in one window at one time in an
// order far from their keys' (hundreds of ports sending in step, as in a
// fabric whose hosts start a permutation together) walk back no further
// than maxStagedWalk; the lane is sorted at the window's end instead,
// and they fire in the order the walk would have given: by time, then
// key, those of one key in the order they were sent.
func TestHandOverLongWalk(t *testing.T) {
	for _, n := range []int{maxStagedWalk, 3 * maxStagedWalk, 400} {
		e := NewEngine(1)
		e.SetLookahead(1000)
		r := &namer{e: e}
		l := e.Lane(1000, namerKind)
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		type sent struct {
			at    Time
			key   uint32
			order int
			name  string
		}
		var all []sent
		for i := range n {
			// Keys repeat (n/2 of them) so that one key's arrivals
			// must keep the order they were sent in; a tenth are due
			// 10 ps later, sent from a later instant of the window.
			s := sent{at: 1100, key: uint32(rng.IntN(n/2 + 1)), order: i, name: ""}
			if i%10 == 9 {
				s.at = 1110
			}
			s.name = string(rune('a'+i%26)) + "-" + string(rune('A'+i/26))
			all = append(all, s)
		}
		unsorted := false
		e.Schedule(100, r, 0, 0, func() {
			for _, s := range all {
				if s.at == 1100 {
					e.HandOver(l, s.key, unsafe.Pointer(r), unsafe.Pointer(&s.name))
				}
			}
		})
		e.Schedule(110, r, 0, 0, func() {
			for _, s := range all {
				if s.at == 1110 {
					e.HandOver(l, s.key, unsafe.Pointer(r), unsafe.Pointer(&s.name))
				}
			}
			unsorted = e.unsortedLanes != 0
		})
		e.Run(Never, nil)
		want := slices.Clone(all)
		slices.SortStableFunc(want, func(a, b sent) int {
			if a.at != b.at {
				return int(a.at - b.at)
			}
			return int(a.key) - int(b.key)
		})
		var names []string
		for _, s := range want {
			names = append(names, s.name)
		}
		if !slices.Equal(r.got, names) {
			t.Errorf("n=%d: fired %q, want %q", n, r.got, names)
		}
		// 400 arrivals in random key order need walks far beyond the
		// bound; maxStagedWalk in one order need at most maxStagedWalk-1.
		if wantUnsorted := n > maxStagedWalk; unsorted != wantUnsorted {
			t.Errorf("n=%d: lane left for the sort %v, want %v", n, unsorted, wantUnsorted)
		}
	}
}
