package reports

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/gopacket/gopacket/layers"

	"github.com/lfsim/lfsim/fabric"
)

// InfiniBand captures are written as ibdump writes them (Mellanox's
// ibdump; Wireshark's wiretap/erf.c reads them): a pcap of link type ERF
// (197), each record a 16-byte ERF header and the packet from its LRH.
// Data packets are ERF type 21 (InfiniBand), flow-control packets type 25
// (InfiniBand link). Wireshark's InfiniBand dissector decodes both.
//
// What the model does not carry is filled in as follows: a host's LIDs
// are those the subnet manager gave it (Capture.LIDs: lfts.txt's and
// devinfo's port_lid), a packet's DLID and SLID its destination's and
// source's base LID plus the path bits the switches forwarded it by
// (its flow key's source port, masked to the LMC: fabric's LFTPort), the
// SL is the packet's VL (the
// default SL-to-VL table is the identity on the VLs in use), and the
// ICRC and VCRC are computed as the spec describes them (CRC-32 over the
// packet with its variant fields masked; CRC-16, polynomial 0x100B, over
// the whole packet), which the dissector shows but does not check; they
// were not checked against a capture from hardware.

// linkTypeERF is DLT_ERF.
const linkTypeERF = layers.LinkType(197)

// ERF record types.
const (
	erfTypeInfiniBand     = 21
	erfTypeInfiniBandLink = 25
)

// buildIB returns an InfiniBand packet's ERF record: the ERF header, then
// LRH, BTH, extended headers, payload and pad, ICRC and VCRC; or a
// flow-control packet's.
func (fb *frameBuilder) buildIB(f *CapturedFrame, tel *fabric.INTStack) []byte {
	p := &f.Pkt
	var pkt []byte
	typ := byte(erfTypeInfiniBand)
	if p.Kind == fabric.KindCredit {
		typ = erfTypeInfiniBandLink
		fctbs, fccl := p.FC()
		// Op 0: normal flow control. A range extenders' long haul counts
		// in 32 bits; its packets are written with the low 12, as an
		// InfiniBand analyser would show the link's.
		pkt = binary.BigEndian.AppendUint16(nil, uint16(fctbs&0xFFF))
		pkt = binary.BigEndian.AppendUint16(pkt, uint16(p.Priority&0xF)<<12|uint16(fccl&0xFFF))
		pkt = binary.BigEndian.AppendUint16(pkt, crc16IB(pkt))
	} else {
		fb.payload = appendTransport(fb.payload[:0], p, tel)
		// The packet has a GRH when its size says so (hca.grh).
		grh := int(p.Wire) == fabric.IBWire(p.Opcode, int(p.Payload), true)
		head := fabric.LRHBytes
		if grh {
			head += fabric.GRHBytes
		}
		lrh := make([]byte, head, head+len(fb.payload)+fabric.VCRCBytes)
		vl, sl := p.Priority&0xF, p.SL&0xF
		lrh[0] = vl << 4   // VL, LVer 0
		lrh[1] = sl<<4 | 2 // SL, LNH 2: BTH follows
		if grh {
			lrh[1] = sl<<4 | 3 // LNH 3: GRH follows
		}
		var dlid uint16
		if fabric.IsMulticast(p.Dst) {
			dlid = fabric.MLID(p.Dst) // the group's, from the SM (a group has no node's LID)
		} else {
			dlid = fb.lid(p.Dst, p)
		}
		slid := fb.lid(p.Src, p)
		binary.BigEndian.PutUint16(lrh[2:], dlid)
		binary.BigEndian.PutUint16(lrh[4:], uint16((head+len(fb.payload))/4)&0x7FF) // LRH to ICRC, in words
		binary.BigEndian.PutUint16(lrh[6:], slid)
		if grh {
			// IPVer 6, traffic class and flow label 0, the payload length
			// (BTH to ICRC), next header 0x1B (BTH), hop limit 64, and
			// link-local GIDs: fe80::/64 and the port's GUID.
			g := lrh[fabric.LRHBytes:]
			g[0] = 6 << 4
			binary.BigEndian.PutUint16(g[4:], uint16(len(fb.payload)))
			g[6], g[7] = 0x1B, 64
			g[8], g[9] = 0xfe, 0x80
			binary.BigEndian.PutUint64(g[16:], fabric.GUID(p.Src))
			g[24], g[25] = 0xfe, 0x80
			binary.BigEndian.PutUint64(g[32:], fabric.GUID(p.Dst))
			if fabric.IsMulticast(p.Dst) {
				mgid := fabric.MGID(p.Flow.DstIP) // a group's DGID is its MGID
				copy(g[24:40], mgid[:])
			}
		}
		pkt = append(lrh, fb.payload...)
		n := len(pkt)
		binary.LittleEndian.PutUint32(pkt[n-fabric.ICRCBytes:], icrcIB(pkt[:n-fabric.ICRCBytes]))
		pkt = binary.BigEndian.AppendUint16(pkt, crc16IB(pkt))
	}
	rec := make([]byte, 16, 16+len(pkt))
	sec, ns := f.TimeNs/1e9, f.TimeNs%1e9
	binary.LittleEndian.PutUint64(rec[0:], uint64(sec)<<32|uint64(ns)<<32/1e9) // 32.32 fixed point
	rec[8] = typ
	rec[9] = 4 // varying-length record
	binary.BigEndian.PutUint16(rec[10:], uint16(16+len(pkt)))
	binary.BigEndian.PutUint16(rec[14:], uint16(len(pkt)))
	return append(rec, pkt...)
}

// lid is the LID of host n that packet p carries: n's base LID from the
// subnet manager plus p's path bits, the low LMC bits of its flow key's
// source port, by which the switches chose among n's LIDs (switch's
// LFTPort lookup; an ACK or READ response keeps its request's). Without
// the SM's LIDs (a capture made by hand), n's NodeID + 1.
func (fb *frameBuilder) lid(n fabric.NodeID, p *fabric.Packet) uint16 {
	if fb.lids == nil {
		return uint16(n) + 1
	}
	return fb.lids.Of(n) + uint16(p.Flow.SrcPort)&(1<<fb.lids.LMC()-1)
}

// icrcIB is an InfiniBand packet's invariant CRC: CRC-32 (Ethernet's
// polynomial) over the packet from its LRH with the variant fields set to
// ones (IBTA vol. 1, 7.8.1): the LRH's VL; with a GRH (the LRH's LNH 3),
// its traffic class, flow label and hop limit; and the BTH's reserved
// byte (FECN, BECN, resv6).
func icrcIB(pkt []byte) uint32 {
	var head [fabric.LRHBytes + fabric.GRHBytes + fabric.BTHBytes]byte
	n, bth := fabric.LRHBytes+fabric.BTHBytes, fabric.LRHBytes
	if pkt[1]&3 == 3 {
		n, bth = n+fabric.GRHBytes, bth+fabric.GRHBytes
	}
	copy(head[:n], pkt)
	head[0] |= 0xF0 // VL
	if bth > fabric.LRHBytes {
		g := head[fabric.LRHBytes:]
		g[0] |= 0x0F                        // traffic class, high nibble
		g[1], g[2], g[3] = 0xFF, 0xFF, 0xFF // its low nibble, and the flow label
		g[7] = 0xFF                         // hop limit
	}
	head[bth+4] = 0xFF // BTH byte 4: FECN, BECN, resv6
	crc := crc32.Update(0, crc32.IEEETable, head[:n])
	return crc32.Update(crc, crc32.IEEETable, pkt[n:])
}

// crc16IB is InfiniBand's 16-bit CRC (VCRC, LPCRC): polynomial 0x100B
// (x^16 + x^12 + x^3 + x + 1), initial value all ones, the result
// inverted.
func crc16IB(b []byte) uint16 {
	crc := uint16(0xFFFF)
	for _, x := range b {
		crc ^= uint16(x) << 8
		for i := 0; i < 8; i++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x100B
			} else {
				crc <<= 1
			}
		}
	}
	return ^crc
}
