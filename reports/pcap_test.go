package reports

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// TestPcapFrameLengths: each frame written is exactly as long as the
// model says it is on the wire (header to FCS), cut at the snap length.
func TestPcapFrameLengths(t *testing.T) {
	c := &Capture{Name: "x"}
	for _, p := range []fabric.Packet{
		{Kind: fabric.KindData, Opcode: fabric.OpWriteFirst, Payload: 4096, Wire: int32(fabric.RoCEv2Wire(fabric.OpWriteFirst, 4096))},
		{Kind: fabric.KindAck, Opcode: fabric.OpAcknowledge, Wire: int32(fabric.RoCEv2Wire(fabric.OpAcknowledge, 0))},
		{Kind: fabric.KindData, Opcode: fabric.TransportUD | fabric.OpSendOnly, Payload: 3, Wire: int32(fabric.RoCEv2Wire(fabric.TransportUD|fabric.OpSendOnly, 3))},
		{Kind: fabric.KindCNP, Opcode: fabric.OpCNP, Wire: int32(fabric.RoCEv2Wire(fabric.OpCNP, 0))},
		{Kind: fabric.KindPause, PauseEnable: 8, Ext: &fabric.PacketExt{PauseQuanta: [8]uint16{3: 0xFFFF}}, Wire: fabric.PFCWireBytes},
	} {
		c.Frames = append(c.Frames, CapturedFrame{Pkt: p})
	}
	data, err := PcapFile(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	off := 24
	for i, f := range c.Frames {
		incl := int(binary.LittleEndian.Uint32(data[off+8:]))
		orig := int(binary.LittleEndian.Uint32(data[off+12:]))
		if int64(orig) != f.Pkt.Frame() {
			t.Errorf("frame %d: length %d, model says %d", i, orig, f.Pkt.Frame())
		}
		if incl != min(orig, DefaultSnapLen) {
			t.Errorf("frame %d: %d bytes kept of %d", i, incl, orig)
		}
		off += 16 + incl
	}
}

func TestLabelRuns(t *testing.T) {
	a := &Run{Dir: "a", Params: map[string]string{"switch.ecn.kmin": "20KiB", "seed": "1", "name": "x"}}
	b := &Run{Dir: "b", Params: map[string]string{"switch.ecn.kmin": "50KiB", "seed": "1", "name": "x"}}
	LabelRuns([]*Run{a, b})
	if a.Label != "kmin=20KiB" || b.Label != "kmin=50KiB" {
		t.Errorf("labels %q, %q", a.Label, b.Label)
	}
	// Issue 51: only the settings a run sets, each by the end of its path
	// no other shares (kmin twice: ecn.kmin and other.kmin), in the order
	// of the full paths.
	g := &Run{Dir: "g", Params: map[string]string{"hca.cc": "none", "switch.ecn.kmin": "5KB", "other.kmin": "1"}}
	h := &Run{Dir: "h", Params: map[string]string{"hca.cc": "dcqcn", "hca.dcqcn.rpg_ai_rate": "40Mbps"}}
	i := &Run{Dir: "i", Params: map[string]string{}}
	LabelRuns([]*Run{g, h, i})
	if g.Label != "cc=none other.kmin=1 ecn.kmin=5KB" || h.Label != "cc=dcqcn rpg_ai_rate=40Mbps" || i.Label != "i" {
		t.Errorf("labels %q, %q, %q", g.Label, h.Label, i.Label)
	}
	// The full list, every differing setting by its path, on hovering
	// over a run's label in the summary.
	full := "hca.cc=dcqcn\nhca.dcqcn.rpg_ai_rate=40Mbps\nother.kmin=(default)\nswitch.ecn.kmin=(default)"
	if got := strings.Join(h.Settings, "\n"); got != full {
		t.Errorf("settings %q, want %q", got, full)
	}
	for _, r := range []*Run{g, h, i} {
		r.Summary.Scenario = "s"
	}
	if page := string(BuildHTML([]*Run{g, h, i})); !strings.Contains(page, `<th title="`+full+`">cc=dcqcn rpg_ai_rate=40Mbps</th>`) {
		t.Error("the summary's header does not show the full list on hover")
	}
	// A lab's scenarios differ in their names and their expect: sections
	// too; the labels keep to the settings.
	c := &Run{Dir: "c", Params: map[string]string{"switch.load_balance": "ecmp", "name": "lb-collisions", "expect.min_mean_slowdown": "2"}}
	d := &Run{Dir: "d", Params: map[string]string{"switch.load_balance": "spray", "name": "lb-spray", "expect.max_mean_slowdown": "1.1"}}
	LabelRuns([]*Run{c, d})
	if c.Label != "load_balance=ecmp" || d.Label != "load_balance=spray" {
		t.Errorf("labels %q, %q", c.Label, d.Label)
	}
	// Runs that differ only in name keep their folders' names.
	e := &Run{Dir: "e", Label: "e", Params: map[string]string{"name": "one"}}
	f := &Run{Dir: "f", Label: "f", Params: map[string]string{"name": "two"}}
	LabelRuns([]*Run{e, f})
	if e.Label != "e" || f.Label != "f" {
		t.Errorf("labels %q, %q", e.Label, f.Label)
	}
}

// TestPcapINT: an HPCC data packet and its ACK carry the INT header on
// the wire (42 bytes: the hop count and five 8-byte records), and so do
// their frames in the capture: each frame's length is the model's, and
// the header sits after the BTH and its extended headers, the first
// record packed as HPCC's code packs it (rate code 2 for 100 Gb/s, the
// time in ns, bytes in 128-byte units, the queue in 80-byte units).
func TestPcapINT(t *testing.T) {
	tel := fabric.INTStack{}
	tel.Push(fabric.INTHop{QLen: 8000, TxBytes: 128 * 1000, TS: 1234 * sim.Nanosecond, Rate: 100 * fabric.Gbps})
	c := &Capture{Name: "x", INT: []fabric.INTStack{tel}}
	data := fabric.Packet{Kind: fabric.KindData, Opcode: fabric.OpWriteFirst, Payload: 4096,
		Wire: int32(fabric.RoCEv2Wire(fabric.OpWriteFirst, 4096) + fabric.INTHeaderBytes)}
	ack := fabric.Packet{Kind: fabric.KindAck, Opcode: fabric.OpAcknowledge,
		Wire: int32(fabric.RoCEv2Wire(fabric.OpAcknowledge, 0) + fabric.INTHeaderBytes)}
	c.Frames = []CapturedFrame{{Pkt: data, INT: 1}, {Pkt: ack, INT: 1}}
	out, err := PcapFile(c, FullSnapLen)
	if err != nil {
		t.Fatal(err)
	}
	off := 24
	for i, f := range c.Frames {
		incl := int(binary.LittleEndian.Uint32(out[off+8:]))
		if int64(incl) != f.Pkt.Frame() {
			t.Errorf("frame %d: length %d, model says %d", i, incl, f.Pkt.Frame())
		}
		// Ethernet 14, IPv4 20, UDP 8, BTH 12, then RETH 16 or AETH 4.
		at := off + 16 + 14 + 20 + 8 + 12 + map[int]int{0: 16, 1: 4}[i]
		if n := binary.BigEndian.Uint16(out[at:]); n != 1 {
			t.Errorf("frame %d: INT hop count %d, want 1", i, n)
		}
		rec := binary.BigEndian.Uint64(out[at+2:])
		if rate, ts, tx, q := rec>>61, rec>>37&(1<<24-1), rec>>17&(1<<20-1), rec&(1<<17-1); rate != 2 || ts != 1234 || tx != 1000 || q != 100 {
			t.Errorf("frame %d: record rate %d ts %d tx %d q %d, want 2 1234 1000 100", i, rate, ts, tx, q)
		}
		off += 16 + incl
	}
}

// TestICRCIBMasksVariantFields: InfiniBand's ICRC leaves out (sets to
// ones) the fields switches and routers may change (IBTA vol. 1, 7.8.1):
// the LRH's VL, and with a GRH its traffic class, flow label and hop
// limit, and the BTH's FECN/BECN byte. Changing one of them leaves the
// ICRC as it was; changing an invariant field (the GRH's payload length,
// the BTH's opcode) changes it. With a GRH the BTH starts 40 bytes later:
// the ICRC once masked a GRH byte in its place.
func TestICRCIBMasksVariantFields(t *testing.T) {
	const lrh, grh = fabric.LRHBytes, fabric.GRHBytes
	for _, withGRH := range []bool{false, true} {
		n := lrh + fabric.BTHBytes + 16
		bth := lrh
		pkt := make([]byte, n)
		for i := range pkt {
			pkt[i] = byte(i*13 + 5)
		}
		pkt[1] = pkt[1]&^3 | 2
		if withGRH {
			pkt = append(pkt[:lrh], append(make([]byte, grh), pkt[lrh:]...)...)
			pkt[1] = pkt[1]&^3 | 3
			bth += grh
		}
		base := icrcIB(pkt)
		variant := []int{0, bth + 4}
		invariant := []int{bth, 2} // the opcode, the DLID
		if withGRH {
			variant = append(variant, lrh+1, lrh+2, lrh+3, lrh+7)
			invariant = append(invariant, lrh+4)
		}
		for _, i := range variant {
			q := append([]byte(nil), pkt...)
			if i == 0 {
				q[i] ^= 0xF0 // VL is the high nibble; LVer, the low, counts
			} else {
				q[i] ^= 0x0F
			}
			if icrcIB(q) != base {
				t.Errorf("grh %v: changing variant byte %d changed the ICRC", withGRH, i)
			}
		}
		for _, i := range invariant {
			q := append([]byte(nil), pkt...)
			q[i] ^= 0x01
			if icrcIB(q) == base {
				t.Errorf("grh %v: changing invariant byte %d left the ICRC as it was", withGRH, i)
			}
		}
	}
}

// TestPcapTrimmedDSCP: a trimmed packet (fabric.KindTrimmed, cut to its
// 64-byte header by a switch) is written with DSCP TrimmedDSCP (56, CS7)
// in its IP header, where a full packet keeps its own; without it a
// trimmed RDMA WRITE read as a short one (review F, finding 7).
func TestPcapTrimmedDSCP(t *testing.T) {
	c := &Capture{Name: "x"}
	for _, k := range []fabric.PacketKind{fabric.KindData, fabric.KindTrimmed} {
		p := fabric.Packet{Kind: k, Opcode: fabric.OpWriteMiddle, Payload: 4096, DSCP: 24, Priority: 3, Wire: int32(fabric.RoCEv2Wire(fabric.OpWriteMiddle, 4096))}
		if k == fabric.KindTrimmed {
			p.Payload, p.Priority, p.Wire = 0, 7, 64+fabric.PreambleIFGBytes
		}
		c.Frames = append(c.Frames, CapturedFrame{Pkt: p})
	}
	data, err := PcapFile(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	off := 24
	for i, want := range []uint8{24, TrimmedDSCP} {
		incl := int(binary.LittleEndian.Uint32(data[off+8:]))
		tos := data[off+16+fabric.EthernetHeaderBytes+1]
		if tos>>2 != want {
			t.Errorf("frame %d (%v): DSCP %d, want %d", i, c.Frames[i].Pkt.Kind, tos>>2, want)
		}
		off += 16 + incl
	}
}
