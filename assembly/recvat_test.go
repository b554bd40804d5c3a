package assembly

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/resolve"
)

// TestRecvAt: SENDs that arrive before flow.recv_at's RECVs are refused
// with an RNR NAK and retried after min_rnr_timer (IBTA vol. 1, table 45:
// code 12 is 0.64 ms, code 1 is 0.01 ms), so the flow ends one timer
// after its first SEND, or just after recv_at when the timer is short;
// rnr_retry 0 fails the first WR and flushes the rest.
func TestRecvAt(t *testing.T) {
	const flow = "  - flow: {from: h0, to: h1, op: send, size: 512KiB, messages: 8, recv_at: 100us}\n"
	for _, tc := range []struct {
		hca            string
		minEnd, maxEnd int64 // ns
		status         string
	}{
		{"", 640_000, 720_000, "success"},
		{"hca: {min_rnr_timer: 1}\n", 100_000, 160_000, "success"},
		{"hca: {rnr_retry: 0}\n", 0, 20_000, "rnr_retry_exc_err"},
	} {
		_, r := runSource(t, "r.yaml", "stop: {at: 20ms, when: flows-done}\ntopology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}\n"+tc.hca+"traffic:\n"+flow)
		f := r.Flows[0]
		if f.Status != tc.status || f.EndNs < tc.minEnd || f.EndNs > tc.maxEnd {
			t.Errorf("%q: status %s, ended at %d ns; want %s within [%d, %d] ns", tc.hca, f.Status, f.EndNs, tc.status, tc.minEnd, tc.maxEnd)
		}
	}
	_, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 2}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1MiB, recv_at: 1us}\n"))
	if want := "t.yaml:3:51: traffic[0].flow.recv_at: a write consumes no RECV"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("recv_at on a WRITE: %v, want %q", err, want)
	}
}

// TestOneAndTwoSidedLabMutations: the change each scenario of the lab
// teaches makes one of its expectations fail.
func TestOneAndTwoSidedLabMutations(t *testing.T) {
	checkLabMutations(t, "one-and-two-sided", []labMutation{
		{"send-before-recv", ", recv_at: 100us}", "}"},
		{"send-no-rnr-retry", "hca: {rnr_retry: 0}", "hca: {rnr_retry: 7}"},
		{"write", "op: write", "op: send, recv_at: 100us"},
		{"read-depth-1", "hca: {max_rd_atomic: 1}", "hca: {max_rd_atomic: 16}"},
		{"read-depth-16", "hca: {max_rd_atomic: 16}", "hca: {max_rd_atomic: 1}"},
	})
}

// TestTuningDCQCNLab: each scenario's marking, moved as its README says,
// fails one of its expectations (the README's sweep is run by
// sweep.TestTuningDCQCNLabSweep).
func TestTuningDCQCNLab(t *testing.T) {
	checkLabMutations(t, "tuning-dcqcn", []labMutation{
		{"default", "ecn: {kmin: 5KB, kmax: 200KB, pmax: 1%}", "ecn: {kmin: 400KB, kmax: 1600KB, pmax: 20%}"},
		{"aggressive", "pmax: 100%", "pmax: 1%"},
		{"lax", "ecn: {kmin: 400KB, kmax: 1600KB, pmax: 20%}", "ecn: {kmin: 5KB, kmax: 200KB, pmax: 1%}"},
	})
}
