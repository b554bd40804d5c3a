package assembly

import (
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// liveState counts what the run still holds for its flows: QPs and memory
// regions in every HCA, FlowRuns with live state, the runner's maps and
// unpolled completions.
func liveState(n *Network) (qps, mrs, live, maps, cqes int) {
	for _, h := range n.HCAs {
		if h != nil {
			qps += h.NumQPs()
			mrs += h.NumMRs()
			cqes += h.DefaultCQ().Len()
		}
	}
	for _, fr := range n.Flows {
		if fr.Live != nil {
			live++
		}
	}
	entries := 0
	for i := range n.dyn.reqs {
		entries += len(n.dyn.reqs[i]) + len(n.dyn.resps[i])
	}
	return qps, mrs, live, entries, cqes
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestFinishedFlowsReleaseState: a flow that has ended holds no verbs
// objects. About 1,400 short flows of every kind the runner makes (RC WRITE
// and READ, UC WRITE, UD SEND, poisson and ring_allreduce) start in the
// first millisecond and all complete well before the run stops at 2 ms;
// then no HCA has a QP or a memory region left (each flow made two QPs
// and a region: before flows released them, 2 per flow stayed), no
// FlowRun holds live state, the runner's maps are empty and no completion
// waits in a CQ. Midway, while flows run, what is held is what the flows
// in progress hold: a QP per side not yet closed, and a region.
func TestFinishedFlowsReleaseState(t *testing.T) {
	src := `
name: teardown
stop: {at: 2ms}
topology: {kind: star, hosts: 8, link: {rate: 100Gbps, delay: 1us}}
traffic:
  - poisson: {hosts: all, load: 30%, sizes: 64KiB, until: 1ms}
  - poisson: {hosts: [h0, h1], to: h7, load: 5%, sizes: 4KiB, qp: uc, until: 1ms}
  - poisson: {hosts: [h2, h3], to: h6, load: 2%, sizes: 1000, qp: ud, op: send, until: 1ms}
  - poisson: {hosts: [h4, h5], load: 10%, sizes: 32KiB, op: read, until: 1ms}
  - ring_allreduce: {hosts: [h0, h1, h2, h3], size: 1MiB}
`
	sc := mustParse(t, src)
	sc.Stop.At = 500 * sim.Microsecond // midway
	n, _, _ := mustRun(t, sc)
	qps, mrs, live, _, _ := liveState(n)
	var open, regions int
	for _, fr := range n.Flows {
		if l := fr.Live; l != nil {
			open += btoi(l.Requester != nil) + btoi(l.Responder != nil)
			regions += btoi(l.mr != nil)
		}
	}
	t.Logf("at 500 us: %d flows in progress hold %d QPs and %d regions", live, qps, mrs)
	if live == 0 || qps != open || mrs != regions {
		t.Errorf("at 500 us: %d QPs and %d regions, but the %d flows in progress have %d sides open and %d regions", qps, mrs, live, open, regions)
	}

	n, sum, _ := mustRun(t, mustParse(t, src))
	if sum.Flows.Total < 1000 || sum.Flows.Completed != sum.Flows.Total {
		t.Fatalf("%d of %d flows completed; the test wants hundreds, all complete", sum.Flows.Completed, sum.Flows.Total)
	}
	qps, mrs, live, maps, cqes := liveState(n)
	t.Logf("%d flows done: %d QPs, %d regions, %d live flows, %d map entries, %d CQEs left", sum.Flows.Total, qps, mrs, live, maps, cqes)
	if qps != 0 || mrs != 0 || live != 0 || maps != 0 || cqes != 0 {
		t.Errorf("after %d finished flows: %d QPs, %d regions, %d live flows, %d map entries, %d CQEs; want none",
			sum.Flows.Total, qps, mrs, live, maps, cqes)
	}
	if b := sum.Bytes; b.Delivered != b.Offered || b.InFlight != 0 || b.Dropped != 0 {
		t.Errorf("bytes %+v: want everything delivered", b)
	}
}

// TestClosedQPConservation: with an ACK timeout of 32 us, shorter than
// the queueing some ACKs meet, RC requesters time out and retransmit
// although nothing was lost; the late ACK completes the flow and both
// sides close, and what the retransmission brings (duplicate requests that
// arrive after the responder closed, duplicate ACKs after the requester
// did) reaches a QP that no longer exists: the NIC drops it
// (packets.to_closed_qp). Those packets reached a host, so the packet
// balance still holds (sent = delivered + dropped + in the network), and
// every flow delivers all its bytes.
func TestClosedQPConservation(t *testing.T) {
	sc := mustParse(t, `
name: late
stop: {at: 20ms}
topology: {kind: star, hosts: 8, link: {rate: 100Gbps, delay: 1us}}
hca: {ack_timeout: 3}
traffic:
  - poisson: {hosts: all, load: 40%, sizes: 64KiB, until: 1ms}
`)
	n, sum, _ := mustRun(t, sc)
	assertConserved(t, "late", sum)
	p := sum.Packets
	t.Logf("%d flows, %d packets retransmitted, %d to closed QPs", sum.Flows.Total, p.Retransmitted, p.ToClosedQP)
	if p.Retransmitted == 0 || p.ToClosedQP == 0 {
		t.Errorf("retransmitted %d, to closed QPs %d: the test wants both", p.Retransmitted, p.ToClosedQP)
	}
	if b := sum.Bytes; sum.Flows.Completed != sum.Flows.Total || b.Delivered != b.Offered {
		t.Errorf("%d of %d flows completed, bytes %+v", sum.Flows.Completed, sum.Flows.Total, b)
	}
	if qps, _, _, _, _ := liveState(n); qps != 0 {
		t.Errorf("%d QPs left", qps)
	}
}
