package swtch

import (
	"math/rand/v2"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// TestEgressQueueRoundRobin drives an egress queue with random pushes from
// four ingress ports and pops, against a reference written out plainly: a
// FIFO per ingress port, served round robin one packet each in the order
// the ports became non-empty. pop must return, and peek announce, exactly
// the reference's packet, and the counts must match, whatever the
// interleaving (the queue keeps the next packet ready, queue.go).
func TestEgressQueueRoundRobin(t *testing.T) {
	const ports = 4
	rng := rand.New(rand.NewPCG(1, 2))
	q := newEgressQueue(ports)
	fifo := make([][]*fabric.Packet, ports)
	var order []int32 // ports with packets, in service order
	pool := make([]fabric.Packet, 20000)
	used := 0
	for step := 0; step < 20000; step++ {
		now := sim.Time(step)
		if rng.IntN(2) == 0 && used < len(pool) {
			p := &pool[used]
			used++
			p.InPort, p.Wire = int32(rng.IntN(ports)), int32(100+rng.IntN(1000))
			if len(fifo[p.InPort]) == 0 {
				order = append(order, p.InPort)
			}
			fifo[p.InPort] = append(fifo[p.InPort], p)
			q.push(p, now)
		} else {
			var want *fabric.Packet
			if len(order) > 0 {
				in := order[0]
				order = order[1:]
				want = fifo[in][0]
				fifo[in] = fifo[in][1:]
				if len(fifo[in]) > 0 {
					order = append(order, in)
				}
			}
			if got := q.peek(); got != want {
				t.Fatalf("step %d: peek gives %p, want %p", step, got, want)
			}
			if got := q.pop(now); got != want {
				t.Fatalf("step %d: pop gives %p, want %p", step, got, want)
			}
		}
		n := 0
		for _, f := range fifo {
			n += len(f)
		}
		if q.Len != n {
			t.Fatalf("step %d: Len %d, want %d", step, q.Len, n)
		}
	}
}

// TestEgressQueueFIFO: with one FIFO (Profile.EgressFIFO), packets from
// any ingress ports leave in the order they arrived.
func TestEgressQueueFIFO(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	q := newEgressQueue(1)
	var want []*fabric.Packet
	pool := make([]fabric.Packet, 5000)
	used := 0
	for step := 0; step < 10000; step++ {
		now := sim.Time(step)
		if rng.IntN(2) == 0 && used < len(pool) {
			p := &pool[used]
			used++
			p.InPort, p.Wire = int32(rng.IntN(4)), int32(100+rng.IntN(1000))
			want = append(want, p)
			q.push(p, now)
			continue
		}
		var w *fabric.Packet
		if len(want) > 0 {
			w, want = want[0], want[1:]
		}
		if got := q.pop(now); got != w {
			t.Fatalf("step %d: pop gives %p, want %p (arrival order)", step, got, w)
		}
		if q.Len != len(want) {
			t.Fatalf("step %d: Len %d, want %d", step, q.Len, len(want))
		}
	}
}
