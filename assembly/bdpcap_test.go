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
