package assembly

import (
	"fmt"
	"testing"
)

// TestNoAllocationPerPacket: DESIGN.md rule 5. An incast eight times
// longer allocates no more than the setup it shares with a short one
// (packets and events come from free lists), within a small slack for
// free lists that grow to the peak number in flight.
func TestNoAllocationPerPacket(t *testing.T) {
	allocs := func(size string) float64 {
		sc := mustParse(t, fmt.Sprintf(`
name: alloc
stop: {at: 100ms, when: flows-done}
topology: {kind: star, hosts: 9, link: {rate: 100Gbps, delay: 1us}}
traffic:
  - incast: {to: h8, from: all, size: %s}
`, size))
		return testing.AllocsPerRun(2, func() {
			n, err := Build(sc)
			if err != nil {
				t.Fatal(err)
			}
			n.Run(nil)
		})
	}
	short, long := allocs("1MiB"), allocs("8MiB")
	t.Logf("allocations per run: 1 MiB flows %.0f, 8 MiB flows %.0f (8x the packets)", short, long)
	if long > short+50 {
		t.Errorf("8x the packets cost %.0f more allocations; packets or events are being allocated in steady state", long-short)
	}
}
