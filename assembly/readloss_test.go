package assembly

import (
	"fmt"
	"testing"

	"github.com/lfsim/lfsim/reports"
)

// TestReadFirstResponseLost: metamorphic's case (a helper's, 2026-12-06)
// of UET with receiver credits and 1% loss on one host's link: an
// all-to-all of 64 KiB among 4 hosts on a switch, beside it a READ of
// 4 × 16 KiB from h0, whose own hca.mtu is 1024 (16 responses a READ),
// to the lossy h1, and a SEND of 3 × 100 KiB into h1. At seed 2 the
// first READ's first response is lost: its 15 others are placed past
// the gap (fewer than reorder_window, 256, so nothing asks again), the
// second READ's in-order responses move the cumulative PSN past its
// request, and a timeout's recovery, which starts there, resent nothing
// of it (hca/selective.go, srTimeout): retry_exc_err at 1.2468 ms after
// 8 timeouts, 61,440 of 65,536 bytes delivered (tried). RCCC plays no
// part: DCTCP does not control READs, so the READ's QP holds no credit,
// and the same loss ends a READ without receiver credits too. The
// variants: h0's MTU 2048 (retry_exc_err at 1.2469 ms before); seeds 5
// and 8 with 2% and 5% loss and no receiver credits, whose second READ
// lost its first response (before: retry_exc_err at 2.579 ms, 64,512
// and 62,464 bytes delivered). Now each completes, its READ after one
// or two timeouts: measured 338.1, 441.7, 344.8 and 671.8 us. Asserted:
// every flow succeeds with all its bytes, the READ within 1 ms (the
// retries ran out at 1.2468 ms), byte-identical at 1 and 2 workers.
func TestReadFirstResponseLost(t *testing.T) {
	const src = `name: rccc-read-loss
seed: %d
stop: {at: 5ms, when: flows-done}
topology:
  kind: explicit
  switches: [s0]
  hosts: [{name: h0, hca: {mtu: %d}}, h1, h2, h3]
  link: {rate: 100Gbps, delay: 1us}
  links: [[s0, h0], [s0, h1], [s0, h2], [s0, h3]]
hca:
  mtu: 4096
  transport: uet
  uet: {cc: dctcp, spray: ecmp, receiver_credits: %v}
faults:
  - {at: 0, link: [s0, h1], action: loss, rate: %v}
traffic:
  - all_to_all: {hosts: all, size: 64KiB}
  - flow: {from: h0, to: h1, op: read, size: 64KiB, messages: 4}
  - flow: {from: h2, to: h1, op: send, size: 100KiB, messages: 3}
`
	for _, c := range []struct {
		name    string
		seed    int
		mtu     int
		credits bool
		loss    float64
	}{
		{"the case: RCCC, MTU 1024, 1% loss", 2, 1024, true, 0.01},
		{"RCCC, MTU 2048", 2, 2048, true, 0.01},
		{"no credits, 2% loss, seed 5", 5, 1024, false, 0.02},
		{"no credits, 5% loss, seed 8", 8, 1024, false, 0.05},
	} {
		s := fmt.Sprintf(src, c.seed, c.mtu, c.credits, c.loss)
		sameAtWorkers(t, c.name, "read-loss.yaml", s, false, func(what string, n *Network, r *reports.Results) {
			for _, f := range r.Flows {
				if f.Status != "success" || f.DeliveredBytes != f.SizeBytes {
					t.Errorf("%s: flow %d (%s %s to %s): %s, %d of %d bytes", what, f.ID, f.Op, f.Src, f.Dst, f.Status, f.DeliveredBytes, f.SizeBytes)
				}
				if f.Op == "read" && (f.EndNs == 0 || f.EndNs > 1_000_000) {
					t.Errorf("%s: the READ ended at %d ns; want within 1 ms", what, f.EndNs)
				}
			}
		})
	}
}
