package sim

import (
	"testing"
	"unsafe"
)

// warmRecorder logs warm hints and firings, in order.
type warmRecorder struct {
	log []string
}

// warmEvent is a warmRecorder's lane event's data: its letter's index.
type warmEvent struct {
	w *warmRecorder
	n int
}

// warmKinds are three kinds of lane event for a warmRecorder, which log
// their event's letter and their own number.
var warmKinds = [4]*LaneKind{}

func init() {
	for k := 1; k <= 3; k++ {
		warmKinds[k] = &LaneKind{
			Fire: func(t, d unsafe.Pointer) {
				w, ev := (*warmRecorder)(t), (*warmEvent)(d)
				w.log = append(w.log, "fire "+string(rune('a'+ev.n))+" "+string(rune('0'+k)))
			},
			Warm: func(t, d unsafe.Pointer) {
				w, ev := (*warmRecorder)(t), (*warmEvent)(d)
				if ev.w != w {
					panic("warm: wrong data")
				}
				w.log = append(w.log, "warm "+string(rune('a'+ev.n))+" "+string(rune('0'+k)))
			},
		}
	}
}

// TestWarmBeforeFire: the engine hints a lane event to its kind's Warm
// with the event's target and data one event ahead, just before the
// event before it fires, so every lane event but the first is warmed
// once, before it fires.
func TestWarmBeforeFire(t *testing.T) {
	e := NewEngine(1)
	w := &warmRecorder{}
	evs := []warmEvent{{w, 0}, {w, 1}, {w, 2}}
	p := unsafe.Pointer(w)
	a, b, c := e.Lane(10, warmKinds[1]), e.Lane(15, warmKinds[2]), e.Lane(10, warmKinds[3])
	e.PostLane(a, p, unsafe.Pointer(&evs[0])) // a at 10
	e.PostLane(b, p, unsafe.Pointer(&evs[1])) // b at 15
	e.PostLane(c, p, unsafe.Pointer(&evs[2])) // c at 10, after a
	e.Run(Never, nil)
	want := []string{"warm c 3", "fire a 1", "warm b 2", "fire c 3", "fire b 2"}
	if len(w.log) != len(want) {
		t.Fatalf("log %q, want %q", w.log, want)
	}
	for i := range want {
		if w.log[i] != want[i] {
			t.Fatalf("log %q, want %q", w.log, want)
		}
	}
}

// TestPrefetchHarmless: the prefetch hints change nothing and never fault,
// whatever they are given, nil included (a prefetch of an unmapped
// address is dropped by the CPU).
func TestPrefetchHarmless(t *testing.T) {
	x, y := [4]int64{1, 2, 3, 4}, "y"
	var nilInt *int64
	var nilStr *string
	Prefetch(&x)
	Prefetch(nilInt)
	Prefetch2(&x[0], &y)
	Prefetch2(nilInt, nilStr)
	Prefetch3(&x[1], nilStr, &x[3])
	PrefetchAddr2(uintptr(unsafe.Pointer(&x[2])), 0)
	if x != [4]int64{1, 2, 3, 4} || y != "y" {
		t.Fatalf("a prefetch changed memory: %v %q", x, y)
	}
}
