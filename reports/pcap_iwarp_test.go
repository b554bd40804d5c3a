package reports

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/lfsim/lfsim/fabric"
)

// iwExchange is a connection's set-up and its first WRITE as an iWARP
// NIC sends them (hca's iwconn.go sets these fields): h1's QP 2 from port
// 40000 to h2's listener on 18516, MPA revision 2 with CRCs, IRD and ORD
// 16, the private data "flow"; then an 8 KiB WRITE to R_Key 0x100 at
// 0x10000 (two segments) and h2's ACK of both.
func iwExchange() []fabric.Packet {
	const a, b = fabric.NodeID(1), fabric.NodeID(2)
	ab := fabric.FlowKey{SrcIP: 0x0a000001, DstIP: 0x0a000002, SrcPort: 40000, DstPort: 18516}
	ba := fabric.FlowKey{SrcIP: ab.DstIP, DstIP: ab.SrcIP, SrcPort: 18516, DstPort: 40000}
	mpa := fabric.MPA{CRC: true}
	setup := func(step fabric.SetupStep, private string) fabric.Packet {
		var p fabric.Packet
		active := step.Active()
		if active {
			p.SetSetup(step, true, 1, 7, 2, 3, 40000, 18516)
			p.Src, p.Dst, p.Flow = a, b, ab
		} else {
			p.SetSetup(step, false, 7, 1, 3, 2, 18516, 40000)
			p.Src, p.Dst, p.Flow = b, a, ba
		}
		params := 0
		switch step {
		case fabric.StepSYN, fabric.StepSYNACK:
			p.SetSynOptions(fabric.SynOptions{MSS: 4120, Shift: 3, Window: 256 << 10})
		case fabric.StepMPARequest, fabric.StepMPAReply:
			m := fabric.MPAStart{CRC: true, Rev: 2, IRD: 16, ORD: 16, PeerToPeer: true, RTRRead: true}
			p.SetMPAStart(m)
			params = m.ParamsBytes()
			if private != "" {
				p.Ext = &fabric.PacketExt{Data: []byte(private)}
			}
		}
		p.Wire = int32(fabric.SetupFrame(step, mpa, false, false, params, len(private)) + fabric.PreambleIFGBytes)
		if p.Wire < fabric.MinFrameBytes+fabric.PreambleIFGBytes {
			p.Wire = fabric.MinFrameBytes + fabric.PreambleIFGBytes
		}
		return p
	}
	data := make([]byte, 8192)
	for i := range data {
		data[i] = byte(i * 7)
	}
	write := func(op fabric.Opcode, psn uint32) fabric.Packet {
		p := fabric.Packet{Kind: fabric.KindData, Opcode: fabric.TransportRC | op, Src: a, Dst: b, Flow: ab, SrcQP: 2, DestQP: 3, PSN: psn, Payload: 4096,
			Ext: &fabric.PacketExt{Data: data[psn*4096 : psn*4096+4096]}}
		if op == fabric.OpWriteFirst {
			p.RKey, p.VA, p.DMALen = 0x100, 0x10000, 8192
		}
		p.Wire = int32(fabric.IWARPWire(op, 4096, mpa, false))
		return p
	}
	ack := fabric.Packet{Kind: fabric.KindAck, Opcode: fabric.TransportRC | fabric.OpAcknowledge, Src: b, Dst: a, Flow: ba, SrcQP: 3, DestQP: 2, PSN: 1,
		Wire: int32(fabric.TCPAckWire(false, false))}
	return []fabric.Packet{
		setup(fabric.StepSYN, ""), setup(fabric.StepSYNACK, ""), setup(fabric.StepACK, ""),
		setup(fabric.StepMPARequest, "flow"), setup(fabric.StepMPAReply, ""),
		setup(fabric.StepRTR, ""), setup(fabric.StepRTRResponse, ""), setup(fabric.StepRTRAck, ""),
		write(fabric.OpWriteFirst, 0), write(fabric.OpWriteLast, 1), ack,
	}
}

// TestPcapIWARPLayout: the frames of iwExchange, as a capture writes
// them, against the RFCs' layouts, byte by byte: TCP's header (RFC 9293
// §3.1) with the SYN's options (MSS, NOP, window scale: RFC 9293 §3.2,
// RFC 7323 §2.2) and its checksum, the sequence and acknowledgement
// numbers of the two byte streams (the SYN's, the MPA frames', the
// FPDUs' in order), the MPA Request and Reply (RFC 5044 §7.1, RFC 6581
// §5.1: key, the C and S flags, revision 2, the private data's length,
// the IRD and ORD word with A and D, the private data), the RTR's FPDU
// (an untagged READ Request on queue 1, MSN 1, RFC 5040 §4.4's header of
// zeros) and its response, and the WRITE's FPDUs (RFC 5044 §4.1: ULPDU
// length, RFC 5041 §4.2's tagged header with RFC 5040 §4.1's control
// byte, the payload, no pad at 4096, the CRC32c, least significant byte
// first, over all before it). Each frame is as long as the model says.
func TestPcapIWARPLayout(t *testing.T) {
	c := &Capture{Name: "x", Transport: fabric.IWARP}
	for _, p := range iwExchange() {
		c.Frames = append(c.Frames, CapturedFrame{Pkt: p, TxNode: p.Src, RxNode: p.Dst})
	}
	out, err := PcapFile(c, FullSnapLen)
	if err != nil {
		t.Fatal(err)
	}
	r, err := pcapgo.NewReader(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var tcps []*layers.TCP
	for i := range c.Frames {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			t.Fatal(err)
		}
		if int64(ci.Length) != c.Frames[i].Pkt.Frame() || ci.CaptureLength != ci.Length {
			t.Errorf("frame %d: %d bytes (%d kept), the model says %d", i, ci.Length, ci.CaptureLength, c.Frames[i].Pkt.Frame())
		}
		pkt := gopacket.NewPacket(data, layers.LinkTypeEthernet, gopacket.Default)
		ip, _ := pkt.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
		tcp, _ := pkt.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if ip == nil || tcp == nil || ip.Protocol != layers.IPProtocolTCP {
			t.Fatalf("frame %d: not IPv4 and TCP: %v", i, pkt)
		}
		if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
			t.Fatal(err)
		}
		// Summed with its checksum in place, a segment sums to zero.
		if sum, err := tcp.ComputeChecksum(); err != nil || sum != 0 {
			t.Errorf("frame %d: TCP checksum %#04x does not verify (%#04x)", i, tcp.Checksum, sum)
		}
		tcps = append(tcps, tcp)
	}
	syn, synack, ack, req, rep, rtr, rtrResp, rtrAck, first, last, dataAck := tcps[0], tcps[1], tcps[2], tcps[3], tcps[4], tcps[5], tcps[6], tcps[7], tcps[8], tcps[9], tcps[10]
	if syn.SrcPort != 40000 || syn.DstPort != 18516 || !syn.SYN || syn.ACK || synack.SrcPort != 18516 || !synack.SYN || !synack.ACK {
		t.Errorf("SYN %v→%v (SYN %v ACK %v), SYN-ACK %v→%v (SYN %v ACK %v)", syn.SrcPort, syn.DstPort, syn.SYN, syn.ACK, synack.SrcPort, synack.DstPort, synack.SYN, synack.ACK)
	}
	// MSS 4120 (kind 2, length 4), NOP, window scale 3 (kind 3, length 3):
	// 8 bytes, a 28-byte header; the SYN's window unscaled.
	if got, want := syn.Contents[20:], []byte{2, 4, 0x10, 0x18, 1, 3, 3, 3}; !bytes.Equal(got, want) || syn.Window != 0xFFFF {
		t.Errorf("SYN options % x, window %d; want % x and 65535", got, syn.Window, want)
	}
	if ack.Window != 256<<10>>3 {
		t.Errorf("the ACK's window field %d, want 256 KiB >> 3", ack.Window)
	}
	seqs := []struct {
		what     string
		got, exp uint32
	}{
		{"SYN-ACK's ack", synack.Ack, syn.Seq + 1},
		{"ACK's seq", ack.Seq, syn.Seq + 1}, {"ACK's ack", ack.Ack, synack.Seq + 1},
		{"Request's seq", req.Seq, syn.Seq + 1},
		{"Reply's seq", rep.Seq, synack.Seq + 1}, {"Reply's ack", rep.Ack, req.Seq + uint32(len(req.Payload))},
		{"RTR's seq", rtr.Seq, req.Seq + uint32(len(req.Payload))}, {"RTR's ack", rtr.Ack, rep.Seq + uint32(len(rep.Payload))},
		{"RTR response's ack", rtrResp.Ack, rtr.Seq + uint32(len(rtr.Payload))},
		{"RTR ACK's ack", rtrAck.Ack, rtrResp.Seq + uint32(len(rtrResp.Payload))},
		{"first WRITE's seq", first.Seq, rtr.Seq + uint32(len(rtr.Payload))},
		{"last WRITE's seq", last.Seq, first.Seq + uint32(len(first.Payload))},
		{"ACK of both's ack", dataAck.Ack, last.Seq + uint32(len(last.Payload))},
	}
	for _, s := range seqs {
		if s.got != s.exp {
			t.Errorf("%s: %d, want %d", s.what, s.got, s.exp)
		}
	}
	// The Request: key, M 0 C 1 R 0 S 1 (0x50), revision 2, 8 bytes of
	// private data: A and IRD 16 (0x8010), D and ORD 16 (0x4010), "flow".
	wantReq := append([]byte("MPA ID Req Frame"), 0x50, 2, 0, 8, 0x80, 0x10, 0x40, 0x10, 'f', 'l', 'o', 'w')
	if !bytes.Equal(req.Payload, wantReq) || !req.PSH {
		t.Errorf("MPA Request % x (PSH %v), want % x", req.Payload, req.PSH, wantReq)
	}
	wantRep := append([]byte("MPA ID Rep Frame"), 0x50, 2, 0, 4, 0x80, 0x10, 0x40, 0x10)
	if !bytes.Equal(rep.Payload, wantRep) {
		t.Errorf("MPA Reply % x, want % x", rep.Payload, wantRep)
	}
	// The RTR: ULPDU 46 (18 + 28); T 0 L 1 DV 1 (0x41); RV 1, READ
	// Request (0x41); the Send with Invalidate STag 0; QN 1, MSN 1, MO 0;
	// RDMAP's READ header, all zeros (a zero-length READ); no pad (48);
	// the CRC.
	wantRTR := append([]byte{0, 46, 0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0}, make([]byte, 28)...)
	checkFPDU(t, "RTR", rtr.Payload, wantRTR)
	// Its response: ULPDU 14, T 1 L 1 DV 1 (0xC1), READ Response (0x42),
	// STag 0, offset 0; 16 bytes, no pad; the CRC.
	checkFPDU(t, "RTR response", rtrResp.Payload, []byte{0, 14, 0xC1, 0x42, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	if len(rtrAck.Payload) != 0 || len(ack.Payload) != 0 {
		t.Errorf("the pure ACKs carry %d and %d bytes", len(ack.Payload), len(rtrAck.Payload))
	}
	// The WRITE: ULPDU 4110 (14 + 4096); T 1 (0x81) and then T 1 L 1
	// (0xC1); RV 1, RDMA Write (0x40); STag 0x100; tagged offsets 0x10000
	// and 0x11000; the payload.
	for i, w := range []*layers.TCP{first, last} {
		head, to := []byte{0x10, 0x0e, 0x81, 0x40, 0, 0, 1, 0}, uint64(0x10000)
		if i == 1 {
			head[2], to = 0xC1, 0x11000
		}
		want := append(binary.BigEndian.AppendUint64(head, to), iwExchange()[8+i].Data()...)
		checkFPDU(t, []string{"first WRITE", "last WRITE"}[i], w.Payload, want)
	}
}

// checkFPDU checks an FPDU's bytes (want, its length field to the pad)
// and its CRC32c after them.
func checkFPDU(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if len(got) != len(want)+4 || !bytes.Equal(got[:len(want)], want) {
		n := min(len(got), 64)
		t.Errorf("%s: FPDU (%d bytes) begins % x; want %d bytes, % x", what, len(got), got[:n], len(want)+4, want[:min(len(want), 64)])
		return
	}
	crc := crc32.Checksum(want, crc32.MakeTable(crc32.Castagnoli))
	if g := binary.LittleEndian.Uint32(got[len(want):]); g != crc {
		t.Errorf("%s: CRC %#08x, want CRC32c %#08x, least significant byte first", what, g, crc)
	}
}
