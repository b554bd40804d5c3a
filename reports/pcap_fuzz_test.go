package reports

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/lfsim/lfsim/fabric"
)

// fuzzOps are the opcodes lfsim sends: every RC operation, UC's SENDs and
// WRITEs, UD's SENDs, and the CNP.
var fuzzOps = func() []fabric.Opcode {
	var ops []fabric.Opcode
	for op := fabric.OpSendFirst; op <= fabric.OpFetchAdd; op++ {
		ops = append(ops, fabric.TransportRC|op)
		if op <= fabric.OpWriteOnlyImm {
			ops = append(ops, fabric.TransportUC|op)
		}
	}
	return append(ops, fabric.TransportUD|fabric.OpSendOnly, fabric.TransportUD|fabric.OpSendOnlyImm, fabric.OpCNP)
}()

// fuzzReader hands out the fuzzer's bytes as numbers, zeros once they run
// out.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) u64() uint64 {
	var x [8]byte
	n := copy(x[:], r.b)
	r.b = r.b[n:]
	return binary.LittleEndian.Uint64(x[:])
}

// fuzzPacket makes a packet from the fuzzer's bytes: an opcode lfsim
// sends, with the payload its operation may carry, every header field
// drawn, and its wire size as the model computes it; or a PFC frame.
func fuzzPacket(r *fuzzReader) fabric.Packet {
	sel := r.u64()
	if sel%16 == 0 {
		p := fabric.Packet{Kind: fabric.KindPause, Wire: fabric.PFCWireBytes, PauseEnable: uint8(sel >> 8), Ext: &fabric.PacketExt{}}
		for i := range p.Ext.PauseQuanta {
			p.Ext.PauseQuanta[i] = uint16(r.u64())
		}
		return p
	}
	op := fuzzOps[sel%uint64(len(fuzzOps))]
	p := fabric.Packet{Kind: fabric.KindData, Opcode: op, Ext: &fabric.PacketExt{}}
	switch o := op.Operation(); {
	case op == fabric.OpCNP:
		p.Kind = fabric.KindCNP
	case o == fabric.OpAcknowledge || o == fabric.OpAtomicAcknowledge:
		p.Kind = fabric.KindAck
	}
	carries := op != fabric.OpCNP && op.Operation() <= fabric.OpReadResponseOnly && op.Operation() != fabric.OpReadRequest
	if carries {
		p.Payload = int32(sel >> 8 % 4097)
		if n := int(sel >> 24 % 64); n > 0 && n <= int(p.Payload) {
			p.Ext.Data = bytes.Repeat([]byte{byte(sel >> 32)}, n)
		}
	}
	a, b, c, d := r.u64(), r.u64(), r.u64(), r.u64()
	p.Priority, p.ECN, p.DSCP = uint8(a&7), fabric.ECN(a>>3&3), uint8(a>>5&63)
	p.Flow = fabric.FlowKey{SrcIP: uint32(a >> 8), DstIP: uint32(b), SrcPort: uint16(b >> 32), DstPort: fabric.RoCEv2Port}
	p.DestQP, p.PSN, p.AckReq = uint32(c)&0xFFFFFF, uint32(c>>24)&0xFFFFFF, c>>63 == 1
	p.SrcQP, p.QKey = uint32(d)&0xFFFFFF, uint32(d>>32)
	p.VA, p.RKey, p.DMALen = r.u64(), uint32(r.u64()), uint32(r.u64())
	e := r.u64()
	p.Syndrome, p.MSN, p.Ext.Imm = uint8(e), uint32(e>>8)&0xFFFFFF, uint32(e>>32)
	p.Ext.SwapAdd, p.Ext.Compare, p.Ext.OrigData = r.u64(), r.u64(), r.u64()
	p.Wire = int32(fabric.RoCEv2Wire(op, int(p.Payload)))
	return p
}

// FuzzPcapRoundTrip: whatever packets lfsim sends, the pcap it writes
// reads back through gopacket's reader as the same frames: the model's
// length for each, the time, Ethernet, IPv4 (its checksum right) and UDP
// to port 4791 as gopacket decodes them, and a BTH and extended headers
// that hold the packet's fields, its payload, a right ICRC and FCS.
func FuzzPcapRoundTrip(f *testing.F) {
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{7, 1, 2, 3, 250, 9, 77, 0}, 40))
	f.Add(bytes.Repeat([]byte{16, 0, 0, 0, 0, 0, 0, 0, 255, 255}, 30))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzReader{b: data}
		c := &Capture{Name: "fuzz"}
		for i := 0; i < 4 && (i == 0 || len(r.b) > 0); i++ {
			// A pcap timestamp's seconds are 32 bits: 136 years of
			// simulated time, far beyond any run's.
			ts := int64(r.u64() % (100 * 365 * 86400 * 1e9))
			if n := len(c.Frames); n > 0 {
				ts = c.Frames[n-1].TimeNs + ts%1_000_000
			}
			c.Frames = append(c.Frames, CapturedFrame{TimeNs: ts, TxNode: fabric.NodeID(i), TxPort: i, RxNode: 7, RxPort: 1, Pkt: fuzzPacket(r)})
		}
		file, err := PcapFile(c, 65535)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := pcapgo.NewReader(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.Frames {
			cf := &c.Frames[i]
			frame, ci, err := rd.ReadPacketData()
			if err != nil {
				t.Fatalf("frame %d: %v", i, err)
			}
			checkFrame(t, i, cf, frame, ci)
		}
		if _, _, err := rd.ReadPacketData(); err != io.EOF {
			t.Fatalf("after the last frame: %v, want EOF", err)
		}
	})
}

// checkFrame compares one frame read back with the packet written.
func checkFrame(t *testing.T, i int, cf *CapturedFrame, frame []byte, ci gopacket.CaptureInfo) {
	t.Helper()
	p := &cf.Pkt
	if int64(ci.Length) != p.Frame() || len(frame) != ci.Length {
		t.Fatalf("frame %d (%v, %d B payload): %d bytes of %d, the model says %d", i, p.Opcode, p.Payload, len(frame), ci.Length, p.Frame())
	}
	if ci.Timestamp.UnixNano() != cf.TimeNs {
		t.Fatalf("frame %d: time %d, written %d", i, ci.Timestamp.UnixNano(), cf.TimeNs)
	}
	if fcs := binary.LittleEndian.Uint32(frame[len(frame)-4:]); fcs != crc32.ChecksumIEEE(frame[:len(frame)-4]) {
		t.Fatalf("frame %d: bad FCS", i)
	}
	pkt := gopacket.NewPacket(frame[:len(frame)-4], layers.LayerTypeEthernet, gopacket.Default)
	eth, _ := pkt.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
	if eth == nil {
		t.Fatalf("frame %d: no Ethernet layer: %v", i, pkt.ErrorLayer())
	}
	if p.Kind == fabric.KindPause {
		body := eth.Payload
		if eth.EthernetType != fabric.EtherTypeMACControl || binary.BigEndian.Uint16(body) != fabric.PFCOpcode || body[3] != p.PauseEnable {
			t.Fatalf("frame %d: PFC frame reads back as type %v, %x", i, eth.EthernetType, body[:4])
		}
		for k, q := range p.PauseQuanta() {
			if got := binary.BigEndian.Uint16(body[4+2*k:]); got != q {
				t.Fatalf("frame %d: priority %d's quanta %d, written %d", i, k, got, q)
			}
		}
		return
	}
	ip, _ := pkt.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
	udp, _ := pkt.Layer(layers.LayerTypeUDP).(*layers.UDP)
	if ip == nil || udp == nil {
		t.Fatalf("frame %d: IPv4 %v, UDP %v: %v", i, ip != nil, udp != nil, pkt.ErrorLayer())
	}
	if ip.SrcIP.String() != ipv4(p.Flow.SrcIP).String() || ip.DstIP.String() != ipv4(p.Flow.DstIP).String() ||
		ip.TOS != p.DSCP<<2|uint8(p.ECN) || udp.DstPort != layers.UDPPort(fabric.RoCEv2Port) || udp.SrcPort != layers.UDPPort(p.Flow.SrcPort) {
		t.Fatalf("frame %d: IP %v -> %v TOS %#x, UDP %d -> %d; written %+v", i, ip.SrcIP, ip.DstIP, ip.TOS, udp.SrcPort, udp.DstPort, p.Flow)
	}
	hdr := frame[fabric.EthernetHeaderBytes : fabric.EthernetHeaderBytes+fabric.IPv4Bytes]
	var sum uint32
	for k := 0; k < len(hdr); k += 2 {
		sum += uint32(binary.BigEndian.Uint16(hdr[k:]))
	}
	if sum = sum>>16 + sum&0xFFFF; uint16(sum+sum>>16) != 0xFFFF {
		t.Fatalf("frame %d: bad IPv4 header checksum", i)
	}
	ipEnd := fabric.EthernetHeaderBytes + int(ip.Length)
	if icrc := binary.LittleEndian.Uint32(frame[ipEnd-4:]); icrc != ICRC(frame[fabric.EthernetHeaderBytes:ipEnd-4]) {
		t.Fatalf("frame %d: bad ICRC", i)
	}
	bth := udp.Payload
	op := fabric.Opcode(bth[0])
	pad := int(bth[1] >> 4 & 3)
	if op != p.Opcode || binary.BigEndian.Uint32(bth[4:])&0xFFFFFF != p.DestQP || binary.BigEndian.Uint32(bth[8:])&0xFFFFFF != p.PSN || (bth[8]&0x80 != 0) != p.AckReq {
		t.Fatalf("frame %d: BTH % x; written op %v, QP %d, PSN %d, AckReq %v", i, bth[:12], p.Opcode, p.DestQP, p.PSN, p.AckReq)
	}
	ext := bth[fabric.BTHBytes:]
	be32 := func(k int) uint32 { return binary.BigEndian.Uint32(ext[k:]) }
	be64 := func(k int) uint64 { return binary.BigEndian.Uint64(ext[k:]) }
	k := 0
	if op&0xE0 == fabric.TransportUD {
		if be32(0) != p.QKey || be32(4) != p.SrcQP {
			t.Fatalf("frame %d: DETH % x; written Q_Key %#x, source QP %d", i, ext[:8], p.QKey, p.SrcQP)
		}
		k = fabric.DETHBytes
	}
	switch o := op.Operation(); {
	case op == fabric.OpCNP:
	case o == fabric.OpWriteFirst || o == fabric.OpWriteOnly || o == fabric.OpWriteOnlyImm || o == fabric.OpReadRequest:
		if be64(k) != p.VA || be32(k+8) != p.RKey || be32(k+12) != p.DMALen {
			t.Fatalf("frame %d: RETH % x; written VA %#x, R_Key %#x, length %d", i, ext[k:k+16], p.VA, p.RKey, p.DMALen)
		}
	case o == fabric.OpCompareSwap || o == fabric.OpFetchAdd:
		if be64(k) != p.VA || be32(k+8) != p.RKey || be64(k+12) != p.Ext.SwapAdd || be64(k+20) != p.Ext.Compare {
			t.Fatalf("frame %d: AtomicETH % x", i, ext[k:k+28])
		}
	case o == fabric.OpReadResponseFirst || o == fabric.OpReadResponseLast || o == fabric.OpReadResponseOnly || o == fabric.OpAcknowledge || o == fabric.OpAtomicAcknowledge:
		if got := be32(k); got != uint32(p.Syndrome)<<24|p.MSN {
			t.Fatalf("frame %d: AETH %#x; written syndrome %#x, MSN %d", i, got, p.Syndrome, p.MSN)
		}
		if o == fabric.OpAtomicAcknowledge && be64(k+4) != p.Ext.OrigData {
			t.Fatalf("frame %d: AtomicAckETH %#x, written %#x", i, be64(k+4), p.Ext.OrigData)
		}
	}
	switch op.Operation() {
	case fabric.OpSendLastImm, fabric.OpSendOnlyImm, fabric.OpWriteLastImm, fabric.OpWriteOnlyImm:
		if got := binary.BigEndian.Uint32(ext[op.ExtHeaderBytes()-4:]); got != p.Imm() {
			t.Fatalf("frame %d: ImmDt %#x, written %#x", i, got, p.Imm())
		}
	}
	payload := ext[op.ExtHeaderBytes() : len(ext)-fabric.ICRCBytes]
	if op != fabric.OpCNP && (len(payload) != int(p.Payload)+pad || (int(p.Payload)+pad)%4 != 0) {
		t.Fatalf("frame %d: %d payload bytes with pad %d; written %d", i, len(payload), pad, p.Payload)
	}
	if !bytes.Equal(payload[:len(p.Data())], p.Data()) || bytes.ContainsFunc(payload[len(p.Data()):], func(r rune) bool { return r != 0 }) {
		t.Fatalf("frame %d: payload differs from what was written", i)
	}
}
