package fabric

import (
	"fmt"
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// TestPartitionedLanesEnough: a network whose links all get a lane on one
// engine (40 distinct delays, below sim.MaxLanes) gets them cut too. The
// lanes made for another partition's arrivals (sim.Engine.LaneFrom, up to
// half the engine's) must not take those its own links need: here the
// links from partition 1's switches to s0, made first, would have taken
// 32 of s0's engine's lanes, and s0's hosts' links, of the same 40
// delays, found none left for their last 8 (NewPartitioned panicked:
// "a partitioned network needs its links' delay as the group's
// lookahead"; the one-engine build and the planner's check of 64 distinct
// delays both passed).
func TestPartitionedLanesEnough(t *testing.T) {
	const n = 40
	tp := NewTopology()
	s0 := tp.mustAdd("s0", Switch)
	part := []int{0}
	for i := 0; i < n; i++ {
		ti := tp.mustAdd(fmt.Sprintf("t%d", i), Switch)
		part = append(part, 1)
		tp.Connect(s0, ti, LinkSpec{Rate: 100 * Gbps, Delay: sim.Microsecond + sim.Time(i)*sim.Nanosecond})
	}
	for i := 0; i < n; i++ {
		h := tp.mustAdd(fmt.Sprintf("h%d", i), Host)
		part = append(part, 0)
		tp.Connect(s0, h, LinkSpec{Rate: 100 * Gbps, Delay: sim.Microsecond + sim.Time(i)*sim.Nanosecond})
	}
	if one := NewNetwork(sim.NewEngine(1), tp); one.Lookahead() != sim.Microsecond {
		t.Fatalf("one engine: lookahead %v, want 1 us (a lane for every link)", one.Lookahead())
	}
	g := sim.NewGroup(1, 2, 2, sim.Microsecond)
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("cut in 2: %v", r)
			}
		}()
		if cut := NewPartitioned(g, tp, part); cut.Lookahead() != sim.Microsecond {
			t.Errorf("cut in 2: lookahead %v, want 1 us", cut.Lookahead())
		}
	}()
}
