// Package observe watches a run from outside the models: the deadlock
// detector on the buffer dependency graph and its strongly-connected-
// component search, the PFC storm analysis and the spread of pauses, the
// time-series sampler, the PFC frame log, pcap captures, and the checks of
// expect:. Each observer is switched on by the scenario (the resolve
// package fills Config and Expect from observe: and expect:) and reads the
// network through View: the models' exported state and the hooks they
// offer for watchers (fabric.Port.OnPauseState, OnPause and OnTx,
// swtch.Switch.OnBlocked). An observer changes no model's state but
// those hooks, which it sets once at its start; it schedules its own
// events, and the deadlock detector, having confirmed a cycle, asks the
// run to check its stop condition (View.Poll), which may end the run
// there (stop: when: deadlock).
//
// observe sits beside the models and above them: it may import sim,
// fabric, swtch, hca, congestion and reports. It must not import the
// scenario format (scenario), its resolution (resolve), the assembly of
// a network (assembly), sweep or cmd: what it needs of a scenario comes in as the plain values below,
// with positions in the file already formatted.
package observe

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// View is what the observers see of a built network.
type View struct {
	// Eng is the run's engine: the clock, and the scheduler of the
	// observers' own events.
	Eng *sim.Engine
	// Topology names nodes and ports in what the observers report.
	Topology *fabric.Topology
	// Ports are every node's ports, by node id (fabric.Network.Ports).
	Ports [][]*fabric.Port
	// Mixed marks a network with InfiniBand and Ethernet switches (VPI):
	// the summary's pfc.spread names each port's link layer.
	Mixed bool
	// Switches is the switch model at each node id, nil at a host.
	Switches []*swtch.Switch
	// Transport is the hosts' transport (hca.transport), which captures
	// frame their packets by (reports.Capture.Transport).
	Transport fabric.Transport
	// Poll asks the run to check its stop condition after the current
	// event (the deadlock detector calls it when it confirms a cycle).
	Poll func()
	// PartOf gives a node's partition when the run is cut (issue 31),
	// of Parts; nil: one.
	PartOf func(fabric.NodeID) int
	Parts  int
	// Each runs f(i) for each partition i, on the partitions' workers,
	// and returns when all have (sim.Group.Each); nil: one partition.
	// An observer calls it at a point, where no event runs, to note
	// each partition's nodes on its own worker.
	Each func(f func(part int))
}

func (v *View) partitions() int { return max(v.Parts, 1) }

func (v *View) partition(id fabric.NodeID) int {
	if v.PartOf == nil {
		return 0
	}
	return v.PartOf(id)
}

// Config is observe: resolved against the topology.
type Config struct {
	// Interval is the sampling period of the time series, default 10us.
	Interval sim.Time
	// Links (tx_gbps per port), Queues (queue_bytes and paused per port
	// and priority) and Flows (flow_gbps): default all.
	Links, Queues, Flows Selector
	// Pcap lists the ports whose traffic to write as pcap (a host name
	// stands for its ports), written as NAME.pcap; SnapLen is how many
	// bytes of each frame they keep (0: reports.DefaultSnapLen).
	Pcap    []PortRef
	SnapLen int
	// DeadlockAfter is how long a cycle of paused, non-empty queues must
	// hold before it is reported, default 50us (observe.deadlock.after).
	DeadlockAfter sim.Time
	// Timeline, when not nil, is observe.timeline: the iteration of a
	// pingpong or perftest send_lat to follow stage by stage (NewTimeline).
	Timeline *TimelineAt
}

// TimelineAt is observe.timeline resolved: the index in traffic: of a
// pingpong or perftest send_lat, its place among the run's programs
// (resolve.Scenario.Tests), and the iteration (from 1).
type TimelineAt struct {
	Traffic, Test, Iteration int
}

// PortRef names a port of a node.
type PortRef struct {
	Node fabric.NodeID
	Port int
}

// Name is the port's output name, "s0:p8".
func (p PortRef) Name(t *fabric.Topology) string { return t.PortName(p.Node, p.Port) }

// Selector chooses what to record: everything (All), or the listed ports
// (links, queues) or flow ids (flows). Nothing is chosen when All is false
// and the lists are empty (the file said none or []).
type Selector struct {
	All   bool
	Ports []PortRef // in file order; a node name stands for all its ports
	Flows []int     // flow ids, for observe.flows
}

// HasPort reports whether the selector chooses port p.
func (s Selector) HasPort(p PortRef) bool {
	if s.All {
		return true
	}
	for _, q := range s.Ports {
		if q == p {
			return true
		}
	}
	return false
}

// HasFlow reports whether the selector chooses flow id.
func (s Selector) HasFlow(id int) bool {
	if s.All {
		return true
	}
	for _, f := range s.Flows {
		if f == id {
			return true
		}
	}
	return false
}
