package reports

import (
	"encoding/binary"
	"hash/crc32"
	"net"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/lfsim/lfsim/fabric"
)

// RoCEv1 frames (IBTA annex A16) as a capture shows them: Ethernet
// between the two hosts' MACs (a bridge forwards a frame unchanged), an
// 802.1Q tag whose PCP is the packet's priority (VID 0: priority-tagged),
// EtherType 0x8915, a GRH (IPVer 6, the priority's traffic class, flow
// label 0, next header 0x1B, hop limit 1: the frame is never routed), the
// BTH and what follows, ICRC and FCS. Each host's GID is the link-local
// one from its port's MAC (fe80::/64 and the modified EUI-64, RFC 4291
// appendix A), as RoCE NICs derive their default GID. Wireshark's
// InfiniBand dissector decodes the frame from its EtherType.

// isRoCEv1 reports whether p is a RoCEv1 frame: its size says so (a
// RoCEv1 packet is 16 bytes longer than the RoCEv2 packet with its opcode
// and payload, and RoCEv1 packets carry no INT).
func isRoCEv1(p *fabric.Packet) bool {
	return int(p.Wire) == fabric.RoCEv1Wire(p.Opcode, int(p.Payload))
}

// buildRoCEv1 returns a RoCEv1 frame, destination MAC to FCS.
func (fb *frameBuilder) buildRoCEv1(f *CapturedFrame, tel *fabric.INTStack) ([]byte, error) {
	p := &f.Pkt
	src, dst := PortMAC(p.Src, 0), PortMAC(p.Dst, 0)
	eth := &layers.Ethernet{SrcMAC: src, DstMAC: dst, EthernetType: layers.EthernetTypeDot1Q}
	tag := &layers.Dot1Q{Priority: p.Priority, Type: layers.EthernetType(fabric.EtherTypeRoCEv1)}
	fb.payload = appendTransport(fb.payload[:0], p, tel)
	grh := make([]byte, fabric.GRHBytes, fabric.GRHBytes+len(fb.payload))
	binary.BigEndian.PutUint32(grh[0:], 6<<28|uint32(p.Priority)<<25) // IPVer, TClass (priority in its top bits), flow label
	binary.BigEndian.PutUint16(grh[4:], uint16(len(fb.payload)))      // BTH to ICRC
	grh[6], grh[7] = 0x1B, 1
	copy(grh[8:], linkLocalGID(src))
	copy(grh[24:], linkLocalGID(dst))
	pkt := append(grh, fb.payload...)
	n := len(pkt)
	binary.LittleEndian.PutUint32(pkt[n-fabric.ICRCBytes:], icrcRoCEv1(pkt[:n-fabric.ICRCBytes]))
	if err := fb.buf.Clear(); err != nil {
		return nil, err
	}
	if err := gopacket.SerializeLayers(fb.buf, fixLengths, eth, tag, gopacket.Payload(pkt)); err != nil {
		return nil, err
	}
	return appendFCS(fb.buf.Bytes()), nil
}

// linkLocalGID is fe80::/64 with the modified EUI-64 of mac.
func linkLocalGID(mac net.HardwareAddr) []byte {
	g := make([]byte, 16)
	g[0], g[1] = 0xfe, 0x80
	copy(g[8:], []byte{mac[0] ^ 0x02, mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5]})
	return g
}

// icrcRoCEv1 is a RoCEv1 packet's invariant CRC: CRC-32 over eight bytes
// of ones standing for the LRH, then the GRH with its variant fields
// (traffic class, flow label, hop limit) set to ones, the BTH with its
// reserved byte set to ones, and the rest as sent (IBTA vol. 1, 7.8.1;
// annex A16).
func icrcRoCEv1(pkt []byte) uint32 {
	var head [8 + fabric.GRHBytes + fabric.BTHBytes]byte
	for i := 0; i < 8; i++ {
		head[i] = 0xFF
	}
	h := head[8:]
	copy(h, pkt)
	h[0] |= 0x0F // TClass's high nibble
	h[1], h[2], h[3] = 0xFF, 0xFF, 0xFF
	h[7] = 0xFF                 // hop limit
	h[fabric.GRHBytes+4] = 0xFF // BTH reserved byte: FECN, BECN, resv6
	crc := crc32.Update(0, crc32.IEEETable, head[:])
	return crc32.Update(crc, crc32.IEEETable, pkt[len(h):])
}
