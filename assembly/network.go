package assembly

import (
	"sync/atomic"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/programs"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scaleup"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// Network is a scenario made runnable: the engine, the fabric, a model per
// node and the flows to start.
type Network struct {
	Scenario *resolve.Scenario
	Eng      *sim.Engine
	Fabric   *fabric.Network
	// Switches and HCAs are indexed by node id; nil where the node is of
	// the other kind.
	Switches []*swtch.Switch
	HCAs     []*hca.HCA
	// Flows are the run's flows, in order of id: a flow's index is its
	// id, unless the run streams its flows (StreamFlows), where finished
	// poisson flows are retired and leave it (the scenario's own flows
	// stay, at their ids).
	Flows []*FlowRun
	// Tests are the running perftest and pingpong programs.
	Tests []*TestRun

	// flowLimit bounds the flows a run makes, those of poisson generators
	// included: a source stops there (the loader's limit).
	flowLimit int
	faults    *faultState // faults.go
	det       *observe.Detector
	// iteration follows observe.timeline's iteration (nil: none asked).
	iteration   *observe.Timeline
	events      []eventLog // the HCAs' asynchronous events, by partition (Run)
	noDetector  bool       // for the detector's benchmark only
	interrupted atomic.Bool
	// alone is the network of the job running alone (jobAlone) while it
	// runs, so that an interruption reaches it; aloneBuilt, when set (by
	// tests), is called with each one before it runs.
	alone      atomic.Pointer[Network]
	aloneBuilt func(a *Network)
	// aloneWarnings say why a job has no slowdown (jobSummaries).
	aloneWarnings []string
	// polling: Run checks its stop condition only after events that
	// call poll; polled: one did.
	polling, polled bool
	// balanced: a switch spreads flows other than by ECMP, and flows.csv
	// says how each flow's data arrived (FlowRun.arrivalOrder).
	balanced bool
	// trimming: a switch trims what it would drop (switch.trim, at the
	// top level or in a switch's own block), which NSCC's default
	// target delay depends on (congestion.Env.Trimming).
	trimming bool
	// pacers are the receiving hosts' RCCC pacers, by node id, each made
	// by its host when a sender first asks it for credit (rccc.go).
	pacers []*congestion.RCCCPacer
	// oversub are their oversubscription controls, where they run one
	// (rccc.go).
	oversub   []*congestion.RCCCOversubscription
	noOversub bool    // for tests only: no oversubscription control
	dyn       dynamic // flows that start during the run (dynamic.go)
	// parts are the runner's counts by partition (one unless cut).
	parts []partState
	// Group runs the partitions' engines when the run is cut
	// (BuildWorkers); nil on one engine. Serial says why a run asked
	// to use several workers uses one ("" when it does not).
	Group  *sim.Group
	Serial string
	plan   partitionPlan
	// windowed: the network has a lookahead, and runs from observation
	// point to observation point (drive.go), on one engine or cut.
	windowed bool
	// settling: settleDatagrams is looking at UC and UD flows, at a point.
	settling bool
	// slice is how much simulated time a window is run in at a time, so
	// that an interruption is seen within it (runWindow); 0: whole.
	// sliceEvents is about how many events a slice should hold; slices
	// counts the slices that ended inside a window.
	slice       sim.Time
	sliceEvents uint64
	slices      uint64
	// ctl are the control plane's actions to come, by time (Network.at).
	ctl    []control
	ctlSeq int64
	ledger ledger // UD and UC bytes dropped and copied (conservation.go)
	// colls are the collectives' and nccl_tests programs' communicators
	// (collective.go), domains the GPU servers' scale-up domains they
	// use (by server), gates the calls that wait for others (after:),
	// and collCalls the calls of every rank in all.
	colls     []*commRun
	nccls     []*ncclRun // the nccl_tests programs (nccltests.go)
	domains   map[int]*scaleup.Domain
	gates     map[*collective.Call][]gated
	collCalls int
	// jobs are the training jobs (job.go), and jobIters their ranks'
	// iterations in all.
	jobs     []*jobRun
	jobIters int
	// stream, when set, takes the finished poisson flows' records
	// (StreamFlows, flowstream.go).
	stream *flowStream
	// dropped is how many retired poisson flows have left Flows
	// (flowstream.go).
	dropped int
}

// FlowRun is one flow's state during a run, and its record after.
//
// While the flow runs, Live holds its verbs objects. When its last work
// request completes, the requester's application destroys its QP and the
// FlowRun lets go of the requester's side, keeping the outcome; the
// responder's QP and memory region go when the responder's application
// closes its side (see closeResponder), keeping what it delivered; then
// Live is nil. A finished flow holds its Flow and a few scalars, so a
// long run's memory grows with the flows in progress, not with the flows
// finished.
type FlowRun struct {
	Flow resolve.Flow
	// Ideal is the flow's completion time alone on an empty network.
	Ideal sim.Time
	// Live is the running flow's state: nil before it starts and once
	// both sides have closed.
	Live *FlowLive

	// The record: the outcome (outcome()) once the requester has closed,
	// what the responder accepted (ResponderDelivered()) once it has, and
	// the READ bytes the requester accepted.
	done          sim.Time
	retransmits   int64
	respDelivered int64
	// terminated is when the responder ended the connection with an
	// RDMAP Terminate (hca.QP.Terminated), kept when it closed.
	terminated sim.Time
	// rtt gives the sender's smoothed round-trip time (iWARP's TCP:
	// rtt_us), nil when it keeps none.
	rtt           interface{ SRTT() sim.Time }
	readDelivered int64
	wrs           int32 // work requests posted
	status        hca.WCStatus
	// lost and copied are a UD or UC flow's payload bytes dropped on the
	// way (by a link, a switch or the receiving NIC) and copied by
	// flooding switches (conservation.go).
	lost, copied int64
	// noteAt is the time of the latest drop or copy of the flow the
	// ledger applied, and progressAt of its responder's latest progress
	// (data delivered or kept), in a run with a lookahead: the flow is
	// done at the later (settleDatagrams).
	noteAt, progressAt sim.Time
	progressNoted      bool // its responder noted it for the next point
	started            bool // its QPs were made and its work requests posted
	arrived            bool // its data has arrived (the flows waiting for it started)
	requesterClosed    bool
	// responderClosed: the responder's side has closed, or, reserved and
	// not yet made, will not be (closeResponder; openResponder).
	responderClosed bool
	// dataDone: a UC or UD flow's every byte has been delivered or lost,
	// at dataDoneAt (datagramProgress); counted: the flow is in
	// Network.completed (maybeDone).
	dataDone   bool
	dataDoneAt sim.Time
	counted    bool
	closing    bool // a datagram flow's responder is about to close (closer)
	// retired: the run streams its flows, and this one's record has gone
	// to the spool (flowstream.go).
	retired bool
	// connectedAt is when a connect: cm flow's connection was made (0:
	// not, or connect: instant); cmFail the status of one that failed.
	connectedAt sim.Time
	cmFail      string
	// order is the arrival order of the flow's data, kept when its
	// receiving QP closed (arrivalOrder).
	order *reports.FlowOrder
	// resv is the responder reserved for a flow that waits for others
	// (responderResv), nil for the others.
	resv *responderResv
}

// arrivalOrder is how the flow's data packets arrived at its receiving
// QP (the requester for a READ, else the responder), also after it
// closed.
func (fr *FlowRun) arrivalOrder() *reports.FlowOrder {
	if fr.order != nil {
		return fr.order
	}
	if fr.Live == nil {
		return &reports.FlowOrder{Paths: 1}
	}
	qp := fr.Live.Responder
	if fr.Flow.Op == "read" {
		qp = fr.Live.Requester
	}
	return orderOf(qp)
}

// orderOf is what qp measured of its data's arrival.
func orderOf(qp *hca.QP) *reports.FlowOrder {
	if qp == nil {
		return &reports.FlowOrder{Paths: 1}
	}
	paths, _, distMax, distMean := qp.Order()
	return &reports.FlowOrder{Paths: paths, ReorderMax: distMax, ReorderMean: distMean}
}

// FlowLive is what a running flow holds; each side's part is nil once
// that side has closed.
type FlowLive struct {
	Requester *hca.QP
	Responder *hca.QP
	// WQEs are the flow's work requests, in posting order.
	WQEs []*hca.WQE
	// CC is the requester's congestion control, nil with cc: none.
	CC congestion.Sender

	mr         *hca.MR  // the responder's region
	closeDelay sim.Time // the path's one-way delay: how long the close takes to reach the responder
	conn       *cm.Conn // the requester's connection, with connect: cm
}

// TestRun is a perftest or pingpong program during a run.
type TestRun struct {
	Test     resolve.Test
	Perftest *programs.Perftest
	Pingpong *programs.Pingpong
	Rping    *programs.Rping
	Server   *programs.RdmaServer
	Client   *programs.RdmaClient
	Mckey    *programs.Mckey
}

// Done reports whether the program has finished (the client's loop, and
// for pingpong the server's too) or failed.
func (tr *TestRun) Done() bool {
	if tr.Perftest != nil {
		return tr.Perftest.Done || tr.Perftest.Failure() != ""
	}
	if tr.Server != nil {
		return tr.Server.Done != 0
	}
	if tr.Mckey != nil {
		return tr.Mckey.Done() != 0
	}
	if tr.Client != nil {
		return tr.Client.Done != 0
	}
	if tr.Rping != nil {
		if tr.Rping.Cfg.CM {
			return tr.Rping.Closed != 0 || tr.Rping.Failed() // its disconnect printed too
		}
		return tr.Rping.Done != 0 || tr.Rping.Failed()
	}
	for _, s := range tr.Pingpong.Sides {
		if !s.Done && s.Err == "" {
			return false
		}
	}
	return true
}

// outcome is the flow's status, completion time and retransmitted packets
// over its work requests: the first that did not succeed decides the
// status (the rest are flushed behind it), else the last one's completion.
//
// A UC or UD flow's requests complete when sent, before their data lands:
// such a flow is complete only once every byte has been delivered or
// lost, at that time (datagramProgress), and pending until then.
func (fr *FlowRun) outcome() (st hca.WCStatus, done sim.Time, retransmits int64) {
	st, done, retransmits = fr.sendOutcome()
	if fr.Flow.QP != "rc" && st == hca.WCSuccess {
		if !fr.dataDone {
			return hca.WCPending, 0, retransmits
		}
		done = fr.dataDoneAt
	}
	return st, done, retransmits
}

// sendOutcome is the requester's side of outcome: the first work
// request's status that is not success (or success), and when the last
// completed. A work request the HCA has completed but whose completion is
// not visible yet (hca.HCA.complete: DMALatency later) is pending: the
// application has not seen it, and it has no completion time yet (a run
// that stopped in between reported such a flow a success at time 0).
func (fr *FlowRun) sendOutcome() (st hca.WCStatus, done sim.Time, retransmits int64) {
	if fr.requesterClosed {
		return fr.status, fr.done, fr.retransmits
	}
	if len(fr.Live.WQEs) < int(fr.wrs) {
		return hca.WCPending, 0, 0 // connect: cm, not connected yet: nothing posted
	}
	st = hca.WCSuccess
	for _, w := range fr.Live.WQEs {
		retransmits += w.Retransmits
		if st == hca.WCSuccess {
			st, done = w.Status, w.Completed
			if w.Completed == 0 {
				st = hca.WCPending // not visible yet
			}
		}
	}
	return st, done, retransmits
}

// held is the payload of the work requests a connect: cm flow's
// application holds while its connection is being made: connectFlow
// posts them all at ESTABLISHED, and a connection that fails ends the
// flow with them never sent (cmFail). The bytes were offered at the
// flow's start (an RC requester's, held or queued, are in flight until
// acknowledged); a UC or UD flow's are in flight with those its send
// queue holds (flowBytes).
func (fr *FlowRun) held() int64 {
	if !fr.Flow.CM || fr.requesterClosed || fr.Live == nil || len(fr.Live.WQEs) >= int(fr.wrs) {
		return 0
	}
	return fr.Flow.Size
}

// delivered is what a flow's receiver has: READ responses at the
// requester, everything else at the responder.
func (fr *FlowRun) delivered() int64 {
	switch fr.Flow.Op {
	case "read":
		if fr.requesterClosed {
			return fr.readDelivered
		}
		return fr.Live.Requester.ReadDelivered
	case "atomic":
		if st, _, _ := fr.outcome(); st == hca.WCSuccess {
			return fr.Flow.Size
		}
		return 0
	}
	return min(fr.Flow.Size, fr.ResponderDelivered())
}

// DeliveredBytes is how much of the flow's data has been delivered so
// far: a READ's placed at the requester, anything else's accepted by the
// responder (the flow_gbps series).
func (fr *FlowRun) DeliveredBytes() int64 { return min(fr.Flow.Size, fr.delivered()) }

// ResponderDelivered is the payload the responder's QP has accepted in
// order (hca.QP.Delivered), also after it has closed.
func (fr *FlowRun) ResponderDelivered() int64 {
	if fr.Live == nil || fr.Live.Responder == nil {
		return fr.respDelivered
	}
	return fr.Live.Responder.Delivered
}

// ResponderTerminated is when the flow's responder ended its connection
// with an RDMAP Terminate (iWARP: a SEND that found no RECV posted;
// hca.QP.Terminated), zero if it has not; also after it has closed.
func (fr *FlowRun) ResponderTerminated() sim.Time {
	if fr.Live == nil || fr.Live.Responder == nil {
		return fr.terminated
	}
	return fr.Live.Responder.Terminated
}

// failure is how flows.csv names a flow that failed whatever its work
// completions say, and the reason its undelivered bytes are dropped
// under: its connection could not be made (cmFail, the connection
// event's name), or its responder threw its data away with a Terminate
// (rdmap_terminate: on iWARP the requester's SEND completes with success
// once TCP has taken it, RFC 5040 §7). "" for any other flow.
func (fr *FlowRun) failure() string {
	switch {
	case fr.cmFail != "":
		return fr.cmFail
	case fr.ResponderTerminated() != 0:
		return "rdmap_terminate"
	}
	return ""
}

// poll is called by an event of node at that may have met the stop
// condition (a flow completed or started, a poisson source's arrival, a
// deadlock found) or by an interruption: Run stops the engine after the
// event and checks. A run cut into partitions (Group) notes it in at's
// partition instead, and checks at the window's end.
func (n *Network) poll(at fabric.NodeID) {
	if n.windowed {
		n.part(at).polled = true
		return
	}
	if n.polling {
		n.polled = true
		n.Eng.Stop()
	}
}

// Interrupt asks a running Run to stop at the current simulated time; it
// is safe to call from another goroutine (a signal handler). Once the
// run's loop is over, it stops the job running alone (jobAlone), and no
// further one runs.
func (n *Network) Interrupt() {
	n.interrupted.Store(true)
	if a := n.alone.Load(); a != nil {
		a.Interrupt()
	}
}

// testsDone reports whether every perftest and pingpong has finished.
func (n *Network) testsDone() bool {
	for _, tr := range n.Tests {
		if !tr.Done() {
			return false
		}
	}
	return true
}

// view is what the observers see of n.
func (n *Network) view() *observe.View {
	v := &observe.View{Eng: n.Eng, Topology: n.Scenario.Topology, Ports: n.Fabric.Ports, Mixed: n.Scenario.Mixed(), Switches: n.Switches,
		Transport: n.Scenario.HCA.Transport, Poll: func() { n.poll(0) }}
	if n.Group != nil {
		v.PartOf, v.Parts, v.Each = n.Fabric.Partition, n.Group.Partitions(), n.Group.Each
	}
	return v
}

// prioritiesInUse are the priorities any flow or PFC configuration uses,
// ascending.
func (n *Network) prioritiesInUse() []uint8 {
	var used [8]bool
	for _, f := range n.Flows {
		used[f.Flow.Priority] = true
	}
	for _, g := range n.Scenario.Poisson {
		for _, h := range g.Hosts {
			used[n.Scenario.PoissonPriority(&g, h)] = true
		}
	}
	for _, sw := range n.Switches {
		if sw != nil {
			for _, p := range sw.Prof.PFC.Priorities {
				used[p] = true
			}
		}
	}
	if n.qos() {
		// Where QoS is configured, the CNPs' class is sampled too.
		for _, h := range n.HCAs {
			if h != nil {
				used[h.Prof.CNPPriority&7] = true
			}
		}
	}
	var out []uint8
	for p, u := range used {
		if u {
			out = append(out, uint8(p))
		}
	}
	return out
}
