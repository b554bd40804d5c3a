package assembly

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
)

// TestCreditsSeePathMTU: RCCC's sender and receiver sides size their
// credit bound, 1.5 × the path's BDP (congestion.RCCCMaxWindow), with
// the QP's path MTU, as attachCC sizes the sender's control
// (TestCongestionControlSeesPathMTU), not with hca.mtu of the sending
// host. Two UET senders with hca.mtu 4096 into a host with 1024 (so
// 1024-byte packets) hold the same bound at both sides as from
// 1024-MTU senders, 97,458 bytes (100 Gb/s over a base RTT of two 1 us
// links' delays each way, the switch's and HCAs' latencies and a
// 1024-byte packet's and an ACK's serialization on each link), and the
// run (its end, the receiver's credit packets) is the same. With the
// sending host's hca.mtu both sides took 4,096-byte packets' base RTT:
// 106,674 bytes (tried); the flows' end and the credit packets (674 by
// 400 us) did not change here, the receiver's link being the bottleneck
// throughout.
func TestCreditsSeePathMTU(t *testing.T) {
	src := func(mtu int) string { return fmt.Sprintf(twoIntoOne, mtu, 1024) }
	type result struct {
		end, pulls int64
		maxWnd     [2]int64 // the senders' credit bound
		sinkWnd    [2]int64 // the receiver's for each sender
	}
	run := func(mtu int) result {
		// Stopped at 20 us, while the flows run, the QPs hold their
		// credit's bound.
		early, _, _ := mustRun(t, mustParse(t, strings.Replace(src(mtu), "at: 400us", "at: 20us", 1)))
		var r result
		for i, f := range early.Flows {
			r.maxWnd[i] = f.Live.Requester.Credits.(*congestion.RCCC).MaxWindow()
			r.sinkWnd[i] = f.Live.Responder.CreditSink.(*congestion.RCCCSink).MaxWindow()
		}
		n, _, end := pathMTURun(t, fmt.Sprintf("mtu %d", mtu), src(mtu))
		r.end, r.pulls = end, n.HCAs[1].CreditPackets()
		return r
	}
	got, want := run(4096), run(1024)
	t.Logf("from 4096-MTU hosts: %+v; from 1024-MTU hosts: %+v", got, want)
	if got != want {
		t.Errorf("from 4096-MTU hosts done at %d ns, from 1024-MTU hosts at %d: want the same", got.end, want.end)
	}
}

// TestCreditsFrameOfCMQP: RCCC's sender counts its pull targets in full
// packets of the QP's path MTU on the wire (congestion.RCCC.Frame). A
// flow connected by rdma_cm (connect: cm) gets RCCC before RTR, when its
// QP still has its port's MTU: from a 4096-MTU host to a 1024-MTU one it
// took 4,218 bytes, UET's 4096-byte WRITE frame, for packets of 1,146
// (tried), where the flow connected at once has 1,146. Both must have
// 1,146 (fabric.UETWire of a 1024-byte middle WRITE), read once the cm
// flow runs (5 ms: its QP is at RTS with path MTU 1024).
func TestCreditsFrameOfCMQP(t *testing.T) {
	const src = `seed: 1
stop: {at: 5ms}
topology:
  kind: explicit
  hosts: [{name: h0, hca: {mtu: 4096}}, h1]
  switches: [s0]
  link: {rate: 100Gbps, delay: 1us}
  links: [[h0, s0], [h1, s0]]
hca:
  transport: uet
  mtu: 1024
  cc: none
  uet: {receiver_credits: true}
traffic:
  - flow: {from: h0, to: h1, size: 512MiB%s}
`
	want := int64(fabric.UETWire(fabric.OpWriteMiddle, 1024))
	for _, cm := range []string{"", ", connect: cm"} {
		n, _, _ := mustRun(t, mustParse(t, fmt.Sprintf(src, cm)))
		qp := n.Flows[0].Live.Requester
		got := qp.Credits.(*congestion.RCCC).Frame()
		if qp.PathMTU() != 1024 || qp.State != hca.QPRTS || got != want {
			t.Errorf("flow%s: path MTU %d, %v, RCCC's frame %d bytes; want 1024, RTS, %d", cm, qp.PathMTU(), qp.State, got, want)
		}
	}
}

// TestCreditPullOfPathMTU: a receiving host's pacer grants each sender
// 4 packets' payload of the sender's path MTU a turn (congestion.RCCC's
// pacer; uet-htsim's UecSink::_credit_per_pull, 4 × the MSS, which is
// every host's there), not 4 of the receiver's hca.mtu. Two senders of
// hca.mtu 1024 writing 1 MiB each into a host of 4096 (so 1024-byte
// packets) run as into a host of 1024: the same end and the same credit
// packets (674 by 400 us, the flows' end at 194,716 ns). With the
// receiver's own MTU each pull granted 16 KiB, 16 of the senders'
// packets: 262 credit packets (tried); the end did not move here, the
// receiver's link being the bottleneck throughout.
func TestCreditPullOfPathMTU(t *testing.T) {
	type result struct{ end, pulls int64 }
	run := func(mtu int) result {
		n, _, end := pathMTURun(t, fmt.Sprintf("receiver's mtu %d", mtu), fmt.Sprintf(twoIntoOne, 1024, mtu))
		return result{end, n.HCAs[1].CreditPackets()}
	}
	got, want := run(4096), run(1024)
	t.Logf("into a 4096-MTU host: %+v; into a 1024-MTU host: %+v", got, want)
	if got != want {
		t.Errorf("into a 4096-MTU host: %+v; into a 1024-MTU host: %+v; want the same", got, want)
	}
}

// twoIntoOne is the credit tests' run: h0 and h2, whose hca.mtu is the
// first number, each write 1 MiB to h1, whose hca.mtu is the second, on
// one switch, under RCCC alone, to 400 us.
const twoIntoOne = `name: path-mtu-credits
seed: 1
stop: {at: 400us}
topology:
  kind: explicit
  hosts: [{name: h0, hca: {mtu: %d}}, {name: h1, hca: {mtu: %d}}, {name: h2, hca: {mtu: %[1]d}}]
  switches: [s0]
  link: {rate: 100Gbps, delay: 1us}
  links: [[h0, s0], [h1, s0], [h2, s0]]
hca:
  transport: uet
  mtu: 1024
  cc: none
  uet: {receiver_credits: true}
traffic:
  - flow: {from: h0, to: h1, size: 1MiB}
  - flow: {from: h2, to: h1, size: 1MiB}
`
