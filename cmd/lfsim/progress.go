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

// newProgress returns the run's progress display on w, drawn by
// github.com/schollz/progressbar once a run has taken a second, and the
// function that ends it. It measures what ends the run: a run that stops
// when its flows are done (and whose flows are all known before it
// starts) by the bytes delivered of those offered (bytes, when not
// nil, says them), so that it does not sit at 11% of stop.at and jump
// to the end; any other by simulated time against stop.at, or with no
// time limit (stop.at: 0 and a when: condition) as a spinner.
func newProgress(w io.Writer, stopAt sim.Time, bytes func() (done, total int64, ok bool)) (show func(now sim.Time, events uint64), done func()) {
	start := time.Now()
	var bar *progressbar.ProgressBar
	max := int64(-1) // a spinner
	if stopAt != sim.Never && stopAt > 0 {
		max = int64(stopAt / sim.Nanosecond)
	}
	byBytes := false
	if bytes != nil {
		if _, total, ok := bytes(); ok {
			max, byBytes = total, true
		}
	}
	show = func(now sim.Time, events uint64) {
		wall := time.Since(start)
		if wall < time.Second {
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions64(max,
				progressbar.OptionSetWriter(w),
				progressbar.OptionSetWidth(30),
				progressbar.OptionThrottle(200*time.Millisecond),
				progressbar.OptionSetElapsedTime(true),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionShowDescriptionAtLineEnd(),
				progressbar.OptionSetRenderBlankState(false))
		}
		rate := float64(events) / wall.Seconds() / 1e6
		if byBytes {
			d, total, _ := bytes()
			_ = bar.Set64(min(d, max))
			bar.Describe(fmt.Sprintf("%s of %s delivered, sim %v, %.2fM events/s", resolve.ShowBytes(d), resolve.ShowBytes(total), now.Short(), rate))
			return
		}
		if max < 0 {
			bar.Describe(fmt.Sprintf("sim %v, %.2fM events/s", now.Short(), rate))
			_ = bar.Set64(int64(now / sim.Nanosecond))
			return
		}
		bar.Describe(fmt.Sprintf("sim %v of %v, %.2fM events/s", now.Short(), stopAt.Short(), rate))
		_ = bar.Set64(min(int64(now/sim.Nanosecond), max))
	}
	done = func() {
		if bar != nil {
			_ = bar.Finish()
			fmt.Fprintln(w)
		}
	}
	return show, done
}
