package cm

import (
	"encoding/binary"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// On InfiniBand, rdma_resolve_route asks the subnet administrator (the
// SA, part of the subnet manager, OpenSM) for a path record: a
// SubnAdmGet(PathRecord) MAD from the client's QP1 to the SA's QP1, and
// the SA's SubnAdmGetResp with the path (LIDs, SL, MTU, rate, packet
// lifetime) back. Only then does rdma_connect's REQ go. The SA runs on
// a host (OpenSM runs on one; subnet_manager.host), which handles the
// query in the CM's MADProcessing; a client on that host asks it
// without the wire. A query unanswered for the route timeout is not
// sent again: the connection fails with RDMA_CM_EVENT_ROUTE_ERROR.
// Address resolution (IPoIB's ARP) is taken as cached, as on RoCE.

// SubnetAdmin is where the SA is and what it answers with.
type SubnetAdmin struct {
	Node fabric.NodeID
	IP   uint32
	// LID is each host's base LID (fabric.LIDs.Of); Rate the path's
	// rate, which the record states.
	LID  func(fabric.NodeID) uint16
	Rate fabric.Rate
}

// ibRate is a rate's code in a path record (IBTA vol. 1, table 224; the
// kernel's enum ib_rate), 0 for a rate it has none for.
func ibRate(r fabric.Rate) uint8 {
	codes := map[fabric.Rate]uint8{10 * fabric.Gbps: 3, 25 * fabric.Gbps: 15, 40 * fabric.Gbps: 7, 50 * fabric.Gbps: 20,
		56 * fabric.Gbps: 12, 100 * fabric.Gbps: 16, 200 * fabric.Gbps: 17, 400 * fabric.Gbps: 21, 800 * fabric.Gbps: 23}
	return codes[r]
}

// SA MAD constants (IBTA vol. 1, 15.2: the SA class; 15.2.5.16: the
// PathRecord attribute).
const (
	madClassSA        = 0x03
	madMethodGet      = 0x01
	madMethodGetResp  = 0x81
	saAttrPathRecord  = 0x0035
	saHeaderBytes     = 56 // common MAD header 24, RMPP 12, SA header 20
	pathRecordBytes   = 64
	saPacketLifetime  = 18 // OpenSM's default subnet timeout-based packet life (osm_subn_opt: packet_life_time 0x12)
	routeTimeout      = 2000 * sim.Millisecond
	saComponentDGID   = 1 << 2
	saComponentSGID   = 1 << 3
	saComponentNumbPa = 1 << 11
)

// gid is a host's port GID: the default subnet prefix fe80::/64 and its
// GUID.
func gid(b []byte, n fabric.NodeID) {
	clear(b[:16])
	b[0], b[1] = 0xfe, 0x80
	binary.BigEndian.PutUint64(b[8:], fabric.GUID(n))
}

// saMAD writes an SA MAD: Get of the path from src to dst, or (resp) its
// GetResp with the path record.
func saMAD(b []byte, tid uint64, resp bool, src, dst fabric.NodeID, sa *SubnetAdmin, mtu int) {
	clear(b[:madBytes])
	b[0], b[1], b[2], b[3] = madBaseVersion, madClassSA, madClassVersion, madMethodGet
	if resp {
		b[3] = madMethodGetResp
	}
	binary.BigEndian.PutUint64(b[8:], tid)
	binary.BigEndian.PutUint16(b[16:], saAttrPathRecord)
	binary.BigEndian.PutUint16(b[44:], pathRecordBytes/8) // AttributeOffset, in 8-byte words
	binary.BigEndian.PutUint64(b[48:], saComponentDGID|saComponentSGID|saComponentNumbPa)
	p := b[saHeaderBytes : saHeaderBytes+pathRecordBytes]
	gid(p[8:], dst)
	gid(p[24:], src)
	p[49] = 1 // NumbPath (reversible 0): one path
	if resp {
		binary.BigEndian.PutUint16(p[40:], sa.LID(dst))
		binary.BigEndian.PutUint16(p[42:], sa.LID(src))
		p[49] = 0x80 | 1                           // reversible, one path
		binary.BigEndian.PutUint16(p[50:], 0xffff) // P_Key
		p[54] = 2<<6 | mtuCode(mtu)                // exactly this MTU
		p[55] = 2<<6 | ibRate(sa.Rate)
		p[56] = 2<<6 | saPacketLifetime
	}
}

// saQuery is a path query in flight: the connection it is for and what
// comes after it.
type saQuery struct {
	c     *Conn
	then  func()
	timer sim.Timer
}

// resolveRoute asks the SA for the path to c's peer, then runs then; on
// Ethernet (no SA) it runs then at once.
func (cm *Manager) resolveRoute(c *Conn, then func()) {
	sa := cm.sa
	if sa == nil {
		c.event(EventRouteResolved)
		then()
		return
	}
	done := func() {
		c.event(EventRouteResolved)
		then()
	}
	if sa.Node == cm.h.ID {
		cm.process(done) // the SA on this host: asked without the wire
		return
	}
	cm.nextTID++
	tid := uint64(cm.hiTID)<<32 | uint64(cm.nextTID)
	q := &saQuery{c: c, then: done}
	if cm.queries == nil {
		cm.queries = map[uint64]*saQuery{}
	}
	cm.queries[tid] = q
	var b [madBytes]byte
	saMAD(b[:], tid, false, cm.h.ID, c.Peer, sa, cm.h.Prof.MTU)
	c.MADs++
	cm.enqueue(b, cmDest{sa.Node, sa.IP})
	q.timer = cm.eng.Schedule(cm.eng.Now()+routeTimeout, cm, cmRun, 0, func() {
		if cm.queries[tid] == q {
			delete(cm.queries, tid)
			c.close()
			c.event(EventRouteError)
		}
	})
}

// saReceived handles an SA MAD: at the SA host a Get, answered; at a
// client its GetResp.
func (cm *Manager) saReceived(b []byte, from cmDest) {
	tid := binary.BigEndian.Uint64(b[8:])
	sa := cm.sa
	if sa == nil || binary.BigEndian.Uint16(b[16:]) != saAttrPathRecord {
		cm.Dropped++
		return
	}
	switch b[3] {
	case madMethodGet:
		if sa.Node != cm.h.ID {
			cm.Dropped++
			return
		}
		p := b[saHeaderBytes:]
		src, dst := guidNode(p[24:]), guidNode(p[8:])
		cm.process(func() {
			var r [madBytes]byte
			saMAD(r[:], tid, true, src, dst, sa, cm.h.Prof.MTU)
			cm.enqueue(r, from)
		})
	case madMethodGetResp:
		q := cm.queries[tid]
		if q == nil {
			cm.Dropped++
			return
		}
		delete(cm.queries, tid)
		cm.eng.Cancel(q.timer)
		cm.process(q.then)
	default:
		cm.Dropped++
	}
}

// guidNode is the node whose GID b holds (fabric.GUID's inverse).
func guidNode(b []byte) fabric.NodeID {
	return fabric.NodeID(binary.BigEndian.Uint64(b[8:])&0xffffffff) - 1
}
