package assembly

import (
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// TestMckeySettle: settle: is the pause between mckey's join and its
// SENDs, as written, 0 included; when it is not given it is the tool's
// sleep(3). settle: 0 used to be taken for "not given" (a 3 s pause), so
// that a run shorter than 3 s sent nothing. One message of 100 bytes from
// h0 to h1 through one switch; the receiver's completion comes a path
// after the pause: two links of 1 us, the switch's 500 ns pipeline, and
// the HCAs' own latencies (doorbell 200 ns, WQE fetch 450 ns, the DMAs
// and CQE write: under 2 us in all, docs/SCENARIO.md's hca table), so
// at least 2.5 us and at most 4.5 us after the pause ends.
func TestMckeySettle(t *testing.T) {
	const path, slack = 2500 * sim.Nanosecond, 2 * sim.Microsecond
	for _, c := range []struct {
		name, item string
		stop       string
		pause      sim.Time // the pause the run must take
	}{
		{"settle-0", ", settle: 0", "100us", 0},
		{"settle-0ns", ", settle: 0ns", "100us", 0},
		{"settle-5us", ", settle: 5us", "100us", 5 * sim.Microsecond},
		{"start-and-settle-0", ", settle: 0, start: 10us", "100us", 10 * sim.Microsecond},
		{"default", "", "4s", 3 * sim.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, r := runSource(t, "m.yaml", "stop: {at: "+c.stop+", when: flows-done}\n"+
				"topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}\n"+
				"traffic:\n  - mckey: {sender: h0, receivers: [h1], count: 1"+c.item+"}\n")
			m := n.Tests[0].Mckey
			if m.Received[0] != 1 || r.Summary.StopReason != "flows-done" {
				t.Fatalf("h1 received %d of 1 message (stop: %s); the message must go %s after the join", m.Received[0], r.Summary.StopReason, c.pause)
			}
			if got := m.Done() - c.pause; got < path || got > path+slack {
				t.Errorf("the message arrived at %s, %s after the %s pause; want %s to %s", m.Done(), got, c.pause, path, path+slack)
			}
		})
	}
}
