package sim

import (
	"testing"
	"unsafe"
)

// warmRecorder logs warm hints and firings, in order.
type warmRecorder struct {
	log []string
}

func (w *warmRecorder) HandleEvent(ev *Event) {
	w.log = append(w.log, "fire "+string(rune('a'+ev.N))+" "+string(rune('0'+ev.Kind)))
}

func (w *warmRecorder) Warm(kind int32, n int64, data any) {
	if data != w {
		panic("warm: wrong data")
	}
	w.log = append(w.log, "warm "+string(rune('a'+n))+" "+string(rune('0'+kind)))
}

// TestWarmBeforeFire: the engine hints a lane event to its handler
// (LaneHandler) with the event's kind, N and Data one event ahead, just before
// the event before it fires, so every lane event but the first is warmed
// once, before it fires.
func TestWarmBeforeFire(t *testing.T) {
	e := NewEngine(1)
	w := &warmRecorder{}
	a, b := e.Lane(10), e.Lane(15)
	e.PostLane(a, w, 1, 0, w) // a at 10
	e.PostLane(b, w, 2, 1, w) // b at 15
	e.PostLane(a, w, 3, 2, w) // c at 10, after a
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
