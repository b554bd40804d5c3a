package resolve

import (
	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// Defaults that are the scenario format's own (the profiles' defaults live
// with the profiles).
const (
	defaultSeed          = 1
	defaultStop          = 10 * sim.Millisecond
	defaultInterval      = 10 * sim.Microsecond
	defaultDeadlockAfter = 50 * sim.Microsecond
)

// defaultLink is a link's profile when the file gives none (the table of
// topology generators' default link).
var defaultLink = kind.DefaultLink

// builder turns the decoded schema into a Scenario, checking what needs
// more than one value (names against the topology, xon against xoff, ...).
type builder struct {
	d   *scenario.Decoder
	f   *scenario.File
	lim Limits
	s   *Scenario

	t            *fabric.Topology // nil when the topology could not be built
	topoOK       bool             // t is complete and passed its checks
	flowsOK      bool             // every generator expanded (flow ids are final)
	hostNms      []string         // host names in host order
	names        []string         // all node names, once needed (allNames)
	swNames      []string         // switch names, once needed (switchNames)
	poissonFlows float64          // the flows the poisson generators so far are expected to make
	groups       int              // multicast groups given out (mckey)
	// hcaArbPos and hcaArbPath are the last hca.vlarb block that narrowed
	// the VLs served (Scenario.IB.HCAServed).
	hcaArbPos  scenario.Pos
	hcaArbPath string
	mem        *memEstimate // the topology's part of the memory estimate (memory.go)
	memFlows   memFlows     // the flows the estimate has counted so far
	memColl    memColl      // the collectives' connections the estimate counts
	memLinks   float64      // the mean links between hosts (meanHostLinks)
	tooBig     bool         // the traffic was refused for its size: the routing tables are not computed
	noRoutes   bool         // the topology is past its engine's limits (checkRouting): the tables are not computed

	// ibSwitches are an explicit topology's switches on InfiniBand in an
	// Ethernet network (vpi.go).
	ibSwitches map[fabric.NodeID]bool

	declPos  map[fabric.NodeID]scenario.Pos // an explicit topology's node declarations
	declPath map[fabric.NodeID]string       // and their paths, topology.switches[1]
}

func build(d *scenario.Decoder, f *scenario.File, lim Limits) *Scenario {
	s := &Scenario{
		File:    d.File,
		Name:    scenario.DefaultName(d.File),
		Seed:    defaultSeed,
		Stop:    Stop{At: defaultStop},
		Routing: fabric.RoutingECMP,
		Switch:  swtch.DefaultProfile(),
		HCA:     hca.DefaultProfile(),
		CM:      cm.DefaultProfile(),
		Observe: observe.Config{
			Interval:      defaultInterval,
			Links:         observe.Selector{All: true},
			Queues:        observe.Selector{All: true},
			Flows:         observe.Selector{All: true},
			DeadlockAfter: defaultDeadlockAfter,
		},
	}
	b := &builder{d: d, f: f, lim: lim, s: s}
	b.header()
	b.applySwitch(&s.Switch, &f.Switch, "switch")
	b.uetBlock(&f.HCA)
	b.applyHCA(&s.HCA, &f.HCA)
	s.HostBandwidth = hostBandwidth(0, &f.HCA)
	applyCM(&s.CM, &f.HCA.CM)
	s.CC = b.ccConfig(&f.HCA)
	b.infiniband()
	b.transport()
	b.checkOverlay(&s.HCA, &f.HCA.Overlay, "hca.overlay")
	if row, ok := kind.LookupCC(s.HCA.CC); ok && row.ECN && s.LinkLayer != fabric.InfiniBand {
		if !f.Switch.Has("ecn") {
			// A control that reacts to marks needs marking switches: on
			// by default, with its own profile or the switches' defaults
			// (switch.ecn: off turns it off).
			s.Switch.ECN = marking(row, s.Switch.ECN)
		}
		if !s.Switch.ECN.Enabled && row.Unmarked != "" {
			b.warnf(f.Switch.KeyPos("ecn"), "switch.ecn", "hca.cc is %s but ECN marking is off: %s", row.Name, row.Unmarked)
		}
	}
	if tcp, _ := kind.LookupCC(s.HCA.TCP.CC); s.Switch.ECN.Enabled && b.transportRow().TCP && !tcp.ECN {
		b.warnf(f.Switch.KeyPos("ecn"), "switch.ecn", "ECN marking is on but hca.tcp.cc is %s, which does not negotiate ECN: its segments go Not-ECT and nothing will be marked", s.HCA.TCP.CC)
	} else if s.Switch.ECN.Enabled && s.HCA.CC == "none" && !b.transportRow().TCP {
		b.warnf(f.Switch.KeyPos("ecn"), "switch.ecn", "ECN marking is on but hca.cc is none: NICs send Not-ECT packets without congestion control, so nothing will be marked")
	}
	b.topology()
	b.checkUEC()
	b.checkUET()
	b.rangeExtenders()
	fits := b.checkTopologyMemory()
	if fits {
		// Not when the topology is over the memory limit: its routes and
		// flows are what would not fit. The flows come first (they do not
		// need the routes): a scenario refused for its flows does not
		// wait for its routing tables.
		b.smHost()
		b.checkAPM()
		b.traffic()
		b.flowPorts()
		b.checkListeners()
		b.finishBound()
		b.routes()
		b.layeredVLs()
		b.sl2vlPorts()
	}
	b.observe()
	b.expect()
	b.faults()
	b.checkBuffers()
	b.checkCredits()
	if fits {
		b.estimateMemory() // with the routes as built and the observers' series
	}
	return s
}

// list is listNames, skipped once errors are no longer kept.
func (b *builder) list(names []string) string {
	if b.d.Full() {
		return ""
	}
	return scenario.ListNames(names)
}

// allNames returns every node name in id order, computed once.
func (b *builder) allNames() []string {
	if b.names == nil {
		b.names = b.t.Names()
	}
	return b.names
}

func (b *builder) errorf(p scenario.Pos, path, format string, args ...any) {
	b.d.Errorf(p, path, format, args...)
}

func (b *builder) warnf(p scenario.Pos, path, format string, args ...any) {
	b.d.Warnf(p, path, format, args...)
}

func (b *builder) header() {
	f, s := b.f, b.s
	override(&s.Name, f.Name)
	s.Description = f.Description.V
	override(&s.Seed, f.Seed)
	st := &f.Stop
	for _, w := range st.When.Items {
		switch w.V {
		case "flows-done":
			s.Stop.WhenFlowsDone = true
		case "deadlock":
			s.Stop.WhenDeadlock = true
		}
	}
	if st.At.Set {
		s.Stop.At = st.At.V
		if st.At.V == 0 {
			s.Stop.At = sim.Never
		}
	}
}

// Limits bound what a scenario may generate, so that no file (or fuzzer)
// can exhaust memory by asking for an absurd fabric.
type Limits struct {
	Hosts    int // hosts in a topology, 100000
	Switches int // switches in a generated topology, 100000
	Links    int // links in a generated topology, 1000000
	FatTreeK int // largest fat-tree k, 64 (the fat-tree generator reads it by name: topologies/fattree.go)
	Flows    int // flows after expansion, 10000000
	Nodes    int // YAML nodes visited (aliases count each time), 5000000
	// RouteEntries bounds switches × hosts (the routing tables) and
	// switches² / 4 (the distance matrix routing uses): 400000000, which
	// admits a k=64 fat-tree.
	RouteEntries int
}

// MaxFlows is the most flows a scenario's traffic may expand into
// (Limits.Flows under Load and Parse), and the most a run may make with
// its poisson generators' (Build).
const MaxFlows = 10_000_000

// DefaultLimits are the limits Load and Parse apply.
var DefaultLimits = Limits{Hosts: 100000, Switches: 100000, Links: 1000000, FatTreeK: 64, Flows: MaxFlows, Nodes: 5_000_000, RouteEntries: 400_000_000}
