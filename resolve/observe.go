package resolve

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/scenario"
)

// ports resolves a port reference: "s0:p8", "s0->h8", or (when
// wholeNodes) a node name meaning all its ports (hostsOnly: only a host's).
func (b *builder) ports(s scenario.StrV, path string, wholeNodes, hostsOnly bool) []observe.PortRef {
	v := s.V
	if a, peer, ok := strings.Cut(v, "->"); ok {
		return b.portFacing(s, path, a, peer)
	}
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		return b.numberedPort(s, path, v[:i], v[i+1:])
	}
	x, ok := b.t.Lookup(v)
	if !wholeNodes || (ok && hostsOnly && b.t.Nodes[x].Kind != fabric.Host) {
		what := portForms
		if wholeNodes {
			what = "expected a host or a port; " + portForms
		}
		if ok {
			b.errorf(s.Pos, path, "%s is a %s, not a port; %s", scenario.Show(v), b.t.Nodes[x].Kind, what)
		} else {
			b.errorf(s.Pos, path, "%s is not a port; %s", scenario.Show(v), portForms)
		}
		return nil
	}
	if !ok {
		b.portNode(s, path, v)
		return nil
	}
	out := make([]observe.PortRef, len(b.t.Nodes[x].Ports))
	for i := range out {
		out[i] = observe.PortRef{Node: x, Port: i}
	}
	return out
}

// portNode is the node a port's name (s, at path) starts with.
func (b *builder) portNode(s scenario.StrV, path, name string) (fabric.NodeID, bool) {
	id, ok := b.t.Lookup(name)
	if !ok {
		b.errorf(s.Pos, path, "unknown node %s%s; nodes are %s", scenario.Show(name), b.d.Suggest(name, b.allNames()), b.list(b.allNames()))
	}
	return id, ok
}

// portForms says how a port is written, for messages.
const portForms = "a port is written node:pN (s0:p8) or node->peer (s0->h8)"

// portFacing is the port of node a that faces peer (a->peer).
func (b *builder) portFacing(s scenario.StrV, path, a, peer string) []observe.PortRef {
	x, ok1 := b.portNode(s, path, a)
	if !ok1 {
		return nil
	}
	y, found := b.t.Lookup(peer)
	p, adj := b.t.PortTo(x, y)
	if !found || !adj {
		nb := b.neighbours(x)
		b.errorf(s.Pos, path, "%s has no port facing %s%s; its neighbours are %s", scenario.Show(a), scenario.Show(peer), b.d.Suggest(peer, nb), b.list(nb))
		return nil
	}
	return []observe.PortRef{{Node: x, Port: p}}
}

// numberedPort is port ps ("p8") of node name (name:p8).
func (b *builder) numberedPort(s scenario.StrV, path, name, ps string) []observe.PortRef {
	v := s.V
	num, err := strconv.Atoi(strings.TrimPrefix(ps, "p"))
	if !strings.HasPrefix(ps, "p") || err != nil || num < 0 || strings.HasPrefix(ps, "p+") || strings.HasPrefix(ps, "p-") {
		b.errorf(s.Pos, path, "%s is not a port; %s", scenario.Show(v), portForms)
		return nil
	}
	x, ok := b.portNode(s, path, name)
	if !ok {
		return nil
	}
	np := len(b.t.Nodes[x].Ports)
	if num >= np {
		has := fmt.Sprintf("p0..p%d", np-1)
		switch np {
		case 0:
			has = "none"
		case 1:
			has = "p0"
		}
		b.errorf(s.Pos, path, "%s has no port p%d; its ports are %s", scenario.Show(name), num, has)
		return nil
	}
	return []observe.PortRef{{Node: x, Port: num}}
}

func (b *builder) selector(s *scenario.SelV, path string) observe.Selector {
	if !s.Set || s.All {
		return observe.Selector{All: true}
	}
	out := observe.Selector{Ports: []observe.PortRef{}}
	if b.t == nil {
		return out
	}
	for i, it := range s.Items {
		if it.Set {
			out.Ports = append(out.Ports, b.ports(it, fmt.Sprintf("%s[%d]", path, i), true, false)...)
		}
	}
	return out
}

func (b *builder) observe() {
	o, so := &b.f.Observe, &b.s.Observe
	override(&so.Interval, o.Interval)
	override(&so.DeadlockAfter, o.Deadlock.After)
	so.Links = b.selector(&o.Links, "observe.links")
	so.Queues = b.selector(&o.Queues, "observe.queues")
	if o.Flows.Set && !o.Flows.All {
		so.Flows = observe.Selector{Flows: []int{}}
		for _, id := range o.Flows.IDs {
			if !id.Set || !b.flowsOK {
				continue
			}
			if id.V >= int64(len(b.s.Flows)) {
				b.errorf(id.Pos, "observe.flows", "flow %d does not exist; %s", id.V, flowRange(len(b.s.Flows)))
				continue
			}
			so.Flows.Flows = append(so.Flows.Flows, int(id.V))
		}
	}
	switch sl := &o.Snaplen; {
	case sl.Full:
		so.SnapLen = reports.FullSnapLen
	case sl.Set:
		so.SnapLen = int(sl.Bytes.V)
	}
	b.iwarpCapture()
	b.timeline()
	if b.t != nil {
		for i, p := range o.Pcap {
			if p.Set {
				so.Pcap = append(so.Pcap, b.ports(p, fmt.Sprintf("observe.pcap[%d]", i), true, true)...)
			}
		}
	}
}

func flowRange(n int) string {
	switch n {
	case 0:
		return "the traffic makes no flows"
	case 1:
		return "the only flow is 0"
	}
	return fmt.Sprintf("flows are 0..%d", n-1)
}

// given is an expect: check's value and where it was given, or nil when
// it was not.
func given[T any](set bool, v T, e *scenario.ExpectS, key string) (*T, string) {
	if !set {
		return nil, ""
	}
	return &v, cite(e.KeyPos(key))
}

// cite is where p is, for an expectation's failure: file:line:column, or
// "" when p is no place in the file.
func cite(p scenario.Pos) string {
	if !p.IsValid() {
		return ""
	}
	return p.String()
}

func (b *builder) expect() {
	e, se := &b.f.Expect, &b.s.Expect
	se.Drops, se.DropsAt = given(e.Drops.Set, e.Drops.V, e, "drops")
	se.Deadlock, se.DeadlockAt = given(e.Deadlock.Set, e.Deadlock.V, e, "deadlock")
	se.Storm, se.StormAt = given(e.Storm.Set, e.Storm.V, e, "storm")
	se.MinPauseFraction = b.pauseChecks(&e.MinPauseFraction, "expect.min_pause_fraction")
	if fc := &e.FlowsCompleted; fc.All || fc.N.Set {
		v := -1
		if fc.N.Set {
			v = int(min(fc.N.V, math.MaxInt32))
			if b.flowsOK && len(b.s.Poisson) == 0 && fc.N.V > int64(len(b.s.Flows)) { // poisson flows come at run time
				b.errorf(fc.N.Pos, "expect.flows_completed", "%d is more than the number of flows (%d)", fc.N.V, len(b.s.Flows))
			}
		}
		se.FlowsCompleted, se.FlowsCompletedAt = &v, cite(e.KeyPos("flows_completed"))
	}
	se.MinFairness, se.MinFairnessAt = given(e.MinFairness.Set, e.MinFairness.V, e, "min_fairness")
	se.MaxPauseFraction = b.pauseChecks(&e.MaxPauseFraction, "expect.max_pause_fraction")
	se.MinMeanSlowdown, se.MinMeanSlowdownAt = given(e.MinMeanSlowdown.Set, e.MinMeanSlowdown.V, e, "min_mean_slowdown")
	se.MaxMeanSlowdown, se.MaxMeanSlowdownAt = given(e.MaxMeanSlowdown.Set, e.MaxMeanSlowdown.V, e, "max_mean_slowdown")
	se.MinRetransmitted, se.MinRetransmittedAt = given(e.MinRetransmitted.Set, e.MinRetransmitted.V, e, "min_retransmitted")
	se.MaxRetransmitted, se.MaxRetransmittedAt = given(e.MaxRetransmitted.Set, e.MaxRetransmitted.V, e, "max_retransmitted")
	se.MinUplinkImbalance, se.MinUplinkImbalanceAt = given(e.MinUplinkImbalance.Set, e.MinUplinkImbalance.V, e, "min_uplink_imbalance")
	se.MaxUplinkImbalance, se.MaxUplinkImbalanceAt = given(e.MaxUplinkImbalance.Set, e.MaxUplinkImbalance.V, e, "max_uplink_imbalance")
	se.MinFlowsCompleted, se.MinFlowsCompletedAt = given(e.MinFlowsCompleted.Set, e.MinFlowsCompleted.V, e, "min_flows_completed")
	if m := e.MinFlowsCompleted; m.Set && b.flowsOK && len(b.s.Poisson) == 0 && m.V > int64(len(b.s.Flows)) {
		b.errorf(m.Pos, "expect.min_flows_completed", "%d is more than the number of flows (%d)", m.V, len(b.s.Flows))
	}
	se.MaxFlowsCompleted, se.MaxFlowsCompletedAt = given(e.MaxFlowsCompleted.Set, e.MaxFlowsCompleted.V, e, "max_flows_completed")
	if cc := &e.CollectivesCompleted; cc.All || cc.N.Set {
		v := -1
		if cc.N.Set {
			v = int(min(cc.N.V, math.MaxInt32))
		}
		se.CollectivesCompleted, se.CollectivesCompletedAt = &v, cite(e.KeyPos("collectives_completed"))
	}
	se.MinBusbw, se.MinBusbwAt = given(e.MinBusbw.Set, e.MinBusbw.V, e, "min_busbw_gbps")
	se.MaxCollectiveTime, se.MaxCollectiveTimeAt = given(e.MaxCollectiveTime.Set, e.MaxCollectiveTime.V, e, "max_collective_time")
	if t := e.MaxCollectiveTime; t.Set && t.V <= 0 {
		b.errorf(t.Pos, "expect.max_collective_time", "a call takes some time: max_collective_time must be above 0, not %s", t.V)
	}
	b.jobExpect(e, se)
	se.MinPeakQueue, se.MinPeakQueueAt = given(e.MinPeakQueue.Set, int64(e.MinPeakQueue.V), e, "min_peak_queue")
	se.MaxPeakQueue, se.MaxPeakQueueAt = given(e.MaxPeakQueue.Set, int64(e.MaxPeakQueue.V), e, "max_peak_queue")
	se.MinMeanQueue, se.MinMeanQueueAt = given(e.MinMeanQueue.Set, int64(e.MinMeanQueue.V), e, "min_mean_queue")
	se.MaxMeanQueue, se.MaxMeanQueueAt = given(e.MaxMeanQueue.Set, int64(e.MaxMeanQueue.V), e, "max_mean_queue")
	se.MinSetupTime, se.MinSetupTimeAt = given(e.MinSetupTime.Set, e.MinSetupTime.V.Nanoseconds(), e, "min_setup_time")
	se.MaxSetupTime, se.MaxSetupTimeAt = given(e.MaxSetupTime.Set, e.MaxSetupTime.V.Nanoseconds(), e, "max_setup_time")
	se.ConnectionsEstablished, se.ConnectionsEstablishedAt = given(e.ConnectionsEstablished.Set, e.ConnectionsEstablished.V, e, "connections_established")
	se.ConnectionsFailed, se.ConnectionsFailedAt = given(e.ConnectionsFailed.Set, e.ConnectionsFailed.V, e, "connections_failed")
	se.MinUsecPerIter, se.MinUsecPerIterAt = given(e.MinUsecPerIter.Set, e.MinUsecPerIter.V, e, "min_usec_per_iter")
	se.MaxUsecPerIter, se.MaxUsecPerIterAt = given(e.MaxUsecPerIter.Set, e.MaxUsecPerIter.V, e, "max_usec_per_iter")
	if (se.MinUsecPerIter != nil || se.MaxUsecPerIter != nil) && b.flowsOK && !slices.ContainsFunc(b.s.Tests, func(t Test) bool { return t.Kind == "pingpong" }) {
		at := e.MinUsecPerIter.Pos
		if !e.MinUsecPerIter.Set {
			at = e.MaxUsecPerIter.Pos
		}
		b.errorf(at, "expect", "min_usec_per_iter and max_usec_per_iter check pingpong programs, and traffic has none")
	}
	for _, w := range e.WorkCompletions.Items {
		se.WorkCompletions = append(se.WorkCompletions, observe.WCCheck{Status: w.Status.V, N: w.N.V, At: cite(w.Status.Pos)})
	}
	if fc := e.FlowsCompleted; fc.N.Set && e.MaxFlowsCompleted.Set && fc.N.V > e.MaxFlowsCompleted.V {
		b.errorf(e.MaxFlowsCompleted.Pos, "expect.max_flows_completed", "%d is below flows_completed (%d): no run could meet both", e.MaxFlowsCompleted.V, fc.N.V)
	}
	if m := e.MinFlowsCompleted; m.Set && e.MaxFlowsCompleted.Set && m.V > e.MaxFlowsCompleted.V {
		b.errorf(e.MaxFlowsCompleted.Pos, "expect.max_flows_completed", "%d is below min_flows_completed (%d): no run could meet both", e.MaxFlowsCompleted.V, m.V)
	}
	if fc, m := e.FlowsCompleted, e.MinFlowsCompleted; fc.N.Set && m.Set && m.V > fc.N.V {
		b.errorf(m.Pos, "expect.min_flows_completed", "%d is above flows_completed (%d), which asks for exactly that many: no run could meet both", m.V, fc.N.V)
	}
}

// pauseChecks reads expect.max_pause_fraction or min_pause_fraction.
func (b *builder) pauseChecks(pc *scenario.PauseChecksV, key string) []observe.PauseFractionCheck {
	var out []observe.PauseFractionCheck
	for i, c := range pc.Items {
		if !c.Port.Set || !c.Value.Set || b.t == nil {
			continue
		}
		path := key
		if !pc.One {
			path = fmt.Sprintf("%s[%d]", path, i)
		}
		ps := b.ports(c.Port, path+".port", false, false)
		if len(ps) == 1 {
			out = append(out, observe.PauseFractionCheck{Port: ps[0], Value: c.Value.V, At: cite(c.Pos)})
		}
	}
	return out
}
