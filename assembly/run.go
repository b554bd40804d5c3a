package assembly

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// How often, in events, Run looks for an interruption, and calls its
// progress function.
const (
	interruptEvery = 1 << 16
	progressEvery  = 1 << 20
)

// Run runs the scenario to its stop condition and returns what the run
// writes: the summary, the flow rows, the sampled time series and the PFC
// log. progress, if not nil, is called every million events.
func (n *Network) Run(progress func(now sim.Time, events uint64)) *reports.Results {
	s := n.Scenario
	v := n.view()
	var sampled []observe.Flow
	for _, f := range n.Flows {
		if f.Live != nil { // not those that start later
			sampled = append(sampled, observe.Flow{ID: f.Flow.ID, Receiver: f, CC: f.Live.CC, RTT: f.rtt, Node: f.Flow.Src})
		}
	}
	sm := observe.NewSampler(v, &s.Observe, n.prioritiesInUse(), sampled)
	log := observe.NewPFCLog(v)
	n.logEvents()
	capt := observe.NewCapturer(v, s.Observe.Pcap)
	n.startTimeline(v)
	if !n.windowed {
		sm.Start()
	}
	if !n.noDetector {
		if n.windowed {
			n.det = observe.StartWindowedDetector(v, s.Observe.DeadlockAfter)
		} else {
			n.det = observe.StartDetector(v, s.Observe.DeadlockAfter)
		}
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
	if n.windowed {
		n.drive(sm, done, progress)
		if reason == "time" && n.interrupted.Load() {
			reason = "interrupted"
		}
	} else {
		n.runSerial(done, progress)
	}
	if reason == "time" && s.Stop.WhenFlowsDone && n.flowsDone() && n.testsDone() {
		reason = "flows-done"
	}
	collectLargeHeap()
	return n.results(reason, v, sm, log, capt)
}

// largeHeap is the heap, bytes, above which a run's end is worth a
// collection (collectLargeHeap).
const largeHeap = 64 << 20

// collectLargeHeap collects the run's garbage before its results are
// made, when the heap is large: the results (flow rows, the topology's
// description, uplinks) are then made in what the garbage held, where
// they would otherwise come on top of a heap near the collector's goal
// and set the run's peak resident memory (23 MB at a k=32 fat tree's
// first millisecond: 294 MiB peak, where the run itself stayed under
// 279). A small heap is left alone: the suite's thousands of small runs
// would pay a collection each for nothing.
func collectLargeHeap() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > largeHeap {
		runtime.GC()
	}
}

// runSerial runs a network without a lookahead (a link without delay),
// which cannot be cut, on its engine: the sampler and the detector are
// its events, and the stop condition is looked at after the events that
// may meet it.
func (n *Network) runSerial(done func() bool, progress func(now sim.Time, events uint64)) {
	s := n.Scenario
	n.Eng.OnProgress(interruptEvery, func(now sim.Time, events uint64) {
		if n.interrupted.Load() {
			n.poll(0)
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
}

// results collects what a run writes.
func (n *Network) results(reason string, v *observe.View, sm *observe.Sampler, log *observe.PFCLog, capt *observe.Capturer) *reports.Results {
	s := n.Scenario
	sum, rows, uplinks := n.collect(reason, v, sm.Peak())
	sum.Warnings = append(sum.Warnings, sm.Warnings()...)
	sum.Warnings = append(sum.Warnings, capt.Warnings()...)
	events, dropped := n.eventRows()
	if dropped > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("events.csv holds the first %d asynchronous events only; %d more were not kept", maxEvents, dropped))
	}
	res := &reports.Results{Summary: sum, Flows: rows, Series: sm.Series(), PFCLog: log.Frames(), Captures: capt.Captures(),
		Topology: reportTopology(s.Topology, s.NodeLink, s.Servers), Uplinks: uplinks, SnapLen: s.Observe.SnapLen}
	res.Events = events
	if s.LinkLayer == fabric.InfiniBand || s.Mixed() {
		// InfiniBand captures write the LIDs the subnet manager gave
		// (lfts.txt's, devinfo's), with the packets' LMC path bits.
		lids := s.LIDs()
		for _, c := range res.Captures {
			c.LIDs = lids
		}
	}
	if n.stream != nil {
		res.SpooledFlows = n.stream.spooled
	}
	if len(n.Tests) > 0 {
		res.Extra = map[string][]byte{"perftest.txt": n.perftestReport()}
	}
	n.timelineResults(res)
	if len(n.colls) > 0 {
		n.collectiveResults(res)
	}
	if len(n.jobs) > 0 {
		n.jobResults(res)
	}
	if len(s.AsyncWatch) > 0 {
		if res.Extra == nil {
			res.Extra = map[string][]byte{}
		}
		res.Extra["asyncwatch.txt"] = n.asyncwatchReport()
	}
	if s.LinkLayer == fabric.InfiniBand || s.Mixed() {
		// The subnet manager's forwarding tables, as OpenSM dumps them,
		// written as they are made: with an LMC they are large. On a
		// mixed network, the InfiniBand switches' only.
		res.Streamed = map[string]func(io.Writer) error{"lfts.txt": func(w io.Writer) error {
			r := s.Routes
			if s.Mixed() {
				r = s.IBRoutes
			}
			return fabric.WriteLFTs(w, s.Topology, r, s.LIDs())
		}}
	}
	return res
}

// collect makes the summary and flow rows at the end of a run; v is the
// observers' view, for the expectations.
func (n *Network) collect(reason string, v *observe.View, peak *reports.QueuePeak) (*reports.Summary, []reports.FlowRow, []reports.UplinkRow) {
	s := n.Scenario
	now := n.Eng.Now()
	sum := &reports.Summary{
		Scenario:   s.Name,
		Seed:       s.Seed,
		Complete:   reason != "interrupted",
		SimTimeNs:  now.Nanoseconds(),
		Events:     n.eventCount(),
		PacketHops: n.Fabric.PacketHops(),
		StopReason: reason,
		Packets:    reports.PacketCounts{DropReasons: map[string]int64{}},
		Bytes:      reports.ByteCounts{DropReasons: map[string]int64{}},
	}
	for _, w := range s.Warnings {
		sum.Warnings = append(sum.Warnings, w.Error())
	}
	var uplinks []reports.UplinkRow
	sum.Uplinks, uplinks = n.uplinks()
	sum.Queues = n.queueDepths(peak)
	c := n.takeCensus()
	rows, byteErrors := n.flowRows(sum, now, c)
	if len(n.colls) > 0 {
		byteErrors = append(byteErrors, n.collectiveBytes(sum)...)
	}
	if len(n.jobs) > 0 {
		byteErrors = append(byteErrors, n.jobBytes(sum)...)
	}
	sum.Connections = n.connections()
	n.countPackets(sum)
	sum.Classes = n.classCounters()
	n.conserve(sum, c, byteErrors)
	n.uecCounts(sum)
	if sum.Packets.DropReasons["headroom"] > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf(
			"%d packets of lossless priorities were dropped because headroom overflowed: this configuration is not lossless (raise switch.pfc.headroom or lower xoff)",
			sum.Packets.DropReasons["headroom"]))
	}
	if n.dyn.capped {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("the poisson generators stopped making flows at the flow limit (%d flows)", n.flowLimit))
	}
	n.faultSummary(sum)
	if len(n.colls) > 0 { // before the checks, which read it
		sum.Collectives = n.collectiveSummary(n.collectiveRows())
	}
	if len(n.jobs) > 0 {
		var cut bool
		sum.Jobs, cut = n.jobSummaries(reason != "interrupted")
		if !cut {
			sum.Warnings = append(sum.Warnings, n.aloneWarnings...)
		}
		if cut {
			// Interrupted while the jobs ran alone: the run is as
			// incomplete as one interrupted in its own loop.
			sum.Complete, sum.StopReason = false, "interrupted"
			sum.Warnings = append(sum.Warnings, "the run was interrupted while the jobs ran alone: no job has a slowdown")
		}
	}
	sum.Expect = observe.Check(v, &s.Expect, n.flowCount(), sum)
	sum.Expect = append(sum.Expect, n.pingpongChecks()...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	return sum, rows, uplinks
}

// flowRows are flows.csv's rows, one per flow offered by now (sorted by
// id by collect), with the summary's flow, byte, FCT and fairness figures
// added to sum; byteErrors are the flows whose bytes do not add up
// (conservation.go). A run that streamed its finished flows
// (StreamFlows) returns no rows: its flows.csv rows are the stream's
// spooled ones merged with those of the flows it still holds
// (flowStream.spooled), and its figures count both.
func (n *Network) flowRows(sum *reports.Summary, now sim.Time, c *census) (rows []reports.FlowRow, byteErrors []string) {
	st := n.stream
	tally := newFCTTally(0)
	var errs []flowError
	var tail []reports.FlowRecord
	for _, fr := range n.Flows {
		if fr.retired || fr.Flow.Start > now || !fr.started {
			continue // in the spool (flowstream.go), or never offered
		}
		rec, err := n.flowRecord(fr, sum, c)
		if err != "" && len(errs) <= maxConservationErrors {
			errs = append(errs, flowError{fr.Flow.ID, err})
		}
		if st != nil {
			tail = append(tail, rec)
			continue
		}
		tally.add(&rec)
		rows = append(rows, rec.FlowRow)
	}
	if st != nil {
		st.addStreamed(sum)
		tally = newFCTTally(sum.Flows.Completed)
		for _, e := range st.errs {
			errs = keepFirstErrors(errs, e)
		}
		sp := &reports.SpooledFlows{Spool: st.spool, Tail: tail}
		// A spool that could not be written or read leaves the figures
		// short; writing flows.csv then fails with its error.
		_ = st.spool.Each(tail, func(r *reports.FlowRecord) bool {
			tally.add(r)
			sp.Order = sp.Order || r.Order != nil
			sp.CM = sp.CM || r.CM
			return true
		})
		st.spooled = sp
	}
	for _, e := range errs {
		byteErrors = append(byteErrors, e.err)
	}
	for r, k := range n.ledger.reasons {
		sum.Bytes.DropReasons[r] += k
	}
	sum.Flows.WorkCompletions = map[string]int64{}
	var completions [16]int64
	for i := range n.parts {
		for st, k := range n.parts[i].completions {
			completions[st] += k
		}
	}
	for st, k := range completions {
		if k > 0 {
			sum.Flows.WorkCompletions[hca.WCStatus(st).String()] = k
		}
	}
	sum.Bytes.Copied = n.ledger.copied
	tally.into(sum)
	return rows, byteErrors
}

// flowRecord is fr's row of flows.csv and what the summary's FCT
// figures take from it, with its count and byte terms added to sum, and
// its byte error ("" when its bytes add up).
func (n *Network) flowRecord(fr *FlowRun, sum *reports.Summary, c *census) (rec reports.FlowRecord, byteErr string) {
	s := n.Scenario
	f := fr.Flow
	sum.Flows.Total++
	delivered := fr.delivered()
	st, done, retransmits := fr.outcome()
	landed := delivered
	if f.QP != "rc" {
		landed = fr.ResponderDelivered() // copies flooded to it may exceed its size
	}
	inFlight, dropped, reason, err := n.flowBytes(fr, c, landed, st)
	sum.Bytes.Offered += f.Size
	sum.Bytes.Delivered += landed
	sum.Bytes.InFlight += inFlight
	sum.Bytes.Dropped += dropped
	if reason != "" {
		sum.Bytes.DropReasons[reason] += dropped - fr.lost
	}
	row := &rec.FlowRow
	*row = reports.FlowRow{
		ID: f.ID, Src: s.Topology.Nodes[f.Src].Name, Dst: s.Topology.Nodes[f.Dst].Name,
		QP: f.QP, Op: f.Op, SizeBytes: f.Size, DeliveredBytes: delivered,
		StartNs: f.Start.Nanoseconds(), Retransmits: retransmits,
		Status: st.String(),
	}
	if n.balanced {
		row.Order = fr.arrivalOrder()
	}
	if f.CM {
		row.CM = true
		if fr.connectedAt > 0 {
			row.ConnectNs = (fr.connectedAt - f.Start).Nanoseconds()
		}
	}
	switch fail := fr.failure(); {
	case fail != "" && st == hca.WCPending:
		// Terminated, and the requester has not heard yet: the flow
		// ended at the responder.
		row.Status, row.EndNs = fail, fr.ResponderTerminated().Nanoseconds()
	case fail != "":
		row.Status, row.EndNs = fail, done.Nanoseconds()
	case st == hca.WCPending:
	case st == hca.WCSuccess && f.QP != "rc" && delivered < f.Size:
		// A UC or UD flow done with bytes lost: it ended (when the
		// last was lost), but did not complete, and its time is no
		// completion time.
		row.EndNs = done.Nanoseconds()
	case st == hca.WCSuccess:
		sum.Flows.Completed++
		fct := done - f.Start
		row.EndNs, row.FCTNs = done.Nanoseconds(), fct.Nanoseconds()
		row.Slowdown = 1
		if fr.Ideal > 0 {
			row.Slowdown = max(1, float64(fct)/float64(fr.Ideal))
		}
		rec.Completed, rec.FCT = true, int64(fct)
	default:
		row.EndNs = done.Nanoseconds()
	}
	return rec, err
}

// countPackets adds the HCAs', switches' and ports' other counters to
// sum: retransmissions, ECN marks and CNPs, PFC frames and time (conserve
// counts the packets themselves).
func (n *Network) countPackets(sum *reports.Summary) {
	for _, h := range n.HCAs {
		if h == nil {
			continue
		}
		sum.Packets.Retransmitted += h.Stats.Retransmitted
		sum.Packets.ToClosedQP += h.Stats.ClosedQPDrops
		sum.ECN.CNPs += h.Stats.CNPsSent
	}
	for _, sw := range n.Switches {
		if sw != nil {
			sum.ECN.Marked += sw.Stats.Marked
		}
	}
	var creditWait int64 // a mixed network's InfiniBand ports'
	for _, ports := range n.Fabric.Ports {
		for _, p := range ports {
			sum.PFC.PauseFrames += p.Stats.PauseSent
			sum.PFC.ResumeFrames += p.Stats.ResumeSent
			paused := &sum.PFC.PausedNs
			if p.Credits() && n.Scenario.Mixed() {
				paused = &creditWait
			}
			for prio := uint8(0); prio < 8; prio++ {
				*paused += p.PausedTime(prio).Nanoseconds()
			}
		}
	}
	if n.Scenario.Mixed() {
		sum.PFC.CreditWaitNs = &creditWait
	}
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
			if c.CM {
				fmt.Fprintf(&b, " -R")
				if at := tr.Perftest.Connected; at > 0 {
					fmt.Fprintf(&b, " (connected by rdma_cm in %v)", (at - c.Start).Short())
				}
			}
			b.WriteString("\n")
			b.WriteString(tr.Perftest.Report())
			continue
		}
		if tr.Mckey != nil {
			fmt.Fprintf(&b, "# traffic[%d] mckey from %s to %d receivers\n", t.Generator, src, len(t.Receivers))
			b.WriteString(tr.Mckey.Report())
			continue
		}
		if tr.Server != nil {
			fmt.Fprintf(&b, "# traffic[%d] rdma_server on %s: rdma_server -p %d\n", t.Generator, src, t.Port)
			b.WriteString(tr.Server.Report())
			continue
		}
		if tr.Client != nil {
			fmt.Fprintf(&b, "# traffic[%d] rdma_client on %s: rdma_client -s %s -p %d\n", t.Generator, src, dst, t.Port)
			b.WriteString(tr.Client.Report())
			continue
		}
		if tr.Rping != nil {
			how := "connected out of band, not by rdma_cm (connect: cm for that)"
			if r := tr.Rping; r.Cfg.CM {
				how = "connected by rdma_cm, not yet"
				if r.Connected > 0 {
					how = fmt.Sprintf("connected by rdma_cm in %v", (r.Connected - r.Cfg.Start).Short())
				}
			}
			fmt.Fprintf(&b, "# traffic[%d] rping %s -> %s (%s)\n", t.Generator, src, dst, how)
			b.WriteString(tr.Rping.Report())
			continue
		}
		c := t.Pingpong
		fmt.Fprintf(&b, "# traffic[%d] pingpong %s %s -> %s: ibv_%s_pingpong -s %d -n %d -r %d\n", t.Generator, c.Type, src, dst, c.Type, c.Size, c.Iters, c.RxDepth)
		b.WriteString(tr.Pingpong.Report())
	}
	return []byte(b.String())
}

// reportTopology is topology.json: what the report draws; on a network
// that mixes link layers (nodeLink, resolve.Scenario.NodeLink) each node
// with its own; and the GPU servers, if any.
func reportTopology(t *fabric.Topology, nodeLink []fabric.LinkLayer, servers []resolve.Server) *reports.Topo {
	out := &reports.Topo{Nodes: make([]reports.TopoNode, 0, len(t.Nodes)), Links: make([]reports.TopoLink, 0, len(t.Links))}
	for id, n := range t.Nodes {
		node := reports.TopoNode{Name: n.Name, Kind: n.Kind.String()}
		if n.Second {
			node.PortOf = t.Nodes[t.Owner(fabric.NodeID(id))].Name
		}
		if n.RangeExtender {
			node.Device = "range-extender"
		}
		if nodeLink != nil {
			node.LinkLayer = nodeLink[id].String()
		}
		out.Nodes = append(out.Nodes, node)
	}
	for _, l := range t.Links {
		out.Links = append(out.Links, reports.TopoLink{A: t.PortName(l.A, l.APort), B: t.PortName(l.B, l.BPort), RateGbps: l.Rate.Gbps()})
	}
	for _, sv := range servers {
		gpus := make([]string, len(sv.GPUs))
		for i, h := range sv.GPUs {
			gpus[i] = t.Nodes[h].Name
		}
		out.Servers = append(out.Servers, reports.TopoServer{Name: sv.Name, GPUs: gpus,
			NVLinkGbps: sv.ScaleUp.Rate.Gbps(), NVLinkDelayNs: int64(sv.ScaleUp.Delay / sim.Nanosecond)})
	}
	return out
}

// uplinks measures the bytes each uplink sent (reports.Uplinks, and
// uplinks.csv's rows in node and port order): a switch's port whose peer
// is a switch nearer the roots of the up*/down* order
// (fabric.UpDownRanks). nil when the fabric has none, or no order.
// queueDepths completes the sampler's peak with the switch egress queue
// whose time-averaged depth over the run was the largest; nil when no
// queue ever held a byte.
func (n *Network) queueDepths(peak *reports.QueuePeak) *reports.QueuePeak {
	q := reports.QueuePeak{}
	if peak != nil {
		q = *peak
	}
	for id, sw := range n.Switches {
		if sw == nil {
			continue
		}
		for port := range sw.Ports() {
			for prio := uint8(0); prio < 8; prio++ {
				if m := sw.QueueStats(port, prio).MeanBytes; m > q.MeanBytes {
					q.MeanBytes = m
					q.MeanQueue = fmt.Sprintf("%s:%d", n.Scenario.Topology.PortName(fabric.NodeID(id), port), prio)
				}
			}
		}
	}
	if q.PeakBytes == 0 && q.MeanBytes == 0 {
		return nil
	}
	q.MeanBytes = math.Round(q.MeanBytes)
	return &q
}

func (n *Network) uplinks() (*reports.Uplinks, []reports.UplinkRow) {
	t := n.Scenario.Topology
	rank, err := fabric.UpDownRanks(t)
	if err != nil {
		return nil, nil
	}
	u := &reports.Uplinks{}
	var rows []reports.UplinkRow
	var total int64
	for id, ports := range n.Fabric.Ports {
		if rank[id] < 0 {
			continue // a host
		}
		for _, p := range ports {
			peer := p.Peer()
			if peer == nil || rank[peer.Node] < 0 || rank[peer.Node] >= rank[id] {
				continue
			}
			b := p.Stats.TxBytes
			rows = append(rows, reports.UplinkRow{Port: t.PortName(fabric.NodeID(id), p.Index), Peer: t.PortName(peer.Node, peer.Index), Bytes: b})
			u.Count++
			total += b
			u.MaxBytes = max(u.MaxBytes, b)
		}
	}
	if u.Count == 0 {
		return nil, nil
	}
	u.MeanBytes = float64(total) / float64(u.Count)
	if u.MeanBytes > 0 {
		u.Imbalance = float64(u.MaxBytes) / u.MeanBytes
	}
	return u, rows
}

// BytesProgress is how far a run that stops when its flows are done has
// got: the payload delivered of all its flows' bytes. ok is false when
// that is not the measure: the run stops on time alone, or some of its
// traffic is not known before it runs (poisson flows) or is not flows
// (perftest, pingpong).
func (n *Network) BytesProgress() (done, total int64, ok bool) {
	s := n.Scenario
	if !s.Stop.WhenFlowsDone || len(s.Poisson) > 0 || len(n.Tests) > 0 || len(n.Flows) == 0 {
		return 0, 0, false
	}
	for _, fr := range n.Flows {
		total += fr.Flow.Size
		if fr.started {
			done += min(fr.delivered(), fr.Flow.Size)
		}
	}
	return done, total, total > 0
}

// pingpongChecks are expect.min_usec_per_iter and max_usec_per_iter,
// for each pingpong in traffic order.
func (n *Network) pingpongChecks() []reports.CheckResult {
	e := &n.Scenario.Expect
	var out []reports.CheckResult
	for _, tr := range n.Tests {
		if tr.Pingpong == nil {
			continue
		}
		got := tr.Pingpong.UsecPerIter()
		for _, c := range []struct {
			check string
			bound *float64
			at    string
			min   bool
		}{{"min_usec_per_iter", e.MinUsecPerIter, e.MinUsecPerIterAt, true}, {"max_usec_per_iter", e.MaxUsecPerIter, e.MaxUsecPerIterAt, false}} {
			if c.bound == nil {
				continue
			}
			ok, word := got >= *c.bound, "least"
			if !c.min {
				ok, word = got <= *c.bound, "most"
			}
			detail := fmt.Sprintf("traffic[%d] pingpong: %.2f usec/iter, expected at %s %.2f", tr.Test.Generator, got, word, *c.bound)
			if got == 0 {
				ok, detail = false, fmt.Sprintf("traffic[%d] pingpong did not finish", tr.Test.Generator)
			}
			out = append(out, observe.Result(c.check, ok, c.at, "%s", detail))
		}
	}
	return out
}
