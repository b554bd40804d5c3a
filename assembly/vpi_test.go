package assembly

import (
	"math"
	"testing"

	"github.com/lfsim/lfsim/fabric"
)

// vpiPair is SCENARIO.md's VPI contract: two hosts, each with an
// InfiniBand port (port 1, on ib0) and an Ethernet port (port 2, on
// eth0), and a 64 MiB WRITE on each port at once.
const vpiPair = `
stop: {at: 20ms, when: flows-done}
topology:
  kind: explicit
  hosts: [h0, h1]
  switches:
    - {name: ib0, switch: {link_layer: infiniband}}
    - {name: eth0, switch: {link_layer: ethernet}}
  link: {rate: 100Gbps, delay: 1us}
  links: [[h0, ib0], [h1, ib0], [h0, eth0], [h1, eth0]]
traffic:
  - flow: {from: h0, to: h1, size: 64MiB}
  - flow: {from: h0, to: h1, size: 64MiB, port: 2}
`

// TestVPITwoFabricsAtOnce: a VPI pair's two ports run at once, each at
// its own fabric's closed form within 0.5% (the brief asks 1%; the two
// differ by 1.35%, so either bound fails a port framed as the other's):
// the InfiniBand port at 100 × 4096 / 4122 Gb/s (LRH, BTH, ICRC, VCRC:
// TestIBWriteGoodput's framing), the Ethernet port at 100 × 4096 / 4178
// Gb/s (Ethernet, IPv4, UDP, BTH, ICRC, FCS, preamble and gap:
// TestSingleFlowLineRate's), each with its first packet's RETH. The
// InfiniBand side is held by credits (flow-control packets, no PFC
// frame); every byte and packet is accounted for.
func TestVPITwoFabricsAtOnce(t *testing.T) {
	sc := mustParse(t, vpiPair)
	_, sum, rows := mustRun(t, sc)
	assertConserved(t, "vpi", sum)
	const size = 64 << 20
	pkts := float64(size / 4096)
	for i, c := range []struct {
		src  string
		wire int
	}{{"h0", fabric.IBWire(fabric.OpWriteMiddle, 4096, false)}, {"h0/2", fabric.RoCEv2Wire(fabric.OpWriteMiddle, 4096)}} {
		want := 100e9 * size / (pkts*float64(c.wire) + fabric.RETHBytes)
		got := size * 8 / (float64(rows[i].FCTNs) * 1e-9)
		if rows[i].Src != c.src || rows[i].Status != "success" || math.Abs(got-want)/want > 0.005 {
			t.Errorf("flow %d from %s: %s, %.3f Gb/s; want from %s at %.3f Gb/s within 0.5%%", i, rows[i].Src, rows[i].Status, got/1e9, c.src, want/1e9)
		}
	}
	if w := fabric.IBWire(fabric.OpWriteMiddle, 4096, false); w != 4122 {
		t.Errorf("an InfiniBand MTU packet is %d bytes on the wire, want 4122", w)
	}
	if w := fabric.RoCEv2Wire(fabric.OpWriteMiddle, 4096); w != 4178 {
		t.Errorf("a RoCEv2 MTU packet is %d bytes on the wire, want 4178", w)
	}
	if fc := sum.Conservation.FCPackets.Made; fc == 0 || sum.PFC.PauseFrames != 0 {
		t.Errorf("%d flow-control packets, %d PAUSE frames; want the InfiniBand side's credits and no PAUSE", fc, sum.PFC.PauseFrames)
	}
	if sum.Deadlock.Detected {
		t.Error("a deadlock detected on two flows that complete")
	}
}
