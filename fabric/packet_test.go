package fabric

import (
	"testing"
	"unsafe"
)

// TestPacketLayout: the fields a switch reads on every hop sit in the
// packet's first 64-byte cache line, and the whole packet in three.
func TestPacketLayout(t *testing.T) {
	var p Packet
	// Two lines, the allocation class of 128 bytes: what few packets
	// carry is in PacketExt (a queued packet of a k=32 fat tree's 430,000
	// was 192 bytes, three lines).
	if size := unsafe.Sizeof(p); size != 128 {
		t.Errorf("Packet is %d bytes, want 128", size)
	}
	for name, end := range map[string]uintptr{
		"next":     unsafe.Offsetof(p.next) + unsafe.Sizeof(p.next),
		"Wire":     unsafe.Offsetof(p.Wire) + unsafe.Sizeof(p.Wire),
		"InPort":   unsafe.Offsetof(p.InPort) + unsafe.Sizeof(p.InPort),
		"OutPort":  unsafe.Offsetof(p.OutPort) + unsafe.Sizeof(p.OutPort),
		"Dst":      unsafe.Offsetof(p.Dst) + unsafe.Sizeof(p.Dst),
		"Flow":     unsafe.Offsetof(p.Flow) + unsafe.Sizeof(p.Flow),
		"Kind":     unsafe.Offsetof(p.Kind) + unsafe.Sizeof(p.Kind),
		"Priority": unsafe.Offsetof(p.Priority) + unsafe.Sizeof(p.Priority),
		"InPrio":   unsafe.Offsetof(p.InPrio) + unsafe.Sizeof(p.InPrio),
		"DSCP":     unsafe.Offsetof(p.DSCP) + unsafe.Sizeof(p.DSCP),
		"ECN":      unsafe.Offsetof(p.ECN) + unsafe.Sizeof(p.ECN),
		"INT":      unsafe.Offsetof(p.INT) + unsafe.Sizeof(p.INT),
		"Link":     unsafe.Offsetof(p.Link) + unsafe.Sizeof(p.Link),
	} {
		if end > 64 {
			t.Errorf("Packet.%s ends at byte %d, past the first cache line", name, end)
		}
	}
	t.Logf("Packet: %d bytes", unsafe.Sizeof(p))
}

// TestPopUnpaused: the first packet whose priority is not paused leaves,
// from the head, the middle or the tail, and the queue keeps the others in
// order with its counts right.
func TestPopUnpaused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prios  []uint8
		paused uint8
		want   int // index of the packet taken, -1 none
	}{
		{"nothing paused takes the head", []uint8{3, 6, 3}, 0, 0},
		{"skips a paused head", []uint8{3, 6, 3}, 1 << 3, 1},
		{"takes the tail", []uint8{3, 3, 6}, 1 << 3, 2},
		{"all paused", []uint8{3, 6}, 1<<3 | 1<<6, -1},
		{"empty", nil, 0, -1},
	} {
		var q PacketQueue
		var ps []*Packet
		for _, pr := range tc.prios {
			p := &Packet{Priority: pr, Wire: PreambleIFGBytes + 100}
			ps = append(ps, p)
			q.Push(p)
		}
		got := q.PopUnpaused(tc.paused)
		if tc.want < 0 {
			if got != nil {
				t.Errorf("%s: took a packet of priority %d, want none", tc.name, got.Priority)
			}
			continue
		}
		if got != ps[tc.want] {
			t.Fatalf("%s: took the wrong packet", tc.name)
		}
		if q.Len != len(ps)-1 || q.Bytes != int64(100*(len(ps)-1)) {
			t.Errorf("%s: queue holds %d packets, %d bytes; want %d, %d", tc.name, q.Len, q.Bytes, len(ps)-1, 100*(len(ps)-1))
		}
		for i, p := range ps {
			if i == tc.want {
				continue
			}
			if q.Pop() != p {
				t.Errorf("%s: the others are out of order", tc.name)
			}
		}
		if q.Pop() != nil || q.Len != 0 {
			t.Errorf("%s: queue not empty after popping the others", tc.name)
		}
		q.Push(got) // the tail must be right after a removal at the end
		if q.Peek() != got || q.Len != 1 {
			t.Errorf("%s: pushing after the removal lost the packet", tc.name)
		}
	}
}

// TestPacketFIFO: a switch keeps n² of these per priority in use (an
// n-port switch's FIFO per ingress port at each egress port), so it is
// two pointers and nothing more; and it gives its packets back in order,
// empty or not, as many times as it is filled.
func TestPacketFIFO(t *testing.T) {
	if size := unsafe.Sizeof(PacketFIFO{}); size != 16 {
		t.Errorf("PacketFIFO is %d bytes, want 16", size)
	}
	var q PacketFIFO
	ps := make([]Packet, 5)
	for round := 0; round < 2; round++ {
		if q.Pop() != nil || q.Peek() != nil {
			t.Fatal("empty FIFO gives a packet")
		}
		for i := range ps {
			q.Push(&ps[i])
		}
		n := 0
		q.Each(func(*Packet) { n++ })
		if n != 5 || !q.Any(func(p *Packet) bool { return p == &ps[4] }) {
			t.Errorf("Each saw %d packets", n)
		}
		for i := range ps {
			if p := q.Pop(); p != &ps[i] {
				t.Fatalf("round %d: pop %d gave another packet", round, i)
			}
		}
	}
}

// TestUETFrame: UET's frames from the specification's header sizes
// (uet.go): a 4096-byte WRITE 14 + 20 + 8 + 12 + 44 + 4096 + 4 = 4198
// bytes, a READ response 12 bytes of SES response in place of the 44 of
// the standard header (4166), an ACK 70 bytes (the 64-byte minimum is
// below it), each 20 more on the wire.
func TestUETFrame(t *testing.T) {
	for _, c := range []struct {
		op      Opcode
		payload int
		frame   int
	}{{OpWriteMiddle, 4096, 4198}, {OpReadResponseMiddle, 4096, 4166}, {OpAcknowledge, 0, 70}, {OpCNP, 0, 70}} {
		if got := UETFrame(c.op, c.payload); got != c.frame || UETWire(c.op, c.payload) != c.frame+PreambleIFGBytes {
			t.Errorf("%v %d: frame %d (wire %d), want %d", c.op, c.payload, got, UETWire(c.op, c.payload), c.frame)
		}
	}
}
