package swtch_test

import (
	"math"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// sampler reads a value every period, for tests.
type sampler struct {
	eng    *sim.Engine
	period sim.Time
	read   func()
}

func (s *sampler) HandleEvent(*sim.Event) {
	s.read()
	s.eng.After(s.period, s, 0, 0, nil)
}

// TestECNMarkingAtHeldDepth: a line-rate sender feeds a line-rate egress,
// so once a pause has built a queue, the queue holds its depth. RED marks
// at dequeue with probability Pmax × (depth - Kmin) / (Kmax - Kmin), the
// depth being what the packet leaves behind; the fraction marked matches
// within four binomial standard deviations.
func TestECNMarkingAtHeldDepth(t *testing.T) {
	for _, depthKB := range []int64{60, 120, 180} {
		prof := noPFC()
		prof.ECN = swtch.ECN{Enabled: true, Kmin: 20 * fabric.KB, Kmax: 200 * fabric.KB, Pmax: 0.2}
		prof.PFC.ResponseAuto = false
		b := newBed(t, 2, link100, prof, frame4k)
		f := b.flow(0, 1, 3, wire4k, -1)
		f.ecn = fabric.ECT0
		b.start()
		b.eng.Run(10*sim.Microsecond, nil)
		// Pause the egress long enough to build the depth.
		quanta := uint16(depthKB * 1000 * 8 / 512)
		b.hosts[1].port.SendPause(3, quanta)
		hold := b.eng.Now() + 20*sim.Microsecond + fabric.PauseDuration(quanta, link100.Rate)
		b.eng.Run(hold, nil)
		minDepth := int64(math.MaxInt64)
		s := &sampler{eng: b.eng, period: 777 * sim.Nanosecond, read: func() {
			minDepth = min(minDepth, b.sw.QueueBytes(1, 3))
		}}
		b.eng.After(0, s, 0, 0, nil)
		var pkts, marked int64
		b.hosts[1].onRx = func(p *fabric.Packet) {
			if p.SentAt >= hold {
				pkts++
				if p.ECN == fabric.CE {
					marked++
				}
			}
		}
		b.eng.Run(hold+4*sim.Millisecond, nil)
		want := prof.ECN.MarkProbability(minDepth)
		got := float64(marked) / float64(pkts)
		sigma := math.Sqrt(want * (1 - want) / float64(pkts))
		if math.Abs(got-want) > 4*sigma {
			t.Errorf("held depth %d bytes: marked %.4f of %d packets, RED gives %.4f (sigma %.4f)", minDepth, got, pkts, want, sigma)
		}
		t.Logf("held depth %d bytes: marked %.4f, RED %.4f, %d packets", minDepth, got, want, pkts)
	}
}

// TestNotECTIsNeverMarked: RED marks ECN-capable packets only.
func TestNotECTIsNeverMarked(t *testing.T) {
	prof := swtch.DefaultProfile()
	prof.ECN = swtch.ECN{Enabled: true, Kmin: 0, Kmax: 1, Pmax: 1}
	b := newBed(t, 3, link100, prof, frame4k)
	b.flow(0, 2, 3, wire4k, -1)
	b.flow(1, 2, 3, wire4k, -1)
	b.start()
	b.eng.Run(sim.Millisecond, nil)
	if b.sw.Stats.Marked != 0 {
		t.Fatalf("%d Not-ECT packets marked", b.sw.Stats.Marked)
	}
}

// TestDWRRWeights: two saturated lossless priorities with DWRR weights 1
// and 4 share the egress 1:4 (Shreedhar and Varghese's DRR gives each
// backlogged queue its weight's share), within 2%.
func TestDWRRWeights(t *testing.T) {
	prof := swtch.DefaultProfile()
	prof.PFC.Priorities = []uint8{1, 2}
	prof.DWRR = map[uint8]int{1: 1, 2: 4}
	b := newBed(t, 3, link100, prof, frame4k)
	lo := b.flow(0, 2, 1, wire4k, -1)
	hi := b.flow(1, 2, 2, wire4k, -1)
	b.start()
	b.eng.Run(5*sim.Millisecond, nil)
	share := float64(hi.rxBytes) / float64(hi.rxBytes+lo.rxBytes)
	if math.Abs(share-0.8) > 0.02*0.8 {
		t.Errorf("weight-4 priority got %.4f of the link, want 0.8 ± 2%%", share)
	}
}

// TestStrictPriority: a saturated high priority starves a lower one.
func TestStrictPriority(t *testing.T) {
	prof := swtch.DefaultProfile()
	prof.PFC.Priorities = []uint8{1, 5}
	b := newBed(t, 3, link100, prof, frame4k)
	lo := b.flow(0, 2, 1, wire4k, -1)
	hi := b.flow(1, 2, 5, wire4k, -1)
	b.start()
	b.eng.Run(5*sim.Millisecond, nil)
	if frac := float64(lo.rxBytes) / float64(lo.rxBytes+hi.rxBytes); frac > 0.01 {
		t.Errorf("low priority got %.4f of the link under strict priority", frac)
	}
}

// TestCutThroughLatency: one packet's one-way latency. Store-and-forward:
// two serializations, two propagation delays and the pipeline latency.
// Cut-through starts once the first 64 bytes are in, saving the rest of
// the frame's serialization on the ingress link; exact to the picosecond.
func TestCutThroughLatency(t *testing.T) {
	for _, cut := range []bool{false, true} {
		prof := swtch.DefaultProfile()
		prof.CutThrough = cut
		b := newBed(t, 2, link100, prof, frame4k)
		b.flow(0, 1, 3, wire4k, 1)
		b.start()
		b.eng.Run(sim.Millisecond, nil)
		ser := fabric.SerializationTime(wire4k, link100.Rate)
		want := 2*ser + 2*link100.Delay + prof.Latency
		if cut {
			want -= ser - fabric.SerializationTime(64, link100.Rate)
		}
		if got := b.hosts[1].firstRx; got != want {
			t.Errorf("cut-through %v: latency %d ps, want %d ps", cut, got, want)
		}
	}
}

// TestDynamicXOFF: with a dynamic threshold, one congested input holds T
// = alpha × (S - T) outside headroom, i.e. alpha S / (1 + alpha) of a
// shared pool S (Choudhury and Hahne's steady state), within two frames.
func TestDynamicXOFF(t *testing.T) {
	prof := swtch.DefaultProfile()
	prof.Buffer = 4 * fabric.MiB
	prof.PFC.XOFFAlpha = 0.125
	prof.PFC.XONOffset = 16 * fabric.KiB
	b := newBed(t, 3, link100, prof, frame4k)
	b.flow(0, 2, 3, wire4k, -1)
	b.flow(1, 2, 3, wire4k, -1)
	b.start()
	b.eng.Run(2*sim.Millisecond, nil)
	shared := float64(int64(prof.Buffer) - 3*b.sw.Headroom(0)) // one lossless priority, 3 ports
	// Two inputs share the pool: each holds T = alpha (S - 2T).
	want := 0.125 * shared / (1 + 2*0.125)
	for i := 0; i < 2; i++ {
		held := float64(b.sw.PeakIngress(i, 3) - b.sw.PortPrio(i, 3).PeakHeadroom)
		t.Logf("input %d held %.0f bytes outside headroom, closed form %.0f", i, held, want)
		if math.Abs(held-want) > 2*float64(frame4k) {
			t.Errorf("input %d held %.0f bytes outside headroom at most, want about %.0f", i, held, want)
		}
	}
	if d := b.sw.Stats.Drops; d != [swtch.NumDropReasons]int64{} {
		t.Errorf("drops %v", d)
	}
}

// TestXONOffsetBelowZero: with a dynamic XOFF and an XON offset larger
// than the threshold (alpha 1/8 of a 256 KiB pool is 32 KiB at most, the
// offset 64 KiB), XOFF - offset is below zero, and an ingress that has
// drained must still resume its upstream: the HPCC authors' MMU resumes
// when the ingress holds nothing in the shared pool or holds at most
// XOFF - offset (switch-mmu.cc, CheckShouldResume). Without that floor the
// upstream stays paused, refreshed, with nothing left to drain.
func TestXONOffsetBelowZero(t *testing.T) {
	prof := swtch.DefaultProfile()
	prof.PFC.HeadroomAuto = false
	prof.PFC.Headroom = 64 * fabric.KiB
	prof.Buffer = 3*64*fabric.KiB + 256*fabric.KiB
	prof.PFC.XOFFAlpha = 0.125
	prof.PFC.XONOffset = 64 * fabric.KiB
	b := newBed(t, 3, link100, prof, frame4k)
	const packets = 200
	f0 := b.flow(0, 2, 3, wire4k, packets)
	f1 := b.flow(1, 2, 3, wire4k, packets)
	b.start()
	b.eng.Run(5*sim.Millisecond, nil)
	if b.sw.Ports()[0].Stats.PauseSent == 0 && b.sw.Ports()[1].Stats.PauseSent == 0 {
		t.Fatal("no input was paused; the test does not reach XOFF")
	}
	for i, f := range []*testFlow{f0, f1} {
		if f.rxPkts != packets {
			t.Errorf("flow %d delivered %d of %d packets in 5 ms", i, f.rxPkts, packets)
		}
		if b.sw.IngressPaused(i, 3) {
			t.Errorf("input %d still pauses its upstream, holding %d bytes", i, b.sw.IngressBytes(i, 3))
		}
	}
}

// TestLossyIngressThresholdDrops: lossy traffic beyond its threshold is
// dropped (reason buffer), and counted on its ingress port and priority.
func TestLossyIngressThresholdDrops(t *testing.T) {
	prof := noPFC()
	prof.Buffer = 1 * fabric.MiB
	b := newBed(t, 3, link100, prof, frame4k)
	b.flow(0, 2, 0, wire4k, -1)
	b.flow(1, 2, 0, wire4k, -1)
	b.start()
	b.eng.Run(sim.Millisecond, nil)
	d := b.sw.Stats.Drops
	if d[swtch.DropBuffer]+d[swtch.DropEgress] == 0 || d[swtch.DropHeadroom] != 0 {
		t.Fatalf("drops %v: want buffer or egress drops only", d)
	}
	var perPort int64
	for i := 0; i < 2; i++ {
		for r := range d {
			perPort += b.sw.PortPrio(i, 0).Drops[r]
		}
	}
	if perPort != d[swtch.DropBuffer]+d[swtch.DropEgress] {
		t.Errorf("per-port drops %d, total %v", perPort, d)
	}
	if b.sw.BufferUsed() > int64(prof.Buffer) {
		t.Errorf("buffer use %d over %d", b.sw.BufferUsed(), prof.Buffer)
	}
}

// BenchmarkForward32Ports is a 32-port switch at full load: each host
// sends to the next at line rate. It reports packets forwarded per wall
// second; allocations per packet must be 0.
func BenchmarkForward32Ports(b *testing.B) {
	bd := newBed(b, 32, link100, swtch.DefaultProfile(), frame4k)
	for i := 0; i < 32; i++ {
		bd.flow(i, (i+1)%32, 3, wire4k, -1)
	}
	bd.start()
	bd.eng.Run(100*sim.Microsecond, nil) // warm the free lists
	start := bd.sw.Stats.Forwarded
	b.ReportAllocs()
	b.ResetTimer()
	target := start + int64(b.N)
	bd.eng.Run(sim.Never, func() bool { return bd.sw.Stats.Forwarded >= target })
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "packets/s")
}
