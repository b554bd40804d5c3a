package fabric

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/lfsim/lfsim/sim"
)

// warmHints are the addresses of the state a port's owner reads when the
// port's transmission ends (to choose the next frame) and when a frame
// arrives, set by the owner once (SetWarmTx, SetWarmRx, SetWarmAt,
// SetWarmRoutes). The Warm of the port's lane kinds asks for them an
// event ahead from the port's own lines, which the engine asked for an
// event before that. Asking the owner instead (an Owner method, as
// before) read the owner's own struct first to find them: a line that
// the hint itself then waited for, on every event (docs/PERFORMANCE.md,
// "Seventh round").
//
// They are addresses only: nothing is read through them, and the CPU's
// prefetch ignores an address that is no longer the state's (after
// SetRoutes, say): a stale hint costs a wasted fetch, never a wrong
// result. Kept as uintptr, they hold nothing alive for the collector.
type warmHints struct {
	txAt     uintptr // a transmission's end: txAt + slot*txStride and the line after
	rxAt     uintptr // an arrival: rxAt + slot*rxStride, and the routing entry or the line after
	routeRow uintptr // the owner's row of routes (a switch's), or 0
	routes   *Routes // whose host index places a destination in routeRow
}

// warmSlot is the place of priority prio's state among the owner's
// state by priority: its rank among the priorities in warmMask (prio
// itself when the owner keeps all eight). A priority not in the mask
// gets the next one's place: a wasted fetch, never a wrong result.
func (p *Port) warmSlot(prio uint8) uintptr {
	return uintptr(bits.OnesCount8(p.warmMask & (1<<(prio&7) - 1)))
}

// warmTx asks for what the owner reads when a frame of priority prio has
// been sent.
func (p *Port) warmTx(prio uint8) {
	if w := &p.warm; w.txAt != 0 {
		a := w.txAt + p.warmSlot(prio)*uintptr(p.txStride)
		sim.PrefetchAddr2(a, a+64)
	}
}

// warmRx asks for what the owner reads when a frame of priority prio
// for host dst arrives.
func (p *Port) warmRx(prio uint8, dst NodeID) {
	w := &p.warm
	if w.rxAt == 0 {
		return
	}
	a := w.rxAt + p.warmSlot(prio)*uintptr(p.rxStride)
	b := a + 64
	if w.routes != nil {
		if e := w.routes.entryAddr(w.routeRow, dst); e != 0 {
			b = e
		}
	}
	sim.PrefetchAddr2(a, b)
}

// SetWarmTx tells the port what its owner reads when a transmission of a
// frame of priority prio ends: prio's element of bySlot and the line
// after it. bySlot holds an element for each priority in mask, in
// ascending order of priority (a switch's egress queues of the port, for
// the priorities it keeps queues for); with none, nothing is asked for.
// SetWarmRx must be given the same mask.
func SetWarmTx[T any](p *Port, bySlot []T, mask uint8) {
	p.warm.txAt, p.txStride, p.warmMask = warmBase(bySlot, mask)
}

// SetWarmRx tells the port what its owner reads when a frame of priority
// prio arrives: prio's element of bySlot, laid out as for SetWarmTx (a
// switch's ingress accounts of the port), and, with SetWarmRoutes, the
// routing entry for the frame's destination.
func SetWarmRx[T any](p *Port, bySlot []T, mask uint8) {
	p.warm.rxAt, p.rxStride, p.warmMask = warmBase(bySlot, mask)
}

// warmBase is where bySlot starts (0 when it is empty), its stride and
// mask.
func warmBase[T any](bySlot []T, mask uint8) (uintptr, uint8, uint8) {
	if len(bySlot) != bits.OnesCount8(mask) {
		panic(fmt.Sprintf("fabric: warm hints for %d priorities (mask %#x) given %d elements", bits.OnesCount8(mask), mask, len(bySlot)))
	}
	if len(bySlot) == 0 {
		return 0, 0, mask
	}
	size := unsafe.Sizeof(bySlot[0])
	if size > math.MaxUint8 {
		panic(fmt.Sprintf("fabric: warm hints' elements of %d bytes (at most %d)", size, math.MaxUint8))
	}
	return uintptr(unsafe.Pointer(&bySlot[0])), uint8(size), mask
}

// SetWarmAt tells the port that its owner reads the two lines at x
// whatever the frame (an HCA's first two).
func SetWarmAt[T any](p *Port, x *T) {
	a := uintptr(unsafe.Pointer(x))
	p.warm.txAt, p.warm.rxAt, p.txStride, p.rxStride = a, a, 0, 0
}

// SetWarmRoutes tells the port that its owner, switch at, looks up each
// arriving frame's destination in r (NextPorts). Call it again when the
// switch's tables change.
func (p *Port) SetWarmRoutes(r *Routes, at NodeID) {
	p.warm.routes, p.warm.routeRow = nil, 0
	if r == nil || uint(at) >= uint(len(r.swIndex)) || r.swIndex[at] < 0 || r.hosts == 0 {
		return
	}
	p.warm.routes = r
	p.warm.routeRow = uintptr(unsafe.Pointer(&r.entry[r.row[r.swIndex[at]]]))
}

// entryAddr is the address of dst's entry in a switch's row of spans
// (SetWarmRoutes), or 0 when dst is not a host.
func (r *Routes) entryAddr(row uintptr, dst NodeID) uintptr {
	if uint(dst) >= uint(len(r.hostIndex)) || r.hostIndex[dst] < 0 {
		return 0
	}
	return row + uintptr(r.hostIndex[dst])*unsafe.Sizeof(r.entry[0])
}
