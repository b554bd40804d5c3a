package swtch_test

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// The buffer and marking as a SONiC switch configures them: a shared pool
// of its own size (BUFFER_POOL, Profile.SharedPool) and marking on some
// queues only (QUEUE's wred_profile, ECN.Unmarked).

// TestSharedPoolSizesTheDynamicXOFF: two lossless senders into one port,
// XOFF dynamic with alpha 1 and nothing reserved. Each ingress pauses
// once it holds alpha × the free shared pool: held = S - 2 held, so each
// holds S/3 when the pool is S = SharedPool (300 KB here), not what the
// 32 MiB buffer would leave. What arrives after the XOFF crossing goes to
// headroom: the peak lies within one port's headroom above S/3.
func TestSharedPoolSizesTheDynamicXOFF(t *testing.T) {
	const pool = 300_000
	prof := swtch.DefaultProfile() // Buffer 32 MiB
	prof.SharedPool = pool
	prof.PFC.XOFFAlpha, prof.PFC.XONOffset = 1, 8*fabric.KiB
	b := newBed(t, 3, link100, prof, frame4k)
	if want := fabric.Size(pool) + fabric.Size(b.sw.Headroom(0)+b.sw.Headroom(1)+b.sw.Headroom(2)); b.sw.Prof.Buffer != want {
		t.Errorf("buffer %d bytes, want the pool and the headroom, %d", b.sw.Prof.Buffer, want)
	}
	b.flow(0, 2, 3, wire4k, -1)
	b.flow(1, 2, 3, wire4k, -1)
	b.start()
	b.eng.Run(2*sim.Millisecond, nil)
	for i := range 2 {
		peak, lo := b.sw.PeakIngress(i, 3), int64(pool/3)
		t.Logf("port %d: peak %d, S/3 %d, headroom %d", i, peak, lo, b.sw.Headroom(i))
		if hi := lo + b.sw.Headroom(i); peak < lo || peak > hi {
			t.Errorf("port %d's ingress peaked at %d bytes, want S/3 = %d up to its headroom more, %d", i, peak, lo, hi)
		}
	}
}

// TestECNUnmarkedPriorities: priorities 1 and 3 share an egress by DWRR,
// both ECN-capable, marking with probability 1 above an empty queue; the
// queue of priority 1, which ECN.Unmarked names, marks none of its
// packets, priority 3's most of them (its queue is seldom empty while
// both senders saturate the port).
func TestECNUnmarkedPriorities(t *testing.T) {
	prof := swtch.DefaultProfile()
	prof.PFC.Priorities = []uint8{1, 3}
	prof.DWRR = map[uint8]int{1: 1, 3: 1}
	prof.ECN = swtch.ECN{Enabled: true, Kmin: 0, Kmax: 1, Pmax: 1, Unmarked: 1 << 1}
	b := newBed(t, 3, link100, prof, frame4k)
	lo := b.flow(0, 2, 1, wire4k, -1)
	hi := b.flow(1, 2, 3, wire4k, -1)
	lo.ecn, hi.ecn = fabric.ECT0, fabric.ECT0
	b.start()
	b.eng.Run(sim.Millisecond, nil)
	t.Logf("marked: priority 1 %d of %d, priority 3 %d of %d", lo.rxMarked, lo.rxPkts, hi.rxMarked, hi.rxPkts)
	if lo.rxPkts == 0 || lo.rxMarked != 0 {
		t.Errorf("priority 1 (unmarked): %d of %d packets marked, want none", lo.rxMarked, lo.rxPkts)
	}
	if hi.rxMarked*10 < hi.rxPkts*9 {
		t.Errorf("priority 3: %d of %d packets marked, want at least 90%%", hi.rxMarked, hi.rxPkts)
	}
}
