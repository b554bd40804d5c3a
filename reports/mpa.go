package reports

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/gopacket/gopacket"

	"github.com/lfsim/lfsim/fabric"
)

// MPA (RFC 5044) as a capture writes it: the Request and Reply that open
// a connection (§7.1, with RFC 6581 §5's enhanced revision 2), and the
// FPDU that frames each DDP segment in the TCP stream (§4), as gopacket
// layers (ddp.go and rdmap.go hold the headers inside an FPDU).

// Layer types of MPA's frames (gopacket's numbers 1000-1999 are an
// application's own; ddp.go and rdmap.go take the next).
var (
	layerTypeMPAStart = gopacket.RegisterLayerType(1741, gopacket.LayerTypeMetadata{Name: "MPAStart"})
	layerTypeMPAFPDU  = gopacket.RegisterLayerType(1742, gopacket.LayerTypeMetadata{Name: "MPAFPDU"})
)

// The Request's and Reply's keys (RFC 5044 §7.1).
const (
	mpaKeyRequest = "MPA ID Req Frame"
	mpaKeyReply   = "MPA ID Rep Frame"
)

// mpaStart is an MPA Request or Reply frame (RFC 5044 §7.1; RFC 6581
// §5.1 for revision 2, whose private data begins with the IRD and ORD):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                                                               |
//	+         Key (16 bytes: "MPA ID Req Frame" for a Request,      +
//	|                         "MPA ID Rep Frame" for a Reply)       |
//	+                                                               +
//	|                                                               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|M|C|R|S|  Res  |     Rev       |          PD_Length            |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|A|B|           IRD             |C|D|           ORD             |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	~  Private Data (PD_Length bytes, the IRD and ORD word included) ~
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// M: markers wanted, C: CRCs wanted, R: rejected (a Reply), S: RFC 6581's
// enhanced mode (what RFC 5044 reserved); A: the peer-to-peer model, B,
// C and D: a zero-length SEND, RDMA WRITE or RDMA READ as the RTR.
type mpaStart struct {
	reply   bool
	m       fabric.MPAStart
	private []byte // after the IRD and ORD
}

func (l *mpaStart) LayerType() gopacket.LayerType { return layerTypeMPAStart }

// SerializeTo prepends the frame to b's payload.
func (l *mpaStart) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	params := l.m.ParamsBytes()
	out, err := b.PrependBytes(fabric.MPAReqRepBytes + params + len(l.private))
	if err != nil {
		return err
	}
	key := mpaKeyRequest
	if l.reply {
		key = mpaKeyReply
	}
	copy(out, key)
	out[16], out[17] = l.m.Flags(), l.m.Rev
	binary.BigEndian.PutUint16(out[18:], uint16(params+len(l.private)))
	if params > 0 {
		binary.BigEndian.PutUint32(out[20:], l.m.IRDORD())
	}
	copy(out[fabric.MPAReqRepBytes+params:], l.private)
	return nil
}

// mpaFPDU frames the ULPDU serialized so far (the DDP segment, RDMAP
// inside) as an FPDU (RFC 5044 §4.1, without markers: captures of
// mpa_markers are refused):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|          ULPDU_Length         |                               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
//	~                             ULPDU                             ~
//	+                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                               |          PAD (0-3 bytes)      |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                     CRC (when negotiated)                     |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// The pad brings the length field, the ULPDU and itself to a multiple of
// 4 bytes; the CRC is CRC32c (Castagnoli's polynomial, RFC 3385) over
// them, least significant byte first, as iSCSI sends it (RFC 3720 §12.1,
// which RFC 5044 §4.4 refers to) and Wireshark's dissector
// (packet-iwarp-mpa.c) checks it.
type mpaFPDU struct{ crc bool }

func (l *mpaFPDU) LayerType() gopacket.LayerType { return layerTypeMPAFPDU }

// SerializeTo frames b's bytes, which are the ULPDU.
func (l *mpaFPDU) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	ulpdu := len(b.Bytes())
	head, err := b.PrependBytes(fabric.MPAHeaderBytes)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint16(head, uint16(ulpdu))
	if pad := (4 - (fabric.MPAHeaderBytes+ulpdu)%4) % 4; pad > 0 {
		tail, err := b.AppendBytes(pad)
		if err != nil {
			return err
		}
		clear(tail)
	}
	if !l.crc {
		return nil
	}
	crc := crc32.Checksum(b.Bytes(), crc32.MakeTable(crc32.Castagnoli)) // made once, on the first call (not at start-up: 1.3 M instructions)
	tail, err := b.AppendBytes(fabric.MPACRCBytes)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(tail, crc)
	return nil
}
