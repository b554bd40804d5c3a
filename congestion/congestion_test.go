package congestion

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

type applied struct {
	rate   fabric.Rate
	window int64
	n      int
}

func (a *applied) apply(r fabric.Rate, w int64) { a.rate, a.window, a.n = r, w, a.n+1 }

var path100 = Path{LineRate: 100 * fabric.Gbps, BaseRTT: 8 * sim.Microsecond}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestDCQCNPaperCutAndRecovery follows Zhu et al.'s figure 7 by hand: the
// first CNP (alpha 1) halves R_C and leaves R_T at line rate; each of F = 5
// timer events of fast recovery halves the gap, R_C = (R_T + R_C)/2; the
// sixth is additive increase, R_T += R_AI.
func TestDCQCNPaperCutAndRecovery(t *testing.T) {
	eng := sim.NewEngine(1)
	var a applied
	d := NewDCQCN(eng, DCQCNPaper(), path100, a.apply)
	d.OnCNP(0)
	st := d.State(0)
	near(t, "R_C after the first cut", float64(st.Rate), 50e9, 1e-9)
	near(t, "R_T after the first cut", float64(st.Target), 100e9, 1e-9)
	near(t, "alpha after the first CNP", st.Alpha, 1, 1e-9) // (1-g)·1 + g
	for k := 1; k <= 5; k++ {
		eng.Run(sim.Time(k)*55*sim.Microsecond, nil)
		want := 100e9 - 50e9/math.Pow(2, float64(k))
		near(t, "R_C in fast recovery", float64(d.State(eng.Now()).Rate), want, 1e-9)
	}
	eng.Run(6*55*sim.Microsecond, nil)
	st = d.State(eng.Now())
	near(t, "R_T after additive increase", float64(st.Target), 100e9, 1e-9) // capped at line rate
	// Alpha decays by (1-g) every tau' = 55 us without a CNP: six periods.
	near(t, "alpha after 6 periods", st.Alpha, math.Pow(1-1.0/256, 6), 1e-12)
	if a.rate != st.Rate {
		t.Errorf("applied %v, state %v", a.rate, st.Rate)
	}
}

// TestDCQCNPaperSecondCut: a second CNP cuts R_C by alpha/2 with alpha as
// it was (decayed since the first), R_T = R_C before the cut, and then
// updates alpha to (1-g)alpha + g (section 3.1, in that order). After it,
// F = 5 timer events are fast recovery (R_T holds, R_C halves its gap to
// R_T); the sixth and seventh are additive increase (R_T += R_AI: the byte
// counter has not counted, so hyper increase cannot start).
func TestDCQCNPaperSecondCut(t *testing.T) {
	eng := sim.NewEngine(1)
	var a applied
	d := NewDCQCN(eng, DCQCNPaper(), path100, a.apply)
	d.OnCNP(0)
	eng.Run(110*sim.Microsecond, nil) // two timer events: R_C = 87.5G; alpha decays twice
	before := d.State(eng.Now())
	cutAt := eng.Now()
	d.OnCNP(cutAt)
	g := 1.0 / 256
	old := math.Pow(1-g, 2)
	st := d.State(cutAt)
	near(t, "alpha", st.Alpha, (1-g)*old+g, 1e-12)
	near(t, "R_T", float64(st.Target), float64(before.Rate), 1e-9)
	near(t, "R_C", float64(st.Rate), float64(before.Rate)*(1-old/2), 1e-9)
	rt, rc := float64(st.Target), float64(st.Rate)
	for k := 1; k <= 7; k++ {
		eng.Run(cutAt+sim.Time(k)*55*sim.Microsecond, nil)
		if k > 5 {
			rt += 40e6
		}
		rc = (rt + rc) / 2
		st = d.State(eng.Now())
		near(t, fmt.Sprintf("R_T after increase event %d", k), float64(st.Target), rt, 1e-9)
		near(t, fmt.Sprintf("R_C after increase event %d", k), float64(st.Rate), rc, 1e-9)
	}
}

// TestDCQCNPaperByteCounter: every B bytes sent is an increase event too;
// with both counters past F, hyper increase adds i × R_HAI.
func TestDCQCNPaperByteCounter(t *testing.T) {
	eng := sim.NewEngine(1)
	var a applied
	p := DCQCNPaper()
	p.TimeReset = sim.Second // keep the timer out of the way
	d := NewDCQCN(eng, p, path100, a.apply)
	d.OnCNP(0)
	pkt := &fabric.Packet{Wire: 1_000_000}
	for i := 0; i < 10; i++ { // 10 MB: one byte-counter event
		d.OnSent(0, pkt)
	}
	near(t, "R_C after one byte-counter event", float64(d.State(0).Rate), 75e9, 1e-9)
}

// TestDCQCNNvidiaMonitorPeriod: the firmware cuts at most once per
// rate_reduce_monitor_period (4 us); a CNP inside it is folded into a cut
// at the period's end.
func TestDCQCNNvidiaMonitorPeriod(t *testing.T) {
	eng := sim.NewEngine(1)
	var a applied
	d := NewDCQCN(eng, DCQCNNvidia(), path100, a.apply)
	d.OnCNP(0)
	first := d.State(0).Rate
	alpha := 1023.0 / 1024
	near(t, "first cut", float64(first), 100e9*(1-alpha/2), 1e-9)
	eng.Run(sim.Microsecond, nil)
	d.OnCNP(eng.Now())
	if d.State(eng.Now()).Rate != first {
		t.Fatal("a second CNP 1 us later cut at once")
	}
	eng.Run(4*sim.Microsecond, nil)
	// At 4 us alpha has had four 1 us periods (g = 5/1024): [0, 1) without
	// a CNP (the first CNP only set alpha), [1, 2) with the second CNP,
	// then two without.
	g := 5.0 / 1024
	a4 := ((1-g)*(1-g)*alpha + g) * math.Pow(1-g, 2)
	got := float64(d.State(eng.Now()).Rate)
	want := float64(first) * (1 - a4/2)
	near(t, "deferred cut", got, want, 1e-6)
}

// TestDCQCNNvidiaTimerStages: rpg_threshold 1 — one timer event of fast
// recovery, then additive increase of rpg_ai_rate every rpg_time_reset.
func TestDCQCNNvidiaTimerStages(t *testing.T) {
	eng := sim.NewEngine(1)
	var a applied
	d := NewDCQCN(eng, DCQCNNvidia(), path100, a.apply)
	d.OnCNP(0)
	rc0 := float64(d.State(0).Rate)
	eng.Run(300*sim.Microsecond, nil)
	near(t, "fast recovery", float64(d.State(eng.Now()).Rate), (100e9+rc0)/2, 1e-9)
	// The first cut from line rate clamps R_T to 100G; AI then adds 5 Mb/s
	// to R_T (capped at line rate).
	eng.Run(600*sim.Microsecond, nil)
	near(t, "after additive increase", float64(d.State(eng.Now()).Rate), (100e9+(100e9+rc0)/2)/2, 1e-9)
}

// TestHPCCWindow: HPCC's update (Li et al., algorithm 1, maxStage 0): with
// the bottleneck at utilisation U, W = W_c η / U + W_AI and R = W / T.
func TestHPCCWindow(t *testing.T) {
	var a applied
	h := NewHPCC(HPCCDefaults(), path100, a.apply)
	T := path100.BaseRTT.Seconds()
	bdp := 100e9 / 8 * T
	hop := func(ts sim.Time, tx, q int64) *fabric.INTStack {
		s := &fabric.INTStack{}
		s.Push(fabric.INTHop{QLen: q, TxBytes: tx, TS: ts, Rate: 100 * fabric.Gbps})
		return s
	}
	ack := &fabric.Packet{Kind: fabric.KindAck, PSN: 1}
	ack.INT = hop(0, 0, int64(0.2*bdp))
	h.OnAck(0, ack)
	// A full RTT later the link has sent at line rate and still holds 0.2
	// BDP (u takes the smaller of the two queue samples): u = 0.2 + 1 =
	// 1.2, and tau = T, so U = u.
	ack.INT = hop(path100.BaseRTT, int64(bdp), int64(0.2*bdp))
	ack.PSN = 2
	h.OnSent(0, &fabric.Packet{PSN: 5})
	h.OnAck(path100.BaseRTT, ack)
	wai := bdp * 0.05 / 100
	wantW := bdp*0.95/1.2 + wai
	near(t, "window", float64(a.window), wantW, 1e-3)
	near(t, "rate", float64(a.rate), wantW*8/T, 1e-3)
}

// TestTIMELYRules: below T_low add delta; above T_high cut by
// beta (1 - T_high / RTT) (Mittal et al., algorithm 1).
func TestTIMELYRules(t *testing.T) {
	var a applied
	p := TIMELYDefaults()
	tm := NewTIMELY(p, path100, a.apply)
	ack := &fabric.Packet{Kind: fabric.KindAck}
	at := func(now, rtt sim.Time) {
		ack.Echo = now - rtt
		tm.OnAck(now, ack)
	}
	at(10*sim.Millisecond, 600*sim.Microsecond) // the first sample only primes
	at(11*sim.Millisecond, 1000*sim.Microsecond)
	want := 100e9 * (1 - 0.8*(1-500.0/1000))
	near(t, "rate above T_high", float64(a.rate), want, 1e-9)
	at(12*sim.Millisecond, 30*sim.Microsecond)
	near(t, "rate below T_low", float64(a.rate), want+10e6, 1e-9)
}

// TestDCQCNNvidiaIncreaseStages: the nvidia variant counts timer events
// only (rpg_time_reset, 300 us) and, as the HPCC authors' ns-3 model of
// the firmware does (rdma-hw.cc, RateIncEventMlx), spends F =
// rpg_threshold = 1 event in fast recovery (R_T holds), one in additive
// increase (R_T += rpg_ai_rate, 5 Mb/s), then adds rpg_hai_rate (50 Mb/s)
// per event, a constant step.
func TestDCQCNNvidiaIncreaseStages(t *testing.T) {
	eng := sim.NewEngine(1)
	var a applied
	d := NewDCQCN(eng, DCQCNNvidia(), path100, a.apply)
	d.OnCNP(0)
	eng.Run(310*sim.Microsecond, nil) // one timer event, so the next cut clamps R_T
	cutAt := eng.Now()
	d.OnCNP(cutAt)
	st := d.State(cutAt)
	if st.Target >= 100*fabric.Gbps {
		t.Fatalf("R_T %v after a cut that follows a timer increase, want it clamped to R_C", st.Target)
	}
	rt, rc := float64(st.Target), float64(st.Rate)
	for k, step := range []float64{0, 5e6, 50e6, 50e6, 50e6} {
		eng.Run(cutAt+sim.Time(k+1)*300*sim.Microsecond, nil)
		rt += step
		rc = (rt + rc) / 2
		st = d.State(eng.Now())
		near(t, fmt.Sprintf("R_T after increase event %d", k+1), float64(st.Target), rt, 1e-9)
		near(t, fmt.Sprintf("R_C after increase event %d", k+1), float64(st.Rate), rc, 1e-9)
	}
}

// TestHPCCAnyFirstPSN: a QP's first PSN is any 24-bit number (rdma_cm
// draws it at random), and HPCC's windows must not depend on it: the
// reference window is updated once an RTT from the first ACK on, whatever
// the first PSN, across the 2^24 wrap too. lastUpdateSeq started at 0,
// so a first PSN 2^23 or more from it was never "after" it and the
// reference was never updated (found by metamorphic: seed
// 9008769, the same flow from two hosts gave two windows).
func TestHPCCAnyFirstPSN(t *testing.T) {
	T := path100.BaseRTT
	bdp := 100e9 / 8 * T.Seconds()
	run := func(first uint32) (windows []int64, updates []uint32) {
		var a applied
		h := NewHPCC(HPCCDefaults(), path100, a.apply)
		ack := &fabric.Packet{Kind: fabric.KindAck}
		psn := first
		for i := 0; i < 8; i++ {
			for k := 0; k < 4; k++ { // four packets an RTT
				h.OnSent(0, &fabric.Packet{PSN: psn & psnMask})
				psn++
			}
			s := &fabric.INTStack{}
			q := int64(0.5 * bdp)
			if i%2 == 1 {
				q = int64(0.1 * bdp)
			}
			s.Push(fabric.INTHop{QLen: q, TxBytes: int64(i) * int64(bdp), TS: sim.Time(i) * T, Rate: 100 * fabric.Gbps})
			ack.INT, ack.PSN = s, (psn-4)&psnMask
			h.OnAck(sim.Time(i)*T, ack)
			windows = append(windows, a.window)
			updates = append(updates, (h.lastUpdate-first)&psnMask)
		}
		return windows, updates
	}
	want, wantUpd := run(0)
	if wantUpd[len(wantUpd)-1] == 0 {
		t.Fatalf("from PSN 0 the reference was never updated: %v", wantUpd)
	}
	for _, first := range []uint32{5, 1 << 22, 1 << 23, 0x9a3c17, psnMask - 9} {
		got, upd := run(first)
		if !slices.Equal(got, want) || !slices.Equal(upd, wantUpd) {
			t.Errorf("first PSN %#x: windows %v, updates at %v (relative); from 0: %v, %v", first, got, upd, want, wantUpd)
		}
	}
}
