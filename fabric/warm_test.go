package fabric

import (
	"math/bits"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/lfsim/lfsim/sim"
)

// TestWarmHintsAddresses: the addresses a port asks for ahead of its
// owner are those the owner then reads: prio's element of bySlot for
// SetWarmTx and SetWarmRx, whether the owner keeps all eight priorities,
// some, or one; and for SetWarmRoutes the very entry NextPorts reads for
// every switch and destination of a k=4 fat-tree. A wrong address would
// not change a result, only make the hint worthless, which no other test
// would notice.
func TestWarmHintsAddresses(t *testing.T) {
	var p Port
	for _, mask := range []uint8{0xff, 1 << 3, 1<<3 | 1<<6, 0b10100101} {
		n := bits.OnesCount8(mask)
		queues := make([][128]byte, n)
		accounts := make([]struct{ a, b, c, d int64 }, n)
		SetWarmTx(&p, queues, mask)
		SetWarmRx(&p, accounts, mask)
		slot := 0
		for prio := uint8(0); prio < 8; prio++ {
			if mask&(1<<prio) == 0 {
				continue
			}
			if got, want := p.warm.txAt+p.warmSlot(prio)*uintptr(p.txStride), uintptr(unsafe.Pointer(&queues[slot])); got != want {
				t.Errorf("mask %#x: tx priority %d: %#x, want %#x", mask, prio, got, want)
			}
			if got, want := p.warm.rxAt+p.warmSlot(prio)*uintptr(p.rxStride), uintptr(unsafe.Pointer(&accounts[slot])); got != want {
				t.Errorf("mask %#x: rx priority %d: %#x, want %#x", mask, prio, got, want)
			}
			slot++
		}
	}
	SetWarmTx(&p, []int64(nil), 0)
	if p.warm.txAt != 0 {
		t.Errorf("no slots: txAt %#x, want none", p.warm.txAt)
	}

	tp, err := FatTree(4, testLink)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := ComputeRoutes(tp, RoutingECMP, nil)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for at := range tp.Nodes {
		p.SetWarmRoutes(r, NodeID(at))
		for dst := range tp.Nodes {
			got := r.entryAddr(p.warm.routeRow, NodeID(dst))
			si, hi := r.swIndex[at], r.hostIndex[dst]
			switch {
			case si < 0:
				if p.warm.routes != nil {
					t.Fatalf("node %d is a host, and has routes to warm", at)
				}
			case hi < 0:
				if got != 0 {
					t.Errorf("switch %d, destination %d (a switch): entry %#x, want none", at, dst, got)
				}
			default:
				if want := uintptr(unsafe.Pointer(&r.entry[int(r.row[si])+int(hi)])); got != want {
					t.Errorf("switch %d, host %d: entry %#x, want %#x", at, dst, got, want)
				}
				checked++
			}
		}
	}
	if want := 20 * 16; checked != want {
		t.Errorf("checked %d entries, want %d (20 switches × 16 hosts)", checked, want)
	}
}

// TestFastCarryFollowsTheLink: a port skips its link only while the link
// is up, loses nothing and has a lane; and the link's counts, which the
// port keeps then, are the same either way.
func TestFastCarryFollowsTheLink(t *testing.T) {
	eng := sim.NewEngine(1)
	tp, err := FatTree(4, testLink)
	if err != nil {
		t.Fatal(err)
	}
	n := NewNetwork(eng, tp)
	p := n.Ports[0][0]
	p.SetOwner(idleOwner{})
	l := p.Link()
	steps := []struct {
		name string
		do   func()
		want bool
	}{
		{"built", func() {}, true},
		{"lossy", func() { l.SetLoss(0.01, rand.New(rand.NewPCG(1, 2))) }, false},
		{"loss off", func() { l.SetLoss(0, nil) }, true},
		{"down", func() { p.SetDown(true) }, false},
		{"up", func() { p.SetDown(false) }, true},
	}
	for _, s := range steps {
		s.do()
		if p.fastCarry != s.want {
			t.Errorf("%s: fastCarry %v, want %v", s.name, p.fastCarry, s.want)
		}
	}
	p.Stats.TxPackets, p.Stats.TxBytes = 7, 7000
	if l.Packets() != 7 || l.Bytes() != 7000 {
		t.Errorf("link counts %d frames, %d bytes; want the port's 7 and 7000", l.Packets(), l.Bytes())
	}
}

// idleOwner has nothing to send and takes nothing.
type idleOwner struct{}

func (idleOwner) NextPacket(*Port) *Packet { return nil }
func (idleOwner) Receive(*Packet, *Port)   {}
