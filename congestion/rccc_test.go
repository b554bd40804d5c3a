package congestion

import (
	"math"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// TestRCCCSender: the sender's credit as uet-htsim's UecSrc keeps it. On
// a path of 100 Gb/s and 8 us its BDP is 100,000 bytes, so it starts with
// 150,000 bytes of speculative credit (initRccc: 1.5 × BDP) and sends
// while it has any; the first ACK ends the speculation (stopSpeculating:
// positive credit given up, a debt kept); a credit packet adds what it
// grants past the last one, never above 1.5 × BDP (handlePull); the pull
// target is the credit granted plus what is left to send (at most 1.5 ×
// BDP, at most the window plus a packet) less the credit held, rounded up
// to 256 bytes (computePullTarget, UEC_PULL_QUANTUM).
func TestRCCCSender(t *testing.T) {
	const frame = 4218
	s := NewRCCC(Path{LineRate: 100 * fabric.Gbps, BaseRTT: 8 * sim.Microsecond, MTU: 4096}, frame)
	if s.MaxWindow() != 150000 || s.Credit() != 150000 || !s.CanSend() {
		t.Fatalf("start: max %d, credit %d; want 150,000 both", s.MaxWindow(), s.Credit())
	}
	// 35 packets spend 147,630 bytes; the 36th ends 1,848 bytes below 0.
	var pt int64
	for i := range 36 {
		pt = s.Sent(frame, int64(1000-i-1)*frame, 0, 1)
	}
	if s.CanSend() || s.Credit() != 150000-36*frame {
		t.Errorf("after 36 packets: credit %d, can send %v; want %d, false", s.Credit(), s.CanSend(), 150000-36*frame)
	}
	// Target: min(backlog, 150,000) less the credit, -1,848: 151,848,
	// rounded up to 152,064 (594 quanta).
	if pt != 152064 {
		t.Errorf("pull target %d; want 152,064", pt)
	}
	s.Heard()
	if s.Credit() != 150000-36*frame {
		t.Errorf("heard with a debt: credit %d; want the debt kept", s.Credit())
	}
	s.Granted(16384)
	if s.Credit() != 16384-(36*frame-150000) || !s.CanSend() {
		t.Errorf("granted 16,384: credit %d; want %d", s.Credit(), 16384-(36*frame-150000))
	}
	s.Granted(16384) // the same total again: nothing more
	s.Granted(10000) // an older one: nothing
	if s.Credit() != 16384-(36*frame-150000) {
		t.Errorf("repeated grant: credit %d", s.Credit())
	}
	s.Granted(1 << 30)
	if s.Credit() != 150000 {
		t.Errorf("a large grant: credit %d; want the cap, 150,000", s.Credit())
	}
	// With a window of 20,000 the target is at most window + frame.
	if pt := s.Sent(frame, 1<<20, 20000, 0); pt != quantumCeil(1<<30+20000+frame-(150000-frame)) {
		t.Errorf("windowed target %d; want %d", pt, quantumCeil(1<<30+20000+frame-(150000-frame)))
	}
	// Three connections waiting their turn on the NIC (itself one):
	// what it wants past its credit is divided by 3, with the integer
	// division of computePullTarget, before the credit granted is added
	// (UecNIC::activeSources). Granted to the cap, it sends a frame:
	// its credit is 150,000 − 4,218 = 145,782 and it wants 150,000, so
	// 4,218 / 3 = 1,406, rounded up to 1,536 past the 2^30 + 2^20
	// granted; alone it asks for all 4,218, rounded up to 4,352.
	s.Granted(1<<30 + 1<<20)
	if pt := s.Sent(frame, 1<<20, 0, 3); pt != 1<<30+1<<20+1536 {
		t.Errorf("target shared by 3 sources: %d; want 2^30 + 2^20 + 1,536", pt)
	}
	if pt := s.Sent(0, 1<<20, 0, 1); pt != 1<<30+1<<20+4352 {
		t.Errorf("target of one source: %d; want 2^30 + 2^20 + 4,352", pt)
	}
	// Held without credit, it asks for it once until credit comes.
	if !s.AskOnce() || s.AskOnce() {
		t.Errorf("AskOnce: want true, then false")
	}
	s.Granted(1<<30 + 1)
	if !s.AskOnce() {
		t.Errorf("AskOnce after a grant: want true again")
	}
	// A fresh sender with a positive credit at its first ACK gives it up.
	s = NewRCCC(Path{LineRate: 100 * fabric.Gbps, BaseRTT: 8 * sim.Microsecond}, frame)
	s.Heard()
	if s.Credit() != 0 || s.CanSend() {
		t.Errorf("speculation ended: credit %d; want 0", s.Credit())
	}
}

// TestRCCCPacer: a receiving host's pacer (UecPullPacer) grants 4 MTU,
// 16,384 bytes, a turn and waits the time those bytes take at 0.99 of
// its line rate: at 100 Gb/s 1.3240 us (16,384 × 8 / 99e9 s). One sender
// that wants 1 MiB is granted it in 64 pulls; then slow pulls (past its
// target) go on until 1.5 × BDP, here 150,000 bytes, of them: 10 more
// (the tenth takes it to 163,840). Two senders that want credit take
// turns, and the host's grants come at 0.99 × line rate whatever their
// number.
func TestRCCCPacer(t *testing.T) {
	const line = 100 * fabric.Gbps
	gap := fabric.SerializationTime(16384, fabric.Rate(float64(line)*0.99))
	if math.Abs(float64(gap)-16384*8/99e9*1e12) > 1 {
		t.Fatalf("a pull's spacing %v; want 1.3240 us", gap)
	}
	for _, c := range []struct {
		name  string
		sinks int
	}{{"one sender", 1}, {"two senders", 2}} {
		eng := sim.NewEngine(1)
		p := NewRCCCPacer(eng, line)
		type grant struct {
			at   sim.Time
			who  int
			pull int64
		}
		var got []grant
		for i := range c.sinks {
			k := p.Sink(150000, 4096, func(pull int64) { got = append(got, grant{eng.Now(), i, pull}) })
			k.PullTarget(1 << 20)
		}
		eng.Run(sim.Never, nil)
		want := c.sinks * (64 + 10)
		if len(got) != want {
			t.Fatalf("%s: %d grants; want %d", c.name, len(got), want)
		}
		for i, g := range got {
			if g.at != sim.Time(i)*gap {
				t.Fatalf("%s: grant %d at %v; want %v", c.name, i, g.at, sim.Time(i)*gap)
			}
			if c.sinks == 2 && i < 128 && g.who != i%2 {
				t.Fatalf("%s: grant %d to sender %d; want turns", c.name, i, g.who)
			}
		}
		last := got[len(got)-1]
		if last.pull != 1<<20+10*16384 {
			t.Errorf("%s: granted %d in all; want 1 MiB and 10 slow pulls, %d", c.name, last.pull, 1<<20+10*16384)
		}
	}
}

// TestRCCCOversubscription: a receiving host's oversubscription control
// (uet-htsim's OversubscribedCC::doCongestionControl) on a fabric of
// ratio 4 (its floor 0.9 / 4 = 0.225), interval by interval, the
// arithmetic worked by hand from oversubscribed_cc.cpp's constants
// (target 0.3, Ai 0.01, Md 0.5, alpha 0.5). The pacer's spacing
// follows the rate (updatePullRate): at 0.5, a pull of 16,384 bytes is
// spaced twice 1.3240 us.
func TestRCCCOversubscription(t *testing.T) {
	eng := sim.NewEngine(1)
	p := NewRCCCPacer(eng, 100*fabric.Gbps)
	o := NewRCCCOversubscription(eng, p, 4, sim.Stream(1, "test"))
	o.SetBaseRTT(10 * sim.Microsecond)
	feed := func(data, ce, trimLast, trimOther int) {
		for i := 0; i < data; i++ {
			o.arrived(i < ce, false, false)
		}
		for range trimLast {
			o.arrived(false, true, true)
		}
		for range trimOther {
			o.arrived(false, true, false)
		}
	}
	for i, c := range []struct {
		data, ce, trimLast, trimOther int
		rate, g                       float64
	}{
		// 10 of 100 trimmed before the last hop: 1 − 0.1.
		{90, 0, 0, 10, 0.9, 0},
		// Trims at the last hop are RCCC's own: no cut; 50 of 100 data
		// marked: g 0.25, under the target: + Ai (some marked).
		{100, 50, 20, 0, 0.91, 0.25},
		// All marked: g 0.625, rate × (1 − 0.325 × 0.5).
		{100, 100, 0, 0, 0.91 * (1 - 0.325*0.5), 0.625},
		// Nothing marked: g 0.3125, still above: × (1 − 0.0125 × 0.5).
		{100, 0, 0, 0, 0.91 * (1 - 0.325*0.5) * (1 - 0.0125*0.5), 0.3125},
		// g 0.15625: + Ai × 2^0, then + Ai × 2^1.
		{100, 0, 0, 0, 0.91*(1-0.325*0.5)*(1-0.0125*0.5) + 0.01, 0.15625},
		{100, 0, 0, 0, 0.91*(1-0.325*0.5)*(1-0.0125*0.5) + 0.03, 0.078125},
		// 80 of 100 trimmed before the last hop: −0.8, held at the floor.
		{20, 0, 0, 80, 0.225, 0.0390625},
	} {
		feed(c.data, c.ce, c.trimLast, c.trimOther)
		o.HandleEvent(nil)
		if math.Abs(o.Rate()-c.rate) > 1e-12 || math.Abs(o.g-c.g) > 1e-12 {
			t.Errorf("interval %d: rate %.6f, g %.6f; want %.6f, %.6f", i, o.Rate(), o.g, c.rate, c.g)
		}
	}
	// The pacer at half rate: one sender, one pull of 16,384 bytes, the
	// next turn twice 1.3240 us later.
	o.rate = 0.5
	var at []sim.Time
	k := p.Sink(150000, 4096, func(int64) { at = append(at, eng.Now()) })
	k.PullTarget(32768)
	eng.Run(sim.Second, nil)
	want := 2 * fabric.SerializationTime(16384, fabric.Rate(float64(100*fabric.Gbps)*0.99))
	if len(at) < 2 || math.Abs(float64(at[1]-at[0]-want)) > 1 {
		t.Errorf("pulls at %v; want the second %v after the first", at, want)
	}
}
