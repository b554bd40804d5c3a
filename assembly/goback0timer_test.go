package assembly

import (
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
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

// TestGoBack0SenderGoBackNResponder: a go-back-0 requester whose
// responder is go-back-N (hca.retransmit is each host's) restarts a
// message at its first packet, and the responder, which keeps what it
// has, takes the resent packets before its gap as duplicates and
// answers those that ask (AckReq, every hca.ack_every) with an ACK for
// what it has. Those ACKs acknowledge the packets resent since the
// restart, and restart the ACK timer as any ACK of outstanding packets
// does (goBack0Progress), so that a restart longer than the ACK timeout
// still reaches the gap. livelock-go-back-0's g0 with r0 at go-back-N
// (4 MiB in 4096 packets of 1024 bytes, 1/256 loss on g0's link, a
// 65.5 us ACK timeout): each pass resends from the first packet at 11.3
// packets a microsecond (1,106 bytes each on the wire), so once the gap
// is past the 741st packet a pass takes longer than the timeout. The
// requester took the duplicates' ACKs as no progress, having seen that
// PSN acknowledged before the restart: its timer fired before the pass reached the gap and started
// it over, and so at every pass (tried: 935,936 bytes delivered by
// 20 ms, 225,044 packets resent, incomplete). Now it completes, and
// each restart is a loss the responder saw: no more than a timeout per
// ten restarts (a lost NAK, or a lost resend of the packet at the gap).
func TestGoBack0SenderGoBackNResponder(t *testing.T) {
	src := exampleText(t, "livelock-go-back-0")
	src = patch(t, src, "{name: r0, hca: {retransmit: go-back-0}}", "{name: r0, hca: {retransmit: go-back-n}}")
	src = patch(t, src, "stop: {at: 4ms, when: flows-done}", "stop: {at: 20ms, when: flows-done}")
	src = src[:strings.Index(src, "expect:")]
	n, _, flows := mustRun(t, mustParse(t, src))
	f := flows[0]
	g0 := n.HCAs[0]
	t.Logf("g0: %s, %d bytes, FCT %d ns, %d sent, %d resent, %d timeouts; r0: %d NAKs", f.Status, f.DeliveredBytes, f.FCTNs, g0.Stats.DataPackets, g0.Stats.Retransmitted, g0.Stats.Timeouts, n.HCAs[1].Stats.NaksSent)
	if f.Status != "success" || f.DeliveredBytes != 4<<20 {
		t.Fatalf("g0 to r0: %s with %d bytes delivered, want success with 4194304", f.Status, f.DeliveredBytes)
	}
	// Never idle for long: the FCT is the serialization of what g0
	// sent, each packet a 1024-byte RoCEv2 WRITE Middle at 100 Gb/s,
	// within 2% over (the waits for each NAK, a round trip of 4 us or
	// so, mostly overlapped by what is still being sent, and the HCAs'
	// latencies; measured 0.28% over).
	busy := float64(g0.Stats.DataPackets*int64(fabric.RoCEv2Wire(fabric.OpWriteMiddle, 1024))) * 8 / 100e9 * 1e9
	if fct := float64(f.FCTNs); fct < busy || fct > 1.02*busy {
		t.Errorf("g0: FCT %d ns for %d packets sent, %.0f ns of serialization: want within 2%% over", f.FCTNs, g0.Stats.DataPackets, busy)
	}
	if to, naks := g0.Stats.Timeouts, n.HCAs[1].Stats.NaksSent; 10*to > naks+to {
		t.Errorf("g0: %d timeouts beside r0's %d NAKs: want no more than one restart in ten by timeout", to, naks)
	}
}
