package observe

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lfsim/lfsim/reports"
)

// TestPFCFramesOrder: pfc.csv's rows are every partition's frames in
// (time, port) order, a port's own in the order it sent them, as one
// stable sort of them all would put them, though each partition's are
// ordered in place and the partitions merged as they are written: over
// chunk boundaries, with many frames in one nanosecond and several of one
// port, on one partition and on three (ports dealt to partitions as a
// run cut by pods deals them), and for frames logged after a first
// Frames.
func TestPFCFramesOrder(t *testing.T) {
	for _, parts := range []int{1, 3} {
		rng := rand.New(rand.NewPCG(7, uint64(parts)))
		l := &PFCLog{parts: make([]pfcPart, parts)}
		const ports = 40
		for i := 0; i < ports; i++ {
			l.names = append(l.names, string(rune('A'+i)))
		}
		var all []pfcFrame // in the order sent
		now := make([]int64, parts)
		for i := 0; i < 3*pfcChunk+100; i++ {
			p := rng.IntN(parts)
			if rng.IntN(8) == 0 {
				now[p] += int64(rng.IntN(3)) // mostly the same nanosecond
			}
			f := pfcFrame{timeNs: now[p], port: int32(p + parts*rng.IntN(ports/parts)), prio: uint8(i % 8), quanta: uint16(i)}
			l.parts[p].add(f)
			all = append(all, f)
			if i == 2*pfcChunk {
				l.Frames() // a first look, mid-run
			}
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
			t.Fatalf("%d partitions: %d rows, want %d", parts, len(got), len(want))
		}
		for i, w := range want {
			if r := got[i]; r.TimeNs != w.timeNs || r.Port != l.names[w.port] || r.Priority != w.prio || r.Quanta != w.quanta {
				t.Fatalf("%d partitions: row %d is %+v, want %+v", parts, i, r, w)
			}
		}
		n := 0
		l.Frames().EachPFC(func(reports.PFCRow) bool { n++; return n < 10 })
		if n != 10 {
			t.Errorf("%d partitions: EachPFC went on after its yield said stop (%d rows)", parts, n)
		}
	}
}
