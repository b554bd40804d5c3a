package scaleup

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// TestTransfer holds the model's arithmetic against hand-computed times
// on a 400 GB/s (3.2 Tb/s) domain with a 500 ns delay: 1 MB takes
// 2.5 us to serialize; a GPU's second send waits for its egress, and two
// senders into one GPU share its ingress.
func TestTransfer(t *testing.T) {
	const mb = 1_000_000
	us := func(f float64) sim.Time { return sim.Time(f * float64(sim.Microsecond)) }
	cases := []struct {
		name string
		xfer [][3]int64 // src, dst, start (ns)
		want []sim.Time // arrivals
	}{
		{"alone", [][3]int64{{0, 1, 0}}, []sim.Time{us(3.0)}},
		{"egress shared", [][3]int64{{0, 1, 0}, {0, 2, 0}}, []sim.Time{us(3.0), us(5.5)}},
		{"ingress shared", [][3]int64{{0, 2, 0}, {1, 2, 0}}, []sim.Time{us(3.0), us(5.5)}},
		{"disjoint pairs", [][3]int64{{0, 1, 0}, {2, 3, 0}}, []sim.Time{us(3.0), us(3.0)}},
		{"later start", [][3]int64{{0, 1, 0}, {0, 1, 4000}}, []sim.Time{us(3.0), us(7.0)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := New(4, 3200*fabric.Gbps, 500*sim.Nanosecond)
			for i, x := range c.xfer {
				got := d.Transfer(int(x[0]), int(x[1]), mb, sim.Time(x[2])*sim.Nanosecond)
				if got != c.want[i] {
					t.Errorf("transfer %d lands at %v, want %v", i, got, c.want[i])
				}
			}
			if d.Bytes != int64(len(c.xfer))*mb {
				t.Errorf("carried %d bytes, want %d", d.Bytes, len(c.xfer)*mb)
			}
		})
	}
}
