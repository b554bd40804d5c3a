package assembly

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenario"
)

// TestRemoteMRViolations: each way flow.remote_mr breaks a WRITE, READ
// or atomic gives the requester one rem_access_err and flushes the work
// requests behind it, and places no byte of the refused request (IBTA
// vol. 1, 9.7.5.2.8: R_Key, PD, bounds and access rights are all checked
// on the first packet); the region set right lets every one through.
func TestRemoteMRViolations(t *testing.T) {
	for _, tc := range []struct {
		name, op, mr string
		success      int64 // of 8 messages of 64 KiB
	}{
		{"no remote write", "write", "{access: [local_write, remote_read]}", 0},
		{"no remote read", "read", "{access: [local_write, remote_write]}", 0},
		{"too short by 32 KiB", "write", "{length: 480KiB}", 7},
		{"half as long, READ", "read", "{length: 256KiB}", 4},
		{"invalid key", "write", "{rkey: invalid}", 0},
		{"another PD", "read", "{pd: other}", 0},
		{"write allowed", "write", "{access: [local_write, remote_write]}", 8},
		{"read allowed", "read", "{access: [remote_read]}", 8},
	} {
		_, r := runSource(t, "mr.yaml", `
stop: {at: 10ms, when: flows-done}
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
traffic:
  - flow: {from: h0, to: h1, op: `+tc.op+`, size: 512KiB, messages: 8, remote_mr: `+tc.mr+`}
`)
		wc := r.Summary.Flows.WorkCompletions
		want := map[string]int64{"success": tc.success}
		if tc.success < 8 {
			want["rem_access_err"], want["wr_flush_err"] = 1, 7-tc.success
		}
		for st, n := range want {
			if wc[st] != n {
				t.Errorf("%s: work completions %v, want %v", tc.name, wc, want)
				break
			}
		}
		if d := r.Summary.Bytes.Delivered; d != tc.success<<16 {
			t.Errorf("%s: %d bytes delivered, want %d (the successful messages only)", tc.name, d, tc.success<<16)
		}
		if wantStatus := map[bool]string{true: "success", false: "rem_access_err"}[tc.success == 8]; r.Flows[0].Status != wantStatus {
			t.Errorf("%s: flow status %s, want %s", tc.name, r.Flows[0].Status, wantStatus)
		}
	}
}

// TestRemoteMRRefused: what flow.remote_mr and messages cannot mean is
// an error at its key.
func TestRemoteMRRefused(t *testing.T) {
	const head = "topology: {kind: star, hosts: 2}\ntraffic:\n  - flow: {from: h0, to: h1, "
	for _, tc := range []struct{ flow, want string }{
		{"size: 1MiB, op: send, remote_mr: {length: 4KiB}}", "t.yaml:3:52: traffic[0].flow.remote_mr: a SEND names no remote region"},
		{"size: 1MiB, remote_mr: {access: [remote_write]}}", "t.yaml:3:54: traffic[0].flow.remote_mr.access: ibv_reg_mr refuses remote_write or remote_atomic without local_write"},
		{"size: 1MiB, remote_mr: {access: [remote_exec]}}", "t.yaml:3:63: traffic[0].flow.remote_mr.access[0]: unknown value remote_exec"},
		{"size: 4, messages: 5}", "t.yaml:3:49: traffic[0].flow.messages: 5 messages of a 4-byte flow would leave some empty"},
		{"size: 1MiB, messages: 129}", "t.yaml:3:52: traffic[0].flow.messages: 129 messages do not fit one QP's queues (max_send_wr 128, max_recv_wr 512)"},
	} {
		_, err := resolve.Parse("t.yaml", []byte(head+tc.flow+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.flow, err, tc.want)
		}
	}
}

// TestWCStatusNames: the scenario's list of statuses (expect.
// work_completions) is libibverbs' names as hca.WCStatus prints them.
func TestWCStatusNames(t *testing.T) {
	var names []string
	for st := hca.WCSuccess; st <= hca.WCRemOpError; st++ {
		names = append(names, st.String())
	}
	if strings.Join(names, " ") != strings.Join(scenario.WCStatuses, " ") {
		t.Errorf("hca's statuses %v, scenario's %v", names, scenario.WCStatuses)
	}
}

// TestMemoryProtectionLabMutations: the lab's key change, each
// scenario's region set right, makes its expectations fail.
func TestMemoryProtectionLabMutations(t *testing.T) {
	for _, m := range []labMutation{
		{"no-remote-write", "remote_mr: {access: [local_write, remote_read]}", "remote_mr: {access: [local_write, remote_read, remote_write]}"},
		{"out-of-bounds", "remote_mr: {length: 288KiB}", "remote_mr: {length: 512KiB}"},
		{"bad-rkey", "remote_mr: {rkey: invalid}", "remote_mr: {rkey: valid}"},
		{"other-pd", "remote_mr: {pd: other}", "remote_mr: {pd: own}"},
	} {
		r := runLabMutation(t, "memory-protection", m)
		if failed := failedChecks(r); failed == 0 || r.Summary.Flows.Completed != 1 {
			t.Errorf("%s with %s: %d expectations fail, %d flows completed; want some failing and the flow complete", m.name, m.to, failed, r.Summary.Flows.Completed)
		}
	}
}
