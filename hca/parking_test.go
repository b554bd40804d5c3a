package hca

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Every test of the package runs its transmit rounds through the
// parking, from a ring of one QP, and checks each QP it passes by
// (checkParked): parked, with work, refused by the port.
func init() {
	parkMin = 1
	parkCheck = true
}

// TestParkingBits: park, unpark, remove and run against a plain list of
// marks, over rings that cross several 64-bit words (random operations,
// a fixed seed).
func TestParkingBits(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		r := rand.New(rand.NewPCG(seed, 45))
		var pk parking
		var want []bool // the marks, by place in the ring
		var qps []*QP   // a QP per place, as the ring holds them
		for step := range 5000 {
			switch op := r.IntN(10); {
			case op < 3 || len(want) == 0: // a QP joins the ring (activate)
				want = append(want, false)
				qps = append(qps, &QP{Priority: uint8(r.IntN(3))})
			case op < 6: // park one
				i := r.IntN(len(want))
				if !want[i] {
					pk.park(i, qps[i], int64(1+r.IntN(70)))
					want[i] = true
				}
			case op < 8: // unpark one
				i := r.IntN(len(want))
				if want[i] {
					pk.unpark(i, qps[i])
					want[i] = false
				}
			default: // remove one not parked (deactivate)
				i := r.IntN(len(want))
				if !want[i] {
					pk.remove(i)
					want = slices.Delete(want, i, i+1)
					qps = slices.Delete(qps, i, i+1)
				}
			}
			n := 0
			for i, w := range want {
				if w != qps[i].parked {
					t.Fatalf("seed %d step %d: place %d's QP parked %v, marked %v", seed, step, i, qps[i].parked, w)
				}
				if w {
					n++
				}
			}
			if pk.n != n {
				t.Fatalf("seed %d step %d: %d parked, want %d", seed, step, pk.n, n)
			}
			for range 8 {
				i, most := r.IntN(len(want)+1), r.IntN(len(want)+2)
				k := 0
				for i+k < len(want) && k < most && want[i+k] {
					k++
				}
				if got := pk.run(i, most, true); got != k {
					t.Fatalf("seed %d step %d: run(%d, %d) = %d, want %d (marks %v)", seed, step, i, most, got, k, want)
				}
			}
			for p := len(want); p < 64*len(pk.bits); p++ {
				if pk.bits[p/64]>>(p%64)&1 != 0 {
					t.Fatalf("seed %d step %d: a mark at %d, past the ring's %d places", seed, step, p, len(want))
				}
			}
		}
	}
}
