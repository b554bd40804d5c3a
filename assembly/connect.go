package assembly

import (
	"encoding/binary"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// Flows with connect: cm. The source's application calls rdma_connect at
// the flow's start, with the flow's id in the REQ's private data; the
// destination's application listens on FlowPort and accepts a request
// with the flow's responder QP, as a server that learns from the
// private data which of its buffers a client wants. The work requests go
// when the source sees ESTABLISHED; the flow's time runs from its start,
// so its FCT includes the set-up (flows.csv's connect_ns says how much).
// A connection that fails (rejected, or unreachable after the CM's
// retries, or its path query to the SA on InfiniBand) ends the flow with
// cm_rejected, cm_unreachable, cm_connect_error or cm_route_error, its
// bytes never sent. When the flow completes, its
// source disconnects (DREQ, DREP; on iWARP FIN, FIN-ACK and the last
// ACK, closeOnFIN).

// connectFlow starts fr's connection.
func (n *Network) connectFlow(fr *FlowRun, src, dst *hca.HCA, wrs []hca.SendWR) {
	n.listenForFlows(dst)
	var private [4]byte
	binary.BigEndian.PutUint32(private[:], uint32(fr.Flow.ID))
	l := fr.Live
	conn, err := cm.Of(src).Connect(l.Requester, cm.ConnectParams{Dest: dst.ID, DestIP: dst.IP, Port: resolve.FlowPort,
		Private: private[:], At: fr.Flow.Start,
		OnEvent: func(c *cm.Conn, e cm.Event) {
			switch e {
			case cm.EventEstablished:
				fr.connectedAt = c.Established
				if l := fr.Live; l != nil && l.Requester != nil {
					for i := range wrs {
						if wrs[i].AH != nil { // UD: where SIDR_REP said the peer's QP is
							wrs[i].RemoteQPN, wrs[i].RemoteQKey = c.RemoteQPN, c.RemoteQKey
						}
					}
					for _, chain := range chains(wrs, fr.Flow.PostList) {
						w, err := src.PostSendList(l.Requester, chain)
						if err != nil {
							panic(err) // the loader keeps a flow's parts within the send queue
						}
						l.WQEs = append(l.WQEs, w...)
					}
				}
			case cm.EventRejected, cm.EventUnreachable, cm.EventConnectError, cm.EventRouteError:
				n.connectFailed(fr, e)
			}
		}})
	if err != nil {
		panic(err) // Connect refuses only a QP in use; startFlow made these
	}
	l.conn = conn
}

// listenForFlows starts h's listener for the flows into it, once.
func (n *Network) listenForFlows(h *hca.HCA) {
	if n.dyn.listening == nil {
		n.dyn.listening = map[*hca.HCA]bool{}
	}
	if n.dyn.listening[h] {
		return
	}
	n.dyn.listening[h] = true
	err := cm.Of(h).Listen(&cm.Listener{Port: resolve.FlowPort, OnRequest: func(c *cm.Conn, private []byte) *hca.QP {
		// The flow's responder QP, among those open at this host (its
		// own map: a run cut into partitions may be closing the flow's
		// requester on another worker meanwhile). A search for the one
		// match: the map's order does not matter.
		id := int(binary.BigEndian.Uint32(private))
		for qp, fr := range n.dyn.resps[h.ID] {
			if fr.Flow.ID == id {
				n.closeOnFIN(h, c, fr)
				return qp
			}
		}
		return nil // rdma_reject: no such flow here (any longer)
	}})
	if err != nil {
		// Another listener has the port (checkListeners refuses that in
		// a scenario): the flows' REQs go to it, and it refuses them.
		return
	}
}

// closeOnFIN has the responder of fr close when its connection c, on an
// iWARP NIC h, is DISCONNECTED: the requester's FIN came (closeRequester
// sends nothing out of band on iWARP).
func (n *Network) closeOnFIN(h *hca.HCA, c *cm.Conn, fr *FlowRun) {
	if h.Prof.Transport != fabric.IWARP {
		return
	}
	c.OnEvent = func(_ *cm.Conn, e cm.Event) {
		if e == cm.EventDisconnected {
			n.closeResponder(fr)
		}
	}
}

// cmStatus is how flows.csv names a failed connection.
var cmStatus = map[cm.Event]string{cm.EventRejected: "cm_rejected", cm.EventUnreachable: "cm_unreachable",
	cm.EventConnectError: "cm_connect_error", cm.EventRouteError: "cm_route_error"}

// connectFailed ends fr: its connection failed, nothing was sent.
func (n *Network) connectFailed(fr *FlowRun, e cm.Event) {
	if fr.requesterClosed {
		return
	}
	fr.Live.conn = nil
	n.closeRequester(fr)
	fr.cmFail = cmStatus[e]
	fr.status, fr.done = hca.WCFlushed, n.HCAs[fr.Flow.Src].Engine().Now() // its host's clock: in a Group, n.Eng is one partition's
	n.maybeDone(fr)
}

// connections sums up the rdma_cm connections the hosts started (flows
// with connect: cm, and the programs that connect with rdma_cm); nil
// when none did.
func (n *Network) connections() *reports.Connections {
	var c reports.Connections
	var a cm.ActiveStats
	first := true
	for _, h := range n.HCAs {
		if h == nil {
			continue // a switch
		}
		m := cm.Existing(h)
		if m == nil {
			continue
		}
		for _, k := range m.Sent {
			c.MADs += k
		}
		c.MADsResent += m.Retransmitted
		x := m.Active
		if x.Requested == 0 {
			continue
		}
		if first || x.FirstStart < a.FirstStart {
			a.FirstStart = x.FirstStart
		}
		first = false
		a.Requested += x.Requested
		a.Established += x.Established
		a.Failed += x.Failed
		a.SetupSum += x.SetupSum
		a.SetupMax = max(a.SetupMax, x.SetupMax)
		a.LastEstablished = max(a.LastEstablished, x.LastEstablished)
	}
	if a.Requested == 0 {
		return nil
	}
	c.Requested, c.Established, c.Failed = a.Requested, a.Established, a.Failed
	if a.Established > 0 {
		c.SetupMeanNs = (a.SetupSum / sim.Time(a.Established)).Nanoseconds()
		c.SetupMaxNs = a.SetupMax.Nanoseconds()
		c.TotalNs = (a.LastEstablished - a.FirstStart).Nanoseconds()
	}
	return &c
}
