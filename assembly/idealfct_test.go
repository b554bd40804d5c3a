package assembly

import (
	"fmt"
	"testing"
)

// TestLoneFlowSlowdownIsOne: a flow alone on the empty fabric takes its
// ideal FCT (flowPath.idealFCT), whatever its size, operation, path and
// link layer: one packet (300 bytes), three (10,000 bytes: two full and
// a short last one, which queues behind the full one before it past the
// first hop), 256 (1 MiB), and READs, from h0 of a k=4 fat tree (100
// Gb/s, 1 µs links, switch latency 500 ns) to h1 under its ToR, h2 in
// its pod and h8 in another pod, over RoCEv2 (store-and-forward
// switches) and InfiniBand (cut-through), and a few more transports.
// The FCT over the ideal, unclamped (flows.csv's slowdown is at least
// 1, which would hide an ideal above the FCT), must be in [1, 1.01]:
// the ideal follows the model's own latencies, so it is exact to the
// picosecond here (measured: FCT − ideal = 0 ns in every case); 1% is
// the resolution of a slowdown quoted to two decimals, and a tenth of
// the smallest miss of the former ideal, which left out the NICs'
// ~1.85 µs (a 300-byte WRITE: 1.365 under one ToR, 1.166 in a pod,
// 1.108 across pods; 1 MiB: 1.017 to 1.020), framed every packet as a
// WRITE middle of 0 bytes padded to 64 (2 bytes too many each on
// Ethernet) and stored and forwarded on InfiniBand's cut-through
// switches (1 MiB under one ToR then 1.017; across pods, 1.002).
func TestLoneFlowSlowdownIsOne(t *testing.T) {
	const perHost = `topology:
  kind: explicit
  hosts: [{name: h0, hca: {doorbell_latency: 400ns, wqe_fetch_latency: 1us, dma_latency: 700ns, tx_pkt_latency: 300ns, rx_pkt_latency: 900ns}}, {name: h1, hca: {rx_pkt_latency: 1.5us, dma_latency: 2us}}]
  switches: [s0]
  links: [[h0, s0], [h1, s0]]
  link: {rate: 100Gbps, delay: 1us}
`
	flows := []string{"size: 300", "size: 10000", "size: 1MiB", "size: 300, op: read", "size: 1MiB, op: read"}
	fabrics := []struct{ name, yaml string }{
		{"rocev2", ""},
		{"infiniband", "switch: {link_layer: infiniband}"},
	}
	type tc struct{ fabric, yaml, dst, flow string }
	const fatTree = "topology: {kind: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}\n"
	var cases []tc
	for _, fb := range fabrics {
		for _, dst := range []string{"h1", "h2", "h8"} {
			for _, f := range flows {
				cases = append(cases, tc{fb.name, fatTree + fb.yaml, dst, f})
			}
		}
	}
	cases = append(cases,
		tc{"rocev2-send", fatTree, "h8", "size: 10000, op: send"},
		tc{"rocev2-uc", fatTree, "h8", "size: 10000, qp: uc"},
		tc{"rocev2-ud", fatTree, "h8", "size: 300, qp: ud, op: send"},
		tc{"rocev2-atomic", fatTree, "h8", "size: 8, op: atomic"},
		tc{"rocev2-messages", fatTree, "h8", "size: 1MiB, messages: 3"},
		tc{"rocev2-hpcc", fatTree + "hca: {cc: hpcc}", "h8", "size: 10000"}, // INT on its packets and ACKs
		tc{"uet", fatTree + "hca: {transport: uet}", "h8", "size: 1MiB, op: read"},
		tc{"iwarp", fatTree + "hca: {transport: iwarp}", "h8", "size: 300"},
		// Each host's own NIC: the requester's doorbell, fetch, DMA
		// and transmit pipeline, the responder's receive pipeline.
		tc{"per-host-nics", perHost, "h1", "size: 10000"},
		tc{"per-host-nics", perHost, "h1", "size: 10000, op: read"},
		tc{"per-host-nics", perHost, "h1", "size: 300, qp: uc"},
	)
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/%s", c.fabric, c.dst, c.flow), func(t *testing.T) {
			sc := mustParse(t, `
stop: {at: 20ms, when: flows-done}
`+c.yaml+`
traffic:
  - flow: {from: h0, to: `+c.dst+`, `+c.flow+`}
`)
			n, _, rows := mustRun(t, sc)
			if len(rows) != 1 || rows[0].Status != "success" {
				t.Fatalf("rows %+v", rows)
			}
			ideal := n.Flows[0].Ideal
			r := float64(rows[0].FCTNs) / float64(ideal.Nanoseconds())
			t.Logf("FCT %d ns, ideal %d ns", rows[0].FCTNs, ideal.Nanoseconds())
			if r < 1 || r > 1.01 {
				t.Errorf("FCT %d ns, ideal %d ns: FCT/ideal %.4f, want [1, 1.01]", rows[0].FCTNs, ideal.Nanoseconds(), r)
			}
		})
	}
}
