package fabric

import (
	"testing"
	"unsafe"

	"github.com/lfsim/lfsim/internal/cacheline"
)

// TestPortHotFields: what a frame touches of a port lies in its first
// three cache lines, which the engine asks for together (the
// transmitter's state and the owner's bits in the first; the link's
// arrival lane, the owner's warm hints and the receiver's count in the
// second; the sending frame's info, the index and the per-frame counters
// in the third), and a port fills the 640-byte allocation class exactly
// enough to start on a line. In a
// large run every port has left the caches by its next frame, so each
// line a frame touches is a miss (docs/PERFORMANCE.md).
func TestPortHotFields(t *testing.T) {
	var p Port
	cacheline.InLines(t, "Port", 0, 0, map[string]uintptr{
		"eng": unsafe.Offsetof(p.eng), "owner": unsafe.Offsetof(p.owner), "peer": unsafe.Offsetof(p.peer),
		"sending": unsafe.Offsetof(p.sending), "lane": unsafe.Offsetof(p.lane), "Rate": unsafe.Offsetof(p.Rate),
		"choosing": unsafe.Offsetof(p.choosing), "down": unsafe.Offsetof(p.down),
		"paused": unsafe.Offsetof(p.paused), "hasControl": unsafe.Offsetof(p.hasControl),
		"fastCarry": unsafe.Offsetof(p.fastCarry), "OwnerBits": unsafe.Offsetof(p.OwnerBits) + 2,
	})
	warm := unsafe.Offsetof(p.warm)
	cacheline.InLines(t, "Port", 1, 1, map[string]uintptr{
		"OnTx": unsafe.Offsetof(p.OnTx), "arrivalLane": unsafe.Offsetof(p.arrivalLane), "warm": warm,
		"rxStride": unsafe.Offsetof(p.rxStride), "warmMask": unsafe.Offsetof(p.warmMask), "number": unsafe.Offsetof(p.number) + 3, "arrived": unsafe.Offsetof(p.arrived) + 7,
	})
	stats := unsafe.Offsetof(p.Stats)
	cacheline.InLines(t, "Port", 2, 2, map[string]uintptr{
		"sendingInfo":     unsafe.Offsetof(p.sendingInfo),
		"Index":           unsafe.Offsetof(p.Index),
		"Stats.TxPackets": stats + unsafe.Offsetof(p.Stats.TxPackets), "Stats.TxBytes": stats + unsafe.Offsetof(p.Stats.TxBytes),
		"Stats.RxPackets": stats + unsafe.Offsetof(p.Stats.RxPackets), "Stats.RxBytes": stats + unsafe.Offsetof(p.Stats.RxBytes),
		"Stats.Busy": stats + unsafe.Offsetof(p.Stats.Busy) + 7,
	})
	if size := unsafe.Sizeof(p); size <= 576 || size > 640 {
		t.Errorf("Port is %d bytes; its allocation class must stay 640 (a multiple of 64)", size)
	}
}

// TestCreditsLayout: a packet sent or received on an InfiniBand port
// reads its credit state's first line and its VL's record, two records
// to a line, and the state fills the 384-byte allocation class, whose
// objects start on a line.
func TestCreditsLayout(t *testing.T) {
	var c CreditState
	cacheline.InLines(t, "CreditState", 0, 0, map[string]uintptr{
		"stale": unsafe.Offsetof(c.stale), "capacity": unsafe.Offsetof(c.capacity),
		"batch": unsafe.Offsetof(c.batch), "lowWater": unsafe.Offsetof(c.lowWater),
		"maxBlocks": unsafe.Offsetof(c.maxBlocks), "resumeAt": unsafe.Offsetof(c.resumeAt),
		"mask": unsafe.Offsetof(c.mask), "half": unsafe.Offsetof(c.half) + 3,
		"port": unsafe.Offsetof(c.port) + 7,
	})
	if off, size := unsafe.Offsetof(c.vl), unsafe.Sizeof(c.vl[0]); off != 64 || size != 32 {
		t.Errorf("the VL records start at byte %d, %d bytes each; want 64 and 32 (two to a line)", off, size)
	}
	if size := unsafe.Sizeof(c); size != 384 {
		t.Errorf("CreditState is %d bytes; want 384, an allocation class of whole lines", size)
	}
}
