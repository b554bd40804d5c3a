package sim

import "unsafe"

// EachPending calls timer with the handler and data of every timer and
// current-time event still to fire (cancelled ones are skipped), and
// lane with the kind and data of every waiting lane event, in no
// particular order. It
// is for a census of what the models have handed to the engine (a
// packet on a wire or in a pipeline is there and nowhere else); it
// changes nothing and is not meant for the hot path.
func (e *Engine) EachPending(timer func(h Handler, data any), lane func(kind *LaneKind, data unsafe.Pointer)) {
	for _, it := range e.heap {
		if it.ev.H != nil {
			timer(it.ev.H, it.ev.Data)
		}
	}
	for i := 0; i < e.nowQ.size; i++ {
		if ev := e.nowQ.buf[(e.nowQ.head+i)&(len(e.nowQ.buf)-1)]; ev.H != nil {
			timer(ev.H, ev.Data)
		}
	}
	e.eachStaged(e.staged, timer, lane)
	for i := 0; i < e.nLanes; i++ {
		l := &e.laneArr[i]
		for j := 0; j < l.q.size+int(l.staged); j++ {
			lane(l.kind, l.q.slot(l.q.head+j).data)
		}
	}
}

// eachStaged is EachPending for items staged for e (by it or by another
// engine of its Group): a handed-over event's handler and data, or an
// arrival's lane kind (e's lane) and data.
func (e *Engine) eachStaged(items []stagedItem, timer func(h Handler, data any), lane func(kind *LaneKind, data unsafe.Pointer)) {
	for _, it := range items {
		if it.data == unsafe.Pointer(&eventMark) {
			hd := (*handed)(it.target)
			timer(hd.h, hd.data)
			continue
		}
		lane(e.laneArr[it.key&(1<<laneBits-1)].kind, it.data)
	}
}
