package sim

import (
	"runtime"
	"sync/atomic"
)

// A crew is a Group's workers beyond the caller (worker 0), kept from
// window to window (issue 50): a goroutine started for every window
// grew its stack back to an engine's depth each time (runtime.copystack),
// and a worker that had gone to sleep in the scheduler had to be woken
// by the operating system, a window's start and often its end (hpcc-320
// on 2 workers: 1.15 voluntary context switches a window, against 0.6
// a millisecond of run on one). A crew's workers and the caller wait
// for each other by spinning on a counter for a while (a window's
// partitions finish within microseconds of each other when balanced),
// then sleep on a channel.
//
// Between windows a crew holds nothing of its group (job is nil), so a
// group no one holds is collected, and its cleanup stops the crew's
// goroutines (runtime.AddCleanup in Group.runWindow).
type crew struct {
	gen  atomic.Uint64 // bumped by the caller to start a window, or to stop
	left atomic.Int32  // workers still running the window
	// What the window runs: set before gen is bumped, read after.
	job   *Group
	end   Time
	flush bool
	quit  bool
	// A worker, or the caller, that stopped spinning sleeps on its
	// channel (buffered: a wake-up sent before it sleeps is kept; a
	// stale one only makes it look again).
	sleeping   []atomic.Bool
	wake       []chan struct{}
	callerIdle atomic.Bool
	callerWake chan struct{}
	// spin is how many looks at the counter a worker or the caller takes
	// before it sleeps: crewSpin, or 0 when the workers outnumber the
	// processors (GOMAXPROCS), where a spinning one would hold a
	// processor another needs.
	spin int
}

// crewSpin is how many looks at the counter a worker or the caller
// takes before it sleeps (some 50-100 microseconds: hpcc-320's less busy
// partition waits 270 events a window at the median, 640 at the 90th
// percentile, 30 and 75 us at one worker's pace), yielding its
// processor every crewYield of them (to the collector's workers, say).
// Measured on a loaded 2-core machine, the whole spin took 36 us at the
// least (0.55 ns a look, the yields included): what a wait that ends in
// sleep costs, a window's serial point (observation, arrivals) or a
// descheduled thread included. hpcc-320 to 500 us on 2 workers spun
// 14.7 M looks in 531 windows (about 8 ms of 370 ms of CPU, 178 of the
// waits ending in sleep); ib-cc-victim, whose 29,842 windows hold a few
// events each, 68 M (about 37 ms of 160 ms), with 181 sleeps.
const (
	crewSpin  = 1 << 16
	crewYield = 1 << 10
)

// crewWorkers counts the crews' goroutines that have not ended.
var crewWorkers atomic.Int64

// newCrew starts workers-1 goroutines, workers 1 to workers-1.
func newCrew(workers int) *crew {
	c := &crew{sleeping: make([]atomic.Bool, workers), wake: make([]chan struct{}, workers), callerWake: make(chan struct{}, 1), spin: crewSpin}
	if runtime.GOMAXPROCS(0) < workers {
		c.spin = 0
	}
	for w := 1; w < workers; w++ {
		c.wake[w] = make(chan struct{}, 1)
		crewWorkers.Add(1) // before it starts: a test counting them sees it
		go c.work(w)
	}
	return c
}

// work is worker w's loop: wait for a window, run its share, count
// itself done.
func (c *crew) work(w int) {
	defer crewWorkers.Add(-1)
	var seen uint64
	for {
		seen = c.await(w, seen)
		if c.quit {
			return
		}
		c.job.share(w, c.end, c.flush)
		if c.left.Add(-1) == 0 && c.callerIdle.Load() {
			select {
			case c.callerWake <- struct{}{}:
			default:
			}
		}
	}
}

// await returns the generation after seen, once the caller has bumped
// it: spinning, then sleeping.
func (c *crew) await(w int, seen uint64) uint64 {
	for i := 1; ; i++ {
		if g := c.gen.Load(); g != seen {
			return g
		}
		if i%crewYield == 0 {
			runtime.Gosched()
		}
		if i < c.spin {
			continue
		}
		c.sleeping[w].Store(true)
		if g := c.gen.Load(); g != seen {
			c.sleeping[w].Store(false)
			return g
		}
		<-c.wake[w]
		c.sleeping[w].Store(false)
		i = 0
	}
}

// run runs a window of g on the crew and the caller: worker 0's share
// on the caller, and returns when every worker is done. So does a panic
// in worker 0's share (a model's, which the caller may recover): it
// reaches the caller once the others are done with the window, and the
// crew no longer holds g, which can then be collected and the crew
// stopped (TestCrewPanicOnCaller).
func (c *crew) run(g *Group, end Time, flush bool) {
	c.job, c.end, c.flush = g, end, flush
	c.left.Store(int32(len(c.wake) - 1))
	c.gen.Add(1)
	c.wakeSleepers()
	defer c.wait()
	g.share(0, end, flush)
}

// wait returns when every worker of the crew is done with the window,
// and lets go of its group.
func (c *crew) wait() {
	for i := 1; c.left.Load() != 0; i++ {
		if i%crewYield == 0 {
			runtime.Gosched()
		}
		if i < c.spin {
			continue
		}
		c.callerIdle.Store(true)
		if c.left.Load() == 0 {
			c.callerIdle.Store(false)
			break
		}
		<-c.callerWake
		c.callerIdle.Store(false)
		i = 0
	}
	c.job = nil
}

// wakeSleepers wakes the workers that sleep.
func (c *crew) wakeSleepers() {
	for w := 1; w < len(c.wake); w++ {
		if c.sleeping[w].Load() {
			select {
			case c.wake[w] <- struct{}{}:
			default:
			}
		}
	}
}

// stop ends the crew's goroutines (the group's cleanup: no window runs).
func (c *crew) stop() {
	c.quit = true
	c.gen.Add(1)
	for w := 1; w < len(c.wake); w++ {
		select {
		case c.wake[w] <- struct{}{}:
		default:
		}
	}
}
