package swtch

import (
	"testing"
	"unsafe"

	"github.com/lfsim/lfsim/internal/cacheline"
)

// TestSwitchHotFields: what every packet reads of a switch is in the
// struct's first four cache lines (a port's masks are in the port's own
// first line, fabric.Port.OwnerBits); a port's headroom in one line of
// its portState; one priority's ingress account (with its peak) in
// one line, and its egress queue (with what it has sent) in two. A large
// fabric's switches have all left the caches by a switch's next packet,
// so each of these lines is a miss (docs/PERFORMANCE.md).
func TestSwitchHotFields(t *testing.T) {
	var s Switch
	cacheline.InLines(t, "Switch", 0, 3, map[string]uintptr{
		"eng": unsafe.Offsetof(s.eng), "pool": unsafe.Offsetof(s.pool), "slot": unsafe.Offsetof(s.slot) + 7, "row": unsafe.Offsetof(s.row),
		"in": unsafe.Offsetof(s.in), "queues": unsafe.Offsetof(s.queues),
		"np": unsafe.Offsetof(s.np), "slotMask": unsafe.Offsetof(s.slotMask), "pipeLane": unsafe.Offsetof(s.pipeLane),
		"pipeline": unsafe.Offsetof(s.pipeline), "sharedSize": unsafe.Offsetof(s.sharedSize),
		"sharedUsed": unsafe.Offsetof(s.sharedUsed), "bufUsed": unsafe.Offsetof(s.bufUsed),
		"latency": unsafe.Offsetof(s.latency), "ecmpMix": unsafe.Offsetof(s.ecmpMix),
		"reserved": unsafe.Offsetof(s.reserved), "xoff": unsafe.Offsetof(s.xoff), "xon": unsafe.Offsetof(s.xon),
		"xonOffset": unsafe.Offsetof(s.xonOffset), "xoffAlpha": unsafe.Offsetof(s.xoffAlpha),
		"ID": unsafe.Offsetof(s.ID), "lossless": unsafe.Offsetof(s.lossless), "degraded": unsafe.Offsetof(s.degraded),
		"balance": unsafe.Offsetof(s.balance), "trustDSCP": unsafe.Offsetof(s.trustDSCP), "byTC": unsafe.Offsetof(s.byTC), "lb": unsafe.Offsetof(s.lb) + 7,
		"Stats.Forwarded":  unsafe.Offsetof(s.Stats) + unsafe.Offsetof(s.Stats.Forwarded),
		"Stats.PeakBuffer": unsafe.Offsetof(s.Stats) + unsafe.Offsetof(s.Stats.PeakBuffer),
	})
	if size := unsafe.Sizeof(ingress{}); size != 32 {
		t.Errorf("ingress is %d bytes, want 32", size)
	}
	if size := unsafe.Sizeof(egressQueue{}); size != 128 {
		t.Errorf("egressQueue is %d bytes, want 128", size)
	}
}
