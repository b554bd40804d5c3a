package assembly

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/resolve"
)

// TestDatagramFlowsDone: issue 27's defect. UD and UC sends complete as
// they leave, so a datagram flow used to count as done then: a run that
// stopped at flows-done left data on the wire (2026-11-26, the scenario
// below: stopped at 102.1 us with 30,000 bytes in flight, every flow
// "success", 37 of them short). A datagram flow now ends when every
// byte has been delivered or lost: the run stops after the last
// delivery (105 us), nothing is in flight, the lost datagrams are
// dropped bytes under their reason, and a flow that lost its datagram
// ended but is not counted completed.
func TestDatagramFlowsDone(t *testing.T) {
	src := `
seed: 1
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
stop: {when: flows-done, at: 10ms}
faults:
  - {at: 0, link: [h0, s0], action: loss, rate: 1e-2}
traffic:
  - poisson: {hosts: [h0], to: h1, load: 80%, sizes: 1000, qp: ud, op: send, until: 100us}
`
	_, sum, rows := mustRun(t, mustParse(t, src))
	assertConserved(t, "ud", sum)
	b := sum.Bytes
	if sum.StopReason != "flows-done" || b.InFlight != 0 || b.Dropped == 0 || b.DropReasons["loss"] != b.Dropped || b.Delivered+b.Dropped != b.Offered {
		t.Errorf("stopped by %s; bytes %+v: want flows-done with nothing in flight, every byte delivered or lost", sum.StopReason, b)
	}
	var lost, last, offWindow int64
	for _, r := range rows {
		switch {
		case r.Status != "success" || r.EndNs == 0:
			t.Errorf("flow %d: status %s, end %d; every datagram flow ends", r.ID, r.Status, r.EndNs)
		case r.DeliveredBytes < r.SizeBytes:
			lost++
			if r.FCTNs != 0 {
				t.Errorf("flow %d lost its datagram but has an FCT of %d ns", r.ID, r.FCTNs)
			}
			if r.EndNs%1000 != 0 {
				offWindow++
			}
		default:
			// Delivered: its end is the delivery, a wire time and two
			// link delays after its start at least.
			if r.FCTNs < 2_000 {
				t.Errorf("flow %d: FCT %d ns, less than the two link delays a datagram crosses", r.ID, r.FCTNs)
			}
		}
		last = max(last, r.EndNs)
	}
	// A flow that lost its datagram ends when it was dropped, not at the
	// observation point where the drop was applied (settleDatagrams): the
	// window's end, a multiple of the links' 1 us.
	if offWindow == 0 {
		t.Errorf("every one of the %d flows that lost their datagram ends on a window's end; want the drops' own times", lost)
	}
	if lost*1000 != b.Dropped || int64(sum.Flows.Completed) != int64(len(rows))-lost {
		t.Errorf("%d flows lost their datagram (%d bytes dropped); %d of %d completed", lost, b.Dropped, sum.Flows.Completed, len(rows))
	}
	if want := (last/1000 + 1) * 1000; sum.SimTimeNs != want {
		t.Errorf("the run stopped at %d ns, the last flow ended at %d ns; want the end of its window, %d ns", sum.SimTimeNs, last, want)
	}
	// UC WRITEs of 1 MiB across a k=4 fat tree: the run used to stop at
	// 86.7 us with 1.9 MB on the wire; it stops once all has landed.
	uc := `
seed: 1
topology: {kind: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}
stop: {when: flows-done, at: 5ms}
traffic:
  - permutation: {hosts: all, size: 1MiB, qp: uc, op: write}
`
	_, sum, _ = mustRun(t, mustParse(t, uc))
	if b := sum.Bytes; sum.StopReason != "flows-done" || b.InFlight != 0 || b.Delivered != b.Offered || sum.Flows.Completed != 16 {
		t.Errorf("UC: stopped by %s, bytes %+v, %d of 16 completed; want everything delivered when flows-done stops the run", sum.StopReason, b, sum.Flows.Completed)
	}
	// UC over the lossy link: a message that lost a packet is lost
	// whole, including the last one of a flow, whose receiver sees no
	// later packet to tell it of the gap (its QP gives the message up
	// when the flow's bytes are all accounted for, and closes).
	lossyUC := patch(t, src, "sizes: 1000, qp: ud", "sizes: 64KiB, qp: uc")
	_, sum, rows = mustRun(t, mustParse(t, lossyUC))
	assertConserved(t, "uc, lossy", sum)
	b = sum.Bytes
	if sum.StopReason != "flows-done" || b.InFlight != 0 || b.DropReasons["loss"] == 0 || b.DropReasons["uc_incomplete"] == 0 {
		t.Errorf("UC, lossy: stopped by %s, bytes %+v; want flows-done, nothing in flight, loss and uc_incomplete", sum.StopReason, b)
	}
	short := 0
	for _, r := range rows {
		if r.DeliveredBytes != 0 && r.DeliveredBytes != r.SizeBytes {
			t.Errorf("UC flow %d: %d of %d bytes delivered; a UC message is delivered whole or not at all", r.ID, r.DeliveredBytes, r.SizeBytes)
		}
		if r.DeliveredBytes == 0 {
			short++
		}
	}
	if short == 0 || sum.Flows.Completed != len(rows)-short {
		t.Errorf("UC, lossy: %d flows lost, %d of %d completed", short, sum.Flows.Completed, len(rows))
	}
	// A ring all-reduce over UC: each step's flows start when the
	// previous step's data has arrived, which a flow must not miss by
	// closing as its last packet lands (its WRITE's data is in memory a
	// DMA later). All 24 flows complete, for WRITE and for SEND.
	for _, op := range []string{"write", "send"} {
		ring := `
stop: {at: 50ms, when: flows-done}
topology: {kind: star, hosts: 4, link: {rate: 100Gbps, delay: 1us}}
traffic:
  - ring_allreduce: {hosts: [h0, h1, h2, h3], size: 64KiB, qp: uc, op: ` + op + `}
`
		_, sum, _ = mustRun(t, mustParse(t, ring))
		if sum.StopReason != "flows-done" || sum.Flows.Completed != 24 {
			t.Errorf("UC ring all-reduce (%s): stopped by %s at %d ns, %d of 24 flows completed", op, sum.StopReason, sum.SimTimeNs, sum.Flows.Completed)
		}
	}
	// UC WRITEs under direct placement over the lossy link: a gap near a
	// message's end never fills and no later PSN gives it up, yet once
	// every byte is delivered, lost or kept the flow ends, and what was
	// kept is dropped with its message.
	direct := patch(t, lossyUC, "op: send", "op: write", "traffic:", "hca: {placement: direct}\ntraffic:")
	_, sum, _ = mustRun(t, mustParse(t, direct))
	assertConserved(t, "uc direct, lossy", sum)
	if b := sum.Bytes; sum.StopReason != "flows-done" || b.InFlight != 0 || b.DropReasons["uc_incomplete"] == 0 {
		t.Errorf("UC direct, lossy: stopped by %s, bytes %+v; want flows-done, nothing in flight", sum.StopReason, b)
	}
}

// TestFinishBound: a run that is to stop when its flows are done, whose
// flows cannot finish by stop.at even alone, says so before it starts,
// naming the host, its bytes and the time they need at its link rate;
// one that can, or that stops at a time of its choosing, says nothing.
func TestFinishBound(t *testing.T) {
	src := `topology: {kind: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}
stop: {at: 1ms, when: flows-done}
traffic:
  - flow: {from: h0, to: h2, size: 8MiB}
  - flow: {from: h1, to: h2, size: 8MiB, start: 100us}
`
	s := mustParse(t, src)
	want := "t.yaml:2:12: stop.at: the flows cannot finish by stop.at (1ms): h2 must receive 16.0 MiB, which takes until 1.342ms at its link's 100Gbps even alone"
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0].Error(), want) {
		t.Errorf("warnings %v, want one with %q", s.Warnings, want)
	}
	for _, ok := range []string{
		strings.Replace(src, "at: 1ms", "at: 2ms", 1),
		strings.Replace(src, "stop: {at: 1ms, when: flows-done}", "stop: {at: 1ms}", 1),
	} {
		if s := mustParse(t, ok); len(s.Warnings) != 0 {
			t.Errorf("%q: warnings %v, want none", ok, s.Warnings)
		}
	}
	// A host with no link is an error, not a panic in the bound.
	unlinked := `topology: {kind: explicit, hosts: [a, b, c], switches: [s1], links: [[a, s1], [b, s1]]}
stop: {at: 1ms, when: flows-done}
traffic:
  - flow: {from: c, to: a, size: 8MiB}
`
	if _, err := resolve.Parse("u.yaml", []byte(unlinked)); err == nil || !strings.Contains(err.Error(), "c") {
		t.Errorf("an unlinked host's flow: %v, want an error", err)
	}
}
