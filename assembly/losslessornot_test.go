package assembly

import "testing"

// TestLosslessOrNotLab: each change the lossless-or-not lab's README
// asks for fails one of its scenario's expectations, as the README says:
// IRN without its BDP cap resends over 10,000 packets; iWARP under CUBIC
// (which ignores ECN) drops, and leaves flows waiting for TCP's 200 ms RTO;
// go-back-N made selective completes every flow; PFC removed drops.
// The fix the README then suggests (rto_min: 1ms) completes every flow.
func TestLosslessOrNotLab(t *testing.T) {
	const lab = "lossless-or-not"
	checkLabMutations(t, lab, []labMutation{
		{"irn", ", bdp_cap: auto", ""},
		{"iwarp", "tcp: {cc: dctcp, sack: true}", "tcp: {cc: cubic, sack: true}"},
		{"go-back-n", "hca: {mtu: 4096, cc: none, priority: 3}", "hca: {mtu: 4096, cc: none, priority: 3, retransmit: selective}"},
		{"pfc", "pfc: {priorities: [3], xoff: 96KiB, xon: 80KiB, headroom: auto}", "pfc: {priorities: []}"},
	})
	r := runLabMutation(t, lab, labMutation{"iwarp", "tcp: {cc: dctcp, sack: true}", "tcp: {cc: cubic, sack: true, rto_min: 1ms}"})
	if s := r.Summary; s.Flows.Completed != s.Flows.Total || s.SimTimeNs > 3_000_000 {
		t.Errorf("iwarp under CUBIC with rto_min 1ms: %d of %d flows by %d ns; want all within 3 ms", s.Flows.Completed, s.Flows.Total, s.SimTimeNs)
	}
}

// TestPFCHeadOfLineLab: the pfc-head-of-line lab's key parameter is the
// congestion control: DCQCN off in `dcqcn` brings the pauses back on
// h0's link (its max_pause_fraction check fails), and DCQCN on in `pfc`
// (with the switch's default marking) keeps h0's link running (its
// min_pause_fraction check fails), as the README's first change says.
func TestPFCHeadOfLineLab(t *testing.T) {
	checkLabMutations(t, "pfc-head-of-line", []labMutation{
		{"dcqcn", "cc: dcqcn, dcqcn: {variant: nvidia}", "cc: none"},
		{"pfc", "hca: {priority: 3, cc: none}", "hca: {priority: 3, cc: dcqcn}"},
	})
}
