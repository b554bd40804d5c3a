package resolve

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/scenario"
)

// A scenario's memory is estimated while it is loaded, from what drives
// it (the routing engine's tables, hosts, switches, their ports and
// egress FIFOs, flows and their work requests by transport, multicast
// groups, the observers' time series), before the costly parts are
// made: a k=64 fat tree would otherwise spend minutes and gigabytes on
// its routing tables before anything is said. A scenario whose estimate
// is over the memory limit (SetMemoryLimit; lfsim's --max-memory) is
// refused with the estimate, its terms, and the key that drives it.
//
// The estimate is of the heap at its peak, net of what a process that
// runs nothing holds: the routing tables are built (and their scratch
// let go) before the network is, so the peak is the larger of the two
// phases, over what both hold (the topology, the flows), and the
// garbage between collections on top (memGarbage).
//
// Each per-unit cost below is measured on the structures themselves: by
// heap profile (go test -memprofilerate=64, inuse_space after 100 µs of
// a k=16 fat-tree permutation, each allocation site divided by the
// count of what it makes), by the heap's growth with one count (a star
// of 64 hosts with 1,000 and 2,000 flows of one kind; rings and stars of
// 256 and 512 hosts), or from unsafe.Sizeof (fabric.RoutingSize); Go
// 1.25, amd64, 2026-12-04. TestMemoryEstimate holds the whole within 25%
// of the heap measured on fat trees k=8..16 (Ethernet, InfiniBand with
// LMC 0, 2 and 7, lash), stars, a leaf-spine, flows of each transport
// and an mckey group; a model whose structures grow fails it until these
// are measured again. docs/PERFORMANCE.md gives the peak
// resident memory against the estimate for k=8..24.
const (
	// memNode is a topology node: its fabric.TopoNode and name (113 B,
	// fabric.Topology.AddNode) and its entry in topology.json's model
	// (173 B, reportTopology).
	memNode = 290
	// memLink is a topology link (fabric.Topology.connectAt: 85 B).
	memLink = 85
	// memPort is every port, a host's or a switch's: its fabric.Port
	// and its half of the link (fabric.NewNetwork: 833 B at k=16, 862 on
	// a ring of 512), its lane of the event engine (sim's laneRing: 156
	// B) and its place in the PFC log (observe.PFCLog.watch: 47 B).
	memPort = 1040
	// memHost is a host's HCA (hca.New: 1,094 B at k=16 and on a ring of
	// 512), its port apart.
	memHost = 1100
	// memSwitch is a switch apart from its ports (switch.New: 2,797 B a
	// switch of three ports on a ring of 512, 6,797 one of sixteen at
	// k=16: 1,874 and 308 a port).
	memSwitch = 1870
	// memSwitchPort is a switch port's state apart from its fabric.Port
	// and its priorities': switch.New's 308 B a port and the deadlock
	// detector's 201 (observe.StartWindowedDetector).
	memSwitchPort = 510
	// memPortSlot is a switch port's state of one priority in use (a
	// slot, switch/slots.go; switch.addSlots: 281 B at k=16): its
	// ingress account, counters and egress queue.
	memPortSlot = 281
	// memFIFO is a switch's per-ingress-port FIFO at one egress port, for
	// one priority in use (made when the priority first queues there):
	// a fabric.PacketFIFO (16 bytes) and a round-robin slot (4); a star
	// of 256 and 512 hosts grew by 20 B a port pair.
	memFIFO = 20
	// memFlow is a flow of RoCE or InfiniBand connected out of band, in
	// the run: its QP pair, memory region, first work request, completion
	// and flows.csv row: a star of 64 hosts grew by 3,206 B a flow (RC
	// WRITE), 3,277 (RC SEND, with its RECV), 3,238 (UC), 3,321 (UD
	// SEND), less its time series (memSeriesKey) and its entry in the
	// scenario, memFlowEntry (218 B, addFlowsSized at k=16), which is
	// held from the start.
	memFlow      = 2880
	memFlowEntry = 220
	// memFlowCM is what rdma_cm adds to a flow (connect: cm): its
	// connection's state and messages, 548 B a flow (RC); memFlowSIDR a
	// UD flow's service ID resolution, 793 B.
	memFlowCM   = 550
	memFlowSIDR = 800
	// memFlowTCP is what iWARP adds to a flow: each QP's TCP state, whose
	// scoreboard of sent segments is tcpBoard (4,096) bytes
	// (hca/tcp.go): 12,150 B a flow against RoCE's 3,200.
	memFlowTCP = 8950
	// memWR is a flow's further work request (flow.messages, a UD
	// flow's datagrams, a flow longer than the largest message): its WQE
	// (hca.newWQE: 292 B) and its post; 430 B each with messages: 100.
	// memRecv is a RECV posted for a SEND or a WRITE with immediate (or
	// mckey's): 75 B each, with messages: 100 and with mckey's count.
	memWR   = 430
	memRecv = 75
	// memFlowLink is the packets and events of a flow in progress, per
	// link of its path: at k=16 after 100 µs, 7.7 KB a flow
	// (fabric.Pool's packets 7.0 KB, the engine's events 0.7 KB; the
	// FIFOs the packets open are memFIFO's) over 5.9 links on average
	// between hosts, 1.3 KB a link; 8.3 KB a flow at k=24; 1.5 KB on a
	// star's two (a switch buffer of 1 GiB). On InfiniBand, where credits
	// keep each VL of a link to its receiver's buffer, 0.7 KB a link:
	// fabric.Pool's packets 3.6 KB a flow at k=16, 4.1 at k=8. At most
	// four flows per host are counted as in progress at once.
	memFlowLink   = 1300
	memFlowLinkIB = 700
	// memMckeyReceiver is an mckey receiver's UD QP, its join and its
	// copy of the group's packets, its RECVs apart: 2,520 B each with 10
	// RECVs on a k=8 fat tree (127 receivers; a second group on the same
	// receivers added as much). memMcastSwitch bounds a switch's entry in
	// a group's tree (fabric.MulticastTree's map entry and port list) and
	// in its multicast table: not measured apart (a k=8 tree's 80
	// switches are within the measurement's noise).
	memMckeyReceiver = 1770
	memMcastSwitch   = 100
	// memSeriesKey is a time series' key (metric and where) and its
	// layout, 124 B each at k=16 (reports.Series.AddKey and Key, 18,752
	// series); memSeriesValue a sampled value (a float64 in the
	// Series' chunks). maxSeriesRows is observe's bound on the values
	// held (observe/sampler.go).
	memSeriesKey   = 124
	memSeriesValue = 8
	maxSeriesRows  = 1_000_000
	// MemGarbage is the share of the live heap that garbage adds at the
	// peak: lfsim runs with GOGC 25 (cmd/lfsim's runGCPercent), so a
	// collection comes before the heap passes 1.25 times what was live
	// after the last; measured, the peak heap was 1.08 and 1.09 times the
	// live heap on k=16 and k=24 permutations (runtime/metrics'
	// heap objects, sampled every 200 µs).
	MemGarbage = 0.08
)

// memoryLimit is SetMemoryLimit's value.
var memoryLimit atomic.Int64

// SetMemoryLimit sets the most memory, in bytes, a scenario's estimate
// may reach for Load and Parse to accept it; 0 (the default) sets no
// limit. It holds for the whole process: lfsim sets it once, from
// --max-memory, before it loads anything.
func SetMemoryLimit(bytes int64) { memoryLimit.Store(max(0, bytes)) }

// MemoryLimit returns the limit SetMemoryLimit set.
func MemoryLimit() int64 { return memoryLimit.Load() }

// memPhase is when a term's bytes are held: throughout, while the
// routing tables are built, or during the run.
type memPhase uint8

const (
	memBoth memPhase = iota
	memBuild
	memRun
)

// memTerm is one term of an estimate.
type memTerm struct {
	bytes  float64
	what   string
	phase  memPhase
	tables bool // the routing tables once built: counted, not bounded, once they are
}

// memEstimate is an estimate in the making: its terms so far.
type memEstimate struct{ terms []memTerm }

func (e *memEstimate) add(phase memPhase, bytes float64, format string, args ...any) {
	e.terms = append(e.terms, memTerm{bytes: bytes, what: fmt.Sprintf(format, args...), phase: phase})
}

// clone returns a copy to add more terms to.
func (e *memEstimate) clone() *memEstimate {
	return &memEstimate{terms: append([]memTerm(nil), e.terms...)}
}

// phases sums the terms held throughout, while the tables are built,
// and during the run.
func (e *memEstimate) phases() (both, build, run float64) {
	for _, t := range e.terms {
		switch t.phase {
		case memBoth:
			both += t.bytes
		case memBuild:
			build += t.bytes
		default:
			run += t.bytes
		}
	}
	return both, build, run
}

// total is the peak: what is held throughout and the larger phase, and
// the garbage on top.
func (e *memEstimate) total() float64 {
	both, build, run := e.phases()
	return (both + max(build, run)) * (1 + MemGarbage)
}

// String lists the terms of the peak's phase, largest first, from a
// MiB or a tenth of the total up.
func (e *memEstimate) String() string {
	_, build, run := e.phases()
	least := min(1<<20, e.total()/10)
	peak := memRun
	if build > run {
		peak = memBuild
	}
	var ts []memTerm
	for _, t := range e.terms {
		if t.phase == memBoth || t.phase == peak {
			ts = append(ts, t)
		}
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].bytes > ts[j].bytes })
	var parts []string
	for _, t := range ts {
		if t.bytes >= least {
			parts = append(parts, fmt.Sprintf("%s %s", showBytes(t.bytes), t.what))
		}
	}
	return strings.Join(parts, "; ")
}

// showBytes prints a byte count in MiB or GiB, one decimal.
func showBytes(b float64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", b/(1<<20))
}

// topologyMemory is the estimate of t's part: the routing tables (z,
// on vls layers for lash and dfsssp) while they are built and once
// built, the topology, hosts, switches, their ports, and the egress
// FIFOs of the priorities in use (the lossless ones and the default: at
// least one).
func topologyMemory(t *fabric.Topology, z fabric.RoutingSize, vls, priorities int) *memEstimate {
	var hosts, switches, ports, swPorts, fifos int64
	for _, n := range t.Nodes {
		p := int64(len(n.Ports))
		ports += p
		if n.Kind == fabric.Host {
			hosts++
			continue
		}
		switches++
		swPorts += p
		fifos += p * p
	}
	prio := float64(max(1, priorities))
	e := &memEstimate{}
	e.add(memBoth, memNode*float64(len(t.Nodes))+memLink*float64(len(t.Links)), "topology (%d nodes)", len(t.Nodes))
	e.add(memBuild, float64(z.BuildBytes(vls)), "%s routing tables while they are built (%d switches × %d hosts)", z.Algo, switches, hosts)
	e.add(memRun, float64(z.TableBytes()), "%s routing tables (%d switches × %d hosts)", z.Algo, switches, hosts)
	e.terms[len(e.terms)-1].tables = true
	e.add(memRun, memPort*float64(ports), "ports (%d)", ports)
	e.add(memRun, memHost*float64(hosts), "hosts (%d)", hosts)
	e.add(memRun, memSwitch*float64(switches)+(memSwitchPort+memPortSlot*prio)*float64(swPorts), "switches (%d, %d ports)", switches, swPorts)
	e.add(memRun, memFIFO*float64(fifos)*prio, "egress FIFOs (%d port pairs × %d priorities)", fifos, int(prio))
	return e
}

// flowMemory is the bytes of a flow of this kind that its work requests
// apart: RoCE's or InfiniBand's state, rdma_cm's, and the TCP
// connection's of a transport over TCP (iWARP: its row's TCP).
func flowMemory(qp string, cm, tcp bool) float64 {
	b := float64(memFlow)
	if cm && qp == "ud" {
		b += memFlowSIDR
	} else if cm {
		b += memFlowCM
	}
	if tcp {
		b += memFlowTCP
	}
	return b
}

// flowCount is the flows of a scenario as the estimate counts them.
type flowCount struct {
	links      float64 // the mean links between two hosts (meanHostLinks)
	n          int64   // flows (those poisson generators are expected to make included)
	bytes      float64 // their state apart from further work requests (flowMemory)
	wrs, recvs float64 // their further work requests, and the RECVs their SENDs consume
	inProgress int64   // those counted in progress at once: at most four a source host
	linkLayer  fabric.LinkLayer
}

// flows adds the flows' part: their entries in the scenario (held from
// the start), their state in the run, and the packets of those in
// progress.
func (e *memEstimate) flows(c flowCount) {
	running := memFlowLink * c.links
	if c.linkLayer == fabric.InfiniBand {
		running = memFlowLinkIB * c.links
	}
	e.add(memBoth, memFlowEntry*float64(c.n), "flows' entries (%d)", c.n)
	e.add(memRun, c.bytes+memWR*c.wrs+memRecv*c.recvs, "flows (%d)", c.n)
	e.add(memRun, running*float64(c.inProgress), "packets of flows in progress (%d)", c.inProgress)
}

// checkTopologyMemory counts the routing engine's work (checkRouting,
// which refuses a topology past its engine's limits) and refuses the
// topology, at the topology key, when its part of the estimate is over
// the limit; then nothing more is made of it (its routes and flows).
func (b *builder) checkTopologyMemory() bool {
	if b.t == nil {
		return true
	}
	z := b.checkRouting()
	vls := 0
	if b.s.LinkLayer == fabric.InfiniBand {
		vls = b.s.IB.DataVLs
	}
	b.mem = topologyMemory(b.t, z, vls, len(b.losslessPriorities()))
	b.memLinks = meanHostLinks(b.t)
	if lim := MemoryLimit(); lim > 0 && b.mem.total() > float64(lim) {
		total := b.mem.total()
		at, path := b.f.Topology.SizeKey()
		b.errorf(at, path, "this topology needs about %s (%s), over the memory limit of %s (lfsim --max-memory; a smaller topology, or a larger limit on a machine that has it)",
			showBytes(total), b.mem, showBytes(float64(lim)))
		return false
	}
	return true
}

// flowsFit reports whether the estimate with n more flows than the
// scenario has so far (those poisson generators are expected to make
// included), each as tv's flows are (its transport, rdma_cm, its
// messages), is within the limit; if not, it refuses the scenario at
// tv, the generator that takes it over.
func (b *builder) flowsFit(tv *scenario.TrafficV, n int64) bool {
	lim := MemoryLimit()
	if lim == 0 || b.mem == nil {
		return true
	}
	qp, cm, wrs := "rc", false, 0.0
	if com := genCommon(tv.Gen); com != nil {
		qp, cm = com.QP.V, com.Connect.V == "cm"
	}
	if f, ok := tv.Gen.(*scenario.FlowS); ok && f.Messages.Set {
		wrs = float64(f.Messages.V - 1)
	}
	c := b.flowCount()
	c.n += n
	c.bytes += float64(n) * flowMemory(qp, cm, b.transportRow().TCP)
	c.wrs += float64(n) * wrs
	c.inProgress = min(c.inProgress+n, 4*int64(len(b.hostNms)))
	return b.fitsWith(tv, c, "generator's flows", "")
}

// fitsWith reports whether the estimate with the flows c and the
// collectives so far is within the memory limit; if not, it refuses the
// scenario at tv, saying that this generator's what takes it over and,
// after the limit's flag, advice.
func (b *builder) fitsWith(tv *scenario.TrafficV, c flowCount, what, advice string) bool {
	lim := MemoryLimit()
	e := b.mem.clone()
	e.flows(c)
	b.collectivesMemory(e)
	total := e.total()
	if total <= float64(lim) {
		return true
	}
	b.tooBig = true
	b.errorf(tv.Pos, tv.Path+"."+tv.Kind, "with this %s the scenario needs about %s (%s), over the memory limit of %s (lfsim --max-memory%s)",
		what, showBytes(total), e, showBytes(float64(lim)), advice)
	return false
}

// flowCount counts the scenario's flows so far, and those poisson
// generators are expected to make (as RC flows of one work request; at
// most four a host in progress). The flows already counted are not
// counted again (memFlows): a flow is complete once its generator is.
func (b *builder) flowCount() flowCount {
	m := &b.memFlows
	if m.from == nil {
		m.from = make([]int32, len(b.t.Nodes))
	}
	maxMsg, tcp := b.s.HCA.MaxMsgSize, b.transportRow().TCP
	for ; m.counted < len(b.s.Flows); m.counted++ {
		f := &b.s.Flows[m.counted]
		m.bytes += flowMemory(f.QP, f.CM, tcp)
		n := float64(f.WorkRequests(maxMsg, maxMsg))
		m.wrs += n - 1
		if f.Op == "send" || f.Op == "write_imm" {
			m.recvs += n
		}
		if m.from[f.Src]++; m.from[f.Src] <= 4 {
			m.inProgress++
		}
	}
	return flowCount{
		n:          int64(len(b.s.Flows)) + int64(b.poissonFlows),
		bytes:      m.bytes + b.poissonFlows*flowMemory("rc", false, tcp),
		wrs:        m.wrs,
		recvs:      m.recvs,
		inProgress: min(m.inProgress+int64(b.poissonFlows), 4*int64(len(b.hostNms))),
		linkLayer:  b.s.LinkLayer,
		links:      b.memLinks,
	}
}

// meanHostLinks is the mean number of links from t's first host to
// the others, through switches (a host does not forward): the length
// of a flow's path, for its packets in flight (2 on a star, 6 on most
// pairs of a fat tree); 2 where there is no other host.
func meanHostLinks(t *fabric.Topology) float64 {
	hosts := t.Hosts()
	if len(hosts) < 2 {
		return 2
	}
	dist := make([]int32, len(t.Nodes))
	for i := range dist {
		dist[i] = -1
	}
	queue := []fabric.NodeID{hosts[0]}
	dist[hosts[0]] = 0
	for q := 0; q < len(queue); q++ {
		x := queue[q]
		if x != hosts[0] && t.Nodes[x].Kind == fabric.Host {
			continue
		}
		for _, ref := range t.Nodes[x].Ports {
			if y := ref.Peer; y >= 0 && int(y) < len(dist) && dist[y] < 0 {
				dist[y] = dist[x] + 1
				queue = append(queue, y)
			}
		}
	}
	var sum, n float64
	for _, h := range hosts[1:] {
		if dist[h] > 0 {
			sum += float64(dist[h])
			n++
		}
	}
	if n == 0 {
		return 2
	}
	return sum / n
}

// memFlows is what flowCount has counted of the scenario's flows.
type memFlows struct {
	counted           int // flows counted
	bytes, wrs, recvs float64
	inProgress        int64
	from              []int32 // flows by source, by NodeID
}

// estimateMemory sets the scenario's MemoryEstimate once everything is
// known: the routing tables as built, the flows, the programs' and
// multicast groups' part, the observers' time series; and refuses the
// scenario, at the key that sets the topology's size, when that is over
// the limit.
func (b *builder) estimateMemory() {
	if b.mem == nil || b.tooBig {
		return
	}
	e := b.mem.clone()
	if r := b.s.Routes; r != nil {
		for i := range e.terms {
			if e.terms[i].tables {
				e.terms[i].bytes = float64(r.Bytes()) + float64(b.s.IB.PairVL.Bytes())
			}
		}
	}
	e.flows(b.flowCount())
	b.collectivesMemory(e)
	b.programsMemory(e)
	b.seriesMemory(e)
	b.s.MemoryEstimate = int64(e.total())
	if lim := MemoryLimit(); lim > 0 && e.total() > float64(lim) {
		at, path := b.f.Topology.SizeKey()
		b.errorf(at, path, "this scenario needs about %s (%s), over the memory limit of %s (lfsim --max-memory)",
			showBytes(e.total()), e, showBytes(float64(lim)))
	}
}

// programsMemory adds mckey's receivers, their RECVs and their groups'
// trees (the switches of each, at most).
func (b *builder) programsMemory(e *memEstimate) {
	var receivers, recvs, groups float64
	for _, t := range b.s.Tests {
		if t.Kind == "mckey" {
			groups++
			receivers += float64(len(t.Receivers))
			recvs += float64(len(t.Receivers)) * float64(t.Mckey.Count)
		}
	}
	if groups == 0 {
		return
	}
	var switches float64
	for _, n := range b.t.Nodes {
		if n.Kind == fabric.Switch {
			switches++
		}
	}
	e.add(memRun, memMckeyReceiver*receivers+memRecv*recvs+groups*switches*memMcastSwitch, "multicast groups (%d, %d receivers)", int(groups), int(receivers))
}

// seriesMemory adds the observers' time series: a key per series and a
// value per series and sample, at most observe's bound of values.
// Series: tx_gbps of each port observed (observe.links), queue_bytes
// and paused of each port and priority and each switch's buffer_bytes
// (observe.queues), flow_gbps and the congestion control's own of each
// flow (observe.flows).
func (b *builder) seriesMemory(e *memEstimate) {
	o := &b.s.Observe
	var ports, switches int64
	for _, n := range b.t.Nodes {
		ports += int64(len(n.Ports))
		if n.Kind == fabric.Switch {
			switches++
		}
	}
	count := func(sel observe.Selector, all int64) int64 {
		if sel.All {
			return all
		}
		return int64(len(sel.Ports) + len(sel.Flows))
	}
	prio := int64(max(1, len(b.losslessPriorities())))
	flows := int64(len(b.s.Flows)) + int64(b.poissonFlows)
	perFlow := int64(1)
	if row, ok := kind.LookupCC(b.s.HCA.CC); ok {
		perFlow += int64(len(row.Metrics)) // rc_gbps, rt_gbps, alpha, ...
	}
	keys := count(o.Links, ports) + count(o.Queues, ports)*2*prio + count(o.Flows, flows)*perFlow
	if o.Queues.All || len(o.Queues.Ports) > 0 {
		keys += switches
	}
	samples := float64(maxSeriesRows)
	if o.Interval > 0 && b.s.Stop.At > 0 {
		samples = float64(b.s.Stop.At/o.Interval) + 1
	}
	values := min(samples*float64(keys), maxSeriesRows)
	e.add(memRun, memSeriesKey*float64(keys)+memSeriesValue*values, "time series (%d series)", keys)
}

// ShowBytes prints a byte count as messages do, in MiB or GiB.
func ShowBytes(b int64) string { return showBytes(float64(b)) }
