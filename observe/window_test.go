package observe

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// TestMergeRecords (issue 50): the windowed detector's records of a
// point come out in the order one stable sort of all of them by (time,
// port) gives, though each partition sorts its own (on its worker, once
// there are sortEachAfter of them) and the lists are then merged: on one
// partition and on three (a port's records all in its partition, many in
// one nanosecond, several of one port there in the order made). Each is
// asked for at a point with many records and not at one with few.
func TestMergeRecords(t *testing.T) {
	for _, tc := range []struct{ parts, recs int }{{1, 1000}, {3, 1000}, {3, 40}, {2, 0}} {
		rng := rand.New(rand.NewPCG(3, uint64(tc.parts*10000+tc.recs)))
		calls := 0
		each := func(f func(int)) {
			calls++
			var wg sync.WaitGroup
			for i := 0; i < tc.parts; i++ {
				wg.Add(1)
				go func(i int) { defer wg.Done(); f(i) }(i)
			}
			wg.Wait()
		}
		d := &Detector{v: &View{Parts: tc.parts, Each: each}}
		d.win.recs = make([][]pauseRec, tc.parts)
		for point := 0; point < 3; point++ {
			var all []pauseRec // in the order made, partition by partition
			now := make([]sim.Time, tc.parts)
			for i := 0; i < tc.recs; i++ {
				p := rng.IntN(tc.parts)
				if rng.IntN(6) == 0 {
					now[p] += sim.Time(rng.IntN(3))
				}
				r := pauseRec{at: now[p] + sim.Time(point)*1000, g: int32(p + tc.parts*rng.IntN(20)), prio: uint8(i % 8), paused: i%2 == 0}
				d.win.recs[p] = append(d.win.recs[p], r)
			}
			for _, rs := range d.win.recs {
				all = append(all, rs...)
			}
			want := slices.Clone(all)
			slices.SortStableFunc(want, comparePauseRecs)
			calls = 0
			got := d.mergeRecords()
			if !slices.Equal(got, want) {
				t.Fatalf("%+v, point %d: the merged records are not in the order of one stable sort", tc, point)
			}
			if wantCalls := 0; tc.parts > 1 && tc.recs >= sortEachAfter {
				wantCalls = 1
				if calls != wantCalls {
					t.Errorf("%+v: Each asked for %d times; want %d", tc, calls, wantCalls)
				}
			} else if calls != 0 {
				t.Errorf("%+v: Each asked for %d times with %d records; want none", tc, calls, tc.recs)
			}
			for i, rs := range d.win.recs {
				if len(rs) != 0 {
					t.Fatalf("%+v: partition %d's list holds %d records after the point", tc, i, len(rs))
				}
			}
			d.win.merged = got[:0]
		}
	}
}
