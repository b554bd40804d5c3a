package hca

import (
	"slices"

	"github.com/lfsim/lfsim/fabric"
)

// A dual-port HCA (InfiniBand). The HCA's second port is a node of its
// own in the topology (fabric.Topology.AddSecondPort), with its own LIDs
// and routes: a packet addressed to it arrives on that port, and a packet
// sent from it carries its node as the source. A QP sends from one port
// at a time (QP.port2); the port's control packets (ACKs, NAKs, CNPs)
// wait in their own queue (hcaCold.ctrl2), and a responder answers from
// the port the request came to (local).
//
// Automatic path migration (apm.go) on a dual-port HCA moves a QP to its
// other port, and to the peer's other port if the peer has two, as an
// alternate path with its own port number (ibv_qp_attr.alt_port_num)
// does: so that APM survives the failure of a host's own link, which a
// second LID on the same port cannot. The HCA knows when its own port
// goes down (PortChanged): its armed QPs on that port migrate at once,
// and resend from their oldest unacknowledged packet, rather than wait
// for retry_cnt timeouts. A responder follows its requester: a request
// that comes from another port of the peer, or to the HCA's other port,
// moves the responder's QP to that path (IBTA vol. 1, 17.2.8: a
// responder migrates when a request arrives on its alternate path),
// raising IBV_EVENT_PATH_MIG if its alternate path was armed.

// PortMap says which hosts have a second port: what a fabric.Topology
// answers (SecondPort, Owner).
type PortMap interface {
	SecondPort(h fabric.NodeID) (fabric.NodeID, bool)
	Owner(n fabric.NodeID) fabric.NodeID
}

var _ PortMap = (*fabric.Topology)(nil)

// AddPort gives the HCA its second port, port, whose node is id.
func (h *HCA) AddPort(port *fabric.Port, id fabric.NodeID) {
	c := h.coldPart()
	c.port2, c.id2 = port, id
	port.SetOwner(h)
}

// Port2 returns the HCA's second port, or nil.
func (h *HCA) Port2() *fabric.Port {
	if h.cold == nil {
		return nil
	}
	return h.cold.port2
}

// SetPortMap tells the HCA which hosts have a second port, for its QPs'
// alternate paths to them, and whether every host has a second LID
// (lidPaths: LMC at least 1).
func (h *HCA) SetPortMap(m PortMap, lidPaths bool) {
	c := h.coldPart()
	c.ports, c.lidPaths = m, lidPaths
}

// hasAlternate reports whether qp has an alternate path to migrate to: a
// second LID of its peer (LMC at least 1), or a second port at either
// end. Where no host has two ports the loader allows APM only with LMC
// at least 1, so every QP has one.
func (h *HCA) hasAlternate(qp *QP) bool {
	c := h.cold
	if c == nil || c.ports == nil || c.lidPaths || c.port2 != nil {
		return true
	}
	_, ok := h.otherPort(qp.Remote)
	return ok
}

// isPort2 reports whether node n is this HCA's second port (its own
// node, the common case, answers first without the cold part).
func (h *HCA) isPort2(n fabric.NodeID) bool {
	return n != h.ID && h.cold != nil && h.cold.port2 != nil && n == h.cold.id2
}

// local returns the node an answer to req comes from: the port it came
// to (the HCA's own node for a multicast request).
func (h *HCA) local(req *fabric.Packet) fabric.NodeID {
	if h.isPort2(req.Dst) {
		return req.Dst
	}
	return h.ID
}

// pushCtrl queues a control packet on the port it goes from (its
// source) and kicks that port.
func (h *HCA) pushCtrl(p *fabric.Packet) {
	if h.isPort2(p.Src) {
		h.cold.ctrl2.Push(p)
		h.cold.port2.Kick()
		return
	}
	h.ctrl.Push(p)
	h.port.Kick()
}

// kick asks the HCA's ports to look for work.
func (h *HCA) kick() {
	h.port.Kick()
	if h.cold != nil && h.cold.port2 != nil {
		h.cold.port2.Kick()
	}
}

// otherPort returns the other port of the host whose port n is, and
// whether it has one.
func (h *HCA) otherPort(n fabric.NodeID) (fabric.NodeID, bool) {
	if h.cold == nil || h.cold.ports == nil {
		return n, false
	}
	m := h.cold.ports
	if o := m.Owner(n); o != n {
		return o, true
	}
	return m.SecondPort(n)
}

// switchPorts moves qp to its HCA's other port, if it has one, and to
// its peer's other port, if the peer has one.
func (h *HCA) switchPorts(qp *QP) {
	if h.cold == nil {
		return
	}
	if h.cold.port2 != nil {
		h.unpark(qp)
		qp.port2 = !qp.port2
	}
	if o, ok := h.otherPort(qp.Remote); ok {
		qp.Remote = o
	}
}

// migrateOff migrates, as its port goes down, every QP on it (port 2 if
// second) whose alternate path is armed and on the other port, and
// resends what each has outstanding.
func (h *HCA) migrateOff(second bool) {
	if h.cold == nil || h.cold.port2 == nil {
		return // one port: no alternate to move to until retries run out
	}
	qpns := make([]uint32, 0, len(h.qps))
	for n, qp := range h.qps {
		if qp.port2 == second && qp.apm && !qp.Migrated && qp.Type == RC && qp.State == QPRTS {
			qpns = append(qpns, n)
		}
	}
	slices.Sort(qpns) // in QP order: events and resends never follow map order
	for _, n := range qpns {
		qp := h.qps[n]
		h.migrate(qp)
		if qp.una < qp.nextPSN {
			if h.Prof.Retransmit == Selective {
				h.srTimeout(qp)
			} else {
				h.rewind(qp, qp.una)
			}
			h.armTimer(qp)
		}
		h.activate(h.touched(qp)) // (touched: its RCCC count, creditwait.go)
	}
}

// followPath moves a responder's QP to the path a request came by: from
// another port of its peer, or to this HCA's other port, once (a request
// of the old path that arrives late does not pull it back). Without an
// armed alternate path nothing is raised, as the single-port model
// raises nothing when a responder answers on a request's other path
// index.
func (h *HCA) followPath(qp *QP, p *fabric.Packet) {
	if qp.Type == UD || qp.Migrated || fabric.IsMulticast(p.Dst) {
		return // a QP moves once: late requests on the old path do not pull it back
	}
	if p.Src != qp.Remote {
		if o, ok := h.otherPort(qp.Remote); !ok || o != p.Src {
			return // not the peer (a stray packet): nothing to follow
		}
		qp.Remote = p.Src
	}
	h.unpark(qp)
	qp.port2 = p.Dst != h.ID
	qp.Migrated = true
	if qp.apm {
		h.asyncEvent(AsyncEvent{Type: EventPathMig, QP: qp})
	}
	h.activate(qp)
}
