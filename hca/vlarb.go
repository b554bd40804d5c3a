package hca

import (
	"math/bits"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// VLArb is an HCA port's VL arbitration tables (IBTA vol. 1, 7.6.9), as
// the switches have them (switch.ib.vlarb): the VLs of the high-priority
// table go first, the highest VL first (the model does not weigh high
// VLs against each other), and those of the low-priority table share
// what is left by their weights. HighLimit bounds what the high table
// sends while a low VL waits; then one low-table packet goes.
type VLArb struct {
	// High holds a bit per VL of the high-priority table.
	High uint16
	// Weight is, per VL of the low-priority table, the bytes a turn
	// grants: the table's weight × 64 (its unit). 0: not in the table.
	Weight [16]int64
	// HighLimit is the bytes (high_limit × 4 KiB) the high table may send
	// while a low VL waits; 0 unlimited.
	HighLimit int64
}

// vlArbiter runs VLArb over a ring of QPs per VL. The low table is
// served in turns: a VL's turn adds its weight to its allowance, and
// it sends while the allowance is positive, a packet taking its whole
// frame even beyond what is left, the overdraft carried to its next
// turn, so that over many turns each VL's bytes follow its weight
// (the spec lets a packet start while the entry's weight is not used up;
// it does not say what becomes of the excess, the model carries it). A
// VL with no QP to send loses its allowance; one held back (credit, rate)
// keeps it.
type vlArbiter struct {
	VLArb
	low      []uint8 // the low table's VLs, ascending
	rings    [16][]*QP
	cursors  [16]int
	parks    [16]*parking // each ring's (parking.go)
	allow    [16]int64
	at       int  // index in low whose turn it is
	fresh    bool // the turn at has not added its weight yet
	highSent int64
	tries    int // turns the search may take before it gives up
}

func newVLArbiter(a VLArb, maxFrame int64) *vlArbiter {
	v := &vlArbiter{VLArb: a, fresh: true}
	rounds := int64(1)
	for vl, w := range a.Weight {
		if w > 0 {
			v.low = append(v.low, uint8(vl))
			// A VL deep in overdraft needs this many turns to send again.
			rounds = max(rounds, (maxFrame+w-1)/w+1)
		}
	}
	v.tries = int(rounds) * max(1, len(v.low))
	return v
}

// next chooses the packet the port sends: from the high table unless it
// has used its limit while a low VL waits, else from the low table.
func (v *vlArbiter) next(h *HCA, port *fabric.Port, now sim.Time) *fabric.Packet {
	limited := v.HighLimit > 0 && v.highSent >= v.HighLimit && v.lowWaiting()
	if !limited {
		if p := v.high(h, port, now); p != nil {
			return p
		}
	}
	if p := v.lowTurn(h, port, now); p != nil {
		v.highSent = 0
		return p
	}
	if limited { // no low VL could send after all
		return v.high(h, port, now)
	}
	return nil
}

func (v *vlArbiter) lowWaiting() bool {
	for _, vl := range v.low {
		if len(v.rings[vl]) > 0 {
			return true
		}
	}
	return false
}

func (v *vlArbiter) high(h *HCA, port *fabric.Port, now sim.Time) *fabric.Packet {
	for m := v.High; m != 0; {
		vl := bits.Len16(m) - 1
		m &^= 1 << vl
		if p := h.fromRing(&v.rings[vl], &v.cursors[vl], &v.parks[vl], port, now); p != nil {
			v.highSent += int64(p.Frame())
			return p
		}
	}
	return nil
}

func (v *vlArbiter) lowTurn(h *HCA, port *fabric.Port, now sim.Time) *fabric.Packet {
	n := len(v.low)
	var held uint16 // VLs found unable to send in this search
	for t := 0; t < v.tries && n > 0; t++ {
		vl := v.low[v.at]
		switch {
		case len(v.rings[vl]) == 0:
			v.allow[vl] = 0
		case held&(1<<vl) != 0:
		default:
			added := v.fresh
			if added {
				v.allow[vl] += v.Weight[vl]
				v.fresh = false
			}
			if v.allow[vl] > 0 {
				if p := h.fromRing(&v.rings[vl], &v.cursors[vl], &v.parks[vl], port, now); p != nil {
					v.allow[vl] -= int64(p.Frame())
					return p
				}
				held |= 1 << vl
				if added { // a turn it could not use is not counted
					v.allow[vl] -= v.Weight[vl]
				}
			}
		}
		v.at = (v.at + 1) % n
		v.fresh = true
	}
	return nil
}
