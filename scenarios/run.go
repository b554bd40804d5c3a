package scenarios

import (
	"fmt"
	"sort"
	"sync/atomic"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
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

	completed   int
	interrupted atomic.Bool
}

// FlowRun is one flow's state during a run.
type FlowRun struct {
	Flow      Flow
	Requester *hca.QP
	Responder *hca.QP
	WQE       *hca.WQE
	// Ideal is the flow's completion time alone on an empty network.
	Ideal sim.Time
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
	maxFrame := int64(0)
	for i, host := range s.Topology.Hosts() {
		prof := s.HCAProfile(host)
		frame := int64(fabric.RoCEv2Wire(fabric.OpWriteFirst, prof.MTU) - fabric.PreambleIFGBytes)
		maxFrame = max(maxFrame, frame)
		name := s.Topology.Nodes[host].Name
		n.HCAs[host] = hca.New(eng, fab.Pool, host, name, fabric.HostIP(i), prof, fab.Ports[host][0])
	}
	for id, node := range s.Topology.Nodes {
		if node.Kind != fabric.Switch {
			continue
		}
		nid := fabric.NodeID(id)
		n.Switches[id] = swtch.New(eng, fab.Pool, nid, node.Name, s.SwitchProfile(nid), fab.Ports[id], s.Routes, maxFrame)
	}
	for _, f := range s.Flows {
		src, dst := n.HCAs[f.Src], n.HCAs[f.Dst]
		if src == nil || dst == nil {
			return nil, fmt.Errorf("flow %d: %s -> %s is not between two hosts", f.ID, s.Topology.Nodes[f.Src].Name, s.Topology.Nodes[f.Dst].Name)
		}
		rq, rs := src.CreateQP(), dst.CreateQP()
		src.Connect(rq, dst.ID, dst.IP, rs.QPN)
		dst.Connect(rs, src.ID, src.IP, rq.QPN)
		rq.Priority = f.Priority
		fr := &FlowRun{Flow: f, Requester: rq, Responder: rs}
		fr.WQE = src.PostWrite(rq, f.ID, f.Size, f.Start)
		fr.Ideal = n.idealFCT(f, rq)
		n.Flows = append(n.Flows, fr)
	}
	for _, h := range n.HCAs {
		if h != nil {
			h.OnComplete = func(*hca.QP, *hca.WQE) { n.completed++ }
		}
	}
	return n, nil
}

// idealFCT is the flow's completion time alone on an empty network, along
// the path its ECMP hash takes: the message's wire bytes at the path's
// bottleneck rate, one packet's store-and-forward serialization on every
// other hop, the propagation delays and switch latencies there, and the
// final ACK's way back.
func (n *Network) idealFCT(f Flow, qp *hca.QP) sim.Time {
	t := n.Scenario.Topology
	prof := n.Scenario.HCAProfile(f.Src)
	mtu := int64(prof.MTU)
	pkts := max(1, (f.Size+mtu-1)/mtu)
	wire := pkts*int64(fabric.RoCEv2Wire(fabric.OpWriteMiddle, 0)) + f.Size +
		int64(fabric.RETHBytes)
	pktWire := int64(fabric.RoCEv2Wire(fabric.OpWriteMiddle, int(min(mtu, f.Size))))
	ackWire := int64(fabric.RoCEv2Wire(fabric.OpAcknowledge, 0))
	key := fabric.FlowKey{SrcIP: n.HCAs[f.Src].IP, DstIP: n.HCAs[f.Dst].IP, SrcPort: fabric.RoCEv2SourcePort(qp.QPN), DstPort: fabric.RoCEv2Port}
	var rates []fabric.Rate
	var total sim.Time
	at, port := f.Src, 0
	for hops := 0; hops < len(t.Nodes); hops++ {
		ref := t.Nodes[at].Ports[port]
		l := t.Links[ref.Link]
		rates = append(rates, l.Rate)
		total += 2 * l.Delay // data there, ACK back
		total += fabric.SerializationTime(ackWire, l.Rate)
		at = ref.Peer
		if at == f.Dst {
			break
		}
		sw := n.Switches[at]
		total += 2 * sw.Prof.Latency
		next := n.Scenario.Routes.NextPorts(at, f.Dst)
		if len(next) == 0 {
			return 0
		}
		port = int(next[0])
		if len(next) > 1 {
			port = int(fabric.PickPort(next, key.Hash(sw.Prof.ECMPSeed)))
		}
	}
	slow := 0
	for i, r := range rates {
		if r < rates[slow] {
			slow = i
		}
	}
	total += fabric.SerializationTime(wire, rates[slow])
	for i, r := range rates {
		if i != slow {
			total += fabric.SerializationTime(pktWire, r)
		}
	}
	return total
}

// Interrupt asks a running Run to stop at the current simulated time; it
// is safe to call from another goroutine (a signal handler).
func (n *Network) Interrupt() { n.interrupted.Store(true) }

// Run runs the scenario to its stop condition and returns the summary and
// the flow rows. progress, if not nil, is called every million events.
func (n *Network) Run(progress func(now sim.Time, events uint64)) (*reports.Summary, []reports.FlowRow) {
	s := n.Scenario
	if progress != nil {
		n.Eng.OnProgress(1<<20, progress)
	}
	total := len(n.Flows)
	reason := "time"
	n.Eng.Run(s.Stop.At, func() bool {
		if n.interrupted.Load() {
			reason = "interrupted"
			return true
		}
		if s.Stop.WhenFlowsDone && n.completed == total {
			reason = "flows-done"
			return true
		}
		return false
	})
	if reason == "time" && s.Stop.WhenFlowsDone && n.completed == total {
		reason = "flows-done"
	}
	return n.collect(reason)
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
	var rows []reports.FlowRow
	var fcts, slowdowns, tputs []float64
	for _, fr := range n.Flows {
		f := fr.Flow
		if f.Start > now {
			continue // never offered
		}
		sum.Flows.Total++
		sum.Bytes.Offered += f.Size
		sum.Bytes.Delivered += fr.Responder.Delivered
		row := reports.FlowRow{
			ID: f.ID, Src: s.Topology.Nodes[f.Src].Name, Dst: s.Topology.Nodes[f.Dst].Name,
			QP: f.QP, Op: f.Op, SizeBytes: f.Size, DeliveredBytes: fr.Responder.Delivered,
			StartNs: f.Start.Nanoseconds(), Retransmits: fr.WQE.Retransmits,
			Status: fr.WQE.Status.String(),
		}
		switch fr.WQE.Status {
		case hca.WCPending:
			sum.Bytes.InFlight += f.Size - fr.Responder.Delivered
		case hca.WCSuccess:
			sum.Flows.Completed++
			fct := fr.WQE.Completed - f.Start
			row.EndNs, row.FCTNs = fr.WQE.Completed.Nanoseconds(), fct.Nanoseconds()
			row.Slowdown = 1
			if fr.Ideal > 0 {
				row.Slowdown = max(1, float64(fct)/float64(fr.Ideal))
			}
			fcts = append(fcts, float64(fct.Nanoseconds()))
			slowdowns = append(slowdowns, row.Slowdown)
			tputs = append(tputs, float64(f.Size)/float64(fct))
		default:
			row.EndNs = fr.WQE.Completed.Nanoseconds()
			sum.Bytes.Dropped += f.Size - fr.Responder.Delivered
		}
		rows = append(rows, row)
	}
	sum.FCT = reports.FCT{
		P50Ns:        int64(reports.Quantile(0.5, fcts)),
		P99Ns:        int64(reports.Quantile(0.99, fcts)),
		MeanSlowdown: reports.Round(reports.Mean(slowdowns), 4),
		P99Slowdown:  reports.Round(reports.Quantile(0.99, slowdowns), 4),
	}
	sum.Throughput.Fairness = reports.Round(reports.JainFairness(tputs), 6)

	for _, h := range n.HCAs {
		if h == nil {
			continue
		}
		sum.Packets.Sent += h.Stats.TxPackets
		sum.Packets.Delivered += h.Stats.RxPackets
		sum.Packets.Retransmitted += h.Stats.Retransmitted
	}
	for _, sw := range n.Switches {
		if sw == nil {
			continue
		}
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
	if sum.Packets.DropReasons["headroom"] > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf(
			"%d packets of lossless priorities were dropped because headroom overflowed: this configuration is not lossless (raise switch.pfc.headroom or lower xoff)",
			sum.Packets.DropReasons["headroom"]))
	}
	sum.Expect = n.checkExpectations(sum)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	return sum, rows
}
