package fabric

import (
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
	txAt     uintptr // a transmission's end: txAt + prio*txStride and the line after
	rxAt     uintptr // an arrival: rxAt + prio*rxStride, and the routing entry or the line after
	routeRow uintptr // the owner's row of routes (a switch's), or 0
	routes   *Routes // whose host index places a destination in routeRow
}

// warmTx asks for what the owner reads when a frame of priority prio has
// been sent.
func (p *Port) warmTx(prio uint8) {
	if w := &p.warm; w.txAt != 0 {
		a := w.txAt + uintptr(prio&7)*uintptr(p.txStride)
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
	a := w.rxAt + uintptr(prio&7)*uintptr(p.rxStride)
	b := a + 64
	if w.routes != nil {
		if e := w.routes.entryAddr(w.routeRow, dst); e != 0 {
			b = e
		}
	}
	sim.PrefetchAddr2(a, b)
}

// SetWarmTx tells the port what its owner reads when a transmission of a
// frame of priority prio ends: byPrio[prio] and the line after it (a
// switch's egress queue of the port and priority).
func SetWarmTx[T any](p *Port, byPrio *[8]T) {
	p.warm.txAt = uintptr(unsafe.Pointer(byPrio))
	p.txStride = uint16(unsafe.Sizeof(byPrio[0]))
}

// SetWarmRx tells the port what its owner reads when a frame of priority
// prio arrives: byPrio[prio] (a switch's ingress account of the port and
// priority), and, with SetWarmRoutes, the routing entry for the frame's
// destination.
func SetWarmRx[T any](p *Port, byPrio *[8]T) {
	p.warm.rxAt = uintptr(unsafe.Pointer(byPrio))
	p.rxStride = uint16(unsafe.Sizeof(byPrio[0]))
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
	p.warm.routeRow = uintptr(unsafe.Pointer(&r.entry[int(r.swIndex[at])*r.hosts]))
}

// entryAddr is the address of dst's entry in a switch's row of spans
// (SetWarmRoutes), or 0 when dst is not a host.
func (r *Routes) entryAddr(row uintptr, dst NodeID) uintptr {
	if uint(dst) >= uint(len(r.hostIndex)) || r.hostIndex[dst] < 0 {
		return 0
	}
	return row + uintptr(r.hostIndex[dst])*unsafe.Sizeof(r.entry[0])
}
