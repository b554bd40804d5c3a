package observe

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/lfsim/lfsim/reports"
)

// TestPFCFramesOrder: pfc.csv's rows are every partition's frames in
// (time, port) order, a port's own in the order it sent them, as one
// stable sort of them all would put them, though each partition's are
// ordered in place and the partitions merged as they are written: over
// chunk boundaries, with many frames in one nanosecond and several of one
// port, on one partition and on three (ports dealt to partitions as a
// run cut by pods deals them), for frames logged after a first Frames,
// and with times too far apart for a chunk's bits (each frame is 8
// bytes, its time counted from its chunk's first). On three partitions
// each orders its own frames on a goroutine of its own (View.Each, as in
// a cut run), at each Frames.
func TestPFCFramesOrder(t *testing.T) {
	for _, tc := range []struct {
		parts int
		jump  int64 // ns now and then between frames
	}{{1, 0}, {3, 0}, {1, 1 << 52}, {3, 1 << 45}} {
		parts := tc.parts
		rng := rand.New(rand.NewPCG(7, uint64(parts)))
		l := &PFCLog{parts: make([]pfcPart, parts)}
		calls := 0
		if parts > 1 {
			// As a cut run's View.Each: the partitions order their own
			// frames at once, each on a goroutine.
			l.each = func(f func(int)) {
				calls++
				var wg sync.WaitGroup
				for i := range parts {
					wg.Add(1)
					go func() { defer wg.Done(); f(i) }()
				}
				wg.Wait()
			}
		}
		const ports = 40
		for i := 0; i < ports; i++ {
			l.names = append(l.names, string(rune('A'+i)))
		}
		l.pack.portBits = 6
		for i := range l.parts {
			l.parts[i].pack = &l.pack
		}
		var all []pfcFrame // in the order sent
		now := make([]int64, parts)
		for i := 0; i < 3*pfcChunkFrames+100; i++ {
			p := rng.IntN(parts)
			if rng.IntN(8) == 0 {
				now[p] += int64(rng.IntN(3)) // mostly the same nanosecond
			}
			if tc.jump > 0 && rng.IntN(500) == 0 {
				now[p] += tc.jump
			}
			f := pfcFrame{timeNs: now[p], port: int32(p + parts*rng.IntN(ports/parts)), prio: uint8(i % 8), quanta: uint16(i)}
			l.parts[p].add(f)
			all = append(all, f)
			if i == 2*pfcChunkFrames {
				l.Frames() // a first look, mid-run
			}
		}
		if p := &l.parts[0]; tc.jump > 0 && len(p.chunks) <= (p.n+pfcChunkFrames-1)/pfcChunkFrames {
			t.Errorf("%+v: %d chunks for %d frames: no time too far for a chunk's bits", tc, len(p.chunks), p.n)
		}
		want := slices.Clone(all)
		slices.SortStableFunc(want, func(a, b pfcFrame) int {
			return cmp.Or(cmp.Compare(a.timeNs, b.timeNs), cmp.Compare(a.port, b.port))
		})
		var got []reports.PFCRow
		l.Frames().EachPFC(func(r reports.PFCRow) bool {
			got = append(got, r)
			return true
		})
		if len(got) != len(want) {
			t.Fatalf("%+v: %d rows, want %d", tc, len(got), len(want))
		}
		for i, w := range want {
			if r := got[i]; r.TimeNs != w.timeNs || r.Port != l.names[w.port] || r.Priority != w.prio || r.Quanta != w.quanta {
				t.Fatalf("%+v: row %d is %+v, want %+v", tc, i, r, w)
			}
		}
		n := 0
		l.Frames().EachPFC(func(reports.PFCRow) bool { n++; return n < 10 })
		if n != 10 {
			t.Errorf("%+v: EachPFC went on after its yield said stop (%d rows)", tc, n)
		}
		if want := min(parts-1, 1) * 3; calls != want {
			t.Errorf("%+v: the partitions ordered their frames through Each %d times; want %d (once a Frames)", tc, calls, want)
		}
	}
}

// TestPFCLogRefusesTimeGoingBack: a partition's frames come from one
// engine, in time order; a frame earlier than the last is a bug that
// would be packed before its chunk's base, so the log says so.
func TestPFCLogRefusesTimeGoingBack(t *testing.T) {
	l := &PFCLog{parts: make([]pfcPart, 1), names: []string{"a", "b"}}
	l.pack.portBits = 1
	l.parts[0].pack = &l.pack
	l.parts[0].add(pfcFrame{timeNs: 10, port: 0})
	defer func() {
		if recover() == nil {
			t.Error("a frame at 5 ns after one at 10 ns was logged")
		}
	}()
	l.parts[0].add(pfcFrame{timeNs: 5, port: 1})
}
