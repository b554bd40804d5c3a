package reports

import (
	"encoding/binary"
	"testing"

	"github.com/lfsim/lfsim/fabric"
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
		{Kind: fabric.KindPause, PauseEnable: 8, PauseQuanta: [8]uint16{3: 0xFFFF}, Wire: fabric.PFCWireBytes},
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
	if a.Label != "switch.ecn.kmin=20KiB" || b.Label != "switch.ecn.kmin=50KiB" {
		t.Errorf("labels %q, %q", a.Label, b.Label)
	}
	// A lab's scenarios differ in their names and their expect: sections
	// too; the labels keep to the settings.
	c := &Run{Dir: "c", Params: map[string]string{"switch.load_balance": "ecmp", "name": "lb-collisions", "expect.min_mean_slowdown": "2"}}
	d := &Run{Dir: "d", Params: map[string]string{"switch.load_balance": "spray", "name": "lb-spray", "expect.max_mean_slowdown": "1.1"}}
	LabelRuns([]*Run{c, d})
	if c.Label != "switch.load_balance=ecmp" || d.Label != "switch.load_balance=spray" {
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
