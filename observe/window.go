package observe

import (
	"cmp"
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// Observers in a run that can be cut into partitions (issue 31): they act
// at the run's observation points, where every partition has run every
// event before the point and none at it, and which do not depend on the
// partitioning (the end of each window of the hand-over that holds
// events, each sampling instant, each of the detector's deadlines). The
// one-worker run has the same points, so its results are the workers'.
//
// The detector, windowed, is told of pause changes and blocked queues by
// records its hooks append to their partition's list (a hook runs on its
// node's worker, so it touches only that list); at a point it takes every
// partition's records in the order of (time, port), applies them at their
// own times, then runs its searches, storm looks and confirmations whose
// times have come, each at its time. What it reads of the switches (a
// cycle's queues, an ingress's occupancy) it reads at the point.

// windowState is a windowed detector's records and deadlines.
type windowState struct {
	recs      [][]pauseRec // by partition
	merged    []pauseRec
	at        []int          // by partition: the next of its records to merge
	sortFn    func(part int) // sortPart, made once (a closure a point would allocate)
	deadlines []deadline
	seq       int64
}

// pauseRec is a hook's record: a pause of port g's priority prio that
// began (paused) or ended, or a packet that joined an empty paused queue
// (blocked).
type pauseRec struct {
	at      sim.Time
	g       int32
	prio    uint8
	paused  bool
	blocked bool
	port    *fabric.Port
}

// deadline is one of the detector's events to come: what fire runs, and
// when.
type deadline struct {
	at   sim.Time
	seq  int64
	kind int32
	gen  int64
}

// StartWindowedDetector hooks a detector onto every port and switch of
// v that acts at observation points (Tick) instead of in events. A cycle
// must hold for after (observe.deadlock.after) to be reported.
func StartWindowedDetector(v *View, after sim.Time) *Detector {
	d := newDetector(v, after)
	d.windowed = true
	d.win.recs = make([][]pauseRec, v.partitions())
	for id, ports := range v.Ports {
		part := &d.win.recs[v.partition(fabric.NodeID(id))]
		for _, p := range ports {
			g, eng := int32(d.gid(p)), p.Engine()
			p.OnPauseState = func(p *fabric.Port, prio uint8, paused bool) {
				*part = append(*part, pauseRec{at: eng.Now(), g: g, prio: prio, paused: paused, port: p})
			}
		}
	}
	for id, sw := range v.Switches {
		if sw == nil {
			continue
		}
		part := &d.win.recs[v.partition(fabric.NodeID(id))]
		eng, g := sw.Ports()[0].Engine(), int32(d.base[id])
		sw.OnBlocked = func(_ *swtch.Switch, port int, _ uint8) {
			*part = append(*part, pauseRec{at: eng.Now(), g: g + int32(port), blocked: true})
		}
	}
	return d
}

// after_ schedules fire(kind, gen) delay after d.now: an engine event,
// or a windowed detector's deadline.
func (d *Detector) after_(delay sim.Time, kind int32, gen int64) {
	if !d.windowed {
		d.v.Eng.After(delay, d, kind, gen, nil)
		return
	}
	d.win.seq++
	d.win.deadlines = append(d.win.deadlines, deadline{at: d.now + delay, seq: d.win.seq, kind: kind, gen: gen})
}

// Next returns when a windowed detector's next deadline is (sim.Never:
// none); the run makes it an observation point.
func (d *Detector) Next() sim.Time {
	t := sim.Never
	for _, dl := range d.win.deadlines {
		t = min(t, dl.at)
	}
	return t
}

// Tick is an observation point at now: the records since the last are
// applied in order, then every deadline at or before now fires, earliest
// first (those it sets are kept for later points, or fire now if due).
func (d *Detector) Tick(now sim.Time) {
	m := d.mergeRecords()
	for i := range m {
		r := &m[i]
		if r.blocked {
			d.now = r.at
			d.trigger()
			continue
		}
		d.applyPause(r.port, r.prio, r.paused, r.at)
	}
	clear(m)
	d.win.merged = m[:0]
	for {
		i := -1
		for j, dl := range d.win.deadlines {
			if dl.at <= now && (i < 0 || dl.at < d.win.deadlines[i].at || dl.at == d.win.deadlines[i].at && dl.seq < d.win.deadlines[i].seq) {
				i = j
			}
		}
		if i < 0 {
			break
		}
		dl := d.win.deadlines[i]
		d.win.deadlines = slices.Delete(d.win.deadlines, i, i+1)
		d.now = dl.at
		d.fire(dl.kind, dl.gen)
	}
	d.now = now
}

// sortEachAfter is how many records a point must hold for their
// partitions to sort them on their workers (View.Each) rather than on the
// point's goroutine: a few are sorted in less time than the workers take
// to start.
const sortEachAfter = 256

// mergeRecords takes every partition's records since the last point, in
// the order of (time, port), a port's own in the order it made them: the
// order one stable sort of them all gives, since a port's records are all
// in its partition's list. Each partition sorts its own list (on its
// worker when there are many), then the lists are merged.
func (d *Detector) mergeRecords() []pauseRec {
	recs := d.win.recs
	total := 0
	for _, r := range recs {
		total += len(r)
	}
	if d.v.Each != nil && len(recs) > 1 && total >= sortEachAfter {
		if d.win.sortFn == nil {
			d.win.sortFn = d.sortPart
		}
		d.v.Each(d.win.sortFn)
	} else {
		for i := range recs {
			d.sortPart(i)
		}
	}
	m := d.win.merged[:0]
	if len(recs) == 1 {
		m = append(m, recs[0]...)
	} else {
		if len(d.win.at) != len(recs) {
			d.win.at = make([]int, len(recs))
		}
		at := d.win.at
		clear(at)
		for len(m) < total {
			best := -1
			for i, r := range recs {
				if at[i] < len(r) && (best < 0 || comparePauseRecs(r[at[i]], recs[best][at[best]]) < 0) {
					best = i
				}
			}
			m = append(m, recs[best][at[best]])
			at[best]++
		}
	}
	for i := range recs {
		clear(recs[i])
		recs[i] = recs[i][:0]
	}
	return m
}

// sortPart puts partition i's records in (time, port) order, a port's
// own in the order it made them.
func (d *Detector) sortPart(i int) { slices.SortStableFunc(d.win.recs[i], comparePauseRecs) }

// comparePauseRecs orders records by time, then by port.
func comparePauseRecs(a, b pauseRec) int {
	if a.at != b.at {
		return cmp.Compare(a.at, b.at)
	}
	return cmp.Compare(a.g, b.g)
}
