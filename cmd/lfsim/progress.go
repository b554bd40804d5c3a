package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// building shows, on w, how long the network has been building once it
// has taken a second (routes and tables of a large fabric do), until the
// returned function is called: so that a run is visible from its start.
func building(w io.Writer, name string) (stop func()) {
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		shown := false
		for {
			select {
			case <-quit:
				if shown {
					fmt.Fprintf(w, "\rbuilding %s: done in %.1fs\n", name, time.Since(start).Seconds())
				}
				return
			case <-tick.C:
				shown = true
				fmt.Fprintf(w, "\rbuilding %s: %.0fs", name, time.Since(start).Seconds())
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}

// progressRun is what the progress display knows of a run: when it
// stops (stop.at, sim.Never for none), whether a condition may stop it
// sooner (stop.when), and, for a run that stops when its flows are done
// and knows them all before it starts, its bytes delivered of those
// offered (nil or not ok otherwise: assembly.Network.BytesProgress).
type progressRun struct {
	stopAt    sim.Time
	condition bool
	bytes     func() (done, total int64, ok bool)
}

// newProgress returns the run's progress display on w, drawn by
// github.com/schollz/progressbar once a run has taken a second, and the
// function that ends it. It measures what ends the run: a run that stops
// when its flows are done (and whose flows are all known before it
// starts) by the bytes delivered of those offered, so that it does not
// sit at 11% of stop.at and jump to the end; any other by simulated time
// against stop.at, or with no time limit (stop.at: 0 and a when:
// condition) as a spinner. The time left is lfsim's own estimate
// (etaEstimate), shown only where the measure is what ends the run: a
// run measured by simulated time that a condition may end sooner (its
// flows done, a deadlock) has none, as its stop.at is only a bound.
// clock is the wall clock (time.Now; a test's own), throttle the least
// wall time between two drawings.
func newProgress(w io.Writer, run progressRun, clock func() time.Time, throttle time.Duration) (show func(now sim.Time, events uint64), done func()) {
	start := clock()
	var bar *progressbar.ProgressBar
	max := int64(-1) // a spinner
	if run.stopAt != sim.Never && run.stopAt > 0 {
		max = int64(run.stopAt / sim.Nanosecond)
	}
	byBytes := false
	if run.bytes != nil {
		if _, total, ok := run.bytes(); ok {
			max, byBytes = total, true
		}
	}
	var eta *etaEstimate
	if max > 0 && (byBytes || !run.condition) {
		eta = &etaEstimate{}
	}
	show = func(now sim.Time, events uint64) {
		wall := clock().Sub(start)
		if wall < time.Second {
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions64(max,
				progressbar.OptionSetWriter(w),
				progressbar.OptionSetWidth(30),
				progressbar.OptionThrottle(throttle),
				progressbar.OptionSetElapsedTime(false),
				progressbar.OptionSetPredictTime(false),
				progressbar.OptionShowDescriptionAtLineEnd(),
				progressbar.OptionSetRenderBlankState(false))
		}
		rate := float64(events) / wall.Seconds() / 1e6
		var at int64
		var desc string
		switch {
		case byBytes:
			d, total, _ := run.bytes()
			at = min(d, max)
			desc = fmt.Sprintf("%s of %s delivered, sim %v", resolve.ShowBytes(d), resolve.ShowBytes(total), now.Short())
		case max < 0:
			at = int64(now / sim.Nanosecond)
			desc = fmt.Sprintf("sim %v", now.Short())
		default:
			at = min(int64(now/sim.Nanosecond), max)
			desc = fmt.Sprintf("sim %v of %v", now.Short(), run.stopAt.Short())
		}
		desc += fmt.Sprintf(", %.2fM events/s, %v", rate, wall.Round(time.Second))
		if eta != nil {
			if left, ok := eta.observe(wall, float64(at)/float64(max)); ok {
				desc += fmt.Sprintf(", about %v left", roundLeft(left))
			}
		}
		bar.Describe(desc)
		_ = bar.Set64(at)
	}
	done = func() {
		if bar != nil {
			_ = bar.Finish()
			fmt.Fprintln(w)
		}
	}
	return show, done
}

// roundLeft rounds an estimate as people say it: to the second under a
// minute, to 5 s under ten minutes, to the minute beyond.
func roundLeft(d time.Duration) time.Duration {
	switch {
	case d < time.Minute:
		return max(d.Round(time.Second), time.Second)
	case d < 10*time.Minute:
		return d.Round(5 * time.Second)
	}
	return d.Round(time.Minute)
}

// etaEstimate estimates the wall time a run has left from its progress,
// the fraction of what ends it (bytes delivered, or simulated time of
// stop.at): the rate of that fraction is measured over spans of at
// least etaSpan of wall time and smoothed (an exponentially weighted
// mean, the newest span weighing etaWeight), and the time left is what
// remains at that rate. No estimate is given before etaAfter of wall
// time and etaSpans spans: a run's first second builds its network and
// warms up, and one span's rate swings with what the run does in it
// (an incast's first round trip, a pause). progressbar's own estimate,
// which lfsim showed before, divided what remained by the mean of its
// last ten half-second rates counted from the bar's first drawing, and
// measured against stop.at whatever ended the run: a run of poisson
// flows with stop.at 2s (a safety net behind when: flows-done) that
// finishes at 13 ms simulated was shown minutes to go in its first
// second.
type etaEstimate struct {
	lastWall time.Duration
	lastFrac float64
	started  bool
	rate     float64 // fraction per wall second, smoothed
	spans    int
}

const (
	etaSpan   = 500 * time.Millisecond
	etaWeight = 0.3
	etaAfter  = 3 * time.Second
	etaSpans  = 4
)

// observe takes the run's progress frac (0..1) at wall time wall since
// the run started, and returns the time left when there is an estimate.
func (e *etaEstimate) observe(wall time.Duration, frac float64) (left time.Duration, ok bool) {
	if !e.started {
		e.lastWall, e.lastFrac, e.started = wall, frac, true
		return 0, false
	}
	if dt := wall - e.lastWall; dt >= etaSpan {
		r := (frac - e.lastFrac) / dt.Seconds()
		if e.spans == 0 {
			e.rate = r
		} else {
			e.rate = etaWeight*r + (1-etaWeight)*e.rate
		}
		e.spans++
		e.lastWall, e.lastFrac = wall, frac
	}
	if wall < etaAfter || e.spans < etaSpans || e.rate <= 0 || frac >= 1 {
		return 0, false
	}
	return time.Duration((1 - frac) / e.rate * float64(time.Second)), true
}
