package sim

import (
	"fmt"
	"testing"
	"unsafe"
)

// windowTicker is a partition's one node in BenchmarkGroupWindow: each
// window it fires once, schedules itself a lookahead later and, when
// cross is set, hands one arrival over to the next partition's node (a
// frame crossing a cut link).
type windowTicker struct {
	e     *Engine
	la    Time
	cross bool
	lane  *Lane // in the next partition's engine
	to    *windowTicker
	key   uint32
	n     int64
}

var tickKind = &LaneKind{}

func init() { tickKind.Fire = func(t, d unsafe.Pointer) {} }

func (t *windowTicker) HandleEvent(ev *Event) {
	t.e.After(t.la, t, 0, 0, nil)
	if t.cross {
		t.e.HandOver(t.lane, t.key, unsafe.Pointer(t.to), unsafe.Pointer(&t.n))
	}
}

// BenchmarkGroupWindow is the many-core forecast's barrier cost
// (docs/PERFORMANCE.md, "Many cores: the forecast"): ns per window (one
// op) of a Group whose partitions each fire one event a window, so that
// nearly all of a window's time is the Group's own: runWindow's fork
// and join (the crew's start and wait, crew.go; until issue 50's change
// a goroutine started per worker per window and a sync.WaitGroup), Run's scan of the engines for the next event, and,
// with cross, one arrival handed over per partition per window
// (barrier's swap, takeHandedOver and flushStaged). workers-1 runs the
// same partitions on the caller, with no goroutine: the difference is
// what the fork and join cost.
func BenchmarkGroupWindow(b *testing.B) {
	const la = Microsecond
	for _, c := range []struct{ parts, workers int }{{2, 1}, {2, 2}, {4, 2}, {8, 2}} {
		for _, cross := range []bool{false, true} {
			name := fmt.Sprintf("parts-%d/workers-%d/cross-%v", c.parts, c.workers, cross)
			b.Run(name, func(b *testing.B) {
				g := NewGroup(1, c.parts, c.workers, la)
				ts := make([]*windowTicker, c.parts)
				for i := range ts {
					ts[i] = &windowTicker{e: g.Engine(i), la: la, cross: cross, key: uint32(i)}
				}
				for i, t := range ts {
					t.to = ts[(i+1)%len(ts)]
					t.lane = t.to.e.Lane(la, tickKind)
					t.e.Schedule(0, t, 0, 0, nil)
				}
				g.Run(100*la, nil) // warm: the lanes' rings and the outboxes grown
				start := g.Windows()
				b.ResetTimer()
				g.Run(g.Now()+Time(b.N)*la, nil)
				b.StopTimer()
				if got := g.Windows() - start; got < uint64(b.N) {
					b.Fatalf("%d windows run, want %d", got, b.N)
				}
			})
		}
	}
}
