package assembly

import (
	"fmt"
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// TestBDPCap: hca.bdp_cap bounds an RC flow's bytes in flight (IRN's
// BDP-FC). A lone flow's goodput is then at most cap / RTT, and the RTT
// is at least the path's base RTT (a window's bound), so a cap of two
// packets holds a 100 Gb/s flow to about two packets per round trip; a
// cap of the path's BDP (auto) costs a lone flow at most 5% of its
// uncapped goodput (IRN §3.2: the cap is set so a flow alone still fills
// the link). As in IRN, the responder acknowledges every packet
// (ack_every: 1): a window of a BDP needs ACKs as they come.
func TestBDPCap(t *testing.T) {
	goodput := func(bdpCap string) (gbps float64, bdp int64) {
		sc := mustParse(t, fmt.Sprintf(`
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {mtu: 4096, cc: none, retransmit: selective, ack_every: 1%s}
traffic:
  - flow: {from: h0, to: h1, size: 1GiB}
`, bdpCap))
		n, err := Build(sc)
		if err != nil {
			t.Fatal(err)
		}
		t1, t2 := 100*sim.Microsecond, 600*sim.Microsecond
		n.Eng.Run(t1, nil)
		d1 := n.Flows[0].Live.Responder.Delivered
		n.Eng.Run(t2, nil)
		return float64(n.Flows[0].Live.Responder.Delivered-d1) * 8 / (t2 - t1).Seconds() / 1e9, fabricBDP(n)
	}
	free, bdp := goodput("")
	auto, _ := goodput(", bdp_cap: auto")
	two, _ := goodput(", bdp_cap: 8KiB")
	bound := 100 * float64(8192) / float64(bdp) // Gb/s: 8 KiB per base RTT
	if auto < 0.95*free {
		t.Errorf("bdp_cap: auto: %.2f Gb/s against %.2f uncapped; want within 5%%", auto, free)
	}
	if two > bound*1.01 || two < bound/3 {
		t.Errorf("bdp_cap: 8KiB: %.2f Gb/s; want at most 8 KiB per base RTT, %.2f Gb/s (BDP %d bytes)", two, bound, bdp)
	}
	t.Logf("uncapped %.2f Gb/s, auto %.2f, 8 KiB %.2f (bound %.2f; BDP %d bytes)", free, auto, two, bound, bdp)
}

// TestSelectiveIncastRecovers: a 16-to-1 incast of 1 MiB each, with no
// congestion control, no PFC and a 2 MiB switch buffer, under IRN's
// selective repeat. Without the BDP cap about half the packets are
// dropped, and all must still arrive within twice the 1.34 ms the 16 MiB
// take at 100 Gb/s: a window lost past the responder's last SACK is
// resent after one timeout (srProbed), where it once came back one
// packet per timeout and the incast took over 50 ms. With the cap (IRN
// §3.2) a flow keeps at most a BDP in flight and the drops fall at least
// twentyfold (seed 1: 11,082 against 80).
func TestSelectiveIncastRecovers(t *testing.T) {
	drops := map[string]int64{}
	for _, bdpCap := range []string{"", ", bdp_cap: auto"} {
		sc := mustParse(t, fmt.Sprintf(`
stop: {at: 50ms, when: flows-done}
topology: {kind: star, hosts: 17, link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 2MiB, pfc: {priorities: []}}
hca: {cc: none, retransmit: selective, ack_every: 1%s}
traffic:
  - incast: {to: h16, from: [h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10, h11, h12, h13, h14, h15], size: 1MiB}
`, bdpCap))
		_, sum, _ := mustRun(t, sc)
		if sum.Flows.Completed != 16 || sum.SimTimeNs > 2*1342177 {
			t.Errorf("bdp_cap%q: %d of 16 flows completed in %.3f ms; want all within 2.68 ms", bdpCap, sum.Flows.Completed, float64(sum.SimTimeNs)/1e6)
		}
		drops[bdpCap] = sum.Packets.Dropped
		t.Logf("bdp_cap%q: done at %.3f ms, %d dropped, %d resent", bdpCap, float64(sum.SimTimeNs)/1e6, sum.Packets.Dropped, sum.Packets.Retransmitted)
	}
	if drops[""] < 20*drops[", bdp_cap: auto"] {
		t.Errorf("drops without the cap %d, with it %d: want at least 20 times fewer", drops[""], drops[", bdp_cap: auto"])
	}
}
