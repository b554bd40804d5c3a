package assembly

import (
	"math"
	"testing"

	"github.com/lfsim/lfsim/resolve"
)

// TestSlowLinkOneWay: the slow-link fault sets a link's rate in both
// directions, or with from: in the one its named end sends. A 4 MiB
// WRITE crosses the link between s0 and h1 (a star at 100 Gb/s, no
// congestion control, PFC keeping the slowed queue lossless), from h0 to
// h1 or from h1 to h0, and goes at the rate of the direction that
// carries its data: 4096 bytes of payload in each 4178-byte RoCEv2 frame
// (fabric.RoCEv2Wire) at 25 Gb/s is 24.51 Gb/s of goodput, within 2% (the
// goodput is the size over the flow's completion time, which adds the
// HCAs' and the path's latency, 7 us, to the serialization); the other
// direction goes as the same flow without the fault (96.0 Gb/s, its
// 342 us of serialization and the same 7 us), within 0.1%. With until:
// 100us, the first 100 us carry 312,500 bytes at 25 Gb/s and the rest of
// the 1,024 frames' 4,278,272 bytes go at 100 Gb/s: 4 MiB in 417.3 us,
// 80.40 Gb/s, within 2%.
func TestSlowLinkOneWay(t *testing.T) {
	const slow, full = 25 * 4096.0 / 4178, -1 // full: as without the fault
	for _, c := range []struct {
		name, fault, from, to string
		gbps                  float64
	}{
		{"slowed from the switch", "from: s0", "h0", "h1", slow},
		{"full from the host", "from: s0", "h1", "h0", full},
		{"slowed from the host", "from: h1", "h1", "h0", slow},
		{"full from the switch", "from: h1", "h0", "h1", full},
		{"both ways, to the host", "", "h0", "h1", slow},
		{"both ways, from the host", "", "h1", "h0", slow},
		{"until", "until: 100us", "h0", "h1", 4 << 20 * 8 / 417.3e3},
	} {
		t.Run(c.name, func(t *testing.T) {
			goodput := func(faults string) float64 {
				src := `topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {cc: none}
traffic:
  - flow: {from: ` + c.from + `, to: ` + c.to + `, op: write, size: 4MiB}
` + faults
				sc, err := resolve.Parse("t.yaml", []byte(src))
				if err != nil {
					t.Fatal(err)
				}
				_, _, rows := mustRun(t, sc)
				if len(rows) != 1 || rows[0].Status != "success" {
					t.Fatalf("flows %+v", rows)
				}
				return float64(rows[0].SizeBytes) * 8 / float64(rows[0].FCTNs)
			}
			want, tol := c.gbps, 0.02
			if want == full {
				want, tol = goodput(""), 0.001
			}
			got := goodput("faults:\n  - {at: 0, link: [s0, h1], action: slow-link, rate: 25Gbps, " + c.fault + "}\n")
			t.Logf("%s to %s: %.3f Gb/s (want %.3f)", c.from, c.to, got, want)
			if math.Abs(got-want)/want > tol {
				t.Errorf("%s to %s: %.2f Gb/s, want %.2f within %g%%", c.from, c.to, got, want, tol*100)
			}
		})
	}
}

// TestSlowLinkOverlap: slow-link faults that overlap on one link, ending
// in either order, leave it at its own rate once both have ended. A 4 MiB
// WRITE from h0 to h1 that starts at 100 us, after faults of [0, 20us) at
// 25 Gb/s and [10us, 30us) at 10 Gb/s (or the second ending first, or the
// second one way), goes as it does without any fault: 96.0 Gb/s of
// goodput, its completion time within 0.1%. Each fault restored the rate
// it found, so the first to end set the link back to 100 Gb/s and the
// last to end set it to the first's slow rate for good: the flow went at
// 24.4 Gb/s (tried).
func TestSlowLinkOverlap(t *testing.T) {
	want := overlapFCT(t, "")
	for _, c := range []struct{ name, second string }{
		{"the second ends last", "{at: 10us, link: [s0, h1], action: slow-link, rate: 10Gbps, until: 30us}"},
		{"the second ends first", "{at: 10us, link: [s0, h1], action: slow-link, rate: 10Gbps, until: 15us}"},
		{"the second one way", "{at: 10us, link: [s0, h1], action: slow-link, rate: 10Gbps, from: s0, until: 30us}"},
	} {
		got := overlapFCT(t, "faults:\n  - {at: 0, link: [s0, h1], action: slow-link, rate: 25Gbps, until: 20us}\n  - "+c.second+"\n")
		if math.Abs(float64(got-want))/float64(want) > 0.001 {
			t.Errorf("%s: the flow took %d ns, %d ns without the faults; want the same within 0.1%%", c.name, got, want)
		}
	}
}

// TestSlowReceiverOverlap: slow-receiver faults that overlap on one host,
// ending in either order, leave its NIC draining at its own rate once
// both have ended, as TestSlowLinkOverlap asks of slow-link. A 4 MiB
// WRITE from h0 to h1 that starts at 100 us, after faults on h1 of
// [0, 20us) at 25 Gb/s and [10us, 30us) at 10 Gb/s (or the second ending
// at 15us), goes as it does without any fault: its completion time
// within 0.1% (the star, rates and flow of TestSlowLinkOverlap). Each
// fault restored the rate it found at its start, so that the last to end
// left h1 draining at the first's 25 Gb/s for good.
func TestSlowReceiverOverlap(t *testing.T) {
	want := overlapFCT(t, "")
	for _, c := range []struct{ name, second string }{
		{"the second ends last", "{at: 10us, host: h1, action: slow-receiver, rate: 10Gbps, until: 30us}"},
		{"the second ends first", "{at: 10us, host: h1, action: slow-receiver, rate: 10Gbps, until: 15us}"},
	} {
		got := overlapFCT(t, "faults:\n  - {at: 0, host: h1, action: slow-receiver, rate: 25Gbps, until: 20us}\n  - "+c.second+"\n")
		t.Logf("%s: %d ns, %d ns without the faults", c.name, got, want)
		if math.Abs(float64(got-want))/float64(want) > 0.001 {
			t.Errorf("%s: the flow took %d ns, %d ns without the faults; want the same within 0.1%%", c.name, got, want)
		}
	}
}

// overlapFCT is the overlap tests' 4 MiB WRITE from h0 to h1 over a
// 100 Gb/s star, starting at 100 us after the faults given: its FCT, ns.
func overlapFCT(t *testing.T, faults string) int64 {
	t.Helper()
	src := `topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {cc: none}
traffic:
  - flow: {from: h0, to: h1, op: write, size: 4MiB, start: 100us}
` + faults
	_, _, rows := mustRun(t, mustParse(t, src))
	if len(rows) != 1 || rows[0].Status != "success" {
		t.Fatalf("flows %+v", rows)
	}
	return rows[0].FCTNs
}
