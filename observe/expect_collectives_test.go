package observe

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
)

// TestCheckCollectives holds expect's collective keys against summary
// collectives: each passes on the figures it bounds and fails one past
// them, and each fails on a scenario that ran no collective;
// min_busbw_gbps and max_collective_time fail while a call is unfinished.
func TestCheckCollectives(t *testing.T) {
	ptr := func(v int) *int { return &v }
	f := func(v float64) *float64 { return &v }
	tm := func(v sim.Time) *sim.Time { return &v }
	// two: a call did not complete; its time and busbw are unknown, so
	// min_busbw_gbps and max_collective_time fail however the completed
	// ones did (they passed before: review B, defect 4).
	two := &reports.Collectives{Total: 3, Completed: 2, TimeNsMax: 5_875_970, BusbwGbpsMin: 171.313}
	all := &reports.Collectives{Total: 3, Completed: 3, TimeNsMax: 5_875_970, BusbwGbpsMin: 171.313}
	for _, tc := range []struct {
		name string
		e    Expect
		c    *reports.Collectives
		ok   bool
	}{
		{"all, 2 of 3", Expect{CollectivesCompleted: ptr(-1)}, two, false},
		{"all, 3 of 3", Expect{CollectivesCompleted: ptr(-1)}, &reports.Collectives{Total: 3, Completed: 3}, true},
		{"exactly 2", Expect{CollectivesCompleted: ptr(2)}, two, true},
		{"exactly 3", Expect{CollectivesCompleted: ptr(3)}, two, false},
		{"none ran", Expect{CollectivesCompleted: ptr(-1)}, nil, false},
		{"busbw at the floor", Expect{MinBusbw: f(171)}, all, true},
		{"busbw below", Expect{MinBusbw: f(172)}, all, false},
		{"busbw, none completed", Expect{MinBusbw: f(0)}, &reports.Collectives{Total: 1}, false},
		{"busbw at the floor, a call unfinished", Expect{MinBusbw: f(171)}, two, false},
		{"time within", Expect{MaxCollectiveTime: tm(6 * sim.Millisecond)}, all, true},
		{"time over", Expect{MaxCollectiveTime: tm(5 * sim.Millisecond)}, all, false},
		{"time within, a call unfinished", Expect{MaxCollectiveTime: tm(6 * sim.Millisecond)}, two, false},
		{"time, none ran", Expect{MaxCollectiveTime: tm(sim.Second)}, nil, false},
	} {
		got := checkCollectives(&tc.e, tc.c)
		if len(got) != 1 || got[0].OK != tc.ok {
			t.Errorf("%s: %+v, want one check with OK %v", tc.name, got, tc.ok)
		}
		if tc.c == two && (tc.e.MinBusbw != nil || tc.e.MaxCollectiveTime != nil) && len(got) == 1 && !strings.Contains(got[0].Detail, "1 of 3 collective calls did not complete") {
			t.Errorf("%s: %q does not say how many calls did not complete", tc.name, got[0].Detail)
		}
	}
}
