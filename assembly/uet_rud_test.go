package assembly

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/lfsim/lfsim/reports"
)

// uetCounts sums what the run's HCAs counted of UET's loss recovery.
func uetCounts(n *Network) (timeouts, naks, sleek int64) {
	for _, h := range n.HCAs {
		if h != nil {
			timeouts += h.Stats.Timeouts
			naks += h.Stats.NaksSent
			sleek += h.SleekRecoveries()
		}
	}
	return timeouts, naks, sleek
}

// TestUETSprayedReorderNotLoss: the uet-degraded-k8 example, a k=8
// permutation of 2 MiB sprayed obliviously with core s64 to aggregation
// s32 at 50 Gb/s: the slow link's queue reorders a sixteenth of each
// flow's packets, nothing is trimmed, dropped or timed out, and UET's
// receiver takes none of that reorder for a loss (it SACKs and never
// NAKs a gap, hca/uet.go): 0 NAKs, 0 packets resent. IRN's gap rule,
// which UET used before, resent 3,585 packets here (docs/RELIABILITY.md;
// 2,369 for 297 NAKs with only placeAhead's NAK put back). The run is
// byte-identical at 1 and 2 workers.
func TestUETSprayedReorderNotLoss(t *testing.T) {
	src := exampleText(t, "uet-degraded-k8")
	var first []byte
	for _, workers := range []int{1, 2} {
		what := fmt.Sprintf("%d workers", workers)
		n, r := runConserved(t, what, "uet-degraded-k8.yaml", src, workers)
		sum := r.Summary
		timeouts, naks, sleek := uetCounts(n)
		if sum.Flows.Completed != 128 || sum.UEC == nil || sum.UEC.Trimmed != 0 || sum.Packets.Dropped != 0 || timeouts != 0 {
			t.Fatalf("%s: %d of 128 flows, uec %+v, %d dropped, %d timeouts; the case wants all, no trim, drop or timeout", what, sum.Flows.Completed, sum.UEC, sum.Packets.Dropped, timeouts)
		}
		if sum.Packets.Retransmitted != 0 || naks != 0 || sleek != 0 {
			t.Errorf("%s: %d packets resent, %d NAKs, %d SLEEK recoveries; want 0 (a late packet is not lost)", what, sum.Packets.Retransmitted, naks, sleek)
		}
		sum.WallSeconds = 0
		out := append(reports.SummaryJSON(sum), reports.FlowsCSV(r.Flows)...)
		if first == nil {
			first = out
		} else if !bytes.Equal(first, out) {
			t.Errorf("%s: summary.json or flows.csv differ from 1 worker's", what)
		}
	}
}

// TestUETTrimNackResendsTrimmed: in the uet-trim-incast example (16:1,
// 1 MiB each, 4 MiB buffer, trimming, no congestion control) every
// packet resent is one a trim NACK named: with no timeout, no drop and no
// SLEEK recovery, the packets resent equal the trims (37,575 for seed 1),
// each a trimmed PSN resent once, none of the packets that arrived after
// a trimmed one resent for the gap it left.
func TestUETTrimNackResendsTrimmed(t *testing.T) {
	n, r := runConserved(t, "trim incast", "uet-trim-incast.yaml", exampleText(t, "uet-trim-incast"), 1)
	sum := r.Summary
	timeouts, naks, sleek := uetCounts(n)
	u := sum.UEC
	if sum.Flows.Completed != 16 || u == nil || u.Trimmed < 4096 || sum.Packets.Dropped != 0 || sleek != 0 {
		t.Fatalf("%d of 16 flows, uec %+v, %d dropped, %d SLEEK; the case wants all, trims (about 9 a packet of one flow), no drop, no SLEEK", sum.Flows.Completed, u, sum.Packets.Dropped, sleek)
	}
	if sum.Packets.Retransmitted != u.Trimmed+timeouts || timeouts != 0 || naks != u.TrimmedReceived {
		t.Errorf("%d resent, %d trimmed, %d trimmed received, %d NAKs, %d timeouts; want as many resent as trimmed, a NAK a trimmed packet, no timeout", sum.Packets.Retransmitted, u.Trimmed, u.TrimmedReceived, naks, timeouts)
	}
}

// TestUETLossRecovered: a real loss (a link loss fault of 1/200 on the
// sender's link, a 16 MiB WRITE between two hosts of a star) is found by
// UET's sender without a NAK, by its timeout (no congestion control: no
// window, no SLEEK) or by SLEEK (NSCC's window: the out-of-order count
// passes max(1.5 × cwnd, 5 packets)), and the bytes all arrive. The
// packets resent are at least the requests lost and at most that plus a
// margin: 0 for the timeout (it resends the oldest PSN and the holes
// below the highest SACKed one); for SLEEK one a loss, since runSleek
// resends what is not yet SACKed from the cumulative PSN, some of it
// still in flight (measured for seed 1: 14 lost, 14 resent either way).
// With hca.uet.sleek: false NSCC's QP runs no SLEEK: its losses wait for
// the timeout, as without a window, and exactly the lost are resent.
func TestUETLossRecovered(t *testing.T) {
	const src = `name: uet-loss
seed: 1
stop: {at: 50ms, when: flows-done}
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
switch: {pfc: {priorities: []}, ecn: off}
hca: {transport: uet, cc: none}
traffic:
  - flow: {from: h0, to: h1, size: 16MiB}
faults:
  - {at: 0, link: [h0, s0], action: loss, rate: 1/200}
`
	for _, c := range []struct {
		cc            string
		sleek         bool
		marginPerLoss int64
	}{
		{"none", false, 0},
		{"nscc", true, 1},
		{"nscc, uet: {sleek: false}", false, 0},
	} {
		n, r := runConserved(t, c.cc, "uet-loss.yaml", patch(t, src, "cc: none", "cc: "+c.cc), 1)
		sum := r.Summary
		timeouts, naks, sleek := uetCounts(n)
		var lost int64 // h0's requests lost (its ACKs, from s0, are lost too)
		for _, h := range n.HCAs {
			if h != nil && h.Stats.DataPackets > 0 {
				lost += h.Port().Link().Lost
			}
		}
		resent := sum.Packets.Retransmitted
		if sum.Flows.Completed != 1 || lost < 10 || naks != 0 {
			t.Fatalf("%s: %d of 1 flow, %d lost, %d NAKs; want the flow, some losses, no NAK", c.cc, sum.Flows.Completed, lost, naks)
		}
		if (sleek > 0) != c.sleek || !c.sleek && timeouts == 0 {
			t.Errorf("%s: %d SLEEK recoveries, %d timeouts; want SLEEK %v", c.cc, sleek, timeouts, c.sleek)
		}
		if resent < lost || resent > lost+c.marginPerLoss*lost {
			t.Errorf("%s: %d resent for %d lost; want between %d and %d", c.cc, resent, lost, lost, lost+c.marginPerLoss*lost)
		}
		t.Logf("%s: %d lost, %d resent, %d timeouts, %d SLEEK, done at %d ns", c.cc, lost, resent, timeouts, sleek, uetEnd(r.Flows))
	}
}
