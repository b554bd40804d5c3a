package fabric

import (
	"testing"
	"unsafe"
)

// TestPacketLayout: the fields a switch reads on every hop sit in the
// packet's first 64-byte cache line, and the whole packet in three.
func TestPacketLayout(t *testing.T) {
	var p Packet
	if size := unsafe.Sizeof(p); size > 192 {
		t.Errorf("Packet is %d bytes, want at most 192", size)
	}
	for name, end := range map[string]uintptr{
		"next":     unsafe.Offsetof(p.next) + unsafe.Sizeof(p.next),
		"Wire":     unsafe.Offsetof(p.Wire) + unsafe.Sizeof(p.Wire),
		"InPort":   unsafe.Offsetof(p.InPort) + unsafe.Sizeof(p.InPort),
		"Dst":      unsafe.Offsetof(p.Dst) + unsafe.Sizeof(p.Dst),
		"Flow":     unsafe.Offsetof(p.Flow) + unsafe.Sizeof(p.Flow),
		"Kind":     unsafe.Offsetof(p.Kind) + unsafe.Sizeof(p.Kind),
		"Priority": unsafe.Offsetof(p.Priority) + unsafe.Sizeof(p.Priority),
		"InPrio":   unsafe.Offsetof(p.InPrio) + unsafe.Sizeof(p.InPrio),
		"ECN":      unsafe.Offsetof(p.ECN) + unsafe.Sizeof(p.ECN),
		"INT":      unsafe.Offsetof(p.INT) + unsafe.Sizeof(p.INT),
	} {
		if end > 64 {
			t.Errorf("Packet.%s ends at byte %d, past the first cache line", name, end)
		}
	}
	t.Logf("Packet: %d bytes", unsafe.Sizeof(p))
}
