package hca_test

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// TestSelectiveRepeat: under 1/256 random loss on the sender's link
// (runLossy: four 1 MiB WRITEs, MTU 256, so 16384 data packets and about
// 64 of them lost), selective repeat (IRN) completes every message, in
// order, with every byte delivered once, and resends only what was lost:
// at most 2 packets per frame the link dropped (a hole resent once, and
// sometimes again after a timeout when the resend itself or its SACK is
// lost). Go-back-N resends the whole window after each loss, about one
// bandwidth-delay product (100 Gb/s × ~4.5 us ≈ 200 packets of 256 B):
// selective must retransmit at least 20 times fewer packets.
func TestSelectiveRepeat(t *testing.T) {
	retx := map[hca.Retransmit]int64{}
	for _, rt := range []hca.Retransmit{hca.GoBackN, hca.Selective} {
		ws, qb, h0, inv := runLossy(t, rt, 256, 20*sim.Millisecond)
		for i, w := range ws {
			if w.Status != hca.WCSuccess {
				t.Fatalf("%s: message %d %v", rt, i, w.Status)
			}
			if i > 0 && w.Completed < ws[i-1].Completed {
				t.Errorf("%s: message %d completed before %d", rt, i, i-1)
			}
		}
		if qb.Delivered != 4<<20 {
			t.Errorf("%s: delivered %d, want %d", rt, qb.Delivered, 4<<20)
		}
		inv()
		lost := h0.Port().Link().Lost
		retx[rt] = h0.Stats.Retransmitted
		t.Logf("%s: %d frames lost, %d packets retransmitted, %d timeouts, done at %v", rt, lost, h0.Stats.Retransmitted, h0.Stats.Timeouts, ws[3].Completed)
		if rt == hca.Selective && (retx[rt] < lost || retx[rt] > 2*lost) {
			t.Errorf("selective: %d retransmitted for %d lost, want between 1 and 2 per loss", retx[rt], lost)
		}
	}
	if retx[hca.Selective]*20 > retx[hca.GoBackN] {
		t.Errorf("selective retransmitted %d, go-back-N %d: want at least 20× fewer", retx[hca.Selective], retx[hca.GoBackN])
	}
}

// TestSelectiveRepeatLossBothWays: with 1/64 loss on both hosts' links
// (requests, SACKs and ACKs all lost at times), selective repeat still
// completes every message in order with every byte once, recovering the
// tail by its RTO; the exactly-once invariant holds.
func TestSelectiveRepeatLossBothWays(t *testing.T) {
	prof := hca.DefaultProfile()
	prof.MTU, prof.Retransmit = 1024, hca.Selective
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, prof, swtch.DefaultProfile())
	h[0].Port().Link().SetLoss(1.0/64, eng.Rand("link/h0"))
	h[1].Port().Link().SetLoss(1.0/64, eng.Rand("link/h1"))
	qa, qb := connect(h[0], h[1])
	var ws []*hca.WQE
	for i := 0; i < 8; i++ {
		ws = append(ws, h[0].PostWrite(qa, i, 256<<10, 0))
	}
	eng.Run(sim.Second, nil)
	for i, w := range ws {
		if w.Status != hca.WCSuccess || (i > 0 && w.Completed < ws[i-1].Completed) {
			t.Fatalf("message %d: %v at %v", i, w.Status, w.Completed)
		}
	}
	if qb.Delivered != 8*256<<10 {
		t.Errorf("delivered %d, want %d", qb.Delivered, 8*256<<10)
	}
	checkInvariant(t, eng, h)
	t.Logf("lost %d requests and %d ACKs/SACKs; %d retransmitted, %d timeouts", h[0].Port().Link().Lost, h[1].Port().Link().Lost, h[0].Stats.Retransmitted, h[0].Stats.Timeouts)
}
