package assembly

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// TestOverlayECMPSpread: on a leaf-spine of 4 spines, 64 iWARP flows
// (64 QPs) from a host on one leaf to a host on the other spread over the
// 4 uplinks by ECMP.
// Each flow takes one uplink (per-flow hashing), so the pairs of flows
// that share one, Σ c(c−1)/2 over the uplinks' flow counts c, have as
// closed form for hashing into 4 paths at random C(64,2)/4 = 504. With
// the overlay's outer source port hashed from the inner flow (RFC 7348
// §5) the switches see the same entropy as without the overlay: both
// within 20% of 504 (sd of the count ≈ 35); with a constant outer port
// every flow between the two endpoints has one 5-tuple and takes one
// uplink, C(64,2) = 2016 pairs: the failure a user sees when a VTEP
// does not put the inner flow's entropy in the outer header.
func TestOverlayECMPSpread(t *testing.T) {
	const flows, perFlow, spines = 64, 4, 4 // 4 packets of 4096 bytes each
	var traffic strings.Builder
	for range flows {
		traffic.WriteString("  - flow: {from: h0, to: h8, size: 16KiB}\n")
	}
	collisions := func(overlay string) (int, []int) {
		sc := mustParse(t, fmt.Sprintf(`
stop: {at: 5ms, when: flows-done}
topology: {kind: leaf-spine, leaves: 2, spines: %d, hosts_per_leaf: 8, host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 100Gbps, delay: 1us}}
hca: {transport: iwarp%s}
traffic:
%s`, spines, overlay, traffic.String()))
		n, err := Build(sc)
		if err != nil {
			t.Fatal(err)
		}
		n.Eng.Run(sc.Stop.At, nil)
		top := sc.Topology
		leaf, _ := top.Lookup("s0")
		var counts []int
		sum := 0
		for i, ref := range top.Nodes[leaf].Ports {
			if top.Nodes[ref.Peer].Kind != fabric.Switch {
				continue
			}
			pk := int(n.Fabric.Ports[leaf][i].Stats.TxPackets)
			sum += pk
			counts = append(counts, pk/perFlow)
		}
		if sum != flows*perFlow {
			t.Fatalf("overlay %q: the uplinks carried %d packets, want %d (one per segment, none resent)", overlay, sum, flows*perFlow)
		}
		pairs := 0
		for _, c := range counts {
			pairs += c * (c - 1) / 2
		}
		sort.Sort(sort.Reverse(sort.IntSlice(counts)))
		return pairs, counts
	}
	const random = flows * (flows - 1) / 2 / spines // 504
	for _, tc := range []struct {
		name, overlay string
		lo, hi        int
	}{
		{"no overlay (the inner ports)", "", random * 8 / 10, random * 12 / 10},
		{"VXLAN, outer port hashed", ", overlay: {encap: vxlan, vni: 100}", random * 8 / 10, random * 12 / 10},
		{"Geneve, outer port hashed", ", overlay: {encap: geneve, vni: 100, source_port: hash}", random * 8 / 10, random * 12 / 10},
		{"VXLAN, outer port constant", ", overlay: {encap: vxlan, vni: 100, source_port: 49152}", flows * (flows - 1) / 2, flows * (flows - 1) / 2},
	} {
		got, counts := collisions(tc.overlay)
		if got < tc.lo || got > tc.hi {
			t.Errorf("%s: %d pairs of flows share an uplink (flows per uplink %v), want %d..%d", tc.name, got, counts, tc.lo, tc.hi)
		}
		t.Logf("%s: flows per uplink %v, %d pairs share one", tc.name, counts, got)
	}
}

// TestOverlayRoCEv2Goodput: one RoCEv2 WRITE flow over an overlay
// delivers rate × MTU / (4178 − 4096 + MTU + the overlay's bytes) within
// 1%: RoCEv2's WRITE Middle is 4178 bytes on the wire (fabric.RoCEv2Wire)
// and VXLAN adds 50 (RFC 7348 §5), Geneve 50 and its options (RFC 8926
// §3.4). Without the overlay's bytes the rate would be 98.04 Gb/s, 1.2%
// above VXLAN's.
func TestOverlayRoCEv2Goodput(t *testing.T) {
	for _, tc := range []struct {
		overlay string
		extra   int
	}{
		{"{encap: vxlan, vni: 100}", 50},
		{"{encap: geneve, vni: 100, options: 32}", 82},
	} {
		sc := mustParse(t, fmt.Sprintf(`
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {overlay: %s}
traffic:
  - flow: {from: h0, to: h1, size: 1GiB}
`, tc.overlay))
		n, err := Build(sc)
		if err != nil {
			t.Fatal(err)
		}
		t1, t2 := 100*sim.Microsecond, 1*sim.Millisecond
		n.Eng.Run(t1, nil)
		d1 := n.Flows[0].DeliveredBytes()
		n.Eng.Run(t2, nil)
		got := float64(n.Flows[0].DeliveredBytes()-d1) * 8 / (t2 - t1).Seconds()
		want := 100e9 * 4096 / float64(fabric.RoCEv2Wire(fabric.OpWriteMiddle, 4096)+tc.extra)
		if math.Abs(got-want)/want > 0.01 {
			t.Errorf("overlay %s: goodput %.3f Gb/s, want %.3f ± 1%%", tc.overlay, got/1e9, want/1e9)
		}
		t.Logf("overlay %s: goodput %.3f Gb/s, closed form %.3f (%+.3f%%)", tc.overlay, got/1e9, want/1e9, 100*(got-want)/want)
	}
}
