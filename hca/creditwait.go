package hca

import "github.com/lfsim/lfsim/sim"

// The count of the RCCC requester QPs that wait to send a request
// (creditActive), kept as the QPs change rather than read from the
// transmit rings at each request: on an all-to-all each NIC holds a QP
// per peer, and the rings' scan took 13.5% of such a run's instructions
// (scenarios/bench/diag/k8-rccc-all-to-all-16k, under cachegrind).
//
// Whether a QP waits (waitsFrom) depends on its own state and on the
// time: its rate limiter and its WQE's doorbell let it send from a time
// on, and no later time undoes that. So a QP is either
//   - not waiting (cwNone),
//   - counted (cwCounted), or
//   - pending (cwPending): it will wait from a time on, unless it changes
//     first, in a heap by that time, counted once the clock reaches it.
//
// Its state is read again (refreshWait) after anything that may change
// it: the HCA marks a QP with credits (touch) in every event that
// changes it, at the event's entry or anywhere in it, and the next
// request reads the marked QPs again, keeping those marked in the
// current event, which may change them still, for the request after.
// The marks: its timers and posted WQEs (HandleEvent, post), the
// packets that change a requester (ACKs and NACKs: heard; credit:
// creditArrival; READ responses and trimmed headers: process), what it
// sends (spendCredit, srRetransmit's pass over trims and holes, its READ
// responses' pacing), joining its ring and leaving it (activate,
// deactivate), its congestion control's rate and window (SetRate),
// ModifyQP, toErr and a port's migration (migrateOff). A QP changed in
// an event that did not mark it would be counted wrong: creditCheck,
// which the package's tests set, compares each count with the rings'
// scan (creditActiveScan).

// creditCheck makes each RCCC request compare the kept count with the
// scan of the transmit rings, and panic if they differ (the package's
// tests set it).
var creditCheck = false

// A QP's place in the count (QP.cw).
const (
	cwNone uint8 = iota
	cwCounted
	cwPending
)

// creditWait is a QP's place in its HCA's count of QPs waiting to send
// (QP.cw).
type creditWait struct {
	state  uint8
	marked bool   // in creditWaits.marked
	stamp  uint64 // the event it was last marked in (sim.Engine.Events)
	ver    uint64 // its pending entry's version (creditWaits.ver)
}

// creditWaits is an HCA's count of its RCCC QPs waiting to send.
type creditWaits struct {
	n       int64         // the counted QPs
	marked  []*QP         // QPs to read again
	pending []pendingWait // a min-heap by time
	ver     uint64        // the last pending entry's version
}

// pendingWait is a QP that waits to send from at on, if its version is
// still its own (a QP read again leaves its old entry stale).
type pendingWait struct {
	at  sim.Time
	qp  *QP
	ver uint64
}

// touch marks qp to be read again before the next RCCC request, if it
// has credits.
func (h *HCA) touch(qp *QP) {
	if qp.Credits != nil {
		h.touchCredit(qp)
	}
}

// touched is touch that returns qp: the marks of the HCA's hot
// functions take no line of their own, so that the lines after them
// keep their places in the committed profile (default.pgo), which knows
// a call by its line within its function.
func (h *HCA) touched(qp *QP) *QP {
	h.touch(qp)
	return qp
}

// touchCredit marks RCCC QP qp (touch): not inlined, so that touch
// adds little to the hot functions that call it (activate inlines kick).
//
//go:noinline
func (h *HCA) touchCredit(qp *QP) {
	c := &qp.cw
	c.stamp = h.eng.Events()
	if !c.marked {
		c.marked = true
		w := h.creditWaits()
		w.marked = append(w.marked, qp)
	}
}

// creditWaits returns the HCA's count, made when first needed.
func (h *HCA) creditWaits() *creditWaits {
	c := h.coldPart()
	if c.waits == nil {
		c.waits = &creditWaits{}
	}
	return c.waits
}

// creditWaiting is creditActive: the QPs counted, qp's place aside, and
// qp.
func (h *HCA) creditWaiting(qp *QP) int64 {
	w := h.creditWaits()
	now := h.eng.Now()
	stamp := h.eng.Events()
	keep := w.marked[:0]
	for _, o := range w.marked {
		h.refreshWait(w, o, now)
		if o.cw.stamp == stamp {
			keep = append(keep, o) // this event may change it still
		} else {
			o.cw.marked = false
		}
	}
	clear(w.marked[len(keep):])
	w.marked = keep
	for len(w.pending) > 0 && w.pending[0].at <= now {
		e := w.popPending()
		if o := e.qp; o.cw.state == cwPending && o.cw.ver == e.ver {
			o.cw.state = cwCounted
			w.n++
		}
	}
	n := 1 + w.n
	if qp.cw.state == cwCounted {
		n--
	}
	return n
}

// refreshWait reads o's place in w again, at now.
func (h *HCA) refreshWait(w *creditWaits, o *QP, now sim.Time) {
	if o.cw.state == cwCounted {
		w.n--
	}
	o.cw.state = cwNone // a pending entry goes stale
	at, ok := h.waitsFrom(o)
	switch {
	case !ok:
	case at <= now:
		o.cw.state = cwCounted
		w.n++
	default:
		w.ver++
		o.cw.state, o.cw.ver = cwPending, w.ver
		w.pushPending(pendingWait{at: at, qp: o, ver: w.ver})
	}
}

// waitsFrom reports whether RCCC requester QP o will wait to send a
// request from some time on, as it is, and from when: waitsToSend's
// conditions, its ring's too, the time's apart.
func (h *HCA) waitsFrom(o *QP) (sim.Time, bool) {
	if !o.active || o.Credits == nil || o.Type != RC || o.State != QPRTS || o.tcp != nil || !o.Credits.CanSend() {
		return 0, false
	}
	if o.Window > 0 && h.inFlight(o)*int64(o.pmtu) >= o.Window {
		return 0, false
	}
	if o.srPending() {
		return o.nextTx, true
	}
	if o.sendIdx < len(o.sq) && !o.rnrWait.Pending() {
		return max(o.nextTx, o.sq[o.sendIdx].ready), true
	}
	return 0, false
}

func (w *creditWaits) pushPending(e pendingWait) {
	q := append(w.pending, e)
	i := len(q) - 1
	for i > 0 {
		up := (i - 1) / 2
		if q[up].at <= q[i].at {
			break
		}
		q[up], q[i] = q[i], q[up]
		i = up
	}
	w.pending = q
}

func (w *creditWaits) popPending() pendingWait {
	q := w.pending
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q[last] = pendingWait{}
	q = q[:last]
	for i := 0; ; {
		l, s := 2*i+1, i
		if l < len(q) && q[l].at < q[s].at {
			s = l
		}
		if r := l + 1; r < len(q) && q[r].at < q[s].at {
			s = r
		}
		if s == i {
			break
		}
		q[i], q[s] = q[s], q[i]
		i = s
	}
	w.pending = q
	return top
}
