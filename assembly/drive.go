package assembly

import (
	"cmp"
	"slices"

	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/sim"
)

// The run of a network with a lookahead (every link has a delay), on one
// engine or cut into partitions: the same observation points either way
// (observe/window.go), so that its results do not depend on the workers.
//
// The run goes from point to point. A point is the end of the window of
// the hand-over that holds the next event (a multiple of the lookahead),
// or, if earlier, the next sampling instant or the detector's next
// deadline. At a point every event before it has fired and none at it;
// there the detector takes its records and runs what is due, the sampler
// samples, and the stop condition is looked at (flows-done, deadlock, a
// program done, an interruption). So a run that stops on a condition
// stops at the end of the window in which it was met: at most one
// lookahead (the smallest link delay) after it.
//
// An interruption is also looked at inside a window that holds many
// events (long links, sparse samples: a 5 ms lookahead held millions,
// half a second and more of wall time): runWindow runs such a window in
// slices of about interruptEvery events, and an interrupted run stops
// at the end of a slice, as it would at its stop time. A slice is no
// point: nothing is observed there, so the results are the same however
// a window is sliced.

// lookahead is the run's window: the links' smallest delay.
func (n *Network) lookahead() sim.Time {
	if n.Group != nil {
		return n.Group.Lookahead()
	}
	return n.Eng.Lookahead()
}

// nextAt is when the run's next event is due (sim.Never: none).
func (n *Network) nextAt() sim.Time {
	if n.Group != nil {
		return n.Group.NextAt()
	}
	return n.Eng.NextAt()
}

// runBefore fires every event before t and moves the clocks to t.
func (n *Network) runBefore(t sim.Time) {
	if n.Group != nil {
		n.Group.Run(t-1, nil)
		n.Group.AdvanceTo(t)
		return
	}
	n.Eng.Run(t-1, nil)
	n.Eng.AdvanceTo(t)
}

// runThrough fires every event up to t, included, and moves the clocks
// to t (unless t is sim.Never).
func (n *Network) runThrough(t sim.Time) {
	if n.Group != nil {
		n.Group.Run(t, nil)
		return
	}
	n.Eng.Run(t, nil)
}

// eventCount is how many events have fired.
func (n *Network) eventCount() uint64 {
	if n.Group != nil {
		return n.Group.Events()
	}
	return n.Eng.Events()
}

// drive runs the network to its stop from point to point; done is the
// stop condition, looked at where an event may have met it.
func (n *Network) drive(sm *observe.Sampler, done func() bool, progress func(now sim.Time, events uint64)) {
	stop := n.Scenario.Stop.At
	look := n.lookahead()
	nextSample := sm.Interval()
	sampling := true // the last sample saw events to come (the first is due regardless)
	var reported uint64
	for {
		n.makeArrivals(n.Eng.Now())
		arrival := n.nextArrivalWindow() // unchanged until the next makeArrivals
		t := n.nextAt()
		if c := min(n.ctlNext(), arrival); t == sim.Never && c <= stop {
			t = c // nothing runs before the next fault or arrival; it may start something
		}
		if t == sim.Never {
			// Nothing left: the sample due next is still taken, if the
			// last one saw events to come, and the clock goes to the
			// stop.
			if sampling && nextSample <= stop {
				n.observe(nextSample)
				sm.Sample(nextSample)
			}
			n.runThrough(stop)
			n.observe(n.Eng.Now())
			return
		}
		end := min((t/look+1)*look, nextSample, n.ctlNext(), arrival)
		if n.det != nil {
			end = min(end, n.det.Next())
		}
		if end > stop {
			n.runThrough(stop)
			n.observe(n.Eng.Now())
			return
		}
		if !n.runWindow(t, end) {
			n.observe(n.Eng.Now()) // interrupted inside the window
			return
		}
		n.observe(end)
		if end == nextSample {
			sm.Sample(end)
			nextSample = end + sm.Interval()
			sampling = min(n.nextAt(), n.ctlNext(), arrival) != sim.Never
		}
		if ev := n.eventCount(); progress != nil && ev/progressEvery != reported/progressEvery {
			progress(end, ev)
			reported = ev
		}
		polled := n.interrupted.Load() || len(n.Tests) > 0
		for i := range n.parts {
			polled = polled || n.parts[i].polled
			n.parts[i].polled = false
		}
		if polled && done() {
			return
		}
	}
}

// runWindow fires every event before end, the next point, from t, the
// first event's time, as runBefore does, in slices of n.slice; after
// each slice short of end it looks for an interruption, and returns
// false, every event through the slice's end fired and the clocks there,
// when there is one. The slice follows the events' rate: a run over span
// that held more than sliceEvents events makes the next slices the span
// that holds about sliceEvents at that rate; slices that hold under a
// quarter of it double, until windows run whole again. A run begins
// with slices of 1/64 of the lookahead, so that a first window full of
// events is sliced too.
func (n *Network) runWindow(t, end sim.Time) bool {
	if n.sliceEvents == 0 {
		n.sliceEvents = interruptEvery
		n.slice = max(1, n.lookahead()/64)
	}
	for {
		to := end
		if n.slice > 0 && t < end-n.slice {
			to = t + n.slice
		}
		before := n.eventCount()
		if to == end {
			n.runBefore(end)
		} else {
			n.runThrough(to)
		}
		n.learnSlice(n.eventCount()-before, to-t)
		if to == end {
			return true
		}
		n.slices++
		if n.interrupted.Load() {
			return false
		}
		t = to + 1
	}
}

// learnSlice sets the slice from a run over span that fired events.
func (n *Network) learnSlice(events uint64, span sim.Time) {
	switch {
	case events > n.sliceEvents:
		n.slice = max(1, sim.Time(float64(span)*float64(n.sliceEvents)/float64(events)))
	case n.slice > 0 && events < n.sliceEvents/4:
		if n.slice *= 2; n.slice >= n.lookahead() {
			n.slice = 0
		}
	}
}

// observe is the control plane's actions due at point t, then the UC and
// UD flows' drops and copies (settleDatagrams), then the detector's look,
// then the finished flows' records (retire, when the run streams them).
func (n *Network) observe(t sim.Time) {
	n.runControl(t)
	if len(n.nccls) > 0 {
		n.releaseBarriers(t)
	}
	n.settleDatagrams()
	if n.det != nil {
		n.det.Tick(t)
	}
	n.retire()
}

// control is a control-plane action to come (a fault's start or end, a
// switch's new routes): what Network.at was given.
type control struct {
	at   sim.Time
	seq  int64
	h    sim.Handler
	kind int32
}

// at schedules h.HandleEvent (with kind) at t as the control plane's
// action. In a run with a lookahead it is an observation point of its
// own (drive), where every partition has run every event before t and
// none at t, so an action that changes several nodes (both ends of a
// link, every switch's routes) changes them at once whatever the
// workers; otherwise it is an engine event.
func (n *Network) at(t sim.Time, h sim.Handler, kind int32) {
	if !n.windowed {
		n.Eng.Schedule(t, h, kind, 0, nil)
		return
	}
	n.ctlSeq++
	c := control{at: t, seq: n.ctlSeq, h: h, kind: kind}
	i, _ := slices.BinarySearchFunc(n.ctl, c, func(a, b control) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	n.ctl = slices.Insert(n.ctl, i, c)
}

// ctlNext is when the next control action is due (sim.Never: none).
func (n *Network) ctlNext() sim.Time {
	if len(n.ctl) == 0 {
		return sim.Never
	}
	return n.ctl[0].at
}

// runControl runs the control actions due at or before t, in order;
// those they schedule for t run too.
func (n *Network) runControl(t sim.Time) {
	for len(n.ctl) > 0 && n.ctl[0].at <= t {
		c := n.ctl[0]
		n.ctl = slices.Delete(n.ctl, 0, 1)
		ev := sim.Event{At: c.at, H: c.h, Kind: c.kind}
		c.h.HandleEvent(&ev)
	}
}
