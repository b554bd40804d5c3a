package assembly

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/resolve"
)

// TestFlowMessages: flow.messages: N posts exactly N work requests, over
// consecutive parts of the responder's region, their sizes as even as
// whole bytes allow (the first size mod N one byte longer); a SEND's
// responder posts one RECV for each. Without messages, a flow goes as one
// work request, or as pieces of max_msg_sz (1 GiB) and the rest. The
// sizes used to be ceil(size/N), the last taking the rest, so that 15
// bytes in 7 messages went as 5 WRITEs of 3 bytes and 10 in 4 as 3, 3, 3
// and 1. Each flow also runs to the end and delivers its size.
func TestFlowMessages(t *testing.T) {
	for _, c := range []struct {
		flow  string
		sizes []int64 // the work requests' lengths, in order
		run   bool
	}{
		{"size: 15, messages: 7", []int64{3, 2, 2, 2, 2, 2, 2}, true},
		{"size: 15, messages: 7, op: send", []int64{3, 2, 2, 2, 2, 2, 2}, true},
		{"size: 15, messages: 7, op: read", []int64{3, 2, 2, 2, 2, 2, 2}, true},
		{"size: 10, messages: 4, op: write_imm", []int64{3, 3, 2, 2}, true},
		{"size: 7, messages: 7", []int64{1, 1, 1, 1, 1, 1, 1}, true},
		{"size: 100, messages: 3, qp: ud, op: send", []int64{34, 33, 33}, true},
		// Sizes N divides: as before.
		{"size: 1KiB, messages: 16", slices.Repeat([]int64{64}, 16), true},
		{"size: 512KiB, messages: 8, op: send", slices.Repeat([]int64{64 << 10}, 8), true},
		{"size: 15", []int64{15}, true},
		{"size: 2GiB, messages: 2", []int64{1 << 30, 1 << 30}, false},
	} {
		t.Run(c.flow, func(t *testing.T) {
			src := "stop: {at: 1ms, when: flows-done}\ntopology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}\ntraffic:\n  - flow: {from: h0, to: h1, " + c.flow + "}\n"
			n := buildSource(t, "m.yaml", src)
			f := n.Scenario.Flows[0]
			const addr = 1 << 20
			wrs, recvs := flowWork(n.HCAs[f.Src], n.HCAs[f.Dst], f, addr, 0, 0, 0)
			var got []int64
			off := uint64(addr)
			for i, wr := range wrs {
				got = append(got, wr.Length)
				if wr.RemoteAddr != off {
					t.Errorf("work request %d at %#x, want %#x (the parts are consecutive)", i, wr.RemoteAddr, off)
				}
				off += uint64(wr.Length)
			}
			if !slices.Equal(got, c.sizes) {
				t.Errorf("work requests of %v bytes, want %v", got, c.sizes)
			}
			if (f.Op == "send" || f.Op == "write_imm") && len(recvs) != len(c.sizes) {
				t.Errorf("%d RECVs for %d messages", len(recvs), len(c.sizes))
			}
			if !c.run {
				return
			}
			if row := n.Run(nil).Flows[0]; row.Status != "success" || row.DeliveredBytes != f.Size {
				t.Errorf("status %s, %d of %d bytes delivered", row.Status, row.DeliveredBytes, f.Size)
			}
		})
	}
	// Without messages: pieces of max_msg_sz, the last the rest.
	n := buildSource(t, "m.yaml", "topology: {kind: star, hosts: 2}\ntraffic:\n  - flow: {from: h0, to: h1, size: 2097157KiB}\n")
	f := n.Scenario.Flows[0]
	wrs, _ := flowWork(n.HCAs[f.Src], n.HCAs[f.Dst], f, 0, 0, 0, 0)
	var got []int64
	for _, wr := range wrs {
		got = append(got, wr.Length)
	}
	if want := []int64{1 << 30, 1 << 30, 5 << 10}; !slices.Equal(got, want) {
		t.Errorf("a flow of 2 GiB + 5 KiB goes as %v, want %v", got, want)
	}
}

// TestFlowMessagesRefused: messages a flow cannot be cut into are an
// error at the key: more messages than bytes (a message of 0 bytes is
// legal in verbs, but a flow's messages would then not be its parts),
// and messages longer than the HCA's largest (ibv_post_send refuses a
// message over max_msg_sz).
func TestFlowMessagesRefused(t *testing.T) {
	const head = "topology: {kind: star, hosts: 2}\ntraffic:\n  - flow: {from: h0, to: h1, "
	for _, c := range []struct{ flow, want string }{
		{"size: 6, messages: 7}", "t.yaml:3:49: traffic[0].flow.messages: 7 messages of a 6-byte flow would leave some empty: at most one per byte"},
		{"size: 4GiB, messages: 2}", fmt.Sprintf("t.yaml:3:52: traffic[0].flow.messages: 2 messages of a %d-byte flow are over the HCA's largest message (max_msg_sz %d bytes): at least 4", 4<<30, 1<<30)},
		{"size: 3GiB, messages: 2}", "at least 3"},
	} {
		_, err := resolve.Parse("t.yaml", []byte(head+c.flow+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.flow, err, c.want)
		}
	}
}
