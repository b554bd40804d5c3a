package assembly

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/reports"
)

// pathMTURun runs src, one of the path MTU tests' (here and
// pathmtucredits_test.go), and returns its network, its flows and when
// the last of them ended, ns; a flow that did not succeed fails the
// test, what naming the run.
func pathMTURun(t *testing.T, what, src string) (*Network, []reports.FlowRow, int64) {
	t.Helper()
	n, _, flows := mustRun(t, mustParse(t, src))
	var end int64
	for _, f := range flows {
		if f.Status != "success" {
			t.Fatalf("%s: flow %d %s", what, f.ID, f.Status)
		}
		end = max(end, f.EndNs)
	}
	return n, flows, end
}

// TestCongestionControlSeesPathMTU: a QP's congestion control counts its
// packets by the QP's path MTU (the smaller of the two hosts' hca.mtu),
// by which they are cut, not by its port's. A flow from a 4096-MTU host
// to a 1024-MTU host sends 1024-byte packets, as between two 1024-MTU
// hosts, and must take the same time: measured equal to the nanosecond
// (the tolerance, 0.01%, is there for the float arithmetic of the
// controls). With Path.MTU the port's, the control of the 4096-MTU host
// took each 1024-byte packet for 4096 bytes: iWARP's TCP opened its
// window (ten segments, one segment per ACK in slow start) four times as
// fast, an 8 MiB WRITE at 100 Gb/s over 20 us links taking 5,312,801 ns
// against 5,477,603 (commit c06144a's 5.32 ms and 5.48 ms), and a READ's
// responses on the responder's stream 5,312,508 against 5,477,310; two
// DCTCP senders into one host grew their windows by 4096 bytes a round
// trip, 1,859,958 ns against 2,507,955 for the later of the two, and
// 3,739,455 against 4,388,160 when one of them connects with rdma_cm (the
// other starting as it connects): that one's control is attached before
// RTR sets the path MTU, and taking only the QP's path MTU then (its
// port's) still leaves 4,389,044; HPCC's base RTT counted a 4096-byte
// packet, 1,995,979 ns against 1,996,573. A single RoCE flow under DCQCN,
// DCTCP or TIMELY goes at line rate either way (807,782 ns both).
func TestCongestionControlSeesPathMTU(t *testing.T) {
	const src = `name: path-mtu-cc
seed: 1
stop: {at: 200ms, when: [flows-done, deadlock]}
topology:
  kind: explicit
  hosts: [{name: h0, hca: {mtu: %d}}, h1, {name: h2, hca: {mtu: %[1]d}}]
  switches: [s0]
  link: {rate: 100Gbps, delay: 20us}
  links: [[h0, s0], [h1, s0], [h2, s0]]
hca:
  mtu: 1024
  %s
traffic:
%s`
	cases := []struct {
		name, hca, traffic string
	}{
		{"iwarp write", "transport: iwarp", "  - flow: {from: h0, to: h1, size: 8MiB}\n"},
		{"iwarp read", "transport: iwarp", "  - flow: {from: h1, to: h0, size: 8MiB, op: read}\n"},
		{"dctcp 2 to 1", "cc: dctcp", "  - flow: {from: h0, to: h1, size: 8MiB}\n  - flow: {from: h2, to: h1, size: 8MiB}\n"},
		{"dctcp 2 to 1, rdma_cm", "cc: dctcp", "  - flow: {from: h0, to: h1, size: 8MiB, connect: cm}\n  - flow: {from: h2, to: h1, size: 8MiB, start: 1880us}\n"},
		{"hpcc 2 to 1", "cc: hpcc", "  - flow: {from: h0, to: h1, size: 8MiB}\n  - flow: {from: h2, to: h1, size: 8MiB}\n"},
		{"dcqcn", "cc: dcqcn", "  - flow: {from: h0, to: h1, size: 8MiB}\n"},
	}
	// last is when the last flow ends, ns.
	last := func(t *testing.T, mtu int, hca, traffic string) int64 {
		t.Helper()
		_, flows, end := pathMTURun(t, fmt.Sprintf("mtu %d", mtu), fmt.Sprintf(src, mtu, hca, traffic))
		if len(flows) != strings.Count(traffic, "flow:") {
			t.Fatalf("mtu %d: %d flows", mtu, len(flows))
		}
		return end
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, want := last(t, 4096, c.hca, c.traffic), last(t, 1024, c.hca, c.traffic)
			if math.Abs(float64(got-want)) > 1e-4*float64(want) {
				t.Errorf("from 4096-MTU hosts done at %d ns, from 1024-MTU hosts at %d: want within 0.01%%", got, want)
			}
		})
	}
}
