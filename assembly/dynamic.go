package assembly

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// Flows that start during the run: flows that wait for others to arrive
// (Flow.After, as ring_allreduce's steps do) and the flows of poisson
// generators, made lazily by one engine event per host so that a long
// run never holds more than one pending arrival per host.
//
// Both stay local (DESIGN.md, rule 2): a flow waits only for flows into
// its own source, and learns of their arrival from its own HCA (the data
// landing in memory, or the receive completion); a poisson source is an
// event of its own host. What a waiting flow's start does at its
// responder's host is done there, a lookahead later (responderResv).

// dynamic is the Network's bookkeeping for flows that start late, and
// for flows that end: the maps hold the flows whose QPs exist (lookups
// only, never iterated).
type dynamic struct {
	// By node id, each host's: requester QP -> flow, for completions;
	// responder QP -> flow, for arrivals. One map per host, so that a
	// partition (a worker's nodes) only touches its own.
	reqs       []map[*hca.QP]*FlowRun
	resps      []map[*hca.QP]*FlowRun
	waiting    []int32 // by flow id: flows in After not yet arrived
	dependents [][]int // by flow id: flows whose After lists it
	unstarted  int     // flows that wait for others (partState.started counts those started)
	sources    int     // poisson sources with an arrival to come
	capped     bool    // a poisson source stopped at the flow limit
	closer     *closer
	listening  map[*hca.HCA]bool // hosts whose flows' listener is up (connect.go; lookups only)
	poisson    []*poissonSource  // in a run with a lookahead: every source, generator by generator
	settle     []*FlowRun        // settleDatagrams' flows, kept for the next point
}

// partState is what the runner counts of a partition's hosts (one, unless
// the run is cut: BuildWorkers), summed at a barrier or at the end.
type partState struct {
	wcs [16]hca.WC // what the runner polls its CQs into
	// completions counts the flows' send work completions by status.
	completions [16]int64
	completed   int  // flows complete (maybeDone)
	started     int  // flows that waited for others, started (arrived)
	polled      bool // an event met what may be the stop condition (poll)
	// datagrams are the UC and UD flows whose requester or responder
	// noted them for the next point (settleDatagrams).
	datagrams []*FlowRun
	// collCalls counts the collectives' calls its ranks finished.
	collCalls int
	// jobIters counts the jobs' ranks' iterations finished.
	jobIters int
	// finished are the flows whose sides have both closed, for the next
	// point to let go (retire), when the run streams its flows.
	finished []*FlowRun
}

// part returns the runner's counts for node id's partition.
func (n *Network) part(id fabric.NodeID) *partState { return &n.parts[n.Fabric.Partition(id)] }

// buildFlows makes a FlowRun per flow of the scenario, in id order: flows
// without After get their QPs and post their work request now (at their
// start); the others wait. Then it starts the poisson sources.
func (n *Network) buildFlows() error {
	s := n.Scenario
	n.dyn.closer = &closer{n: n}
	n.dyn.reqs = make([]map[*hca.QP]*FlowRun, len(s.Topology.Nodes))
	n.dyn.resps = make([]map[*hca.QP]*FlowRun, len(s.Topology.Nodes))
	for h, hc := range n.HCAs {
		if hc != nil { // a host's, or a VPI host's port on its other fabric
			n.dyn.reqs[h], n.dyn.resps[h] = map[*hca.QP]*FlowRun{}, map[*hca.QP]*FlowRun{}
		}
	}
	n.dyn.waiting = make([]int32, len(s.Flows))
	n.dyn.dependents = make([][]int, len(s.Flows))
	n.ledger.init(len(n.Fabric.Pools), n.windowed)
	for i, pool := range n.Fabric.Pools {
		eng := n.Eng
		if n.Group != nil {
			eng = n.Group.Engine(i)
		}
		n.ledger.attach(pool, i, eng.Now)
	}
	n.ledger.onLost = n.datagramProgress
	for _, f := range s.Flows {
		if n.HCAs[f.Src] == nil || n.HCAs[f.Dst] == nil {
			return fmt.Errorf("flow %d: %s -> %s is not between two hosts", f.ID, s.Topology.Nodes[f.Src].Name, s.Topology.Nodes[f.Dst].Name)
		}
		for _, d := range f.After {
			if d < 0 || d >= f.ID || s.Flows[d].Dst != f.Src {
				return fmt.Errorf("flow %d: waits for flow %d, which is not an earlier flow into its source", f.ID, d)
			}
			n.dyn.dependents[d] = append(n.dyn.dependents[d], f.ID)
		}
		fr := &FlowRun{Flow: f}
		n.Flows = append(n.Flows, fr)
		if len(f.After) > 0 {
			n.dyn.waiting[f.ID] = int32(len(f.After))
			n.dyn.unstarted++
			if n.reservesResponder(f) {
				fr.resv = reserveResponder(n.HCAs[f.Dst], f)
				if f.CM {
					n.listenForFlows(n.HCAs[f.Dst]) // now, not from the source's worker at the start
				}
				if f.QP != "rc" {
					// The byte ledger finds a datagram flow by its
					// requester QP, from any worker: it is entered now.
					fr.resv.requester = n.HCAs[f.Src].ReserveQPN()
					n.ledger.add(fr, f.Src, fr.resv.requester)
				}
			}
			continue
		}
		n.startFlowRun(fr, f.Start)
	}
	for _, h := range n.HCAs {
		if h == nil {
			continue
		}
		reqs, resps, ps := n.dyn.reqs[h.ID], n.dyn.resps[h.ID], n.part(h.ID)
		h.OnComplete = func(qp *hca.QP, w *hca.WQE) {
			fr := reqs[qp]
			if fr != nil {
				ps.completions[w.Status]++
			}
			if fr != nil && w == fr.Live.WQEs[len(fr.Live.WQEs)-1] {
				if fr.Flow.Op == "read" || fr.Flow.Op == "atomic" {
					n.arrived(fr) // the data is at the requester
				}
				n.closeRequester(fr)
				n.maybeDone(fr)
			}
		}
		h.OnWrite = func(qp *hca.QP, _ *hca.MR, _ uint64, _ int64) {
			if fr := resps[qp]; fr != nil && fr.delivered() >= fr.Flow.Size {
				n.responderArrived(fr)
			}
		}
		h.OnRecv = func(qp *hca.QP, _ hca.WC) {
			if fr := resps[qp]; fr != nil && fr.delivered() >= fr.Flow.Size {
				n.responderArrived(fr)
			}
		}
		h.OnUCPacket = func(qp *hca.QP) {
			if fr := resps[qp]; fr != nil {
				n.datagramProgress(fr)
			}
		}
	}
	for gi := range s.Poisson {
		g := &s.Poisson[gi]
		for _, h := range g.Hosts {
			n.dyn.poisson = append(n.dyn.poisson, n.startPoisson(g, h))
		}
	}
	return nil
}

// startFlowRun makes the flow's QP pair and posts its work request at at.
// A flow whose responder was reserved (a flow that waits for others, in
// a run with a lookahead) makes its requester's side alone, and its
// responder's side is made at the responder's host a lookahead later
// (openResponder).
func (n *Network) startFlowRun(fr *FlowRun, at sim.Time) {
	fr.Flow.Start = at
	src, dst := n.HCAs[fr.Flow.Src], n.HCAs[fr.Flow.Dst]
	l := &FlowLive{}
	fr.Live = l
	var wrs []hca.SendWR
	if r := fr.resv; r != nil {
		t := qpType(fr.Flow.QP)
		if t == hca.RC {
			l.Requester = src.CreateTypedQP(t)
		} else {
			l.Requester = src.CreateTypedQPNumbered(t, r.requester) // in the ledger since the build
		}
		if t != hca.UD && !fr.Flow.CM { // with rdma_cm, the CM connects it
			src.Connect(l.Requester, dst.ID, dst.IP, r.qpn)
		}
		l.Requester.Priority, l.Requester.SL = fr.Flow.Priority, fr.Flow.SL
		wrs, r.recvs = flowWork(src, dst, fr.Flow, r.addr, r.rkey, r.qpn, dst.Prof.QKey)
		r.requester = l.Requester.QPN
		e := src.Engine()
		e.HandOverEvent(dst.Engine(), e.Lookahead(), openKey(fr.Flow.Src), n.dyn.closer, openResponder, 0, fr)
	} else {
		l.Requester, l.Responder, l.mr, wrs = startFlow(src, dst, fr.Flow)
	}
	if fr.Flow.CM {
		n.connectFlow(fr, src, dst, wrs)
	} else {
		for _, chain := range chains(wrs, fr.Flow.PostList) {
			if len(chain) == 1 {
				l.WQEs = append(l.WQEs, src.PostSendAt(l.Requester, chain[0], fr.Flow.Start))
			} else {
				l.WQEs = append(l.WQEs, src.PostSendListAt(l.Requester, chain, fr.Flow.Start)...)
			}
		}
	}
	fr.wrs, fr.started = int32(len(wrs)), true
	path := n.pathOf(fr.Flow, l.Requester)
	mtu := src.Prof.MTU
	if fr.Flow.QP != "ud" {
		mtu = min(mtu, dst.Prof.MTU) // the connected QP's path MTU (setPeerMTU)
	}
	if fr.Flow.QP == "rc" {
		t := n.Scenario.Topology
		l.closeDelay = path.oneWayDelay(t.Links[t.Nodes[fr.Flow.Src].Ports[0].Link].Delay)
	}
	n.startCC(fr, src, path)
	// After startCC, which sets the requester QP's INT (HPCC) that its
	// packets and their ACKs carry.
	maxMsg := min(src.Prof.MaxMsgSize, dst.Prof.MaxMsgSize)
	fr.Ideal = path.idealFCT(fr.Flow, int64(mtu), maxMsg, nicsOf(fr.Flow, src, dst), l.Requester.INT && fr.Flow.Op != "read")
	n.dyn.reqs[fr.Flow.Src][l.Requester] = fr
	if fr.Flow.QP != "rc" && fr.resv == nil {
		n.ledger.add(fr, src.ID, l.Requester.QPN)
	}
	n.pollCQ(src)
	if fr.resv == nil {
		n.dyn.resps[fr.Flow.Dst][l.Responder] = fr
		n.pollCQ(dst)
	}
}

// A flow that waits for others starts at its source, when the data it
// waits for has arrived there (arrived); its responder is another host,
// which may be another partition's. So that the start stays in the
// source's partition, the responder's QP number and region are reserved
// at the responder when the network is built (reserveResponder), the
// requester posts to them, and the responder's application makes its
// side a lookahead later, in an event handed over to its host
// (openResponder), as the requester's close reaches it: before the
// first packet, which crosses two links at least. (A real application
// would have told its peer its QP and region the same way.) A UC or UD
// flow's requester QP number is reserved at its source too, and the
// flow entered in the byte ledger then, which every worker reads (a
// drop anywhere is found by the requester's QP). With rdma_cm, the
// responder's listener is up from the build, and the REQ (two links at
// least) finds the responder made. Not READs (whose data's sender, and
// its congestion control, is the responder), and only in a run with a
// lookahead: the others start both sides at once, and run on one worker.
type responderResv struct {
	qpn       uint32  // the responder's QP number
	region            // the region's PD, length and access
	addr      uint64  // the region's
	key       uint32  // the region's
	rkey      uint32  // the R_Key the requester uses (a bad one, for remote_mr: {bad_rkey: true})
	requester uint32  // the requester's QP number: reserved at build for UC and UD, else once it starts
	recvs     []int64 // the RECVs to post, once it starts
}

// reservesResponder reports whether flow f, which waits for others,
// has its responder reserved (responderResv).
func (n *Network) reservesResponder(f resolve.Flow) bool {
	return n.windowed && f.Op != "read"
}

// reserveResponder reserves flow f's responder QP number and region at
// dst, the region as remoteRegion would register it.
func reserveResponder(dst *hca.HCA, f resolve.Flow) *responderResv {
	r := &responderResv{qpn: dst.ReserveQPN(), region: regionOf(dst, f)}
	r.addr, r.key = dst.ReserveMR(r.length)
	r.rkey = r.region.rkey(r.key)
	return r
}

// openResponder makes a reserved flow's responder side at its host: the
// QP with the reserved number, connected to the requester's, the region,
// the RECVs.
func (n *Network) openResponder(fr *FlowRun) {
	if fr.responderClosed || fr.Live == nil {
		return // the flow ended before its responder's side was made (closeResponder)
	}
	r, f := fr.resv, fr.Flow
	src, dst := n.HCAs[f.Src], n.HCAs[f.Dst]
	t := qpType(f.QP)
	rs := dst.CreateTypedQPNumbered(t, r.qpn)
	if t != hca.UD && !f.CM { // with rdma_cm, the listener hands it to the CM (listenForFlows)
		dst.Accept(rs, src.ID, src.IP, r.requester)
	}
	rs.Priority, rs.SL = f.Priority, f.SL
	fr.Live.Responder, fr.Live.mr = rs, dst.RegReservedMR(r.pd, r.addr, r.key, r.length, r.access)
	postRecvs(dst, rs, f, r.recvs)
	r.recvs = nil
	n.dyn.resps[f.Dst][rs] = fr
	n.pollCQ(dst)
}

// openKey orders a responder's opening among the arrivals at its host due
// at the same time (sim.Engine.HandOverEvent): above every port's number
// and every close, by the requester's host.
func openKey(src fabric.NodeID) uint32 { return 1<<31 | 1<<30 | uint32(src) }

// pollCQ has the runner poll h's default CQ (that of the flows' QPs) as
// completions arrive, as an application does; nothing reads them (the
// runner learns of completions from the HCA's callbacks), but unpolled
// they would pile up, one per flow.
func (n *Network) pollCQ(h *hca.HCA) {
	if cq := h.DefaultCQ(); cq.OnEvent == nil {
		wcs := n.part(h.ID).wcs[:]
		cq.OnEvent = func(cq *hca.CQ) {
			for cq.PollInto(wcs) > 0 {
			}
		}
	}
}

// Ending a flow (DESIGN.md rule 2 holds: each side is closed by its own
// host's application, in an event of that host). The requester closes
// when its last work request completes: it destroys its QP. Its
// application then tells the responder's, out of band, as a connection
// manager's disconnect does; the responder closes when that arrives,
// FlowLive.closeDelay (the path's one-way propagation and switch
// latency, the least any message takes) after the completion: it
// destroys its QP and deregisters the flow's region. Not earlier: an RC
// responder must answer duplicate requests (a retransmission after a
// lost or late ACK) for as long as the requester may send them, and only
// the requester's completion says it will not. Duplicates still on their
// way when the responder closes, and ACKs or CNPs that reach a closed
// requester, are dropped by the NIC (hca.Stats.ClosedQPDrops).
//
// With connect: cm on iWARP the close is not out of band: the
// requester's rdma_disconnect sends a FIN (its connection outlives the
// QP until the peer's FIN is acknowledged, hca's iwDestroyed), and the
// responder closes when rdma_cm raises DISCONNECTED for that FIN, whose
// NIC answers it with its own (iw_cxgb4's peer_close), as rping's server
// does (closeOnFIN). A FIN that never comes leaves the responder open.
//
// UC and UD have no ACKs: their requests complete when sent, possibly
// before the data lands. Their responder closes when the flow's data has
// arrived (the arrival the flows waiting for it use); a message lost on
// the way leaves it open until the end of the run.

// closeRequester records the flow's outcome and destroys its requester
// QP; for RC it sends the close to the responder.
func (n *Network) closeRequester(fr *FlowRun) {
	if fr.requesterClosed {
		return
	}
	l := fr.Live
	fr.status, fr.done, fr.retransmits = fr.sendOutcome()
	fr.readDelivered = l.Requester.ReadDelivered
	if fr.Flow.Op == "read" && n.balanced {
		fr.order = orderOf(l.Requester)
	}
	fr.requesterClosed = true
	if n.settlesDatagrams(fr) {
		// Whether the responder has closed, and whether the flow is
		// done, are the responder's side's: looked at the next point.
		n.noteDatagram(fr.Flow.Src, fr)
	}
	// On iWARP the close is TCP's: the responder's application hears of
	// it as rdma_cm's DISCONNECTED, when the FIN comes (closeOnFIN).
	finCloses := l.conn != nil && n.HCAs[fr.Flow.Src].Prof.Transport == fabric.IWARP
	if l.conn != nil {
		l.conn.Disconnect()
		l.conn = nil
	}
	if err := n.HCAs[fr.Flow.Src].DestroyQP(l.Requester); err != nil {
		panic(err) // the runner destroys each QP once
	}
	delete(n.dyn.reqs[fr.Flow.Src], l.Requester)
	l.Requester, l.WQEs, l.CC = nil, nil, nil
	switch {
	case n.settlesDatagrams(fr):
	case l.Responder == nil && fr.resv == nil:
		fr.Live = nil
		n.finished(fr, fr.Flow.Src)
	case fr.Flow.QP == "rc" && !finCloses:
		// A reserved responder may not be open yet: the close, handed
		// over after the opening or at its time with a lower key, finds
		// it made or tells it not to be (closeResponder).
		// Out of band, from the requester's host to the responder's: an
		// event handed over, as a frame is (sim.Engine.HandOverEvent),
		// ordered among the responder's arrivals by its sender's host.
		src, dst := n.HCAs[fr.Flow.Src].Engine(), n.HCAs[fr.Flow.Dst].Engine()
		src.HandOverEvent(dst, max(l.closeDelay, src.Lookahead()), closeKey(fr.Flow.Src), n.dyn.closer, 0, 0, fr)
	}
}

// responderArrived is called at the responder when the flow's data has
// arrived.
func (n *Network) responderArrived(fr *FlowRun) {
	n.arrived(fr)
	if fr.Flow.QP != "rc" {
		n.datagramProgress(fr)
		n.closeResponder(fr)
	}
}

// maybeDone counts fr complete (Network.completed) once its requester has
// closed and, for UC and UD, unless a request failed, once every byte has
// been delivered or lost; the run may then stop (flows-done).
func (n *Network) maybeDone(fr *FlowRun) {
	if fr.counted || !fr.requesterClosed {
		return
	}
	if n.settlesDatagrams(fr) && !n.settling {
		return // at the next point (settleDatagrams), where it was noted
	}
	if fr.Flow.QP != "rc" && fr.status == hca.WCSuccess && !fr.dataDone {
		return
	}
	fr.counted = true
	n.part(fr.Flow.Src).completed++
	n.poll(fr.Flow.Src)
}

// closeKey orders a requester's close among the arrivals at the
// responder's host due at the same time (sim.Engine.HandOverEvent): above
// every port's number, by the requester's host.
func closeKey(src fabric.NodeID) uint32 { return 1<<31 | uint32(src) }

// datagramProgress marks a UC or UD flow's data done when every byte has
// been delivered or lost (copies a flooding switch made count on both
// sides), as it arrives or is dropped. A flow whose last bytes were lost
// closes its responder too, as one whose data all arrived does, but in
// an event of the responder's host of its own (closer), not inside the
// drop: that may be at a switch, or in the middle of the responder's
// handling of the QP.
//
// A flow whose every byte was delivered is done when its arrival is seen
// (responderArrived: the WRITE's data landed or the RECV completed, a
// DMA after the last packet), as the flows waiting for it start then;
// what the responder keeps past a gap that can no longer fill (direct
// placement: every byte is delivered, lost or kept, so nothing of the
// flow is left on the wire) counts as lost, and goes when it closes.
func (n *Network) datagramProgress(fr *FlowRun) {
	if fr.Flow.QP == "rc" || fr.dataDone || fr.closing || !fr.started {
		return
	}
	if n.settlesDatagrams(fr) && !n.settling {
		// At the responder, whose progress the next point weighs
		// against the drops and copies noted until then.
		fr.progressAt = n.HCAs[fr.Flow.Dst].Engine().Now()
		if !fr.progressNoted { // once a window, not once a packet
			fr.progressNoted = true
			n.noteDatagram(fr.Flow.Dst, fr)
		}
		return
	}
	delivered := fr.ResponderDelivered()
	var kept int64
	if l := fr.Live; l != nil && l.Responder != nil {
		kept = l.Responder.KeptBytes()
	}
	switch {
	case delivered+fr.lost+kept < fr.Flow.Size+fr.copied:
		return // some of it is still on its way
	case delivered >= fr.Flow.Size && !fr.arrived:
		return // all delivered: done at its arrival (responderArrived)
	}
	if n.settling {
		// At a point: done when the last of its bytes was delivered,
		// lost or copied, which is the later of the responder's last
		// progress and the last note (ledger.apply); the responder
		// closes now, at the point, where no partition runs.
		fr.dataDoneAt = max(fr.noteAt, fr.progressAt)
		if !fr.arrived {
			n.closeResponder(fr)
		}
		fr.dataDone = true
		n.maybeDone(fr)
		return
	}
	fr.dataDoneAt = n.Eng.Now()
	if !fr.arrived && fr.Live != nil && fr.Live.Responder != nil {
		// Bytes lost: done once the responder has closed (what it kept
		// dropped with it), in an event of its own.
		if !fr.closing {
			fr.closing = true
			n.Eng.After(0, n.dyn.closer, closeDatagram, 0, fr)
		}
		return
	}
	fr.dataDone = true
	n.maybeDone(fr)
}

// closeResponder records what the responder delivered, destroys its QP
// and deregisters the flow's memory region.
func (n *Network) closeResponder(fr *FlowRun) {
	l := fr.Live
	if l == nil {
		return
	}
	if l.Responder == nil {
		// Closed already, or a reserved responder not opened yet (the
		// flow ended first: a datagram requester can finish sending
		// within the lookahead, its bytes lost on the way, or an RC one
		// fail at once): openResponder will not open it.
		fr.responderClosed = true
		if (!n.settlesDatagrams(fr) || n.settling) && fr.requesterClosed {
			fr.Live = nil
			n.finished(fr, fr.Flow.Dst)
		}
		return
	}
	dst := n.HCAs[fr.Flow.Dst]
	if fr.Flow.Op != "read" && n.balanced {
		fr.order = orderOf(l.Responder)
	}
	if err := dst.DestroyQP(l.Responder); err != nil {
		panic(err)
	}
	// After the destruction, which gives up a UC message in progress.
	fr.respDelivered, fr.terminated = l.Responder.Delivered, l.Responder.Terminated
	dst.DeregMR(l.mr)
	delete(n.dyn.resps[fr.Flow.Dst], l.Responder)
	l.Responder, l.mr = nil, nil
	fr.responderClosed = true
	// A UC or UD flow's requester may be closing on another worker: its
	// side is looked at only at a point (settleDatagrams).
	if (!n.settlesDatagrams(fr) || n.settling) && fr.requesterClosed {
		fr.Live = nil
		n.finished(fr, fr.Flow.Dst)
	}
}

// settlesDatagrams reports whether fr is a UC or UD flow in a run with a
// lookahead: one whose drops and copies are noted where they happen and
// applied at points (ledger), where it is found done, its responder
// closed when it lost bytes, and counted complete (settleDatagrams). Its
// requester's and responder's sides (which may be on different workers)
// only note it for the point.
func (n *Network) settlesDatagrams(fr *FlowRun) bool {
	return n.windowed && fr.Flow.QP != "rc"
}

// noteDatagram notes fr, a UC or UD flow, for the next point's look
// (settleDatagrams), in the list of node at's partition, whose event
// notes it.
func (n *Network) noteDatagram(at fabric.NodeID, fr *FlowRun) {
	ps := n.part(at)
	ps.datagrams = append(ps.datagrams, fr)
}

// settleDatagrams is a point's look at UC and UD flows: the drops and
// copies noted since the last are applied, then each flow they were of,
// or that its requester or responder noted (a request completed, data
// delivered), is looked at in order of flow ID: done if every byte was
// delivered or lost, complete if its requester has closed too, and its
// FlowLive let go once both sides have closed. A responder closed here
// drops what it kept, which is noted and applied in turn.
func (n *Network) settleDatagrams() {
	if n.ledger.notes == nil {
		return
	}
	n.settling = true
	defer func() { n.settling = false }()
	for {
		flows := n.ledger.apply(n.dyn.settle[:0])
		for i := range n.parts {
			flows = append(flows, n.parts[i].datagrams...)
			clear(n.parts[i].datagrams)
			n.parts[i].datagrams = n.parts[i].datagrams[:0]
		}
		n.dyn.settle = flows
		if len(flows) == 0 {
			return
		}
		slices.SortFunc(flows, func(a, b *FlowRun) int { return cmp.Compare(a.Flow.ID, b.Flow.ID) })
		for i, fr := range flows {
			if i > 0 && flows[i-1] == fr {
				continue
			}
			fr.progressNoted = false
			n.datagramProgress(fr)
			n.maybeDone(fr)
			if fr.requesterClosed && fr.responderClosed {
				fr.Live = nil
			}
		}
		clear(flows)
	}
}

// closer is the responders' applications receiving the requesters'
// close: an event at the responder's host, with the FlowRun as its data.
type closer struct{ n *Network }

func (c *closer) HandleEvent(ev *sim.Event) {
	fr := ev.Data.(*FlowRun)
	if ev.Kind == openResponder {
		c.n.openResponder(fr)
		return
	}
	c.n.closeResponder(fr)
	if ev.Kind == closeDatagram {
		fr.dataDone = true
		c.n.maybeDone(fr)
	}
}

// closer event kinds: an RC requester's close reaching the responder
// (0), a datagram flow whose bytes are all delivered or lost, and a
// reserved responder's opening (openResponder).
const (
	closeDatagram int32 = 1
	openResponder int32 = 2
)

// arrived is called, at the flow's receiver, when its data has arrived:
// the flows waiting for it and for nothing else start now (or at their
// start, if later).
func (n *Network) arrived(fr *FlowRun) {
	if fr.arrived {
		return
	}
	fr.arrived = true
	if fr.Flow.ID >= len(n.dyn.dependents) {
		return // a poisson flow: nothing waits for it
	}
	for _, id := range n.dyn.dependents[fr.Flow.ID] {
		n.dyn.waiting[id]--
		if n.dyn.waiting[id] == 0 {
			n.part(fr.Flow.Dst).started++
			n.poll(fr.Flow.Dst)
			d := n.Flows[id]
			n.startFlowRun(d, max(n.HCAs[d.Flow.Src].Engine().Now(), d.Flow.Start)) // its host's clock: in a Group, n.Eng is one partition's
		}
	}
}

// flowsDone reports whether every flow there will be has completed: no
// flow waits for another and no poisson source has an arrival to come.
func (n *Network) flowsDone() bool {
	completed, started := 0, 0
	for i := range n.parts {
		completed += n.parts[i].completed
		started += n.parts[i].started
	}
	return completed == n.flowCount() && started == n.dyn.unstarted && n.dyn.sources == 0 && n.collectivesDone() && n.jobsDone()
}

// poissonSource is one host of a poisson generator.
type poissonSource struct {
	n       *Network
	g       *resolve.PoissonGen
	host    fabric.NodeID
	self    int // the host's index in g.Hosts
	rng     *rand.Rand
	meanGap float64 // picoseconds
	end     sim.Time
	// arrival is the next arrival's time in a run with a lookahead
	// (sim.Never: none), whose flow the runner makes at the observation
	// point before its window (makeArrivals); otherwise the arrival is an
	// engine event.
	arrival sim.Time
}

// startPoisson schedules host's first arrival.
func (n *Network) startPoisson(g *resolve.PoissonGen, host fabric.NodeID) *poissonSource {
	t := n.Scenario.Topology
	rate := n.HCAs[host].Port().Rate
	p := &poissonSource{n: n, g: g, host: host,
		rng:     sim.Stream(n.Scenario.Seed, fmt.Sprintf("traffic/poisson/%d/%s", g.Generator, t.Nodes[host].Name)),
		meanGap: PoissonMeanGap(g.Sizes.Mean(), float64(rate), g.Load),
		end:     min(g.Until, n.Scenario.Stop.At),
		arrival: sim.Never,
	}
	for i, h := range g.Hosts {
		if h == host {
			p.self = i
		}
	}
	p.schedule(g.Start)
	return p
}

// makeArrivals makes the flows of the poisson arrivals before the end of
// the window that holds point (every one not made yet), in order of
// time and then of source (generator by generator, host by host): the
// same order whatever the partitions. A flow is made at the point
// before its window, both its QPs and its responder's memory, and its
// work request is posted at its arrival: its responder is ready before
// any of its packets can reach it (at least one lookahead after), and
// no worker is running while the runner touches two hosts.
func (n *Network) makeArrivals(point sim.Time) {
	look := n.lookahead()
	end := (point/look + 1) * look
	for {
		var first *poissonSource
		for _, p := range n.dyn.poisson {
			if p.arrival < end && (first == nil || p.arrival < first.arrival) {
				first = p
			}
		}
		if first == nil {
			return
		}
		first.arrive(first.arrival)
	}
}

// nextArrivalWindow is the start of the window of the next poisson
// arrival whose flow is not made yet (sim.Never: none): an observation
// point, where makeArrivals makes it.
func (n *Network) nextArrivalWindow() sim.Time {
	t := sim.Never
	for _, p := range n.dyn.poisson {
		t = min(t, p.arrival)
	}
	if t == sim.Never {
		return t
	}
	look := n.lookahead()
	return t / look * look
}

// PoissonMeanGap is the mean gap between a host's arrivals, in
// picoseconds, for flows of mean size meanBytes at load (0..1] of a link
// of rate bits per second: meanBytes·8 / (rate·load).
func PoissonMeanGap(meanBytes, rate, load float64) float64 {
	return meanBytes * 8 / (rate * load) * 1e12
}

// expGap draws an exponential gap of the given mean (picoseconds) from
// one Uint64, by inversion.
func expGap(rng *rand.Rand, mean float64) sim.Time {
	u := float64(rng.Uint64()>>11) / (1 << 53) // [0, 1)
	return sim.Time(math.Round(-math.Log1p(-u) * mean))
}

// schedule draws the gap to the next arrival after from; an arrival at or
// past the end is not scheduled, and the source is done.
func (p *poissonSource) schedule(from sim.Time) {
	at := from + expGap(p.rng, p.meanGap)
	if at >= p.end || at < from { // at < from: overflow
		return
	}
	p.n.dyn.sources++
	if p.n.windowed {
		p.arrival = at
		return
	}
	p.n.Eng.Schedule(at, p, 0, 0, nil)
}

// next draws a flow's size and destination.
func (p *poissonSource) next() (size int64, dst fabric.NodeID) {
	size = p.g.Sizes.Sample(p.rng)
	if p.g.HasTo {
		return size, p.g.To
	}
	k := int(resolve.Uniform(p.rng, uint64(len(p.g.Hosts)-1)))
	if k >= p.self {
		k++
	}
	return size, p.g.Hosts[k]
}

// HandleEvent is an arrival: a flow starts now, and the next is drawn.
func (p *poissonSource) HandleEvent(*sim.Event) { p.arrive(p.n.Eng.Now()) }

// arrive is the arrival at now: its flow is made and starts at now, and
// the next arrival is drawn.
func (p *poissonSource) arrive(now sim.Time) {
	n := p.n
	p.arrival = sim.Never
	n.dyn.sources--
	n.poll(p.host)
	if n.flowCount() >= n.flowLimit {
		n.dyn.capped = true // the source ends here
		return
	}
	size, dst := p.next()
	g := p.g
	prio := n.Scenario.PoissonPriority(g, p.host)
	sl := g.SL
	if vl, ok := n.Scenario.IB.PairVL.Lane(p.host, dst); ok {
		prio, sl = vl, vl // dfsssp, lash: the pair's lane, as SL and VL
	}
	f := resolve.Flow{ID: n.flowCount(), Src: p.host, Dst: dst, QP: g.QP, Op: g.Op, Size: size,
		Start: now, Priority: prio, SL: sl, Generator: g.Generator, Pos: g.Pos, CM: g.CM}
	fr := &FlowRun{Flow: f}
	n.Flows = append(n.Flows, fr)
	n.startFlowRun(fr, now)
	p.schedule(now)
}
