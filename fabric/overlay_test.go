package fabric

import "testing"

// TestOverlayWire: an overlay adds its outer headers to the bare frame
// before Ethernet's padding: VXLAN 14 + 20 + 8 + 8 = 50 bytes (RFC 7348
// §5), Geneve the same base and its options (RFC 8926 §3.4). A 58-byte
// TCP ACK, padded to 64 when bare (84 on the wire), is 108 wrapped (128
// on the wire), not 64 + 50; an iWARP WRITE segment of 4096 bytes is
// 4194 + 50 = 4244.
func TestOverlayWire(t *testing.T) {
	vx := &Overlay{Encap: VXLAN, VNI: 1}
	gn := &Overlay{Encap: Geneve, VNI: 1, Options: 16}
	var none *Overlay
	crc := MPA{CRC: true}
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"VXLAN's bytes", vx.Bytes(), 50},
		{"Geneve's bytes with 16 of options", gn.Bytes(), 66},
		{"no overlay's bytes", none.Bytes(), 0},
		{"TCP ACK bare", int(none.Wire(TCPAckFrame(false, false))), 84},
		{"TCP ACK in VXLAN", int(vx.Wire(TCPAckFrame(false, false))), 128},
		{"iWARP WRITE 4096 in VXLAN", int(vx.Wire(IWARPFrame(OpWriteMiddle, 4096, crc, false))), 4194 + 50},
		{"RoCEv2 WRITE Middle in VXLAN", int(vx.Wire(RoCEv2Frame(OpWriteMiddle, 4096))), 4178 + 50},
		{"RoCEv2 WRITE Middle in Geneve", int(gn.Wire(RoCEv2Frame(OpWriteMiddle, 4096))), 4178 + 66},
		{"the frame functions match the wire ones", int(none.Wire(RoCEv2Frame(OpAcknowledge, 0))), RoCEv2Wire(OpAcknowledge, 0)},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestOverlayOuter: the outer 5-tuple keeps the endpoints' addresses,
// takes the encapsulation's port (4789, 6081) and a source port that is
// a function of the inner 5-tuple in 49152..65535 (RFC 7348 §5), or the
// constant FixedPort; Encapsulate and Decapsulate give the inner flow
// back.
func TestOverlayOuter(t *testing.T) {
	vx := &Overlay{Encap: VXLAN}
	gn := &Overlay{Encap: Geneve}
	fixed := &Overlay{Encap: VXLAN, FixedPort: 50000}
	ports := map[uint16]bool{}
	for qpn := uint32(2); qpn < 2+256; qpn++ {
		in := FlowKey{SrcIP: HostIP(0), DstIP: HostIP(1), SrcPort: RoCEv2SourcePort(qpn), DstPort: RoCEv2Port}
		out := vx.Outer(in)
		if out.SrcIP != in.SrcIP || out.DstIP != in.DstIP || out.DstPort != VXLANPort {
			t.Fatalf("outer %+v of %+v: want the same addresses and port %d", out, in, VXLANPort)
		}
		if out.SrcPort < OverlayPortMin || out != vx.Outer(in) {
			t.Fatalf("outer source port %d of %+v: want a function of the inner flow in 49152..65535", out.SrcPort, in)
		}
		ports[out.SrcPort] = true
		if g := gn.Outer(in); g.DstPort != GenevePort || g.SrcPort != out.SrcPort {
			t.Errorf("Geneve's outer %+v: want port %d and the same hash", g, GenevePort)
		}
		if f := fixed.Outer(in); f.SrcPort != 50000 {
			t.Errorf("a fixed outer port gives %d, want 50000", f.SrcPort)
		}
		var pl Pool
		p := pl.Get()
		p.Flow = in
		pl.Encapsulate(p, vx)
		if p.Flow != out || p.Overlay() != vx || p.InnerSrcPort() != in.SrcPort {
			t.Fatalf("encapsulated: flow %+v, overlay %v, inner port %d", p.Flow, p.Overlay(), p.InnerSrcPort())
		}
		p.Decapsulate()
		if p.Flow != in || p.Overlay() != nil {
			t.Fatalf("decapsulated: flow %+v, want %+v", p.Flow, in)
		}
	}
	// 256 QPs hashed into 16,384 ports: about 2 collide (256²/2/16384).
	if len(ports) < 250 {
		t.Errorf("256 inner flows gave %d outer source ports, want at least 250", len(ports))
	}
}
