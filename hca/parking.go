package hca

import (
	"container/heap"
	"fmt"
	"math/bits"
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// parkMin is the length from which a transmit ring parks the QPs its port
// refuses (parking): below it a round reads every QP about as cheaply as
// it would read the parking's bits. The package's tests park from 1, so
// that every test runs its rounds through the parking.
var parkMin = 8

// parking spares a transmit ring's round the QPs its port refuses. A QP
// with work whose next packet the port cannot take (sendFrom's first
// test: its priority paused, or on InfiniBand its VL's credit short of
// the packet's blocks) is parked: a bit at its place in the ring. While
// the port still refuses every parked QP (each parked priority still
// paused and, on InfiniBand, its credit below the fewest blocks a parked
// QP of it needs), a round passes the parked QPs by bits, without
// reading them: what it does is what reading each would do (nothing; a
// refused QP has no side effect), so the order, the cursor and every
// packet are the same, at a cost that no longer grows with the QPs
// waiting for credit. Once the port may take one, the round reads them
// as before. A parked QP is taken out (unpark) whenever anything about
// it may change: activate (new work, an ACK, a resend), ModifyQP, toErr,
// DestroyQP, a move to the other port; and when a round reads it.
// A QP held back by time (hold: its next WQE not ready, or its rate
// limiter) is parked the same way, passed by whatever the port until
// its wake time (releaseHeld), when reading it would send.
//
// Without it a port short of credit read every waiting QP at each packet
// and each credit that came back: InfiniBand with UD poisson traffic
// above what the fabric carries (a QP a flow, their number growing with
// time) cost time growing with the square of the time simulated.
type parking struct {
	bits []uint64 // bit i: the ring's i-th QP is parked
	n    int      // QPs parked
	// held marks, of the parked QPs, those held back by time (hold):
	// a round passes them by whatever the port, until their wake.
	held  []uint64
	nHeld int
	// wakes are the held QPs' wake times, earliest first (a heap): a
	// round first unparks those due (releaseHeld), even before their wake
	// event runs, as reading them at that time would send. Entries of
	// QPs unparked since stay until their time.
	wakes wakeHeap
	// count is, per priority, its QPs parked, and need at most the
	// fewest credit blocks one of them needs (0 on Ethernet, where a
	// pause refuses any packet): a bound that a QP unparked leaves as it
	// was, reset when its priority has none parked.
	count [16]int32
	need  [16]int64
}

// heldPrio is parkedPrio's mark of a QP parked by hold, which no
// priority counts.
const heldPrio = 0xFF

// mark sets bit i of *words, growing it as needed.
func mark(words *[]uint64, i int) {
	if w := i / 64; w >= len(*words) {
		*words = append(*words, make([]uint64, w+1-len(*words))...)
	}
	(*words)[i/64] |= 1 << (i % 64)
}

// park marks qp, the ring's i-th QP, refused: its next packet needs
// blocks of credit (0 without credits).
func (pk *parking) park(i int, qp *QP, blocks int64) {
	mark(&pk.bits, i)
	pk.n++
	p := qp.Priority & 15
	if pk.count[p] == 0 || blocks < pk.need[p] {
		pk.need[p] = blocks
	}
	pk.count[p]++
	qp.parked, qp.parkedPrio = true, p
}

// unpark clears the mark of qp, the ring's i-th QP.
func (pk *parking) unpark(i int, qp *QP) {
	pk.bits[i/64] &^= 1 << (i % 64)
	pk.n--
	if qp.parkedPrio == heldPrio {
		pk.held[i/64] &^= 1 << (i % 64)
		pk.nHeld--
	} else {
		pk.count[qp.parkedPrio]--
	}
	qp.parked = false
}

// hold parks qp, the ring's i-th QP, held back by time: its rate limiter
// or its next WQE's doorbell and fetch (holdUntil) keep it from sending
// until its wake timer, pending at a time after now. Reading it before
// then does what reading it now did: nothing (wakeAt finds the timer
// set), whatever the port; the wake unparks it (evWake), and so does
// anything that changes the QP, as for park.
func (pk *parking) hold(i int, qp *QP) {
	heap.Push(&pk.wakes, heldWake{qp.wake.At(), qp})
	mark(&pk.bits, i)
	mark(&pk.held, i)
	pk.n++
	pk.nHeld++
	qp.parked, qp.parkedPrio = true, heldPrio
}

// remove closes the gap of the ring's i-th QP, removed: the marks above
// it move down one place, as the QPs do.
func (pk *parking) remove(i int) {
	shiftDown(pk.bits, i)
	shiftDown(pk.held, i)
}

// shiftDown removes bit i of words, the bits above it moving down one.
func shiftDown(words []uint64, i int) {
	w := i / 64
	if w >= len(words) {
		return
	}
	low := uint64(1)<<(i%64) - 1
	b := words[w]
	b = b&low | b>>1&^low
	for ; w+1 < len(words); w++ {
		words[w] = b | words[w+1]<<63
		b = words[w+1] >> 1
	}
	words[w] = b
}

// refusesAll reports whether port still refuses every QP parked by park.
func (pk *parking) refusesAll(port *fabric.Port) bool {
	for p := range pk.count {
		if pk.count[p] == 0 {
			continue
		}
		if !port.Paused(uint8(p)) || port.Credits() && port.HasCredit(uint8(p), pk.need[p]*fabric.BlockBytes) {
			return false
		}
	}
	return true
}

// run returns how many QPs from the ring's i-th on, at most most, are
// parked one after another: any parked if all, else held ones only.
func (pk *parking) run(i, most int, all bool) int {
	words := pk.held
	if all {
		words = pk.bits
	}
	k := 0
	for k < most {
		j := i + k
		if j/64 >= len(words) {
			break
		}
		off := j % 64
		ones := bits.TrailingZeros64(^(words[j/64] >> off)) // at most 64-off: the bits shifted in are 0
		k += ones
		if ones < 64-off {
			break
		}
	}
	return min(k, most)
}

// unpark takes qp out of its ring's parking, if it is parked: something
// about it may have changed, and the next round must read it.
func (h *HCA) unpark(qp *QP) {
	if !qp.parked {
		return
	}
	ring, pk := &h.active, h.park
	if h.arb != nil {
		ring, pk = &h.arb.rings[qp.ring], h.arb.parks[qp.ring]
	}
	pk.unpark(slices.Index(*ring, qp), qp)
}

// parkingFor returns the parking of a ring of n QPs, made (in *pk) once
// the ring first reaches parkMin; nil while it has not, or on an HCA
// with a second port, whose ring both ports read.
func (h *HCA) parkingFor(pk **parking, n int) *parking {
	if *pk == nil && n >= parkMin && (h.cold == nil || h.cold.port2 == nil) {
		*pk = &parking{}
	}
	return *pk
}

// parkCheck makes every round check that the QPs it passes by are parked,
// have work and are refused by the port, as reading them would find
// (the package's tests set it).
var parkCheck = false

func (h *HCA) checkParked(qps []*QP, port *fabric.Port) {
	now := h.eng.Now()
	for _, qp := range qps {
		if qp.parked && qp.parkedPrio == heldPrio {
			if !qp.hasWork() || !qp.wake.Pending() || qp.wake.At() <= now || h.holdsTo(qp) != qp.wake.At() {
				panic(fmt.Sprintf("hca: %s: %v passed by held (work %v, wake %v at %v, held to %v, now %v)",
					h.Name, qp, qp.hasWork(), qp.wake.Pending(), qp.wake.At(), h.holdsTo(qp), now))
			}
			continue
		}
		if _, no := h.refuses(qp, port); !qp.parked || !qp.hasWork() || !no {
			panic(fmt.Sprintf("hca: %s: %v passed by parked (parked %v, work %v, refused %v)", h.Name, qp, qp.parked, qp.hasWork(), no))
		}
	}
}

// holdsTo is the time to which sendFrom, reading qp, would hold it back
// (0 if it would not): what checkParked finds of a QP parked by hold.
func (h *HCA) holdsTo(qp *QP) sim.Time {
	switch {
	case qp.tcp != nil || qp.srPending():
		return 0
	case len(qp.rdJobs) > 0:
		if qp.rdJobs[0].nak != 0 || qp.Rate == 0 {
			return 0
		}
		return qp.nextTx
	case qp.State != QPRTS || qp.sendIdx >= len(qp.sq):
		return 0
	}
	return h.holdUntil(qp)
}

// heldWake is a held QP's wake time.
type heldWake struct {
	at sim.Time
	qp *QP
}

// wakeHeap orders held QPs by wake time (container/heap).
type wakeHeap []heldWake

func (w wakeHeap) Len() int           { return len(w) }
func (w wakeHeap) Less(i, j int) bool { return w[i].at < w[j].at }
func (w wakeHeap) Swap(i, j int)      { w[i], w[j] = w[j], w[i] }
func (w *wakeHeap) Push(x any)        { *w = append(*w, x.(heldWake)) }
func (w *wakeHeap) Pop() any {
	old := *w
	x := old[len(old)-1]
	*w = old[:len(old)-1]
	return x
}

// releaseHeld unparks the held QPs of pk whose wake time has come (at or
// before now): a round reads them again.
func (h *HCA) releaseHeld(pk *parking, ring []*QP, now sim.Time) {
	for len(pk.wakes) > 0 && pk.wakes[0].at <= now {
		w := heap.Pop(&pk.wakes).(heldWake)
		if qp := w.qp; qp.parked && qp.parkedPrio == heldPrio {
			pk.unpark(slices.Index(ring, qp), qp)
		}
	}
}
