package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/lfsim/lfsim/sim"
)

// newProgress returns the run's progress display on w (simulated time
// against stop.at, wall time, events per second), drawn by
// github.com/schollz/progressbar once a run has taken a second, and the
// function that ends it. With no time limit (stop.at: 0 and a when:
// condition) it shows a spinner.
func newProgress(w io.Writer, stopAt sim.Time) (show func(now sim.Time, events uint64), done func()) {
	start := time.Now()
	var bar *progressbar.ProgressBar
	max := int64(-1) // a spinner
	if stopAt != sim.Never && stopAt > 0 {
		max = int64(stopAt / sim.Nanosecond)
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
