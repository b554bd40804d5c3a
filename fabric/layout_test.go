package fabric

import (
	"testing"
	"unsafe"

	"github.com/lfsim/lfsim/internal/cacheline"
)

// TestPortHotFields: what a frame touches of a port lies in its first two
// cache lines (the transmitter's state in the first; the receiver's count,
// the index and the per-frame counters in the second), and a port fills
// the 576-byte allocation class exactly enough to start on a line. In a
// large run every port has left the caches by its next frame, so each
// line a frame touches is a miss (docs/PERFORMANCE.md).
func TestPortHotFields(t *testing.T) {
	var p Port
	cacheline.InLines(t, "Port", 0, 0, map[string]uintptr{
		"eng": unsafe.Offsetof(p.eng), "owner": unsafe.Offsetof(p.owner), "out": unsafe.Offsetof(p.out),
		"sending": unsafe.Offsetof(p.sending), "lane": unsafe.Offsetof(p.lane), "Rate": unsafe.Offsetof(p.Rate),
		"busy": unsafe.Offsetof(p.busy), "choosing": unsafe.Offsetof(p.choosing), "down": unsafe.Offsetof(p.down),
		"paused": unsafe.Offsetof(p.paused), "hasControl": unsafe.Offsetof(p.hasControl),
	})
	stats := unsafe.Offsetof(p.Stats)
	cacheline.InLines(t, "Port", 1, 1, map[string]uintptr{
		"OnTx": unsafe.Offsetof(p.OnTx), "arrived": unsafe.Offsetof(p.arrived), "Index": unsafe.Offsetof(p.Index),
		"Stats.TxPackets": stats + unsafe.Offsetof(p.Stats.TxPackets), "Stats.TxBytes": stats + unsafe.Offsetof(p.Stats.TxBytes),
		"Stats.RxPackets": stats + unsafe.Offsetof(p.Stats.RxPackets), "Stats.RxBytes": stats + unsafe.Offsetof(p.Stats.RxBytes),
		"Stats.Busy": stats + unsafe.Offsetof(p.Stats.Busy) + 7,
	})
	if size := unsafe.Sizeof(p); size <= 512 || size > 576 {
		t.Errorf("Port is %d bytes; its allocation class must stay 576 (a multiple of 64)", size)
	}
}

// TestLinkHotFields: what carrying a frame touches of a link is its first
// cache line, and a link is 128 bytes, so that each starts on one.
func TestLinkHotFields(t *testing.T) {
	var l Link
	cacheline.InLines(t, "Link", 0, 0, map[string]uintptr{
		"Packets": unsafe.Offsetof(l.Packets), "Bytes": unsafe.Offsetof(l.Bytes), "sent": unsafe.Offsetof(l.sent),
		"lossRate": unsafe.Offsetof(l.lossRate), "eng": unsafe.Offsetof(l.eng), "lane": unsafe.Offsetof(l.lane),
		"to": unsafe.Offsetof(l.to), "down": unsafe.Offsetof(l.down),
	})
	if size := unsafe.Sizeof(l); size != 128 {
		t.Errorf("Link is %d bytes, want 128", size)
	}
}
