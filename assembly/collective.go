package assembly

import (
	"fmt"

	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scaleup"
	"github.com/lfsim/lfsim/sim"
)

// Collectives (issue 48): each collective and nccl_tests generator is a
// communicator of package collective's model, run by a collective.Rank
// per rank on its host's engine. This file builds them and carries
// their steps: a step between two servers (or single-NIC hosts) is an
// RDMA WRITE with immediate on one of the connection's QPs (NCCL's IB
// transport: src/transport/net_ib/p2p.cc, ncclIbMultiSend), into the
// receiver's slot for it, whose RECV completion tells the receiving rank
// it has landed; a step inside a server is a transfer of the server's
// scale-up domain (package scaleup). Every QP, region and RECV is made
// when the network is built, as NCCL connects a communicator at its
// init, so nothing touches two hosts while the run goes: a rank reacts
// only to its own HCA's completions and to its own timers, and the
// scale-up domain is shared only by GPUs of one server, which are in one
// partition.

// commRun is one communicator during a run: a collective or an
// nccl_tests program.
type commRun struct {
	spec  *resolve.CommSpec
	comm  *collective.Comm
	hosts []fabric.NodeID // by rank
	ranks []*collective.Rank
	ends  []*collEnd // by rank: its transport
	// plans are the operations its calls run, each made once.
	plans map[collective.Spec]*collective.Plan
	// rows say what each call is (every rank makes the same calls, in
	// the same order).
	rows []callRow
	// nccl is the nccl_tests program, nil for a collective.
	nccl *ncclRun
	// model is what NCCL's tuning knows of it.
	model collective.Model
	// job is the job whose communicator it is (job.go), nil for a
	// collective or nccl_tests; jobRanks[p] is rank p's job rank, and
	// jobNodes[p][k] the node of its k-th call.
	job      *jobRun
	jobRanks []int
	jobNodes [][]int32
}

// callRow is what collectives.csv says of call i of a communicator.
type callRow struct {
	op        collective.Op
	size      int64
	proto     collective.Protocol
	iteration int
}

// collEnd is one rank's side of its communicator's connections: the
// QPs, region and CQ on its host's HCA, and the scale-up domain of its
// server.
type collEnd struct {
	n    *Network
	run  *commRun
	rank *collective.Rank
	h    *hca.HCA
	cq   *hca.CQ
	out  []collOut // by out-link
	in   []collIn  // by in-link
	dom  *scaleup.Domain
	gpu  int
	wcs  [16]hca.WC
	// failure is the first of the rank's work requests that failed ("":
	// none).
	failure string
}

// collOut is an out-link: its QPs (network), or its peer (scale-up).
type collOut struct {
	kind     collective.Kind
	qps      []*hca.QP
	addr     uint64 // the receiver's slots
	rkey     uint32
	peer     *collEnd
	peerIn   int32
	posted   int64 // wire bytes posted
	finished int64 // wire bytes whose work request completed
}

// collIn is an in-link: its QPs and the region its steps are written to.
type collIn struct {
	kind collective.Kind
	qps  []*hca.QP
	mr   *hca.MR
}

// collSlots is the slots of a connection's buffer the sender writes in
// turn (twice NCCL_STEPS: a slot is not written again while a step in
// it may still be read).
const collSlots = 2 * collective.Steps

// buildCollectives makes every collective's and nccl_tests program's
// communicator, connections and calls, and starts their ranks.
func (n *Network) buildCollectives() error {
	s := n.Scenario
	if len(s.Collectives)+len(s.NCCLTests)+len(s.Jobs) == 0 {
		return nil
	}
	n.domains = map[int]*scaleup.Domain{}
	byGen := map[int]*commRun{}
	for i := range s.Collectives {
		c := &s.Collectives[i]
		run, err := n.newCommRun(&c.CommSpec)
		if err != nil {
			return err
		}
		for it := 0; it < c.Iterations; it++ {
			if err := n.queueCall(run, c.Generator, collective.Spec{Op: c.Op, Size: c.Size, Root: c.Root, Chunk: c.Chunk}, c.Start, it); err != nil {
				return err
			}
		}
		byGen[c.Generator] = run
		n.colls = append(n.colls, run)
	}
	// after: a rank's first call of a collective waits for its last call
	// of each collective listed (those it is a rank of).
	for i := range s.Collectives {
		c := &s.Collectives[i]
		run := byGen[c.Generator]
		for _, a := range c.After {
			prev := byGen[s.Collectives[a].Generator]
			for r, h := range run.hosts {
				pr := indexOf(prev.hosts, h)
				if pr < 0 {
					continue
				}
				calls := prev.ranks[pr].Calls()
				n.gate(calls[len(calls)-1], run.ranks[r].Calls()[0], run.ranks[r])
			}
		}
	}
	for i := range s.NCCLTests {
		if err := n.buildNCCLTests(&s.NCCLTests[i]); err != nil {
			return err
		}
	}
	if err := n.buildJobs(); err != nil {
		return err
	}
	for _, run := range n.colls {
		for _, r := range run.ranks {
			n.collCalls += len(r.Calls())
			r.Kick()
		}
	}
	return nil
}

// protocolFor is the protocol run's calls of op of size bytes use: the
// one given, else NCCL's choice (collective.Model.ChooseProtocol).
func (n *Network) protocolFor(run *commRun, op collective.Op, size int64) collective.Protocol {
	if run.spec.ProtocolSet {
		return run.spec.Protocol
	}
	return run.model.ChooseProtocol(op, run.comm.Opt.Algorithm, size)
}

// tuningModel is what NCCL's tuning knows of run: its ranks, servers
// and channels, and its bottleneck's bandwidth (NCCL's graph bandwidth
// times its channels): the scale-up domain's when every rank is in one
// server; else a NIC's goodput (the first rank's link's rate times an
// MTU packet's payload over its wire bytes) times the NICs its channels
// spread over (on GPU servers with rail-aware layouts, one a channel up
// to the GPUs of a server; else one).
func (n *Network) tuningModel(run *commRun) collective.Model {
	s := n.Scenario
	c := run.comm
	m := collective.Model{Ranks: c.N(), Nodes: c.Nodes(), Channels: c.Opt.Channels, SameChannels: c.SameChannels()}
	if m.Nodes == 1 && run.ends[0].dom != nil {
		m.BusBw = float64(run.ends[0].dom.Rate) / 8e9
		return m
	}
	h := run.hosts[0]
	rate := s.Topology.Links[s.Topology.Nodes[h].Ports[0].Link].Rate
	mtu := s.HCAProfile(h).MTU
	m.BusBw = float64(rate) / 8e9 * float64(mtu) / float64(s.Wire(fabric.OpWriteMiddle, mtu))
	if nics := c.N() / c.Nodes(); nics > 1 && (c.Opt.RailAware || c.Opt.Algorithm == collective.Tree) {
		m.BusBw *= float64(min(c.Opt.Channels, nics))
	}
	return m
}

// queueCall queues a call of spec at every rank of run, made at start
// (the rank's previous call permitting): the protocol NCCL's tuning
// gives it (or the one forced), its plan, and its collectives.csv row.
// gen is the generator's traffic index, for errors.
func (n *Network) queueCall(run *commRun, gen int, spec collective.Spec, start sim.Time, iteration int) error {
	spec.Proto = n.protocolFor(run, spec.Op, spec.Size)
	p, err := n.planFor(run, spec)
	if err != nil {
		return fmt.Errorf("traffic[%d]: %v", gen, err)
	}
	run.rows = append(run.rows, callRow{op: spec.Op, size: spec.Size, proto: spec.Proto, iteration: iteration})
	for _, r := range run.ranks {
		r.Queue(&collective.Call{Plan: p, At: start, Tag: len(run.rows) - 1})
	}
	return nil
}

// planFor is run's plan of spec, made once for every call of it.
func (n *Network) planFor(run *commRun, spec collective.Spec) (*collective.Plan, error) {
	if run.plans == nil {
		run.plans = map[collective.Spec]*collective.Plan{}
	}
	if p := run.plans[spec]; p != nil {
		return p, nil
	}
	p, err := collective.NewPlan(run.comm, spec)
	if err != nil {
		return nil, err
	}
	run.plans[spec] = p
	return p, nil
}

func indexOf(hs []fabric.NodeID, h fabric.NodeID) int {
	for i, x := range hs {
		if x == h {
			return i
		}
	}
	return -1
}

// gate makes call next (of rank r) wait for call prev's end on the same
// host.
func (n *Network) gate(prev, next *collective.Call, r *collective.Rank) {
	next.Gate++
	n.gates[prev] = append(n.gates[prev], gated{call: next, rank: r})
}

type gated struct {
	call *collective.Call
	rank *collective.Rank
}

// newCommRun lays out spec's communicator over its hosts and makes its
// ranks and connections.
func (n *Network) newCommRun(spec *resolve.CommSpec) (*commRun, error) {
	s := n.Scenario
	places := make([]collective.Place, len(spec.Hosts))
	for i, h := range spec.Hosts {
		places[i] = collective.Place{Server: -1}
		if sv, g, ok := s.ServerOf(h); ok {
			places[i] = collective.Place{Server: sv, GPU: g}
		}
	}
	comm, err := collective.NewComm(places, collective.Options{Algorithm: spec.Algorithm, Channels: spec.Channels,
		RailAware: spec.RailAware, PXN: spec.PXN})
	if err != nil {
		return nil, fmt.Errorf("traffic[%d]: %v", spec.Generator, err)
	}
	run := &commRun{spec: spec, comm: comm, hosts: spec.Hosts}
	if n.gates == nil {
		n.gates = map[*collective.Call][]gated{}
	}
	for r, h := range spec.Hosts {
		e := &collEnd{n: n, run: run, h: n.HCAs[h], out: make([]collOut, len(comm.Out[r])), in: make([]collIn, len(comm.In[r]))}
		if e.h == nil {
			return nil, fmt.Errorf("traffic[%d]: %s is not a host", spec.Generator, s.Topology.Nodes[h].Name)
		}
		e.rank = collective.NewRank(comm, r, e.h.Engine(), e)
		e.rank.OnDone = func(_ *collective.Rank, c *collective.Call) { n.callDone(e, c) }
		if p := places[r]; p.Server >= 0 {
			e.gpu = p.GPU
			e.dom = n.domain(p.Server)
		}
		run.ranks = append(run.ranks, e.rank)
		run.ends = append(run.ends, e)
	}
	n.connect(run)
	run.model = n.tuningModel(run)
	return run, nil
}

// domain is server sv's scale-up domain, made when first used.
func (n *Network) domain(sv int) *scaleup.Domain {
	if d := n.domains[sv]; d != nil {
		return d
	}
	server := n.Scenario.Servers[sv]
	d := scaleup.New(len(server.GPUs), server.ScaleUp.Rate, server.ScaleUp.Delay)
	n.domains[sv] = d
	return d
}

// connect makes run's connections: for each network link its QPs at
// both ends (NCCL_IB_QPS_PER_CONNECTION of them), the receiver's region
// of slots and its RECVs, and each rank's CQ; and every in-link's step
// latencies.
func (n *Network) connect(run *commRun) {
	comm := run.comm
	spec := run.spec
	onePerServer := comm.OnePerServer()
	for _, e := range run.ends {
		links := len(e.out) + len(e.in)
		e.cq = e.h.CreateCQ(links*(2*collective.Steps+2)*spec.QPs + 64)
		e.cq.OnEvent = e.completions
	}
	for _, l := range comm.Links {
		src, dst := run.ends[l.From], run.ends[l.To]
		in, out := &dst.in[l.InIdx], &src.out[l.OutIdx]
		in.kind, out.kind = l.Kind, l.Kind
		own := sim.Time(0) // what lfsim simulates of a step's latency itself
		if l.Kind == collective.ScaleUp {
			out.peer, out.peerIn = dst, l.InIdx
			own = dst.dom.Delay
		} else {
			n.connectLink(run, src, dst, out, in, l)
			own = n.pathOf(resolve.Flow{Src: src.h.ID, Dst: dst.h.ID}, out.qps[0]).oneWayDelay(0)
		}
		if a := comm.Opt.Algorithm; l.Kind == collective.ScaleUp && (a == collective.Ring || a == collective.Tree) {
			// The sending channel's pace over NVLink (Rank.SetPace):
			// NCCL's NVLink step latency, and the GPU's scale-up rate
			// over the communicator's channels, each channel's share
			// (its graph's bwIntra, src/graph/search.cc:1045). Rings
			// and trees, whose channels NCCL's model gives a bandwidth
			// each (tuning.cc:324); not direct sends (NCCL's p2p
			// channels a peer, p2pChannels) nor halving-doubling (MPI's
			// and Gloo's, no channels).
			var lat [3]sim.Time
			for p := collective.LL; p <= collective.Simple; p++ {
				lat[p] = collective.ProtocolLatency(comm.Opt.Algorithm, p, collective.NVLink, false)
			}
			src.rank.SetPace(l.OutIdx, lat, src.dom.Rate/fabric.Rate(comm.Opt.Channels))
		}
		for p := collective.LL; p <= collective.Simple; p++ {
			hw := collective.Net
			if l.Kind == collective.ScaleUp {
				hw = collective.NVLink
			}
			d := collective.ProtocolLatency(comm.Opt.Algorithm, p, hw, onePerServer)
			if l.Kind == collective.ScaleUp && l.Relayed {
				d = 0 // into a PXN relay: its proxy forwards at once
			}
			dst.rank.SetDelay(l.InIdx, p, max(0, d-own))
		}
	}
}

// connectLink makes a network link's QPs at both ends, connected, the
// receiver's region and RECVs, and the senders' congestion control.
func (n *Network) connectLink(run *commRun, src, dst *collEnd, out *collOut, in *collIn, l collective.Link) {
	spec := run.spec
	caps := func(h *hca.HCA, cq *hca.CQ) hca.QPCaps {
		return hca.QPCaps{Type: hca.RC, PD: h.DefaultPD(), SendCQ: cq, RecvCQ: cq, MaxSend: 2 * collective.Steps, MaxRecv: 2 * collective.Steps}
	}
	in.mr = dst.h.RegMR(dst.h.DefaultPD(), collSlots*collective.MaxWire, nil, hca.AccessAll)
	out.addr, out.rkey = in.mr.Addr, in.mr.RKey
	prio := n.Scenario.HCAProfile(src.h.ID).Priority
	if spec.PrioritySet {
		prio = spec.Priority
	}
	for q := 0; q < spec.QPs; q++ {
		a, b := src.h.CreateQPWith(caps(src.h, src.cq)), dst.h.CreateQPWith(caps(dst.h, dst.cq))
		must(src.h.ModifyQP(a, hca.QPAttr{State: hca.QPInit, Access: hca.AccessAll}))
		must(dst.h.ModifyQP(b, hca.QPAttr{State: hca.QPInit, Access: hca.AccessAll}))
		src.h.Connect(a, dst.h.ID, dst.h.IP, b.QPN)
		dst.h.Accept(b, src.h.ID, src.h.IP, a.QPN)
		a.Priority, b.Priority = prio, prio
		out.qps, in.qps = append(out.qps, a), append(in.qps, b)
		for range collective.Steps {
			must(dst.h.PostRecv(b, hca.RecvWR{ID: recvID(l.InIdx, q)}))
		}
		path := n.pathOf(resolve.Flow{Src: src.h.ID, Dst: dst.h.ID}, a)
		n.attachCC(src.h, a, dst.h.ID, n.Scenario.HCAProfile(src.h.ID), path)
	}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// recvID and sendID name a RECV's in-link and QP, and a send's out-link.
func recvID(in int32, q int) uint64  { return uint64(in)<<16 | uint64(q) }
func sendID(out int32, q int) uint64 { return uint64(out)<<16 | uint64(q) }

// Send carries step seq of out-link i: a WRITE with immediate (the
// step's number) on QP seq mod QPs into the receiver's slot, or a
// transfer of the scale-up domain.
func (e *collEnd) Send(r *collective.Rank, i int32, seq int64, wire int64) {
	o := &e.out[i]
	o.posted += wire
	if o.kind == collective.ScaleUp {
		now := e.h.Engine().Now()
		at := e.dom.Transfer(e.gpu, o.peer.gpu, wire, now)
		o.peer.rank.LandAt(o.peerIn, seq, at)
		o.finished += wire
		r.DoneAt(i, at+e.dom.Delay) // the receiver frees the slot
		return
	}
	q := int(seq % int64(len(o.qps)))
	wr := hca.SendWR{ID: sendID(i, q), Op: hca.WRWriteImm, Length: wire, Signaled: true, Imm: uint32(seq),
		RemoteAddr: o.addr + uint64(seq%collSlots)*collective.MaxWire, RKey: o.rkey}
	if _, err := e.h.PostSend(o.qps[q], wr); err != nil {
		panic(fmt.Sprintf("collective: rank %d posts on a QP that refuses: %v", r.ID, err))
	}
}

// completions polls the rank's CQ: a RECV completion is a step landed
// (its immediate its number), and is posted again; a send completion
// frees a slot.
func (e *collEnd) completions(cq *hca.CQ) {
	for {
		k := cq.PollInto(e.wcs[:])
		if k == 0 {
			return
		}
		for _, wc := range e.wcs[:k] {
			if wc.Status != hca.WCSuccess {
				e.n.collFailed(e, wc)
				continue
			}
			if wc.Opcode == hca.WCOpRecvImm {
				in, q := int32(wc.WRID>>16), int(wc.WRID&0xFFFF)
				l := &e.in[in]
				must(e.h.PostRecv(l.qps[q], hca.RecvWR{ID: wc.WRID}))
				a := e.rank.Arrived(in)
				seq := a + int64(int32(wc.Imm-uint32(a)))
				e.rank.Land(in, seq)
				continue
			}
			out := int32(wc.WRID >> 16)
			e.out[out].finished += wc.ByteLen
			e.rank.Done(out)
		}
	}
}

// callDone is a rank's call done: the calls that waited for it may
// start, and the run may be over.
func (n *Network) callDone(e *collEnd, c *collective.Call) {
	for _, g := range n.gates[c] {
		g.call.Gate--
		g.rank.Kick()
	}
	if e.run.nccl != nil {
		n.ncclCallDone(e, c)
	}
	if e.run.job != nil {
		n.jobCallDone(e, c)
	}
	n.part(e.h.ID).collCalls++
	n.poll(e.h.ID)
}

// collFailed records a failed work request of a collective's rank: its
// call never ends (the step is lost), and the run says so.
func (n *Network) collFailed(e *collEnd, wc hca.WC) {
	if e.failure == "" {
		e.failure = fmt.Sprintf("%s: a work request of traffic[%d]'s collective failed at %v: %s", e.h.Name, e.run.spec.Generator, e.h.Engine().Now(), wc.Status)
	}
}
