package resolve

import (
	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/programs"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// Scenario is a validated scenario, ready to build a network from.
type Scenario struct {
	// File names the source in messages: the path given to Load, the file
	// argument of Parse, or "examples/NAME.yaml" for a built-in example.
	File string
	// Name is name:, by default the file's base name without its
	// extension. It names the output folder (lfsim-out/NAME/).
	Name string
	// Description is description:, default empty.
	Description string
	// Seed is seed:, default 1. Every random choice derives from it.
	Seed uint64
	// Stop says when the run ends.
	Stop Stop
	// LinkLayer is switch.link_layer: Ethernet (RoCEv2), or InfiniBand,
	// whose parameters IB holds (infiniband.go).
	LinkLayer fabric.LinkLayer
	IB        IBConfig
	// UEC is Ultra Ethernet's link layer (uec.go): CBFC and LLR.
	UEC UEC
	// UET is Ultra Ethernet Transport's own keys (uet.go): hca.uet.
	UET UET
	// NodeLink is each node's link layer, by NodeID, where an explicit
	// topology mixes InfiniBand and Ethernet switches (vpi.go); nil where
	// every node's is LinkLayer. LinkLayerOf reads it.
	NodeLink []fabric.LinkLayer
	// MemoryEstimate is the memory, in bytes, the scenario is estimated
	// to need to build and run (memory.go).
	MemoryEstimate int64
	// Topology is the fabric graph, built by the generator named by
	// topology.kind or from an explicit list.
	Topology *fabric.Topology
	// Routing is topology.routing, default "ecmp".
	Routing fabric.RoutingAlgo
	// Routes are the computed next-hop tables, explicit routes included.
	Routes *fabric.Routes
	// IBRoutes are, on a network that mixes link layers (vpi.go), the
	// InfiniBand switches' tables: the subnet manager's (OpenSM's
	// default engine, minhop); nil otherwise. RoutesAt picks a switch's.
	IBRoutes *fabric.Routes
	// ExplicitRoutes are topology.routes, in file order.
	ExplicitRoutes []fabric.ExplicitRoute
	// Switch is the profile of every switch: swtch.DefaultProfile,
	// overridden by switch:.
	Switch swtch.Profile
	// SwitchProfiles holds the full profiles (default <- switch: <- the
	// node's own switch:) of the switches an explicit topology overrides.
	// Use SwitchProfile to look one up.
	SwitchProfiles map[fabric.NodeID]swtch.Profile
	// HCA is the profile of every host's NIC: hca.DefaultProfile,
	// overridden by hca:.
	HCA hca.Profile
	// HCAProfiles holds the full profiles of the hosts an explicit
	// topology overrides. Use HCAProfile to look one up.
	HCAProfiles map[fabric.NodeID]hca.Profile
	// HostBandwidth is hca.host_bandwidth, the adapters' host interface
	// (PCIe) shared by each one's ports (hca.HostInterface): payload
	// bytes per second it reads for the ports to send; HostBandwidths a
	// host's own where an explicit topology's hca: gives it (kept beside
	// the profiles: the HCA model never reads it, and its hot fields
	// keep their cache lines). 0 (default, line): no limit, what the
	// model did before it had the key. For scale: a ConnectX-6 VPI
	// card's PCIe Gen4 x16 moves 16 GT/s x 16 lanes x 128/130 = 252 Gb/s
	// each way (PCI-SIG, PCIe Base Specification 4.0: 16 GT/s, 128b/130b
	// encoding; NVIDIA ConnectX-6 VPI datasheet: PCIe Gen 3.0/4.0 x16,
	// two ports of up to 200 Gb/s), before TLP headers: less than its
	// two ports at 200 Gb/s.
	HostBandwidth  fabric.Rate
	HostBandwidths map[fabric.NodeID]fabric.Rate
	// CM is every host's connection manager's profile: cm.DefaultProfile,
	// overridden by hca.cm; CMProfiles a host's own where an explicit
	// topology overrides its hca: (CMProfile looks one up).
	CM         cm.Profile
	CMProfiles map[fabric.NodeID]cm.Profile
	// CC holds the congestion controls' parameters (hca.<name>) over
	// their defaults.
	CC CCConfig
	// Flows is the traffic expanded into flows, IDs 0..n-1. Each
	// generator adds its flows after those of the generators above it:
	//
	//   - flow: one flow.
	//   - incast: one flow per sender, in the order of from: (from: all
	//     is every host but the receiver, in host order).
	//   - permutation: one flow per host of hosts: (default all, in host
	//     order), in that order, each to a destination drawn as a
	//     uniformly random derangement (nobody sends to itself) from the
	//     stream sim.Stream(Seed, "traffic/permutation/<i>"), where i is
	//     the generator's 0-based index in traffic:. The draw is a
	//     Fisher-Yates shuffle (from the last position down, each index
	//     drawn from Uint64 by rejection sampling), repeated until it has
	//     no fixed point.
	//   - all_to_all: every ordered pair of distinct hosts: sources in
	//     list order, and for each source the destinations in list order.
	//   - ring_allreduce: the 2(N-1) steps of a ring all-reduce over the
	//     N hosts of hosts: (reduce-scatter, then all-gather), step by
	//     step and, within a step, in host order: in step s host i sends
	//     chunk (i-s) mod N of size: (split into N chunks, the first
	//     size mod N of them one byte larger) to the next host of the
	//     ring. A step's flow waits (After) for the previous step's flow
	//     into its source to arrive.
	//
	// poisson generators make their flows during the run (Poisson); they
	// take the ids after these, in the order they are created.
	Flows []Flow
	// Servers are the topology's GPU servers (servers.go), in server
	// order; nil when it has none. ServerOf finds a host's.
	Servers  []Server
	serverOf []serverSlot
	// Collectives are the collective generators and NCCLTests the
	// nccl_tests ones, in file order (collective.go); assembly runs them
	// over package collective's model, not as Flows.
	Collectives []Collective
	NCCLTests   []NCCLTest
	// Jobs are the training jobs (job generators, and the traces read
	// into jobs), in file order (job.go); assembly runs them over the
	// collectives' model and point-to-point QPs, not as Flows.
	Jobs []Job
	// Poisson are the poisson generators, in file order. Their flows are
	// made while the run goes (Network drives them), not here.
	Poisson []PoissonGen
	// Tests are the perftest and pingpong generators, in file order.
	// They are programs on their two hosts rather than flows: they are
	// not in flows.csv or the summary's flow and byte counts; their
	// results go to perftest.txt.
	Tests []Test
	// AsyncWatch lists the hosts an asyncwatch generator watches, in
	// host order, each once; their events go to asyncwatch.txt.
	AsyncWatch []fabric.NodeID
	// Faults are the faults: entries that are modelled (action: loss).
	Faults []Fault
	// Observe says what to record.
	Observe observe.Config
	// Expect holds the checks that decide a run's exit status.
	Expect observe.Expect
	// Warnings are diagnostics that do not stop the scenario from running
	// (a routing loop, an output not built yet), sorted by position.
	Warnings []scenario.Diagnostic
	// Inputs are the files the scenario names (switch.sonic's, a CDF),
	// as read: a run copies them into its folder (scenario.RunCopies).
	Inputs []scenario.Input
}

// SwitchProfile returns the profile of switch id.
func (s *Scenario) SwitchProfile(id fabric.NodeID) swtch.Profile {
	if p, ok := s.SwitchProfiles[id]; ok {
		return p
	}
	return s.Switch
}

// HCAProfile returns the profile of host id's NIC.
func (s *Scenario) HCAProfile(id fabric.NodeID) hca.Profile {
	port := id
	if s.Topology != nil {
		id = s.Topology.Owner(id) // a host's second port is its HCA's
	}
	p, ok := s.HCAProfiles[id]
	if !ok {
		p = s.HCA
	}
	if s.LinkLayerOf(port) != s.LinkLayer {
		// An InfiniBand port of a mixed network (vpi.go): what hca:
		// gives the Ethernet ports that InfiniBand has not (IRN, a PFC
		// watchdog, an overlay) is theirs alone.
		ibHCA(&p)
		if p.Retransmit == hca.Selective {
			p.Retransmit = hca.GoBackN
		}
		p.PFCWatchdog = 0
		p.Overlay = nil
	}
	return p
}

// CMProfile is host id's connection manager's profile.
func (s *Scenario) CMProfile(id fabric.NodeID) cm.Profile {
	if s.Topology != nil {
		id = s.Topology.Owner(id)
	}
	if p, ok := s.CMProfiles[id]; ok {
		return p
	}
	return s.CM
}

// PoissonPriority is the priority (on InfiniBand the VL) of generator
// g's flows from host h: the generator's when it gives one, else h's
// HCA's.
func (s *Scenario) PoissonPriority(g *PoissonGen, h fabric.NodeID) uint8 {
	if g.PrioritySet {
		return g.Priority
	}
	return s.HCAProfile(h).Priority
}

// Stop says when a run ends: at At, or earlier when a condition holds.
type Stop struct {
	// At is stop.at, default 10ms (also when a when: condition is given,
	// as a safety net). It is sim.Never when the file says at: 0 together
	// with a when: condition (no time limit).
	At sim.Time
	// WhenFlowsDone stops once every flow has completed (when: flows-done).
	WhenFlowsDone bool
	// WhenDeadlock stops at a detected deadlock (when: deadlock).
	WhenDeadlock bool
}

// Flow is one message of the traffic: a work request on a queue pair.
type Flow struct {
	ID       int
	Src, Dst fabric.NodeID
	QP       string   // "rc", "uc" or "ud"
	Op       string   // "write", "read", "send", "write_imm" or "atomic"
	Size     int64    // bytes, at least 1
	Start    sim.Time // when the work request is posted; default 0
	Priority uint8    // 802.1p priority, 0..7; default the source HCA's priority (on InfiniBand the VL)
	SL       uint8    // InfiniBand service level, 0..15; default 0
	// DSCP, when DSCPSet, is the flow's IP DSCP (flow.dscp), over its
	// HCAs' (hca.dscp; else 8 × Priority).
	DSCP    uint8
	DSCPSet bool
	// Generator is the index in traffic: of the generator that made the
	// flow, and Pos where that generator is in the file.
	Generator int
	Pos       scenario.Pos
	// After lists flows (by id) whose data must have arrived at this
	// flow's source (Src is their destination) before it starts; it
	// starts at the last arrival, or at Start if that is later. Empty: it
	// starts at Start.
	After []int
	// Messages is how many work requests carry the flow (flow.messages);
	// 0 means one, or as many as the largest message size needs.
	Messages int32
	// PostList is how many of those work requests one ibv_post_send
	// posts as a chain, with one doorbell (flow.post_list); 0 or 1: each
	// its own.
	PostList int32
	// Remote is how the responder registers the flow's region
	// (flow.remote_mr); nil: with every access, at the flow's size.
	Remote *RemoteMR
	// RecvAt is when the responder posts the RECVs its SENDs consume
	// (flow.recv_at); at the flow's start when earlier.
	RecvAt sim.Time
	// CM connects the flow's QPs with rdma_cm (flow.connect: cm) from
	// its start; its work requests are posted when the connection is
	// made.
	CM bool
}

// WorkRequests is how many work requests carry the flow (Build's
// startFlow): flow.messages, or as many as the NICs' largest message
// (the smaller of srcMax and dstMax, max_msg_sz) needs.
func (f Flow) WorkRequests(srcMax, dstMax int64) int64 {
	if f.Messages > 0 {
		return int64(f.Messages)
	}
	maxMsg := max(1, min(srcMax, dstMax))
	return max(1, (f.Size+maxMsg-1)/maxMsg)
}

// PoissonGen is one poisson generator. Each host of Hosts starts flows
// as a Poisson process from Start until Until (sim.Never: the end of the
// run): the gaps are exponential with mean Sizes.Mean()·8 / (Load × the
// host's link rate), each flow's size drawn from Sizes and its
// destination uniformly among Hosts other than itself (or To, when
// HasTo). Each host draws from its own stream, sim.Stream(seed,
// "traffic/poisson/<generator>/<host name>"): first the gap, then the
// size, then the destination.
type PoissonGen struct {
	Hosts    []fabric.NodeID
	To       fabric.NodeID
	HasTo    bool
	Load     float64
	Sizes    *scenario.SizeDist
	Start    sim.Time
	Until    sim.Time
	QP, Op   string
	Priority uint8
	SL       uint8 // InfiniBand service level
	// CM connects each flow with rdma_cm (connect: cm).
	CM bool
	// PrioritySet says Priority was given; otherwise each flow takes its
	// source HCA's priority.
	PrioritySet bool
	Generator   int
	Pos         scenario.Pos
}

// Test is one perftest or pingpong generator: a verbs program on Src (the
// client) and Dst (the server).
type Test struct {
	// Kind is "perftest", "pingpong" or "rping"; the matching config is set, with
	// the tools' defaults filled in.
	Kind     string
	Src, Dst fabric.NodeID
	Perftest programs.PerftestConfig
	Pingpong programs.PingpongConfig
	Rping    programs.RpingConfig
	// Port and Start are rdma_server's and rdma_client's (Src the host;
	// Dst the client's server, the server itself for rdma_server).
	Port  uint16
	Start sim.Time
	// Mckey and Receivers are mckey's (Src the sender).
	Mckey     programs.MckeyConfig
	Receivers []fabric.NodeID
	// Generator is the index in traffic:, Pos where it is in the file.
	Generator int
	Pos       scenario.Pos
}

// Fault is a fault on a link. Action "loss" drops each frame other than
// PFC frames with probability Rate, in both directions of the link
// between A and B (the first such link, in A's port order), from At
// until Until (sim.Never: to the end). Each direction draws from its own
// stream, sim.Stream(seed, "fault/loss/<from>-<to>") with the node names
// of that direction.
//
// The other actions (faults.go runs them): "down" and "up" cut and
// restore the link between A and B, with routes converging Convergence
// per hop later; "pfc-storm" makes host Host's NIC send PAUSE on
// Priority from At until Until; "slow-receiver" sets host Host's receive
// drain rate to RxRate at At (until Until, then back); "rx-hang" stalls
// host Host's receive pipeline from At until Until; "missing-entry"
// removes switch Switch's forwarding entry for host Dst from At until
// Until; "slow-link" sets the rate of the link between A and B to
// LinkRate from At until Until (then back to the rate each direction had),
// in both directions, or with OneWay only in the direction from A to B.
type Fault struct {
	Action      string
	A, B        fabric.NodeID
	Rate        float64
	At, Until   sim.Time
	Host        fabric.NodeID
	Switch, Dst fabric.NodeID
	Priority    uint8
	RxRate      fabric.Rate
	LinkRate    fabric.Rate
	OneWay      bool
	Convergence sim.Time
	Pos         scenario.Pos
}
