package sim

import (
	"runtime"
	"sync"
	"unsafe"
)

// A Group runs one simulation cut into partitions, an Engine each, on
// several goroutines (workers): conservative parallel simulation with the
// links' delay as lookahead (issue 31; DESIGN.md, rule 2).
//
// Time goes by in the windows of the hand-over (handover.go): every
// worker runs its engines' events of the window, then all wait at a
// barrier; there each engine takes the arrivals the others sent it
// during the window (HandOver to a lane of another engine) and the next
// window begins. Nothing a partition does in a window can reach another
// within it, since every event that crosses is an arrival at least one
// lookahead later.
//
// The result does not depend on the partitioning or the number of
// workers: a node's events fire in the same order as in a run of one
// Engine with the same lookahead. Within a node, events keep the order
// they were scheduled in (each engine's insertion order, which within a
// node is the node's own); an arrival enters at the end of the window it
// was sent in, where one Engine alone puts it too, sorted among that
// window's by (time, sender's key) in either case. What differs between
// the engines of a Group and one Engine is only the order of events of
// different nodes at the same time, which no node can see.
//
// The models are the same: a node schedules on its partition's engine,
// and a link whose far end is in another partition has its arrival lane
// in that partition's engine (Lane is asked of the far end's engine).
type Group struct {
	engines   []*Engine
	workers   int
	lookahead Time
	windows   uint64
	// open says that a run stopped inside the window that ends at end
	// (its last instant): its arrivals are handed over at its end, not
	// when the next run begins.
	open bool
	end  Time
	// flushDue: a window begins, and the arrivals sent since the last
	// began have been put where their receivers take them (barrier).
	flushDue bool
	// crew runs the windows' shares of workers 1 and up (crew.go),
	// started at the first window that needs it.
	crew *crew
}

// NewGroup makes partitions engines whose random streams derive from
// seed (as NewEngine's), run by workers goroutines (at least 1, at most
// partitions), handing arrivals over in windows of lookahead (above 0).
func NewGroup(seed uint64, partitions, workers int, lookahead Time) *Group {
	if partitions < 1 || lookahead <= 0 {
		panic("sim: a group needs a partition and a lookahead")
	}
	g := &Group{workers: min(max(workers, 1), partitions), lookahead: lookahead}
	for i := 0; i < partitions; i++ {
		e := NewEngine(seed)
		e.group, e.part = g, i
		e.outbox = make([][]stagedItem, partitions)
		e.sent = make([][]stagedItem, partitions)
		e.SetLookahead(lookahead)
		g.engines = append(g.engines, e)
	}
	return g
}

// Engine returns partition i's engine.
func (g *Group) Engine(i int) *Engine { return g.engines[i] }

// Partitions returns how many engines the group has.
func (g *Group) Partitions() int { return len(g.engines) }

// Workers returns how many goroutines run them.
func (g *Group) Workers() int { return g.workers }

// Windows returns how many windows have run.
func (g *Group) Windows() uint64 { return g.windows }

// Now returns the group's time: the end of the last window run, or where
// Run stopped the clock.
func (g *Group) Now() Time {
	var t Time
	for _, e := range g.engines {
		t = max(t, e.now)
	}
	return t
}

// Events returns how many events the engines have fired.
func (g *Group) Events() uint64 {
	var n uint64
	for _, e := range g.engines {
		n += e.events
	}
	return n
}

// Pending returns how many events the engines hold, arrivals staged or
// handed over included.
func (g *Group) Pending() int {
	n := 0
	for _, e := range g.engines {
		n += e.Pending()
		for _, box := range e.outbox {
			n += len(box)
		}
		for _, box := range e.sent {
			n += len(box)
		}
	}
	return n
}

// Run runs windows until no event is left, the next is later than until,
// or done (if not nil) returns true at the end of a window; the clock of
// every engine then stands at the same time. It returns the events fired.
func (g *Group) Run(until Time, done func() bool) uint64 {
	start := g.Events()
	for {
		if !g.open {
			t := g.nextEvent()
			if t == Never || t > until {
				g.stopAt(until)
				break
			}
			g.end = (t/g.lookahead+1)*g.lookahead - 1 // the window's last instant
			g.open = true
			g.barrier()
		}
		last := min(g.end, until)
		g.runWindow(last)
		if last < g.end { // stopped inside the window, which stays open
			g.stopAt(until)
			break
		}
		g.open = false
		g.windows++
		if done != nil && done() {
			break
		}
	}
	return g.Events() - start
}

// stopAt moves every engine's clock to until, where a run stops.
func (g *Group) stopAt(until Time) {
	for _, e := range g.engines {
		if until != Never && until > e.now {
			e.now = until
		}
	}
}

// nextEvent returns the earliest event left, those handed over
// included.
func (g *Group) nextEvent() Time {
	t := Never
	for _, e := range g.engines {
		t = min(t, e.nextAt(), e.sentMin)
	}
	return t
}

// barrier begins a window: what each engine sent the others since the
// last window began (in that window, or at an observer's point after it,
// such as a fault's) becomes what they take at the window's start
// (runWindow), as one engine enters all it staged when it crosses the
// window's start.
func (g *Group) barrier() {
	for _, e := range g.engines {
		e.sent, e.outbox = e.outbox, e.sent
	}
	g.flushDue = true
}

// takeHandedOver is an engine's part of the hand-over, at the start of a
// window on its worker: it takes the arrivals the others sent it in the
// window before, and enters them with its own in their lanes, in order
// of time and key as one engine would. Each goes into the lane made for
// its sender's arrivals (LaneFrom), in the order it was sent, as the
// engine's own wait in its own lanes (stageInLane); flushStaged numbers
// them all. What cannot (an event, or an arrival for a lane another
// partition also hands over to) waits among the staged items, sorted.
func (g *Group) takeHandedOver(e *Engine) {
	for _, from := range g.engines {
		box := from.sent[e.part]
		if len(box) == 0 {
			continue
		}
		for i := range box {
			if !e.stageHandedOver(&box[i], from.part) {
				e.staged = append(e.staged, box[i])
			}
		}
		clear(box)
		from.sent[e.part] = box[:0]
	}
	e.flushStaged()
}

// runWindow runs every engine's events up to end, inclusive, on the
// workers: worker w runs the engines w, w+workers, ...; worker 0 is the
// caller, the others the group's crew (crew.go), which waits between
// windows.
func (g *Group) runWindow(end Time) {
	flush := g.flushDue
	g.flushDue = false
	if g.workers == 1 {
		g.share(0, end, flush)
		return
	}
	if g.crew == nil {
		g.crew = newCrew(g.workers)
		runtime.AddCleanup(g, (*crew).stop, g.crew)
	}
	g.crew.run(g, end, flush)
}

// share is worker w's part of a window: its engines' arrivals taken
// (when flush) and their events up to end run.
func (g *Group) share(w int, end Time, flush bool) {
	for i := w; i < len(g.engines); i += g.workers {
		if flush {
			g.takeHandedOver(g.engines[i])
		}
		g.engines[i].Run(end, nil)
	}
}

// Each runs f(i) for every partition i on the workers, as runWindow runs
// a window's events (worker w takes partitions w, w+workers, ...), and
// returns when all have. It is for observers that read and note each
// partition's nodes at an observation point, where no event runs: f(i)
// must touch only what partition i owns (its nodes, its own buffers), as
// an event does.
func (g *Group) Each(f func(part int)) {
	if g.workers == 1 {
		for i := range g.engines {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	for w := 1; w < g.workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(g.engines); i += g.workers {
				f(i)
			}
		}(w)
	}
	for i := 0; i < len(g.engines); i += g.workers {
		f(i) // worker 0's share, on the caller
	}
	wg.Wait()
}

// NextAt returns when the earliest event of any partition is due, those
// handed over included, or Never.
func (g *Group) NextAt() Time {
	t := Never
	for _, e := range g.engines {
		t = min(t, e.NextAt())
	}
	return t
}

// AdvanceTo moves every engine's clock to t (Engine.AdvanceTo).
func (g *Group) AdvanceTo(t Time) {
	for _, e := range g.engines {
		e.AdvanceTo(t)
	}
}

// Lookahead returns the windows' length.
func (g *Group) Lookahead() Time { return g.lookahead }

// EachPending is Engine.EachPending over every engine, with the arrivals
// sent to another partition and not yet handed over.
func (g *Group) EachPending(timer func(h Handler, data any), lane func(kind *LaneKind, data unsafe.Pointer)) {
	for _, e := range g.engines {
		e.EachPending(timer, lane)
		for to, dst := range g.engines {
			dst.eachStaged(e.outbox[to], timer, lane)
			dst.eachStaged(e.sent[to], timer, lane)
		}
	}
}
