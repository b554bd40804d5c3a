package assembly

import (
	"fmt"
	"testing"
)

// TestConservationSprayRetransmit: packets sprayed over a k=4 fat tree's
// paths arrive out of order, which every retransmission scheme takes for
// loss and recovers from. Whatever it resends, a flow's receiver must
// count each byte once: the bytes balance, and no flow has more
// delivered than its size (READ at the requester, WRITE and SEND at the
// responder, counted before the min with the size that flows.csv
// applies). The metamorphic test's case conservation-70016 (READs under
// go-back-0) delivered 39,727 bytes of a 23,343-byte flow: the restart
// of a READ forgot the responses it had but not their bytes.
func TestConservationSprayRetransmit(t *testing.T) {
	for _, op := range []string{"read", "write", "send"} {
		for _, rt := range []string{"go-back-0", "go-back-n", "selective"} {
			for _, stop := range []string{"30us", "50us"} {
				for _, workers := range []int{1, 2} {
					what := fmt.Sprintf("%s %s stop %s, %d workers", op, rt, stop, workers)
					n, r := runConserved(t, what, "spray.yaml", `name: spray
seed: 70016
stop: {at: `+stop+`}
topology: {kind: fat-tree, k: 4, link: {rate: 100G, delay: 500ns}}
switch: {load_balance: spray}
hca: {retransmit: `+rt+`}
traffic:
  - poisson: {hosts: all, load: 0.5, sizes: alistorage2019, op: `+op+`}
`, workers)
					sum := r.Summary
					// Out-of-order arrival must have made the scheme resend,
					// or the case tests nothing.
					if sum.Packets.Retransmitted == 0 {
						t.Errorf("%s: nothing retransmitted", what)
					}
					for _, fr := range n.Flows {
						d := fr.ResponderDelivered()
						if op == "read" {
							d = fr.delivered()
						}
						if d > fr.Flow.Size {
							t.Errorf("%s: flow %d delivered %d of its %d bytes", what, fr.Flow.ID, d, fr.Flow.Size)
						}
					}
				}
			}
		}
	}
}
