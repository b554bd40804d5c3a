package assembly

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// Network is a scenario made runnable: the engine, the fabric, a model per
// node and the flows to start.
type Network struct {
	Scenario *Scenario
	Eng      *sim.Engine
	Fabric   *fabric.Network
	// Switches and HCAs are indexed by node id; nil where the node is of
	// the other kind.
	Switches []*swtch.Switch
	HCAs     []*hca.HCA
	Flows    []*FlowRun
	// Tests are the running perftest and pingpong programs.
	Tests []*TestRun

	completed   int
	faults      *faultState // faults.go
	det         *observe.Detector
	noDetector  bool // for the detector's benchmark only
	interrupted atomic.Bool
	// polling: Run checks its stop condition only after events that
	// call poll; polled: one did.
	polling, polled bool
	dyn             dynamic // flows that start during the run (dynamic.go)
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
	Flow Flow
	// Ideal is the flow's completion time alone on an empty network.
	Ideal sim.Time
	// Live is the running flow's state: nil before it starts and once
	// both sides have closed.
	Live *FlowLive

	// The record: the outcome (outcome()) once the requester has closed,
	// what the responder accepted (ResponderDelivered()) once it has, and
	// the READ bytes the requester accepted.
	done            sim.Time
	retransmits     int64
	respDelivered   int64
	readDelivered   int64
	wrs             int32 // work requests posted
	status          hca.WCStatus
	started         bool // its QPs were made and its work requests posted
	arrived         bool // its data has arrived (the flows waiting for it started)
	requesterClosed bool
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
}

// lossFault turns a link direction's random loss on (at its start) and
// off (at its end).
type lossFault struct {
	link *fabric.Link
	rate float64
	rng  *rand.Rand
}

func (l *lossFault) HandleEvent(ev *sim.Event) {
	if ev.Kind == 0 {
		l.link.SetLoss(l.rate, l.rng)
	} else {
		l.link.SetLoss(0, nil)
	}
}

// scheduleLoss applies a loss fault to both directions of its link.
func (n *Network) scheduleLoss(f Fault) {
	t := n.Scenario.Topology
	for _, d := range [][2]fabric.NodeID{{f.A, f.B}, {f.B, f.A}} {
		port, _ := t.PortTo(d[0], d[1])
		name := fmt.Sprintf("fault/loss/%s-%s", t.Nodes[d[0]].Name, t.Nodes[d[1]].Name)
		l := &lossFault{link: n.Fabric.LinkFrom(d[0], port), rate: f.Rate, rng: sim.Stream(n.Scenario.Seed, name)}
		n.Eng.Schedule(f.At, l, 0, 0, nil)
		if f.Until != sim.Never {
			n.Eng.Schedule(f.Until, l, 1, 0, nil)
		}
	}
}

// TestRun is a perftest or pingpong program during a run.
type TestRun struct {
	Test     Test
	Perftest *hca.Perftest
	Pingpong *hca.Pingpong
}

// Done reports whether the program has finished (the client's loop, and
// for pingpong the server's too) or failed.
func (tr *TestRun) Done() bool {
	if tr.Perftest != nil {
		return tr.Perftest.Done || tr.Perftest.Err != ""
	}
	for _, s := range tr.Pingpong.Sides {
		if !s.Done && s.Err == "" {
			return false
		}
	}
	return true
}

// perftestReport is perftest.txt: each program's output in traffic
// order, under a line naming it.
func (n *Network) perftestReport() []byte {
	var b strings.Builder
	names := n.Scenario.Topology
	for i, tr := range n.Tests {
		if i > 0 {
			b.WriteString("\n")
		}
		t := tr.Test
		src, dst := names.Nodes[t.Src].Name, names.Nodes[t.Dst].Name
		if tr.Perftest != nil {
			c := t.Perftest
			fmt.Fprintf(&b, "# traffic[%d] perftest %s %s -> %s: ib_%s -c %s -s %d -n %d", t.Generator, c.Test, src, dst, c.Test,
				strings.ToUpper(c.Type.String()), c.Size, c.Iters)
			if strings.HasSuffix(c.Test, "_bw") {
				fmt.Fprintf(&b, " -q %d -t %d -Q %d", c.QPs, c.TxDepth, c.CQMod)
			}
			b.WriteString("\n")
			b.WriteString(tr.Perftest.Report())
			continue
		}
		c := t.Pingpong
		fmt.Fprintf(&b, "# traffic[%d] pingpong %s %s -> %s: ibv_%s_pingpong -s %d -n %d -r %d\n", t.Generator, c.Type, src, dst, c.Type, c.Size, c.Iters, c.RxDepth)
		b.WriteString(tr.Pingpong.Report())
	}
	return []byte(b.String())
}

// view is what the observers see of n.
func (n *Network) view() *observe.View {
	return &observe.View{Eng: n.Eng, Topology: n.Scenario.Topology, Ports: n.Fabric.Ports, Switches: n.Switches, Poll: n.poll}
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
			p := n.Scenario.HCAProfile(h).Priority
			if g.PrioritySet {
				p = g.Priority
			}
			used[p] = true
		}
	}
	for _, sw := range n.Switches {
		if sw != nil {
			for _, p := range sw.Prof.PFC.Priorities {
				used[p] = true
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

// reportTopology is topology.json: what the report draws.
func reportTopology(t *fabric.Topology) *reports.Topo {
	out := &reports.Topo{Nodes: []reports.TopoNode{}, Links: []reports.TopoLink{}}
	for _, n := range t.Nodes {
		out.Nodes = append(out.Nodes, reports.TopoNode{Name: n.Name, Kind: n.Kind.String()})
	}
	for _, l := range t.Links {
		out.Links = append(out.Links, reports.TopoLink{A: t.PortName(l.A, l.APort), B: t.PortName(l.B, l.BPort), RateGbps: l.Rate.Gbps()})
	}
	return out
}

// Build creates the network of s: one engine seeded with s.Seed, a switch
// model per switch, an HCA per host, and one RC QP pair per flow with its
// WRITE posted at the flow's start.
func Build(s *Scenario) (*Network, error) {
	eng := sim.NewEngine(s.Seed)
	fab := fabric.NewNetwork(eng, s.Topology)
	n := &Network{Scenario: s, Eng: eng, Fabric: fab,
		Switches: make([]*swtch.Switch, len(s.Topology.Nodes)),
		HCAs:     make([]*hca.HCA, len(s.Topology.Nodes)),
	}
	// Ports learn their pause response and their node's largest frame
	// before any switch is made: a switch's headroom depends on its
	// peers'.
	maxFrame := int64(0)
	for _, host := range s.Topology.Hosts() {
		frame := fabric.MaxRoCEv2Frame(s.HCAProfile(host).MTU)
		maxFrame = max(maxFrame, frame)
		port := fab.Ports[host][0]
		port.SenderFrame = frame
		port.ResponseDelay = swtch.PauseResponse(port.Rate)
	}
	for id, node := range s.Topology.Nodes {
		if node.Kind == fabric.Switch {
			prof := s.SwitchProfile(fabric.NodeID(id))
			for _, p := range fab.Ports[id] {
				p.ResponseDelay = prof.PFC.ResponseDelay(p.Rate)
			}
		}
	}
	for i, host := range s.Topology.Hosts() {
		name := s.Topology.Nodes[host].Name
		prof := s.HCAProfile(host)
		applyCCToProfile(&prof, &s.CC)
		n.HCAs[host] = hca.New(eng, fab.Pool, host, name, fabric.HostIP(i), prof, fab.Ports[host][0])
	}
	for id, node := range s.Topology.Nodes {
		if node.Kind != fabric.Switch {
			continue
		}
		nid := fabric.NodeID(id)
		sw := swtch.New(eng, fab.Pool, nid, node.Name, s.SwitchProfile(nid), fab.Ports[id], s.Routes, maxFrame)
		if err := sw.Check(); err != nil {
			return nil, err
		}
		n.Switches[id] = sw
	}
	if err := n.buildFlows(); err != nil {
		return nil, err
	}
	for _, f := range s.Faults {
		n.scheduleFault(f)
	}
	if err := n.prepareFaultModels(); err != nil {
		return nil, err
	}
	for _, t := range s.Tests {
		tr := &TestRun{Test: t}
		var err error
		if t.Kind == "perftest" {
			tr.Perftest, err = hca.NewPerftest(n.HCAs[t.Src], n.HCAs[t.Dst], t.Perftest)
		} else {
			tr.Pingpong, err = hca.NewPingpong(n.HCAs[t.Src], n.HCAs[t.Dst], t.Pingpong)
		}
		if err != nil {
			return nil, fmt.Errorf("traffic[%d]: %v", t.Generator, err)
		}
		n.Tests = append(n.Tests, tr)
	}
	return n, nil
}

// startFlow makes the flow's QP pair (qp: rc, uc or ud), registers the
// responder's memory (a region of the flow's size, without bytes), posts
// the RECVs that SEND and WRITE with immediate consume, and posts the
// work requests at the flow's start: one, or for a flow longer than the
// NIC's largest message (hca.Profile.MaxMsgSize) as many as it takes,
// back to back on the same QP, as an application must.
func startFlow(src, dst *hca.HCA, f Flow) (*hca.QP, *hca.QP, *hca.MR, []*hca.WQE) {
	t := map[string]hca.QPType{"rc": hca.RC, "uc": hca.UC, "ud": hca.UD}[f.QP]
	rq, rs := src.CreateTypedQP(t), dst.CreateTypedQP(t)
	if t != hca.UD {
		src.Connect(rq, dst.ID, dst.IP, rs.QPN)
		dst.Connect(rs, src.ID, src.IP, rq.QPN)
	}
	rq.Priority, rs.Priority = f.Priority, f.Priority // the responder's READ responses go in the flow's priority too
	mr := dst.RegMR(dst.DefaultPD(), f.Size, nil, hca.AccessAll)
	part := max(1, min(src.Prof.MaxMsgSize, dst.Prof.MaxMsgSize))
	var wqes []*hca.WQE
	for off := int64(0); off == 0 || off < f.Size; off += part {
		size := min(part, f.Size-off)
		wr := hca.SendWR{ID: uint64(f.ID), Length: size, Signaled: true, RemoteAddr: mr.Addr + uint64(off), RKey: mr.RKey}
		switch f.Op {
		case "write":
			wr.Op = hca.WRWrite
		case "write_imm":
			wr.Op = hca.WRWriteImm
		case "send":
			wr.Op = hca.WRSend
		case "read":
			wr.Op = hca.WRRead
		case "atomic":
			wr.Op, wr.CompareAdd = hca.WRFetchAdd, 1
		}
		if f.Op == "send" || f.Op == "write_imm" {
			if t == hca.UD {
				size += 40 // the GRH
			}
			if err := dst.PostRecv(rs, hca.RecvWR{ID: uint64(f.ID), Length: size}); err != nil {
				panic(err) // the loader keeps a flow's parts within the receive queue
			}
		}
		if t == hca.UD {
			wr.AH, wr.RemoteQPN, wr.RemoteQKey = &hca.AH{Dest: dst.ID, DestIP: dst.IP}, rs.QPN, rs.QKey
		}
		wqes = append(wqes, src.PostSendAt(rq, wr, f.Start))
	}
	return rq, rs, mr, wqes
}

// outcome is the flow's status, completion time and retransmitted packets
// over its work requests: the first that did not succeed decides the
// status (the rest are flushed behind it), else the last one's completion.
func (fr *FlowRun) outcome() (st hca.WCStatus, done sim.Time, retransmits int64) {
	if fr.requesterClosed {
		return fr.status, fr.done, fr.retransmits
	}
	st = hca.WCSuccess
	for _, w := range fr.Live.WQEs {
		retransmits += w.Retransmits
		if st == hca.WCSuccess {
			st, done = w.Status, w.Completed
		}
	}
	return st, done, retransmits
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

// ResponderDelivered is the payload the responder's QP has accepted in
// order (hca.QP.Delivered), also after it has closed.
func (fr *FlowRun) ResponderDelivered() int64 {
	if fr.Live == nil || fr.Live.Responder == nil {
		return fr.respDelivered
	}
	return fr.Live.Responder.Delivered
}

// flowPath is the way a flow's packets take: the links they cross, in
// order, and the switch latency summed over the switches between them.
// ok is false when a switch has no route.
type flowPath struct {
	links   []fabric.TopoLink
	latency sim.Time
	ok      bool
}

// pathOf follows the path the flow's ECMP hash picks (its requester QP's
// number sets the UDP source port). A flow's path is computed once, when
// it starts, and serves its ideal FCT, its base RTT and its close delay.
func (n *Network) pathOf(f Flow, qp *hca.QP) flowPath {
	t := n.Scenario.Topology
	key := fabric.FlowKey{SrcIP: n.HCAs[f.Src].IP, DstIP: n.HCAs[f.Dst].IP, SrcPort: fabric.RoCEv2SourcePort(qp.QPN), DstPort: fabric.RoCEv2Port}
	var p flowPath
	at, port := f.Src, 0
	for hops := 0; hops < len(t.Nodes); hops++ {
		ref := t.Nodes[at].Ports[port]
		p.links = append(p.links, t.Links[ref.Link])
		at = ref.Peer
		if at == f.Dst {
			p.ok = true
			return p
		}
		sw := n.Switches[at]
		p.latency += sw.Prof.Latency
		next := n.Scenario.Routes.NextPorts(at, f.Dst)
		if len(next) == 0 {
			return flowPath{}
		}
		port = int(next[0])
		if len(next) > 1 {
			port = int(fabric.PickPort(next, key.Hash(sw.ECMPSeed())))
		}
	}
	return flowPath{}
}

// oneWayDelay is the propagation delays and switch latencies along the
// path: the least time a message from its source takes to reach its
// destination. Without a route, the source link's delay (srcLink).
func (p flowPath) oneWayDelay(srcLink sim.Time) sim.Time {
	if !p.ok {
		return srcLink
	}
	latency := p.latency
	for _, l := range p.links {
		latency += l.Delay
	}
	return latency
}

// idealFCT is a flow of size bytes' completion time alone on an empty
// network, along the path: the message's wire bytes at the path's
// bottleneck rate, one packet's store-and-forward serialization on every
// other hop, the propagation delays and switch latencies there, and the
// final ACK's way back. 0 without a route.
func (p flowPath) idealFCT(size, mtu int64) sim.Time {
	if !p.ok {
		return 0
	}
	links := p.links
	pkts := max(1, (size+mtu-1)/mtu)
	wire := pkts*int64(fabric.RoCEv2Wire(fabric.OpWriteMiddle, 0)) + size + int64(fabric.RETHBytes)
	pktWire := int64(fabric.RoCEv2Wire(fabric.OpWriteMiddle, int(min(mtu, size))))
	ackWire := int64(fabric.RoCEv2Wire(fabric.OpAcknowledge, 0))
	total := 2 * p.latency
	slow := 0
	for i, l := range links {
		total += 2*l.Delay + fabric.SerializationTime(ackWire, l.Rate)
		if l.Rate < links[slow].Rate {
			slow = i
		}
	}
	total += fabric.SerializationTime(wire, links[slow].Rate)
	for i, l := range links {
		if i != slow {
			total += fabric.SerializationTime(pktWire, l.Rate)
		}
	}
	return total
}

// baseRTT is a full packet's (of mtu bytes of payload) round trip on the
// empty path: its serialization and the ACK's on every hop, propagation
// both ways, and the switch latencies both ways. 0 without a route.
func (p flowPath) baseRTT(mtu int) sim.Time {
	if !p.ok {
		return 0
	}
	pkt := int64(fabric.RoCEv2Wire(fabric.OpWriteMiddle, mtu))
	ack := int64(fabric.RoCEv2Wire(fabric.OpAcknowledge, 0))
	rtt := 2 * p.latency
	for _, l := range p.links {
		rtt += 2*l.Delay + fabric.SerializationTime(pkt, l.Rate) + fabric.SerializationTime(ack, l.Rate)
	}
	return rtt
}

// startCC gives the QP that sends a flow's data the congestion control
// its host runs, wired to the HCA's rate limiter: the requester's, or for
// a READ the responder's, whose READ responses are the data (the
// requester, as notification point, sends its CNPs back to it). Only
// DCQCN controls READs: HPCC and TIMELY react to ACKs, and READ responses
// have none (build warns).
func (n *Network) startCC(fr *FlowRun, src *hca.HCA, p flowPath) {
	sender, qp := src, fr.Live.Requester
	prof := n.Scenario.HCAProfile(fr.Flow.Src)
	if fr.Flow.Op == "read" {
		sender, qp = n.HCAs[fr.Flow.Dst], fr.Live.Responder
		prof = n.Scenario.HCAProfile(fr.Flow.Dst)
		if prof.CC != "dcqcn" {
			return
		}
	}
	path := congestion.Path{LineRate: sender.Port().Rate, BaseRTT: p.baseRTT(prof.MTU)}
	apply := func(rate fabric.Rate, window int64) { sender.SetRate(qp, rate, window) }
	cc := &n.Scenario.CC
	switch prof.CC {
	case "dcqcn":
		fr.Live.CC = congestion.NewDCQCN(n.Eng, cc.DCQCN, path, apply)
		qp.ECT = true
	case "hpcc":
		fr.Live.CC = congestion.NewHPCC(cc.HPCC, path, apply)
		qp.INT = true
	case "timely":
		fr.Live.CC = congestion.NewTIMELY(cc.TIMELY, path, apply)
	default:
		return
	}
	qp.CC = fr.Live.CC
}

// How often, in events, Run looks for an interruption, and calls its
// progress function.
const (
	interruptEvery = 1 << 16
	progressEvery  = 1 << 20
)

// poll is called by an event that may have met the stop condition (a flow
// completed or started, a poisson source's arrival, a deadlock found) or
// by an interruption: Run stops the engine after the event and checks.
func (n *Network) poll() {
	if n.polling {
		n.polled = true
		n.Eng.Stop()
	}
}

// Interrupt asks a running Run to stop at the current simulated time; it
// is safe to call from another goroutine (a signal handler).
func (n *Network) Interrupt() { n.interrupted.Store(true) }

// Run runs the scenario to its stop condition and returns what the run
// writes: the summary, the flow rows, the sampled time series and the PFC
// log. progress, if not nil, is called every million events.
func (n *Network) Run(progress func(now sim.Time, events uint64)) *reports.Results {
	s := n.Scenario
	v := n.view()
	var sampled []observe.Flow
	for _, f := range n.Flows {
		if f.Live != nil { // not those that start later
			sampled = append(sampled, observe.Flow{ID: f.Flow.ID, Receiver: f, CC: f.Live.CC})
		}
	}
	sm := observe.NewSampler(v, &s.Observe, n.prioritiesInUse(), sampled)
	sm.Start()
	log := observe.NewPFCLog(v)
	capt := observe.NewCapturer(v, s.Observe.Pcap)
	if !n.noDetector {
		n.det = observe.StartDetector(v, s.Observe.DeadlockAfter)
	}
	reason := "time"
	done := func() bool {
		if n.interrupted.Load() {
			reason = "interrupted"
			return true
		}
		if s.Stop.WhenDeadlock && n.det != nil && n.det.Found {
			reason = "deadlock"
			return true
		}
		if s.Stop.WhenFlowsDone && n.flowsDone() && n.testsDone() {
			reason = "flows-done"
			return true
		}
		return false
	}
	n.Eng.OnProgress(interruptEvery, func(now sim.Time, events uint64) {
		if n.interrupted.Load() {
			n.poll()
		}
		if progress != nil && events%progressEvery == 0 {
			progress(now, events)
		}
	})
	if len(n.Tests) > 0 {
		// A perftest or pingpong program finishes inside the HCA, which
		// tells no one: the stop condition is checked after every event.
		n.Eng.Run(s.Stop.At, done)
	} else {
		// Only the events that call poll can change what done reads, so
		// done is checked after those (and after an interruption), not
		// after every event: a closure call and its loads per event were
		// about 1.5% of the k=16 permutation's instructions.
		n.polling = true
		for {
			n.Eng.Run(s.Stop.At, nil)
			if !n.polled {
				break
			}
			n.polled = false
			if done() {
				break
			}
		}
		n.polling = false
	}
	if reason == "time" && s.Stop.WhenFlowsDone && n.flowsDone() && n.testsDone() {
		reason = "flows-done"
	}
	sum, rows := n.collect(reason)
	sum.Warnings = append(sum.Warnings, sm.Warnings()...)
	sum.Warnings = append(sum.Warnings, capt.Warnings()...)
	res := &reports.Results{Summary: sum, Flows: rows, Series: sm.Series(), PFC: log.Rows(), Captures: capt.Captures(),
		Topology: reportTopology(s.Topology)}
	if len(n.Tests) > 0 {
		res.Extra = map[string][]byte{"perftest.txt": n.perftestReport()}
	}
	return res
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

func (n *Network) collect(reason string) (*reports.Summary, []reports.FlowRow) {
	s := n.Scenario
	now := n.Eng.Now()
	sum := &reports.Summary{
		Scenario:   s.Name,
		Seed:       s.Seed,
		Complete:   reason != "interrupted",
		SimTimeNs:  now.Nanoseconds(),
		Events:     n.Eng.Events(),
		PacketHops: n.Fabric.PacketHops(),
		StopReason: reason,
		Packets:    reports.PacketCounts{DropReasons: map[string]int64{}},
	}
	for _, w := range s.Warnings {
		sum.Warnings = append(sum.Warnings, w.Error())
	}
	rows := n.flowRows(sum, now)
	n.countPackets(sum)
	if sum.Packets.DropReasons["headroom"] > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf(
			"%d packets of lossless priorities were dropped because headroom overflowed: this configuration is not lossless (raise switch.pfc.headroom or lower xoff)",
			sum.Packets.DropReasons["headroom"]))
	}
	n.faultSummary(sum)
	sum.Expect = observe.Check(n.view(), &s.Expect, len(n.Flows), sum)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	return sum, rows
}

// flowRows are flows.csv's rows, one per flow offered by now (sorted by
// id by collect), with the summary's flow, byte, FCT and fairness figures
// added to sum.
func (n *Network) flowRows(sum *reports.Summary, now sim.Time) []reports.FlowRow {
	s := n.Scenario
	var rows []reports.FlowRow
	var fcts, slowdowns, tputs []float64
	var sizes []int64
	for _, fr := range n.Flows {
		f := fr.Flow
		if f.Start > now || !fr.started {
			continue // never offered
		}
		sum.Flows.Total++
		sum.Bytes.Offered += f.Size
		delivered := fr.delivered()
		sum.Bytes.Delivered += delivered
		st, done, retransmits := fr.outcome()
		row := reports.FlowRow{
			ID: f.ID, Src: s.Topology.Nodes[f.Src].Name, Dst: s.Topology.Nodes[f.Dst].Name,
			QP: f.QP, Op: f.Op, SizeBytes: f.Size, DeliveredBytes: delivered,
			StartNs: f.Start.Nanoseconds(), Retransmits: retransmits,
			Status: st.String(),
		}
		switch st {
		case hca.WCPending:
			sum.Bytes.InFlight += f.Size - delivered
		case hca.WCSuccess:
			// A UD SEND completes when sent: what has not landed yet is
			// still on its way.
			sum.Bytes.InFlight += f.Size - delivered
			sum.Flows.Completed++
			fct := done - f.Start
			row.EndNs, row.FCTNs = done.Nanoseconds(), fct.Nanoseconds()
			row.Slowdown = 1
			if fr.Ideal > 0 {
				row.Slowdown = max(1, float64(fct)/float64(fr.Ideal))
			}
			fcts = append(fcts, float64(fct.Nanoseconds()))
			slowdowns = append(slowdowns, row.Slowdown)
			sizes = append(sizes, f.Size)
			tputs = append(tputs, float64(f.Size)/float64(fct))
		default:
			row.EndNs = done.Nanoseconds()
			sum.Bytes.Dropped += f.Size - delivered
		}
		rows = append(rows, row)
	}
	sum.FCT = reports.FCT{
		P50Ns:        int64(reports.Quantile(0.5, fcts)),
		P99Ns:        int64(reports.Quantile(0.99, fcts)),
		MeanSlowdown: reports.Round(reports.Mean(slowdowns), 4),
		P99Slowdown:  reports.Round(reports.Quantile(0.99, slowdowns), 4),
	}
	sum.FCTBuckets = reports.FCTBuckets(sizes, slowdowns)
	sum.Throughput.Fairness = reports.Round(reports.JainFairness(tputs), 6)

	return rows
}

// countPackets adds the HCAs', switches', links' and ports' counters to
// sum: packets, drops by reason, ECN marks and CNPs, PFC frames and time.
func (n *Network) countPackets(sum *reports.Summary) {
	for _, h := range n.HCAs {
		if h == nil {
			continue
		}
		sum.Packets.Sent += h.Stats.TxPackets
		sum.Packets.Delivered += h.Stats.RxPackets
		sum.Packets.Retransmitted += h.Stats.Retransmitted
		sum.Packets.ToClosedQP += h.Stats.ClosedQPDrops
		sum.ECN.CNPs += h.Stats.CNPsSent
	}
	for _, sw := range n.Switches {
		if sw == nil {
			continue
		}
		sum.ECN.Marked += sw.Stats.Marked
		for r, c := range sw.Stats.Drops {
			if c > 0 {
				sum.Packets.DropReasons[swtch.DropReason(r).String()] += c
				sum.Packets.Dropped += c
			}
		}
	}
	if lost := n.Fabric.Lost(); lost > 0 {
		sum.Packets.DropReasons["loss"] += lost
		sum.Packets.Dropped += lost
	}
	for _, ports := range n.Fabric.Ports {
		for _, p := range ports {
			sum.PFC.PauseFrames += p.Stats.PauseSent
			sum.PFC.ResumeFrames += p.Stats.ResumeSent
			for prio := uint8(0); prio < 8; prio++ {
				sum.PFC.PausedNs += p.PausedTime(prio).Nanoseconds()
			}
		}
	}
}
