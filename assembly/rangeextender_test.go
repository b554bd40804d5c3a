package assembly

import (
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
)

// TestRangeExtender: the ib-range-extender example joins two InfiniBand
// sites 10 km apart (50 µs each way) twice. Through two range extenders
// (16 MiB long-haul buffer each, 2 MiB for each of 8 VLs) a 64 MiB RC
// WRITE runs at 95% or more of InfiniBand's closed form, 100 × 4096 /
// 4122 Gb/s (TestIBWriteGoodput's; what it lacks is the 100 µs round
// trip in its FCT, 1.8% of it). Over the plain long link, with the
// switches' 64 KiB VL buffer, the flow runs at the credit-limited rate:
// 15 whole packets per credit round trip (100 µs plus a packet's
// serialization), 4.90 Gb/s, within 3% (TestIBLongLinkExample's
// arithmetic). The extenders are left out of the LFT dump (the subnet
// manager does not see them) and shown as what they are in
// topology.json.
func TestRangeExtender(t *testing.T) {
	src := patch(t, exampleText(t, "ib-range-extender"), "{from: a0, to: b0, size: 16MiB}", "{from: a0, to: b0, size: 64MiB}")
	sc := mustParse(t, src)
	n, sum, rows := mustRun(t, sc)
	assertConserved(t, "ib-range-extender", sum)
	if len(rows) != 2 || rows[0].Status != "success" || rows[1].Status != "success" {
		t.Fatalf("flows: %+v", rows)
	}
	frame := int64(fabric.IBWire(fabric.OpWriteMiddle, 4096, false))
	line := 100e9 * 4096 / float64(frame)
	gbps := func(r int) float64 { return float64(rows[r].SizeBytes*8) / (float64(rows[r].FCTNs) * 1e-9) }
	if got := gbps(0); got < 0.95*line || got > line {
		t.Errorf("through the extenders: %.3f Gb/s, want at least 95%% of %.3f (InfiniBand's closed form)", got/1e9, line/1e9)
	}
	rtt := 100e-6 + float64(frame*8)/100e9
	want := float64(15*4096*8) / rtt
	if got := gbps(1); math.Abs(got-want)/want > 0.03 {
		t.Errorf("over the plain long link: %.3f Gb/s, want %.3f (15 packets per credit round trip) within 3%%", got/1e9, want/1e9)
	}
	t.Logf("through the extenders %.3f Gb/s (closed form %.3f); plain long link %.3f Gb/s (credit-limited %.3f)", gbps(0)/1e9, line/1e9, gbps(1)/1e9, want/1e9)
	topo := n.Scenario.Topology
	dump := string(fabric.LFTDump(topo, n.Scenario.Routes, fabric.AssignLIDs(topo)))
	if strings.Contains(dump, "('x0')") || strings.Contains(dump, "('x1')") || !strings.Contains(dump, "('sa0')") {
		t.Errorf("the LFT dump has a table for an extender, or none for sa0:\n%s", dump)
	}
	kinds := map[string]string{}
	for _, node := range reportTopology(topo, nil, nil).Nodes {
		kinds[node.Name] = node.Device
	}
	if kinds["x0"] != "range-extender" || kinds["x1"] != "range-extender" || kinds["sa0"] != "" {
		t.Errorf("topology.json's devices: %v", kinds)
	}
}

// extenderRing is seven InfiniBand switches in a ring, one of its links
// the long haul of two range extenders, with flows of two to four hops
// clockwise that load every ring link.
const extenderRing = `stop: {at: 10ms, when: [flows-done, deadlock]}
topology:
  kind: explicit
  hosts: [h0, h1, h2, h3, h4, h5, h6]
  switches:
    - s0
    - s1
    - s2
    - s3
    - s4
    - s5
    - s6
    - {name: x0, switch: {range_extender: {buffer: 128KiB}}}
    - {name: x1, switch: {range_extender: {buffer: 128KiB}}}
  link: {rate: EDR, delay: 100ns}
  links: [[h0, s0], [h1, s1], [h2, s2], [h3, s3], [h4, s4], [h5, s5], [h6, s6],
          [s0, x0], [x0, x1], [x1, s1], [s1, s2], [s2, s3], [s3, s4], [s4, s5], [s5, s6], [s6, s0]]
switch:
  link_layer: infiniband
  ib: {vl_buffer: 16KiB, data_vls: 1}
subnet_manager: {routing: minhop}
traffic:
  - flow: {from: h0, to: h2, size: 4MiB}
  - flow: {from: h1, to: h4, size: 4MiB}
  - flow: {from: h2, to: h5, size: 4MiB}
  - flow: {from: h3, to: h6, size: 4MiB}
  - flow: {from: h4, to: h0, size: 4MiB}
  - flow: {from: h5, to: h0, size: 4MiB}
  - flow: {from: h6, to: h1, size: 4MiB}
`

// TestRangeExtenderCreditLoop: the extenders are switch ports to the
// routing engines and the deadlock detector. With minhop the ring's
// credit loop closes through them, and the detector names the cycle with
// the long haul (x0:p1) and x1's local port in it, in ring order; with
// updn (whose paths never turn down and up again) every flow completes.
func TestRangeExtenderCreditLoop(t *testing.T) {
	_, sum, _ := mustRun(t, mustParse(t, extenderRing))
	assertConserved(t, "minhop", sum)
	want := "s0:p1 x0:p1 x1:p1 s1:p2 s2:p2 s3:p2 s4:p2 s5:p2 s6:p2"
	if d := sum.Deadlock; !d.Detected || strings.Join(d.Cycle, " ") != want {
		t.Errorf("minhop: deadlock %+v, want the cycle %s", d, want)
	}
	_, sum, _ = mustRun(t, mustParse(t, patch(t, extenderRing, "routing: minhop", "routing: updn")))
	assertConserved(t, "updn", sum)
	if sum.Deadlock.Detected || sum.Flows.Completed != 7 {
		t.Errorf("updn: deadlock %+v, %d of 7 flows complete", sum.Deadlock, sum.Flows.Completed)
	}
}
