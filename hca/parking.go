package hca

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/lfsim/lfsim/fabric"
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
//
// Without it a port short of credit read every waiting QP at each packet
// and each credit that came back: InfiniBand with UD poisson traffic
// above what the fabric carries (a QP a flow, their number growing with
// time) cost time growing with the square of the time simulated.
type parking struct {
	bits []uint64 // bit i: the ring's i-th QP is parked
	n    int      // QPs parked
	// count is, per priority, its QPs parked, and need at most the
	// fewest credit blocks one of them needs (0 on Ethernet, where a
	// pause refuses any packet): a bound that a QP unparked leaves as it
	// was, reset when its priority has none parked.
	count [16]int32
	need  [16]int64
}

// park marks qp, the ring's i-th QP, refused: its next packet needs
// blocks of credit (0 without credits).
func (pk *parking) park(i int, qp *QP, blocks int64) {
	if w := i / 64; w >= len(pk.bits) {
		pk.bits = append(pk.bits, make([]uint64, w+1-len(pk.bits))...)
	}
	pk.bits[i/64] |= 1 << (i % 64)
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
	pk.count[qp.parkedPrio]--
	qp.parked = false
}

// remove closes the gap of the ring's i-th QP, removed: the marks above
// it move down one place, as the QPs do.
func (pk *parking) remove(i int) {
	w := i / 64
	if w >= len(pk.bits) {
		return
	}
	low := uint64(1)<<(i%64) - 1
	b := pk.bits[w]
	b = b&low | b>>1&^low
	for ; w+1 < len(pk.bits); w++ {
		pk.bits[w] = b | pk.bits[w+1]<<63
		b = pk.bits[w+1] >> 1
	}
	pk.bits[w] = b
}

// refusesAll reports whether port still refuses every parked QP.
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
// parked one after another.
func (pk *parking) run(i, most int) int {
	k := 0
	for k < most {
		j := i + k
		if j/64 >= len(pk.bits) {
			break
		}
		off := j % 64
		ones := bits.TrailingZeros64(^(pk.bits[j/64] >> off)) // at most 64-off: the bits shifted in are 0
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
	for _, qp := range qps {
		if _, no := h.refuses(qp, port); !qp.parked || !qp.hasWork() || !no {
			panic(fmt.Sprintf("hca: %s: %v passed by parked (parked %v, work %v, refused %v)", h.Name, qp, qp.parked, qp.hasWork(), no))
		}
	}
}
