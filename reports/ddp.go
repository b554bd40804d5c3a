package reports

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"

	"github.com/lfsim/lfsim/fabric"
)

// ddpHeader is a DDP segment's header (RFC 5041 §4), with RDMAP's control
// byte in the byte DDP reserves for its ULP (RFC 5040 §4.1). A tagged
// segment (RDMA WRITE, RDMA READ Response) is 14 bytes (§4.2):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|T|L| Resrv | DV| RV|R|  Opcode |             STag              |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|     STag (cont.)              |                               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
//	|                        Tagged Offset (8 bytes)                |
//	+                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// an untagged one (SEND, RDMA READ Request, Terminate) 18 (§4.3):
//
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|T|L| Resrv | DV| RV|R|  Opcode | Reserved for the ULP (the STag |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|  a Send with Invalidate invalidates)  |  Queue Number (QN)    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|   QN (cont.)  |        Message Sequence Number (MSN)          |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	| MSN (cont.)   |            Message Offset (MO)                |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	| MO (cont.)    |
//	+-+-+-+-+-+-+-+-+
//
// T: tagged, L: the message's last segment, DV: DDP's version (1); RV:
// RDMAP's version (1), Opcode RDMAP's (rdmapOpWrite, ...). QN 0 is the queue
// of SENDs, 1 that of READ Requests, 2 that of Terminates; each counts
// its messages from 1 (MSN), and MO is the segment's offset in its
// message.
type ddpHeader struct {
	tagged, last bool
	opcode       uint8
	stag         uint32
	to           uint64
	qn, msn, mo  uint32
}

// RDMAP's opcodes (RFC 5040 §4.2) and DDP's untagged queues (RFC 5040
// §5.1).
const (
	rdmapOpWrite        = 0
	rdmapOpReadRequest  = 1
	rdmapOpReadResponse = 2
	rdmapOpSend         = 3
	rdmapOpSendSE       = 5
	rdmapOpTerminate    = 7

	ddpQueueSend      = 0
	ddpQueueRead      = 1
	ddpQueueTerminate = 2

	ddpVersion   = 1
	rdmapVersion = 1
)

var layerTypeDDP = gopacket.RegisterLayerType(1743, gopacket.LayerTypeMetadata{Name: "DDPRDMAP"})

func (l *ddpHeader) LayerType() gopacket.LayerType { return layerTypeDDP }

// SerializeTo prepends the header to b's payload.
func (l *ddpHeader) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	n := fabric.DDPUntaggedBytes
	if l.tagged {
		n = fabric.DDPTaggedBytes
	}
	out, err := b.PrependBytes(n)
	if err != nil {
		return err
	}
	ctrl := byte(ddpVersion)
	if l.tagged {
		ctrl |= 0x80
	}
	if l.last {
		ctrl |= 0x40
	}
	out[0], out[1] = ctrl, rdmapVersion<<6|l.opcode&0x0F
	if l.tagged {
		binary.BigEndian.PutUint32(out[2:], l.stag)
		binary.BigEndian.PutUint64(out[6:], l.to)
		return nil
	}
	binary.BigEndian.PutUint32(out[2:], 0) // no Send with Invalidate
	binary.BigEndian.PutUint32(out[6:], l.qn)
	binary.BigEndian.PutUint32(out[10:], l.msn)
	binary.BigEndian.PutUint32(out[14:], l.mo)
	return nil
}
