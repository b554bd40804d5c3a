package programs_test

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/programs"
	"github.com/lfsim/lfsim/sim"
)

// TestMckeyConfigAsGiven: NewMckey runs its config as given, Settle 0
// as no pause; a count or size that is not a message is an error, not a
// default (a zero Settle used to become the tool's 3 s, and a zero Count
// or Size 10 or 100). Done is the last receiver's completion, a path
// after the pause (two 1 us links, the switch's 500 ns, the HCAs' own
// latencies: 2.5 to 4.5 us, as in assembly's TestMckeySettle).
func TestMckeyConfigAsGiven(t *testing.T) {
	const path, slack = 2500 * sim.Nanosecond, 2 * sim.Microsecond
	for _, c := range []struct {
		name          string
		count         int
		size          int64
		settle, pause sim.Time
		err           string
	}{
		{name: "settle-0", count: 3, size: 100},
		{name: "settle-2us", count: 3, size: 100, settle: 2 * sim.Microsecond, pause: 2 * sim.Microsecond},
		{name: "tool-defaults", count: programs.MckeyCount, size: programs.MckeySize, settle: programs.MckeySettle, pause: 3 * sim.Second},
		{name: "count-0", size: 100, err: "message_count 0"},
		{name: "size-0", count: 3, err: "message_size 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng, h := exampleHosts(3)
			m, err := programs.NewMckey(h[0], h[1:], programs.MckeyConfig{Group: fabric.MulticastGroup(0), GroupIP: 239<<24 | 1<<16 | 1<<8 | 1,
				Count: c.count, Size: c.size, Settle: c.settle})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			eng.Run(4*sim.Second, nil)
			if m.Received[0] != c.count || m.Received[1] != c.count {
				t.Fatalf("received %v of %d", m.Received, c.count)
			}
			if got := m.Done() - c.pause; got < path || got > path+slack {
				t.Errorf("done at %s, %s after the %s pause; want %s to %s", m.Done(), got, c.pause, path, path+slack)
			}
		})
	}
}
