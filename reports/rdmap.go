package reports

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"

	"github.com/lfsim/lfsim/fabric"
)

// rdmapReadRequest is the RDMA READ Request's header (RFC 5040 §4.4),
// the payload of its untagged DDP segment (queue 1):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                         Data Sink STag                        |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                  Data Sink Tagged Offset (8 bytes)            |
//	+                                                               +
//	|                                                               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                    RDMA Read Message Size                     |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                       Data Source STag                        |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                 Data Source Tagged Offset (8 bytes)           |
//	+                                                               +
//	|                                                               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// The sink is the requester's buffer, which its READ Responses (tagged)
// write; the source the responder's (the request's R_Key and address).
type rdmapReadRequest struct {
	sinkSTag   uint32
	sinkTO     uint64
	size       uint32
	sourceSTag uint32
	sourceTO   uint64
}

var layerTypeRDMAPRead = gopacket.RegisterLayerType(1744, gopacket.LayerTypeMetadata{Name: "RDMAPReadRequest"})

func (l *rdmapReadRequest) LayerType() gopacket.LayerType { return layerTypeRDMAPRead }

// SerializeTo prepends the header to b's payload.
func (l *rdmapReadRequest) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	out, err := b.PrependBytes(fabric.RDMAPReadRequestBytes)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(out[0:], l.sinkSTag)
	binary.BigEndian.PutUint64(out[4:], l.sinkTO)
	binary.BigEndian.PutUint32(out[12:], l.size)
	binary.BigEndian.PutUint32(out[16:], l.sourceSTag)
	binary.BigEndian.PutUint64(out[20:], l.sourceTO)
	return nil
}

// rdmapTerminate is RDMAP's Terminate message (RFC 5040 §4.8), the
// payload of its untagged DDP segment (queue 2), for the error lfsim
// models: a SEND that found no buffer (DDP's untagged error 2, "no
// buffer available", RFC 5041 §7.2), with the terminated segment's DDP
// header (its D bit) after its length:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	| Layer | EType |  Error Code   |M|D|R|        Reserved         |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|       DDP Segment Length      |                               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
//	~   Terminated DDP Header (18 bytes: the SEND's, untagged)      ~
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
type rdmapTerminate struct {
	segLen uint16    // the terminated segment's ULPDU length
	ddp    ddpHeader // the terminated segment's header
}

var layerTypeRDMAPTerm = gopacket.RegisterLayerType(1745, gopacket.LayerTypeMetadata{Name: "RDMAPTerminate"})

func (l *rdmapTerminate) LayerType() gopacket.LayerType { return layerTypeRDMAPTerm }

// Terminate's fields for DDP's untagged "no buffer available".
const (
	termLayerDDP       = 1
	termETypeUntagged  = 2
	termNoBuffer       = 2
	termHdrCtDDPHeader = 0x40 // D
)

// SerializeTo prepends the message to b's payload (empty).
func (l *rdmapTerminate) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if err := l.ddp.SerializeTo(b, opts); err != nil {
		return err
	}
	out, err := b.PrependBytes(4 + 2)
	if err != nil {
		return err
	}
	out[0], out[1], out[2], out[3] = termLayerDDP<<4|termETypeUntagged, termNoBuffer, termHdrCtDDPHeader, 0
	binary.BigEndian.PutUint16(out[4:], l.segLen)
	return nil
}
