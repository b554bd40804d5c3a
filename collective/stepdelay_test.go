package collective

import (
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// nullNet carries nothing: the test lands the steps itself.
type nullNet struct{}

func (nullNet) Send(*Rank, int32, int64, int64) {}

// TestStepLatencyOfItsCall: a step is seen after the step latency of
// the protocol of the call it belongs to, not of the call its receiver
// is running. Rank 1 of a 2-rank ring all_reduce (1 channel: 2 steps a
// call on its in-link) has three calls queued, under LL, Simple and LL,
// with step latencies of 1 µs (LL) and 5 µs (Simple); the six steps of
// the three calls land at 0, out of order. At 2 µs the first call's two
// steps are seen (the third call's too, held until the second's are),
// at 6 µs all six. Before, every step took the running call's protocol:
// with the receiver on its first call (LL), all six were seen at 1 µs;
// with no call begun, all took Simple's 5 µs and none was seen at 2 µs
// (nccl_tests' first synchronising call after the warm-up's largest
// size got 14 µs a step instead of 2.7 to 5). Both ways.
func TestStepLatencyOfItsCall(t *testing.T) {
	c, err := NewComm(hosts(2), Options{Algorithm: Ring, Channels: 1})
	if err != nil {
		t.Fatal(err)
	}
	plan := func(p Protocol) *Plan {
		pl, err := NewPlan(c, Spec{Op: AllReduce, Size: 1024, Proto: p})
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	plans := []*Plan{plan(LL), plan(Simple), plan(LL)}
	if n := plans[0].InSteps(1)[0]; n != 2 {
		t.Fatalf("%d steps a call on rank 1's in-link, want 2", n)
	}
	for _, begun := range []bool{false, true} {
		eng := sim.NewEngine(1)
		r := NewRank(c, 1, eng, nullNet{})
		r.SetDelay(0, LL, sim.Microsecond)
		r.SetDelay(0, Simple, 5*sim.Microsecond)
		at := sim.Second // the calls not begun
		if begun {
			at = 0 // the first call made at 0 (its base latency, 6.6 µs, not over)
		}
		for _, p := range plans {
			r.Queue(&Call{Plan: p, At: at})
		}
		r.Kick()
		for _, seq := range []int64{4, 0, 2, 5, 1, 3} {
			r.Land(0, seq)
		}
		eng.Run(2*sim.Microsecond, nil)
		if got := r.Arrived(0); got != 2 {
			t.Errorf("call begun %v: %d steps seen at 2 µs, want the LL call's 2", begun, got)
		}
		eng.Run(6*sim.Microsecond, nil)
		if got := r.Arrived(0); got != 6 {
			t.Errorf("call begun %v: %d steps seen at 6 µs, want 6", begun, got)
		}
	}
}
