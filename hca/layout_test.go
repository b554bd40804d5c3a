package hca

import (
	"testing"
	"unsafe"

	"github.com/lfsim/lfsim/internal/cacheline"
)

// TestHCAHotFields: what every packet reads of an HCA is in its first
// three cache lines, the profile starts on a line with the MTU, the
// retransmission scheme and the overlay in its first, and an HCA fills
// the 896-byte allocation class, so that each starts on a line. A k=16 fat-tree has
// 1,024 of them, and each has left the caches by its next packet
// (docs/PERFORMANCE.md).
func TestHCAHotFields(t *testing.T) {
	var h HCA
	cacheline.InLines(t, "HCA", 0, 2, map[string]uintptr{
		"eng": unsafe.Offsetof(h.eng), "pool": unsafe.Offsetof(h.pool), "port": unsafe.Offsetof(h.port),
		"rxLane": unsafe.Offsetof(h.rxLane), "lastQP": unsafe.Offsetof(h.lastQP), "qps": unsafe.Offsetof(h.qps),
		"cursor": unsafe.Offsetof(h.cursor), "nextQPN": unsafe.Offsetof(h.nextQPN), "ID": unsafe.Offsetof(h.ID),
		"active": unsafe.Offsetof(h.active), "ctrl": unsafe.Offsetof(h.ctrl), "rxBusy": unsafe.Offsetof(h.rxBusy),
		"rxHung": unsafe.Offsetof(h.rxHung), "rxPaused": unsafe.Offsetof(h.rxPaused), "wdTripped": unsafe.Offsetof(h.wdTripped),
		"mrGen":  unsafe.Offsetof(h.mrGen),
		"rxRate": unsafe.Offsetof(h.rxRate), "rxLatency": unsafe.Offsetof(h.rxLatency),
		"Stats.TxPackets":   unsafe.Offsetof(h.Stats) + unsafe.Offsetof(h.Stats.TxPackets),
		"Stats.DataPackets": unsafe.Offsetof(h.Stats) + unsafe.Offsetof(h.Stats.DataPackets),
		"Stats.RxPackets":   unsafe.Offsetof(h.Stats) + unsafe.Offsetof(h.Stats.RxPackets),
		"Stats.AcksSent":    unsafe.Offsetof(h.Stats) + unsafe.Offsetof(h.Stats.AcksSent) + 7,
	})
	prof := unsafe.Offsetof(h.Prof)
	if prof%64 != 0 {
		t.Errorf("HCA.Prof at byte %d, not on a line", prof)
	}
	cacheline.InLines(t, "Profile", 0, 0, map[string]uintptr{
		"MTU": unsafe.Offsetof(h.Prof.MTU), "Retransmit": unsafe.Offsetof(h.Prof.Retransmit),
		"Overlay": unsafe.Offsetof(h.Prof.Overlay) + 7,
	})
	if size := unsafe.Sizeof(h); size <= 768 || size > 896 {
		t.Errorf("HCA is %d bytes; its allocation class must stay 896 (a multiple of 64)", size)
	}
}
