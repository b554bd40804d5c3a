package collective

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// sendLog records when each step is sent.
type sendLog struct {
	eng *sim.Engine
	at  []sim.Time
}

func (l *sendLog) Send(*Rank, int32, int64, int64) { l.at = append(l.at, l.eng.Now()) }

// TestChannelPace: a stream whose out-link is paced (SetPace) sends its
// next step no sooner than the step latency plus the last step's wire
// bytes at the channel's rate after its last send, even when what it
// waits for has arrived. Rank 0 of a 2-rank ring all_reduce of 8 KiB
// under LL128 (1 channel: 2 sends of 4 KiB, 4,480 wire bytes each) has
// its in-link's steps landed at once: unpaced both sends go at the end
// of the base latency (14 µs); paced at 1.9 µs and 8 Gb/s (4.48 µs for
// 4,480 bytes) the second goes 6.38 µs later, at 20.38 µs.
func TestChannelPace(t *testing.T) {
	c, err := NewComm(hosts(2), Options{Algorithm: Ring, Channels: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(c, Spec{Op: AllReduce, Size: 8 << 10, Proto: LL128})
	if err != nil {
		t.Fatal(err)
	}
	base := 14 * sim.Microsecond
	for _, tc := range []struct {
		name   string
		rate   fabric.Rate
		second sim.Time
	}{
		{"unpaced", 0, base},
		{"paced", 8 * fabric.Gbps, base + 1900*sim.Nanosecond + 4480*sim.Nanosecond},
	} {
		eng := sim.NewEngine(1)
		log := &sendLog{eng: eng}
		r := NewRank(c, 0, eng, log)
		r.SetPace(0, [3]sim.Time{600 * sim.Nanosecond, 1900 * sim.Nanosecond, 3400 * sim.Nanosecond}, tc.rate)
		r.Queue(&Call{Plan: p})
		r.Kick()
		for seq := range p.InSteps(0)[0] {
			r.Land(0, seq)
		}
		eng.Run(sim.Millisecond, nil)
		if len(log.at) != 2 || log.at[0] != base || log.at[1] != tc.second {
			t.Errorf("%s: sends at %v, want at %v and %v", tc.name, log.at, base, tc.second)
		}
	}
}
