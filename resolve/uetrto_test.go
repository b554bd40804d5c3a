package resolve

import (
	"math"
	"testing"

	"github.com/lfsim/lfsim/fabric"
)

// TestUETMinRTOQueue: hca.uet.min_rto: auto is uet-htsim's _min_rto,
// 15 us + 6 drains of the largest switch queue at the NIC's rate
// (htsim/sim/datacenter/main_uec.cpp), the queue being the largest a
// lossy egress queue can hold (rtoQueue). Under the dynamic threshold,
// alpha / (1 + alpha) of the shared pool (4 MiB at alpha 1: 2 MiB,
// 15 + 6 × 2 MiB × 8 / 100 Gb/s = 1,021.6 us); under a static
// egress_threshold that threshold, but no more than the pool can hold:
// an egress_threshold of 100 MiB over a 4 MiB buffer gave 50,347 us
// (100 MiB drained six times), where no queue can pass the buffer's
// 4 MiB (15 + 6 × 4 MiB × 8 / 100 Gb/s = 2,028.2 us). Fails before at
// that row (tried).
func TestUETMinRTOQueue(t *testing.T) {
	const head = "name: t\nstop: {at: 1ms}\ntopology: {kind: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}\n" +
		"hca: {transport: uet, uet: {min_rto: auto}}\ntraffic: [{flow: {from: h0, to: h15, size: 64KiB}}]\n"
	for _, c := range []struct {
		name  string
		sw    string
		queue float64 // bytes
	}{
		{"dynamic, alpha 1", "switch: {buffer: 4MiB, pfc: {priorities: []}}\n", 2 << 20},
		{"dynamic, alpha 3", "switch: {buffer: 4MiB, pfc: {priorities: []}, egress_threshold: {alpha: 3}}\n", 3 << 20},
		{"static, under the buffer", "switch: {buffer: 4MiB, pfc: {priorities: []}, egress_threshold: 528948}\n", 528948},
		{"static, past the buffer", "switch: {buffer: 4MiB, pfc: {priorities: []}, egress_threshold: 100MiB}\n", 4 << 20},
		{"static, past a shared pool", "switch: {buffer: {shared: 1MiB}, pfc: {priorities: []}, egress_threshold: 100MiB}\n", 1 << 20},
	} {
		s, err := Parse("t.yaml", []byte(head+c.sw))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := s.UET.UETMinRTO(100*fabric.Gbps).Seconds() * 1e6
		want := 15 + 6*c.queue*8/100e9*1e6
		if math.Abs(got-want) > 0.01 {
			t.Errorf("%s: min_rto auto %.2f us; want %.2f (a queue of %.0f bytes)", c.name, got, want, c.queue)
		}
	}
}
