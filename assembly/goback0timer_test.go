package assembly

import (
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/hca"
)

// TestGoBack0LongMessage: under go-back-0 an ACK that acknowledges part
// of a message restarts the ACK timer and resets the retry count (the
// requester's transport timer bounds the wait for an acknowledgement,
// not for a whole message), where it did neither: una, which go-back-0
// holds at the message's first PSN, did not move, so a message that took
// longer than the ACK timeout to send started over at each timeout and,
// after retry_cnt of them, failed with retry_exc_err without any loss.
// livelock-go-back-0's message, 4 MiB in 4096 packets of 1024 bytes,
// takes about 0.4 ms at 100 Gb/s; its ACK timeout is 65 us.
//
// Lossless (its faults removed), go-back-0 has nothing to go back for
// and must finish when go-back-N does: its FCT within 1% of go-back-N's
// on the twin path (measured equal), at the example's MTU and at 4096
// (1024 packets). With the old requester.go both failed with
// retry_exc_err (at 526 us with MTU 4096).
//
// With the example's 1/256 loss (both ends go-back-0: the responder
// discards the partial message) the message starts over at every loss
// (Guo et al., SIGCOMM 2016): a livelock, not a failure. Each restart is
// a sequence-error NAK from r0 at the first gap of a pass, so a pass ends
// at its first loss: about one restart per 256 packets g0 sends, fewer
// by the losses in each pass's tail, sent before the NAK came, which make
// no NAK of their own (within 25%; measured 160 for 45,193 packets, 176
// by the count). No timeout may fail it (the ACKs of each pass reset the
// retry count) and none of it is delivered at 4 ms. With the old code it
// failed with retry_exc_err, after 37 restarts.
func TestGoBack0LongMessage(t *testing.T) {
	src := exampleText(t, "livelock-go-back-0")
	lossless := src[:strings.Index(src, "faults:")] + src[strings.Index(src, "expect:"):]
	lossless = patch(t, lossless, "flows_completed: 1", "flows_completed: 2")
	for _, tc := range []struct{ name, src string }{
		{"mtu 1024", lossless},
		{"mtu 4096", patch(t, lossless, "mtu: 1024", "mtu: 4096")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, r := runSource(t, "lossless.yaml", tc.src)
			fct := map[string]int64{}
			for _, f := range r.Flows {
				if f.Status != "success" || f.DeliveredBytes != 4<<20 {
					t.Fatalf("%s: %s with %d bytes delivered, want success with 4194304", f.Src, f.Status, f.DeliveredBytes)
				}
				fct[f.Src] = f.FCTNs
			}
			if math.Abs(float64(fct["g0"]-fct["gn"])) > 0.01*float64(fct["gn"]) {
				t.Errorf("go-back-0 FCT %d ns, go-back-N's %d: want within 1%%", fct["g0"], fct["gn"])
			}
			t.Logf("FCT go-back-0 %d ns, go-back-N %d ns", fct["g0"], fct["gn"])
		})
	}
	t.Run("loss", func(t *testing.T) {
		n, r := runSource(t, "livelock-go-back-0.yaml", src)
		for _, f := range r.Flows {
			if f.Src == "g0" && (f.Status != "incomplete" || f.DeliveredBytes != 0) {
				t.Errorf("go-back-0: %s with %d bytes delivered at 4 ms, want incomplete with 0 (restarting)", f.Status, f.DeliveredBytes)
			}
		}
		var req, rsp *hca.HCA
		for _, h := range n.HCAs {
			if h == nil {
				continue
			}
			switch n.Scenario.Topology.Nodes[h.ID].Name {
			case "g0":
				req = h
			case "r0":
				rsp = h
			}
		}
		restarts := rsp.Stats.NaksSent
		want := float64(req.Stats.DataPackets) / 256
		t.Logf("go-back-0: %d restarts on a NAK, %d on a timeout, %d request packets sent (%d resent)", restarts, req.Stats.Timeouts, req.Stats.DataPackets, req.Stats.Retransmitted)
		if math.Abs(float64(restarts)-want) > 0.25*want {
			t.Errorf("%d restarts on a NAK, want %.0f +- 25%% (one per 256 packets sent)", restarts, want)
		}
	})
}
