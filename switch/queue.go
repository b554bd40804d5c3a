package swtch

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// egressQueue is one egress port's queue for one priority. Packets wait in
// a FIFO per ingress port, and the queue serves the ingress ports round
// robin, one packet each, as switch fabrics arbitrate among inputs. This is
// what makes PFC-only sharing per input port rather than per flow: three
// inputs to one output get a third each, however many flows each carries.
// With one FIFO only (newEgressQueue(1), Profile.EgressFIFO) it is a plain
// FIFO, as a shared-memory switch queues per class of service.
type egressQueue struct {
	sub    []fabric.PacketFIFO // by ingress port; one for all in a FIFO
	ring   []int32             // ingress ports with packets, in service order
	head   int32
	active int32
	// nextFIFO is the FIFO next waits in: its ingress port, or 0 in a
	// single FIFO. A transmission asks for next and that FIFO (and, with a
	// FIFO per ingress port, the ingress account) at once instead of one
	// after another (Switch.dequeue).
	nextFIFO int32
	_        int32

	Len   int
	Bytes int64

	// Time integrals of Len (packet·ps) and Bytes (byte·ps) since the
	// start, for time averages; last is when they were brought up to date.
	lenArea  float64
	byteArea float64
	last     sim.Time

	// What the queue has sent (PortPrio's TxPackets and TxBytes, kept here
	// to be beside what sending touches).
	txPackets, txBytes int64
	// next is the packet pop returns next (nil when the queue is empty),
	// found when the one before it leaves: the port's next transmission
	// then reads the queue and that packet, not the round robin's ring and
	// the ingress FIFO first, one cold line after another.
	next *fabric.Packet
	// 128 bytes: a queue spans two cache lines, never three, and they
	// are one aligned pair, which the hardware fetches together: the
	// warm hints ask for the first only (asking for both measured no
	// faster, docs/PERFORMANCE.md).
}

func newEgressQueue(ports int) egressQueue {
	return egressQueue{sub: make([]fabric.PacketFIFO, ports), ring: make([]int32, ports)}
}

// egressFIFOs holds one priority's ingress FIFOs and round-robin rings
// for every egress port of a switch, in two arrays, so that a FIFO's
// address follows from the egress port, the ingress port and the
// priority alone: the switch asks for the FIFO a packet will join before
// its pipeline exit (Switch.warmExit), without reading the egress queue
// first to find where its FIFOs are.
type egressFIFOs struct {
	fifos []fabric.PacketFIFO // [out*perQueue + in]
	rings []int32             // [out*ports + i]
}

// queue gives egress port out its FIFOs (perQueue of them: one per
// ingress port, or one) and ring, from the switch's arrays.
func (f *egressFIFOs) queue(out, perQueue, ports int) egressQueue {
	a, b := out*perQueue, out*ports
	return egressQueue{sub: f.fifos[a : a+perQueue : a+perQueue], ring: f.rings[b : b+ports : b+ports]}
}

// account brings the time integrals up to now.
func (q *egressQueue) account(now sim.Time) {
	dt := float64(now - q.last)
	q.lenArea += dt * float64(q.Len)
	q.byteArea += dt * float64(q.Bytes)
	q.last = now
}

func (q *egressQueue) push(p *fabric.Packet, now sim.Time) {
	q.account(now)
	in := p.InPort
	if len(q.sub) == 1 {
		in = 0 // a FIFO
	}
	s := &q.sub[in]
	if s.Peek() == nil {
		q.ring[q.wrap(q.head+q.active)] = in
		q.active++
	}
	s.Push(p)
	q.Len++
	q.Bytes += p.Frame()
	if q.next == nil {
		q.next, q.nextFIFO = p, in
	}
}

// wrap brings an index into the ring of ingress ports: i is below twice
// its length (head is inside it and active at most its length), so a
// subtraction does what i % len(ring) did without a division (a 64-bit
// DIV, two or three a hop).
func (q *egressQueue) wrap(i int32) int32 {
	if n := int32(len(q.ring)); i >= n {
		i -= n
	}
	return i
}

// peek returns the packet pop would return.
func (q *egressQueue) peek() *fabric.Packet { return q.next }

// pop serves the next ingress port in turn.
func (q *egressQueue) pop(now sim.Time) *fabric.Packet {
	if q.active == 0 {
		return nil
	}
	q.account(now)
	p := q.next
	in := q.nextFIFO // the head of the ring: its FIFO's head is p
	s := &q.sub[in]
	s.Pop()
	q.head = q.wrap(q.head + 1)
	q.active--
	if s.Peek() != nil {
		q.ring[q.wrap(q.head+q.active)] = in
		q.active++
	}
	q.Len--
	q.Bytes -= p.Frame()
	q.next = nil
	if q.active > 0 {
		q.nextFIFO = q.ring[q.head]
		q.next = q.sub[q.nextFIFO].Peek()
		// Asked for now: it has waited long enough to have left the
		// caches, and fetching it when its turn comes would put a miss on
		// the transmit path (docs/PERFORMANCE.md).
		sim.Prefetch(q.next)
	}
	return p
}

// QueueStats are time averages of one egress queue.
type QueueStats struct {
	// MeanPackets and MeanBytes are the time-averaged number of packets and
	// bytes waiting (not counting the one on the wire).
	MeanPackets, MeanBytes float64
}
