package fabric

import (
	"math"
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// TestLongHaulCredits: the long haul between two range extenders
// (EnableLongHaulCredits) grants a VL buffer past the 2,048 blocks
// (128 KiB) 12-bit counters allow. Over 10 km (50 µs each way) at
// 100 Gb/s it carries buffer / credit round trip, as InfiniBand's credits
// do (TestCreditLimitedLink's closed form, full packets only), within
// 3%: 10.1 Gb/s with 128 KiB, 82.2 Gb/s with 1 MiB (16,384 blocks), and
// the line's 99.37 Gb/s (100 × 4096 / 4122) with 2 and 16 MiB, whose
// windows exceed the round trip's 1.25 MB. A sender never overruns the
// receiver's buffer (the port panics if it does).
func TestLongHaulCredits(t *testing.T) {
	const rate = 100 * Gbps
	delay := 50 * sim.Microsecond
	frame := int64(IBWire(OpWriteMiddle, 4096, false))
	for _, buffer := range []int64{128 << 10, 1 << 20, 2 << 20, 16 << 20} {
		eng, _, _, sink := creditLinkWith(t, rate, delay, buffer, 0, (*Port).EnableLongHaulCredits)
		eng.Run(3*sim.Millisecond, nil)
		got := float64(sink.bytes) * 8 / (3*sim.Millisecond - sink.first).Seconds()
		pkts := (buffer / BlockBytes) / IBPacketBlocks(frame)
		rtt := 2*delay + SerializationTime(frame, rate) + SerializationTime(FCPacketBytes, rate)
		want := math.Min(float64(rate)*4096/float64(frame), float64(pkts*4096*8)/rtt.Seconds())
		if math.Abs(got-want)/want > 0.03 {
			t.Errorf("buffer %d KiB: %.3f Gb/s, want %.3f (buffer / credit round trip, at most the line) within 3%%", buffer>>10, got/1e9, want/1e9)
		}
	}
}
