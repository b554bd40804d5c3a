package resolve

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

// TestOverride holds override and overrideNum to SCENARIO.md's rule for
// a key: given, its value replaces the default; not given, the default
// stays, even when the unset value holds something else (a value with
// an error stays unset).
func TestOverride(t *testing.T) {
	for _, c := range []struct {
		name string
		v    scenario.TimeV
		want sim.Time
	}{
		{"given", scenario.TimeV{V: 3 * sim.Microsecond, Set: true}, 3 * sim.Microsecond},
		{"given zero", scenario.TimeV{V: 0, Set: true}, 0},
		{"not given", scenario.TimeV{V: 9 * sim.Microsecond}, sim.Millisecond},
	} {
		got := sim.Millisecond
		override(&got, c.v)
		if got != c.want {
			t.Errorf("override, %s: %s; want %s", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		name string
		v    scenario.IntV
		want uint8
	}{
		{"given", scenario.IntV{V: 5, Set: true}, 5},
		{"given, Go's conversion", scenario.IntV{V: 258, Set: true}, 2},
		{"not given", scenario.IntV{V: 7}, 3},
	} {
		got := uint8(3)
		overrideNum(&got, c.v)
		if got != c.want {
			t.Errorf("overrideNum, %s: %d; want %d", c.name, got, c.want)
		}
	}
	size := int64(64)
	overrideNum(&size, scenario.SizeV{V: 4 * fabric.KiB, Set: true})
	if size != 4096 {
		t.Errorf("overrideNum of 4KiB into an int64: %d; want 4096", size)
	}
}
