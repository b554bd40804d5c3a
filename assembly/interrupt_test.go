package assembly

import (
	"fmt"
	"testing"

	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// longWindows is a k=4 fat tree on 4 ms links, sampled every 4 ms: its
// windows (the lookahead) and points are 4 ms apart, and each window
// holds about a million events, a tenth of a second or more of wall
// time, where an interruption waited for the window's end.
const longWindows = `topology: {kind: fat-tree, k: 4, link: {rate: 100Gbps, delay: 4ms}}
switch: {buffer: 1GiB}
stop: {at: 40ms}
observe: {interval: 4ms}
traffic:
  - all_to_all: {size: 64MiB}
`

// TestInterruptInsideLongWindow: an interruption in the middle of a long
// window stops the run within about interruptEvery events (runWindow's
// slices), counted from the event at which it came: here under 4 ×
// 65,536, where the run went on to the window's end, 1,093,319 events
// later (the same run with windows unsliced is the control). The run
// keeps what it produced, says it is incomplete, and its bytes add up.
// On two workers the stop comes within a millisecond of simulated time
// of the interruption (a slice), not at the window's end 3.65 ms on.
func TestInterruptInsideLongWindow(t *testing.T) {
	const at = 1_000_000 // events
	for _, sliced := range []bool{true, false} {
		sc, err := resolve.Parse("t.yaml", []byte(longWindows))
		if err != nil {
			t.Fatal(err)
		}
		n, err := Build(sc)
		if err != nil {
			t.Fatal(err)
		}
		if !sliced {
			n.sliceEvents, n.slice = 1<<62, 0 // windows whole, as before slices
		}
		var came uint64
		n.Eng.OnProgress(1<<10, func(now sim.Time, events uint64) {
			if came == 0 && events >= at {
				came = events
				n.Interrupt()
			}
		})
		res := n.Run(nil)
		sum := res.Summary
		after := sum.Events - came
		t.Logf("sliced %v: interrupted at event %d, stopped %d events later at %d ns", sliced, came, after, sum.SimTimeNs)
		if sum.StopReason != "interrupted" || sum.Complete || !sum.Conservation.OK || len(res.Flows) == 0 {
			t.Fatalf("sliced %v: stop %q, complete %v, conserved %v (%v), %d flows; want interrupted, incomplete, conserved, the flows kept",
				sliced, sum.StopReason, sum.Complete, sum.Conservation.OK, sum.Conservation.Errors, len(res.Flows))
		}
		switch {
		case sliced && after > 4*interruptEvery:
			t.Errorf("the run went on for %d events after the interruption; want at most %d", after, 4*interruptEvery)
		case !sliced && after < 8*interruptEvery:
			t.Errorf("unsliced, the run stopped %d events after the interruption; the case needs a window that goes on for more than %d", after, 8*interruptEvery)
		}
	}
	// Two workers: partition 0's engine says when.
	sc, err := resolve.Parse("t.yaml", []byte(longWindows))
	if err != nil {
		t.Fatal(err)
	}
	n, err := BuildWorkers(sc, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n.Group == nil {
		t.Fatalf("not cut: %s", n.Serial)
	}
	var cameAt sim.Time
	n.Group.Engine(0).OnProgress(1<<10, func(now sim.Time, events uint64) {
		if cameAt == 0 && events >= at/2 {
			cameAt = now
			n.Interrupt()
		}
	})
	sum := n.Run(nil).Summary
	stop := sim.Time(sum.SimTimeNs) * sim.Nanosecond
	if sum.StopReason != "interrupted" || !sum.Conservation.OK || stop-cameAt > sim.Millisecond {
		t.Errorf("two workers: interrupted at %v, stopped (%s, conserved %v) at %v; want within 1ms", cameAt, sum.StopReason, sum.Conservation.OK, stop)
	}
}

// TestSlicedWindowsSameBytes: slicing a window (runWindow) changes
// nothing the run writes: with slices of about 200 events, on one worker
// and on two, the files are those of the unsliced run on one worker,
// byte for byte (a slice is not an observation point).
func TestSlicedWindowsSameBytes(t *testing.T) {
	cases := []struct{ name, src string }{
		{"long windows", "topology: {kind: fat-tree, k: 4, link: {rate: 100Gbps, delay: 400us}}\nswitch: {buffer: 1GiB}\nstop: {at: 2ms}\nobserve: {interval: 400us}\ntraffic:\n  - all_to_all: {size: 4MiB}\n"},
		cutCases[0], cutCases[1],
	}
	for _, c := range cases {
		run := func(workers int, sliceEvents uint64) map[string][]byte {
			s, err := resolve.Parse("cut.yaml", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			files, n := runScenarioFilesWith(t, s, workers, func(n *Network) {
				n.sliceEvents, n.slice = sliceEvents, 0
			})
			if sliceEvents < 1<<62 && n.slices == 0 {
				t.Errorf("%s, %d workers: the windows were not sliced", c.name, workers)
			}
			return files
		}
		want := run(1, 1<<62)
		for _, w := range []int{1, 2} {
			got := run(w, 200)
			sameFiles(t, fmt.Sprintf("%s, %d workers, sliced, against unsliced", c.name, w), got, want)
		}
	}
}
