package hca_test

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestDestroyQP: a destroyed QP is gone from its HCA's tables and accepts
// no more verbs; packets that arrive for it later are dropped and counted
// as for a closed QP (not as for a QP that never was); its number is not
// handed out again; and work requests still posted on a QP destroyed
// under them complete once, flushed.
func TestDestroyQP(t *testing.T) {
	prof := hca.DefaultProfile()
	prof.AckTimeout, prof.RetryCount = 8, 1 // ~1 ms timeouts, one retry: the orphaned requester gives up soon
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
	qa, qb := connect(h[0], h[1])
	first := h[0].PostWrite(qa, 1, 64<<10, 0)
	eng.Run(sim.Millisecond, nil)
	if first.Status != hca.WCSuccess {
		t.Fatalf("first write: %v", first.Status)
	}

	// The responder's side closes: it leaves the table.
	qpn, nQPs := qb.QPN, h[1].NumQPs()
	if err := h[1].DestroyQP(qb); err != nil {
		t.Fatal(err)
	}
	if h[1].QP(qpn) != nil || h[1].NumQPs() != nQPs-1 {
		t.Errorf("destroyed qp%d still in the table (%d QPs)", qpn, h[1].NumQPs())
	}
	for _, q := range h[1].QPs() {
		if q == qb {
			t.Error("QPs() lists the destroyed QP")
		}
	}
	if err := h[1].DestroyQP(qb); err != hca.ErrInvalidState {
		t.Errorf("destroying twice: %v, want ErrInvalidState", err)
	}
	if _, err := h[1].PostSend(qb, hca.SendWR{Op: hca.WRSend, Length: 8}); err != hca.ErrInvalidState {
		t.Errorf("post_send on a destroyed QP: %v", err)
	}
	if err := h[1].PostRecv(qb, hca.RecvWR{Length: 8}); err != hca.ErrInvalidState {
		t.Errorf("post_recv on a destroyed QP: %v", err)
	}
	if err := h[1].ModifyQP(qb, hca.QPAttr{State: hca.QPErr}); err != hca.ErrInvalidState {
		t.Errorf("modify_qp on a destroyed QP: %v", err)
	}
	if q := h[1].CreateQP(); q.QPN <= qpn {
		t.Errorf("new QP got number %d, not above the destroyed %d", q.QPN, qpn)
	}

	// The requester, not told, writes again: the responder's NIC drops the
	// 16 packets and each retransmission, and the write fails.
	before := h[1].Stats
	second := h[0].PostWrite(qa, 2, 64<<10, eng.Now())
	eng.Run(eng.Now()+10*sim.Millisecond, nil)
	got := h[1].Stats.ClosedQPDrops - before.ClosedQPDrops
	if got < 16 || h[1].Stats.BadQPDrops != before.BadQPDrops || h[1].Stats.AcksSent != before.AcksSent {
		t.Errorf("closed-QP drops %d (want at least 16), bad-QP drops %d→%d, ACKs %d→%d",
			got, before.BadQPDrops, h[1].Stats.BadQPDrops, before.AcksSent, h[1].Stats.AcksSent)
	}
	t.Logf("closed-QP drops %d, second %v at %v", got, second.Status, second.Completed)
	if second.Status != hca.WCRetryExceeded {
		t.Errorf("write to a destroyed QP: %v, want retry_exc_err", second.Status)
	}
	// Every packet that reached h1 since was one of those.
	if h[1].Stats.RxPackets-before.RxPackets != got {
		t.Errorf("received %d packets, dropped %d for the closed QP", h[1].Stats.RxPackets-before.RxPackets, got)
	}

	// A requester destroyed mid-transfer: what it had posted is flushed,
	// once, and it stops sending; a second QP of the same HCA, sharing the
	// transmit arbiter, still completes.
	qc, _ := connect(h[0], h[1])
	qd, _ := connect(h[0], h[1])
	var ws []*hca.WQE
	for i := range 4 {
		ws = append(ws, h[0].PostWrite(qc, 10+i, 1<<20, eng.Now()))
	}
	other := h[0].PostWrite(qd, 20, 1<<20, eng.Now())
	eng.Run(eng.Now()+20*sim.Microsecond, nil)
	if err := h[0].DestroyQP(qc); err != nil {
		t.Fatal(err)
	}
	sent := h[0].Stats.DataPackets
	eng.Run(eng.Now()+10*sim.Millisecond, nil)
	for i, w := range ws {
		if w.Status != hca.WCFlushed {
			t.Errorf("write %d on the destroyed QP: %v, want wr_flush_err", i, w.Status)
		}
	}
	if other.Status != hca.WCSuccess {
		t.Errorf("write on the other QP: %v", other.Status)
	}
	t.Logf("after destroy: %d data packets, other done at %v", h[0].Stats.DataPackets-sent, other.Completed)
	if n := h[0].Stats.DataPackets - sent; n > 256 {
		t.Errorf("%d packets sent after the destroy; the other QP's 1 MiB is 256", n)
	}
	checkInvariant(t, eng, h)
}
