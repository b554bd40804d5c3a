package assembly

import (
	"fmt"
	"math"
	"testing"
)

// TestGoBack0UnderWindowCompletes: under go-back-0 a message longer than
// the window (a congestion control's, hca.bdp_cap's) goes on as its
// acknowledgements come, where it stopped at its first window: the
// window counted what is in flight from una, which go-back-0 holds at the
// message's first PSN until all of it is acknowledged, so the window
// never opened, and each ACK timeout resent the first window again
// (metamorphic's testdata/go-back-0-window). A 256 KiB WRITE between two
// hosts at 100 Gb/s delivered 77,824 (DCTCP), 81,920 (HPCC) and 73,728
// (bdp_cap: auto) bytes in 100 ms with the old code. Without loss there
// is nothing to go back for, and go-back-0 must send what go-back-N
// sends when it sends it: its completion time within 1% of go-back-N's
// (measured equal to the nanosecond: 28,657 ns under DCTCP, 28,873 under
// HPCC, 41,825 under bdp_cap). With 1% of the packets to h1 lost a
// 1 MiB WRITE completes too (slower than go-back-N, each loss resending
// the message from its start), where it stopped the same way.
func TestGoBack0UnderWindowCompletes(t *testing.T) {
	const src = `name: gb0-window
seed: 1
stop: {at: 100ms, when: [flows-done, deadlock]}
topology:
  kind: star
  hosts: 2
  link: {rate: 100Gbps, delay: 1us}
hca:
  retransmit: %s
  %s
%s
traffic:
  - flow: {from: h0, to: h1, size: %s}
`
	const lossy = "faults:\n  - {at: 0, link: [s0, h1], action: loss, rate: 0.01}"
	run := func(retransmit, window, faults, size string) (status string, delivered, fct int64) {
		t.Helper()
		_, _, flows := mustRun(t, mustParse(t, fmt.Sprintf(src, retransmit, window, faults, size)))
		if len(flows) != 1 {
			t.Fatalf("%d flows, want 1", len(flows))
		}
		return flows[0].Status, flows[0].DeliveredBytes, flows[0].FCTNs
	}
	for _, window := range []string{"cc: dctcp", "cc: hpcc", "bdp_cap: auto"} {
		t.Run(window, func(t *testing.T) {
			st, got, fct := run("go-back-0", window, "", "256KiB")
			_, _, want := run("go-back-n", window, "", "256KiB")
			if st != "success" || got != 256<<10 {
				t.Fatalf("go-back-0: %s with %d bytes delivered, want success with 262144", st, got)
			}
			if math.Abs(float64(fct-want)) > 0.01*float64(want) {
				t.Errorf("go-back-0: FCT %d ns, go-back-N's %d: want within 1%%", fct, want)
			}
			if st, got, _ := run("go-back-0", window, lossy, "1MiB"); st != "success" || got != 1<<20 {
				t.Errorf("go-back-0 with 1%% loss: %s with %d bytes delivered, want success with 1048576", st, got)
			}
		})
	}
}
