package cm

import (
	"encoding/binary"
	"fmt"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
)

// The Communication Management MADs (IBTA vol. 1, ch. 12.6) as they go
// on the wire: a 256-byte MAD, the 24-byte common header (§13.4.2) then
// the message's 232 bytes, big-endian. The field offsets and widths are
// the spec's, as the Linux kernel spells them in
// include/rdma/ibta_vol1_c12.h; only the fields a connection over RoCE
// uses are written, the rest stay zero (the alternate path's fields too:
// lfsim's APM derives the alternate from the path index, hca/apm.go).

// MAD sizes in bytes.
const (
	madBytes       = 256
	madHeaderBytes = 24
	// madRecvBytes is one receive slot on QP1: a UD receive starts with
	// the 40-byte GRH space (IBTA 11.4.1.2), then the MAD.
	madRecvBytes = hca.GRHBytes + madBytes
	// cmPrivateREQ, REP, REJ, DREQ are the private data each carries
	// (IBTA table 99 and on); rdma_cm takes 36 bytes of the REQ's for
	// its own header (cmaHeaderBytes), leaving 56 to the application.
	cmPrivateREQ   = 92
	cmPrivateREP   = 196
	cmaHeaderBytes = 36
)

// The MAD header's fixed values for CM (§13.4.2, §16.7).
const (
	madBaseVersion   = 1
	madClassCM       = 0x07
	madClassVersion  = 2
	madMethodSend    = 0x03
	cmaVersion       = 0x00 // rdma_cm's private-data header version
	cmaIPv4          = 0x40 // its ip_version nibble, IPv4
	rdmaPSTCPService = 0x0000000001060000
)

// Attr is a CM message's attribute ID (IBTA table 97).
type Attr uint16

// The CM messages lfsim sends.
const (
	AttrREQ  Attr = 0x0010
	AttrMRA  Attr = 0x0011
	AttrREJ  Attr = 0x0012
	AttrREP  Attr = 0x0013
	AttrRTU  Attr = 0x0014
	AttrDREQ Attr = 0x0015
	AttrDREP Attr = 0x0016
	// SIDR: service ID resolution, rdma_cm's "connect" for UD QPs
	// (IBTA 12.11).
	AttrSIDRREQ Attr = 0x0017
	AttrSIDRREP Attr = 0x0018
)

func (a Attr) String() string {
	switch a {
	case AttrREQ:
		return "REQ"
	case AttrMRA:
		return "MRA"
	case AttrREJ:
		return "REJ"
	case AttrREP:
		return "REP"
	case AttrRTU:
		return "RTU"
	case AttrDREQ:
		return "DREQ"
	case AttrDREP:
		return "DREP"
	case AttrSIDRREQ:
		return "SIDR_REQ"
	case AttrSIDRREP:
		return "SIDR_REP"
	case saAttrPathRecord:
		return "PathRecord" // the SA's, on InfiniBand (sa.go)
	}
	return fmt.Sprintf("attr 0x%04x", uint16(a))
}

// RejectReason is a REJ's reason (IBTA table 112; the kernel's
// enum ib_cm_rej_reason).
type RejectReason uint16

// The reasons lfsim gives.
const (
	RejectTimeout           RejectReason = 1  // IB_CM_REJ_TIMEOUT
	RejectInvalidServiceID  RejectReason = 8  // IB_CM_REJ_INVALID_SERVICE_ID: no listener
	RejectStaleConn         RejectReason = 10 // IB_CM_REJ_STALE_CONN
	RejectConsumerRejection RejectReason = 28 // IB_CM_REJ_CONSUMER_DEFINED: the application refused
)

// cmMsg is one CM message, decoded: the fields lfsim reads.
type cmMsg struct {
	Attr       Attr
	TID        uint64
	LocalID    uint32     // the sender's communication ID
	RemoteID   uint32     // the receiver's, once known (0 in a REQ)
	ServiceID  uint64     // REQ
	QPN        uint32     // REQ, REP: the sender's QP; DREQ: the receiver's
	StartPSN   uint32     // REQ, REP
	RespRes    uint8      // REQ, REP: responder resources
	InitDepth  uint8      // REQ, REP: initiator depth
	QPType     hca.QPType // REQ: transport service type (RC or UC)
	RetryCount uint8      // REQ
	RNRRetry   uint8      // REQ, REP
	// Timeouts in the REQ, 4.096 µs × 2^n (§12.7.2).
	LocalTimeout, RemoteTimeout uint8
	MaxRetries                  uint8 // REQ: max CM retries
	AckTimeout                  uint8 // REQ: the primary path's local ACK timeout, likewise
	MTU                         int   // REQ: path MTU in bytes
	Reason                      RejectReason
	// SIDR_REP: the status (0: the QP is valid) and the QP's Q_Key.
	Status   uint8
	QKey     uint32
	Rejected uint8 // REJ: 0 REQ, 1 REP, 2 other (§12.6.7)
	// IB, on InfiniBand: the REQ's primary path names the ports by LID
	// (SLID, DLID: the path record's) and by their GIDs (fe80:: and the
	// GUID of SrcNode, DstNode), subnet-local, as the kernel fills it
	// from the path record; on RoCE by IPv4-mapped GIDs and the
	// permissive LID.
	IB               bool
	SL               uint8
	SLID, DLID       uint16
	SrcNode, DstNode fabric.NodeID
	// SrcIP, DstIP and Port are rdma_cm's header in a REQ's private data
	// (struct cma_hdr); Private the application's bytes after it.
	SrcIP, DstIP uint32
	Port         uint16
	Private      []byte
}

// mtuCode is the IBTA MTU enumeration (§9.7.1 / ibv_mtu): 1 = 256 ... 5 = 4096.
func mtuCode(mtu int) uint8 {
	for c, m := uint8(1), 256; c <= 5; c, m = c+1, m*2 {
		if m == mtu {
			return c
		}
	}
	return 5
}

// encode writes m as a 256-byte MAD into b.
func (m *cmMsg) encode(b []byte) {
	clear(b[:madBytes])
	b[0], b[1], b[2], b[3] = madBaseVersion, madClassCM, madClassVersion, madMethodSend
	binary.BigEndian.PutUint64(b[8:], m.TID)
	binary.BigEndian.PutUint16(b[16:], uint16(m.Attr))
	d := b[madHeaderBytes:madBytes]
	binary.BigEndian.PutUint32(d[0:], m.LocalID)
	switch m.Attr {
	case AttrREQ:
		binary.BigEndian.PutUint64(d[8:], m.ServiceID)
		put24(d[32:], m.QPN)
		d[35] = m.RespRes
		d[39] = m.InitDepth
		// Remote CM response timeout (5 bits), transport service type
		// (2: RC 0, UC 1), end-to-end flow control (1).
		ts := uint8(0)
		if m.QPType == hca.UC {
			ts = 1
		}
		d[43] = m.RemoteTimeout<<3 | ts<<1 | 1
		put24(d[44:], m.StartPSN)
		d[47] = m.LocalTimeout<<3 | m.RetryCount&7
		binary.BigEndian.PutUint16(d[48:], 0xffff) // P_Key: the default partition
		d[50] = mtuCode(m.MTU)<<4 | m.RNRRetry&7
		d[51] = m.MaxRetries << 4
		// The primary path: LIDs are 0xffff on RoCE (permissive), the
		// GIDs IPv4-mapped (::ffff:a.b.c.d), hop limit 64 (rdma_cm's
		// default for a routed RoCEv2 path), local ACK timeout the QP's.
		if m.IB {
			binary.BigEndian.PutUint16(d[52:], m.SLID)
			binary.BigEndian.PutUint16(d[54:], m.DLID)
			gid(d[56:], m.SrcNode)
			gid(d[72:], m.DstNode)
			d[94] = m.SL<<4 | 1<<3 // the path's SL; subnet local
		} else {
			binary.BigEndian.PutUint16(d[52:], 0xffff)
			binary.BigEndian.PutUint16(d[54:], 0xffff)
			putGID(d[56:], m.SrcIP)
			putGID(d[72:], m.DstIP)
			d[93] = 64
		}
		d[95] = m.AckTimeout << 3
		p := d[140 : 140+cmPrivateREQ]
		p[0], p[1] = cmaVersion, cmaIPv4
		binary.BigEndian.PutUint16(p[2:], m.Port)
		putMapped(p[4:], m.SrcIP)
		putMapped(p[20:], m.DstIP)
		copy(p[cmaHeaderBytes:], m.Private)
	case AttrREP:
		binary.BigEndian.PutUint32(d[4:], m.RemoteID)
		put24(d[12:], m.QPN)
		put24(d[20:], m.StartPSN)
		d[24], d[25] = m.RespRes, m.InitDepth
		d[26] = 1                   // end-to-end flow control
		d[27] = m.RNRRetry & 7 << 5 // SRQ 0
		copy(d[36:36+cmPrivateREP], m.Private)
	case AttrRTU, AttrDREP:
		binary.BigEndian.PutUint32(d[4:], m.RemoteID)
	case AttrREJ:
		binary.BigEndian.PutUint32(d[4:], m.RemoteID)
		d[8] = m.Rejected << 6
		binary.BigEndian.PutUint16(d[10:], uint16(m.Reason))
	case AttrDREQ:
		binary.BigEndian.PutUint32(d[4:], m.RemoteID)
		put24(d[8:], m.QPN)
	case AttrSIDRREQ:
		// Request ID (LocalID above), P_Key, service ID, private data
		// with rdma_cm's header (IBTA table 116).
		binary.BigEndian.PutUint16(d[4:], 0xffff)
		binary.BigEndian.PutUint64(d[8:], m.ServiceID)
		p := d[16:]
		p[0], p[1] = cmaVersion, cmaIPv4
		binary.BigEndian.PutUint16(p[2:], m.Port)
		putMapped(p[4:], m.SrcIP)
		putMapped(p[20:], m.DstIP)
		copy(p[cmaHeaderBytes:216], m.Private)
	case AttrSIDRREP:
		// Request ID, status, QPN, service ID, Q_Key (IBTA table 117).
		d[4] = m.Status
		put24(d[8:], m.QPN)
		binary.BigEndian.PutUint64(d[12:], m.ServiceID)
		binary.BigEndian.PutUint32(d[20:], m.QKey)
	}
}

// decodeCM reads a CM MAD; ok is false when b is not one (another
// management class, a short buffer).
func decodeCM(b []byte) (m cmMsg, ok bool) {
	if len(b) < madBytes || b[1] != madClassCM || b[3] != madMethodSend {
		return m, false
	}
	m.TID = binary.BigEndian.Uint64(b[8:])
	m.Attr = Attr(binary.BigEndian.Uint16(b[16:]))
	d := b[madHeaderBytes:madBytes]
	m.LocalID = binary.BigEndian.Uint32(d[0:])
	switch m.Attr {
	case AttrREQ:
		m.ServiceID = binary.BigEndian.Uint64(d[8:])
		m.QPN, m.RespRes = get24(d[32:]), d[35]
		m.InitDepth = d[39]
		m.RemoteTimeout = d[43] >> 3
		if d[43]>>1&3 == 1 {
			m.QPType = hca.UC
		}
		m.StartPSN = get24(d[44:])
		m.LocalTimeout, m.RetryCount = d[47]>>3, d[47]&7
		m.MTU = 128 << (d[50] >> 4)
		m.RNRRetry = d[50] & 7
		m.MaxRetries = d[51] >> 4
		p := d[140 : 140+cmPrivateREQ]
		m.Port = binary.BigEndian.Uint16(p[2:])
		m.SrcIP = binary.BigEndian.Uint32(p[16:])
		m.DstIP = binary.BigEndian.Uint32(p[32:])
		m.Private = append([]byte(nil), p[cmaHeaderBytes:]...)
	case AttrREP:
		m.RemoteID = binary.BigEndian.Uint32(d[4:])
		m.QPN, m.StartPSN = get24(d[12:]), get24(d[20:])
		m.RespRes, m.InitDepth = d[24], d[25]
		m.RNRRetry = d[27] >> 5
		m.Private = append([]byte(nil), d[36:36+cmPrivateREP]...)
	case AttrRTU, AttrDREP:
		m.RemoteID = binary.BigEndian.Uint32(d[4:])
	case AttrREJ:
		m.RemoteID = binary.BigEndian.Uint32(d[4:])
		m.Rejected = d[8] >> 6
		m.Reason = RejectReason(binary.BigEndian.Uint16(d[10:]))
	case AttrDREQ:
		m.RemoteID = binary.BigEndian.Uint32(d[4:])
		m.QPN = get24(d[8:])
	case AttrSIDRREQ:
		m.ServiceID = binary.BigEndian.Uint64(d[8:])
		p := d[16:]
		m.Port = binary.BigEndian.Uint16(p[2:])
		m.SrcIP = binary.BigEndian.Uint32(p[16:])
		m.DstIP = binary.BigEndian.Uint32(p[32:])
		m.Private = append([]byte(nil), p[cmaHeaderBytes:216]...)
	case AttrSIDRREP:
		m.Status = d[4]
		m.QPN = get24(d[8:])
		m.ServiceID = binary.BigEndian.Uint64(d[12:])
		m.QKey = binary.BigEndian.Uint32(d[20:])
	default:
		return m, false
	}
	return m, true
}

func put24(b []byte, v uint32) { b[0], b[1], b[2] = byte(v>>16), byte(v>>8), byte(v) }
func get24(b []byte) uint32    { return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]) }

// putGID writes an IPv4 address as the IPv4-mapped GID RoCEv2 uses
// (::ffff:a.b.c.d).
func putGID(b []byte, ip uint32) {
	clear(b[:16])
	b[10], b[11] = 0xff, 0xff
	binary.BigEndian.PutUint32(b[12:], ip)
}

// putMapped writes an IPv4 address as rdma_cm's cma_ip_addr holds it:
// twelve zero bytes, then the address.
func putMapped(b []byte, ip uint32) {
	clear(b[:16])
	binary.BigEndian.PutUint32(b[12:], ip)
}
