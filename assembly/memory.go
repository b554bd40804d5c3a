package assembly

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/scenario"
)

// A scenario's memory is estimated while it is loaded, from what drives
// it (switches × hosts for the routing tables, hosts, switch ports and
// their egress FIFOs, flows), before the costly parts are made: a k=64
// fat tree would otherwise spend minutes and gigabytes on its routing
// tables before anything is said. A scenario whose estimate is over the
// memory limit (SetMemoryLimit; lfsim's --max-memory) is refused with
// the estimate, its terms, and the key that drives it.
//
// The per-unit costs are measured: the heap after Build and 30 µs of
// running, over fat trees k=8..32, stars and leaf-spines with few and
// many flows (Go 1.25, amd64). TestMemoryEstimate holds the estimate
// within 40% of the measured heap on a calibration set; a model whose
// structures grow fails it until these are measured again.
const (
	// memRouteEntry is the routing tables' bytes per switch and host
	// while they are built (a span per entry; fabric.Routes keeps 2 to 4
	// bytes per entry once built), and the distances routing computes
	// them from: 8.1 B measured at k=32, 8.5 at k=24.
	memRouteEntry = 8.5
	// memHost is a host's HCA, port and the fabric's node and link.
	memHost = 1536
	// memSwitchPort is a switch port's state apart from its priorities':
	// its fabric.Port and link, headroom and timers (3420 B measured with
	// eight priorities' state, less that state, 8 × memPortSlot).
	memSwitchPort = 1250
	// memPortSlot is a switch port's state of one priority in use (a
	// slot, switch/slots.go): its ingress account (32 B), counters (112)
	// and egress queue (128).
	memPortSlot = 272
	// memFIFO is a switch's per-ingress-port FIFO at one egress port, for
	// one priority in use (made when the priority first queues there):
	// a fabric.PacketFIFO (16 bytes) and a round-robin slot (4).
	memFIFO = 20
	// memFlow is a flow's bytes: its entry in the scenario, and once it
	// starts its QP pair, memory region, work requests and records.
	memFlow = 2800
	// memFlowRunning is the packets and events of a flow in progress
	// (about 75 packets in flight or queued at 100 Gb/s); at most four
	// flows per host are counted as in progress at once. 12 KiB since
	// the FIFOs shrank to 20 bytes (2026-11-26): at 16 KiB the estimate
	// of a 400-port star had leaned on memFIFO's old underestimate (28
	// bytes against 36 measured), and came out 50% over. 8 KiB since
	// packets went from 192 bytes to 128 (2026-11-27).
	memFlowRunning = 8 << 10
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

// memTerm is one term of an estimate.
type memTerm struct {
	bytes float64
	what  string
}

// memEstimate is an estimate in the making: its terms so far.
type memEstimate struct{ terms []memTerm }

func (e *memEstimate) add(bytes float64, format string, args ...any) {
	e.terms = append(e.terms, memTerm{bytes, fmt.Sprintf(format, args...)})
}

func (e *memEstimate) total() float64 {
	var t float64
	for _, x := range e.terms {
		t += x.bytes
	}
	return t
}

// String lists the terms, largest first.
func (e *memEstimate) String() string {
	ts := append([]memTerm(nil), e.terms...)
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].bytes > ts[j].bytes })
	var parts []string
	for _, t := range ts {
		if t.bytes >= 1<<20 {
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

// topologyMemory is the estimate of t's part: routing tables, hosts,
// switch ports, and the egress FIFOs of priorities (the lossless ones
// and the default: at least one) in use.
func topologyMemory(t *fabric.Topology, priorities int) *memEstimate {
	var hosts, switches, ports, fifos int64
	for _, n := range t.Nodes {
		if n.Kind == fabric.Host {
			hosts++
			continue
		}
		switches++
		p := int64(len(n.Ports))
		ports += p
		fifos += p * p
	}
	e := &memEstimate{}
	e.add(memRouteEntry*float64(switches)*float64(hosts), "routing tables (%d switches × %d hosts)", switches, hosts)
	e.add((memSwitchPort+memPortSlot*float64(max(1, priorities)))*float64(ports), "switch ports (%d)", ports)
	e.add(memHost*float64(hosts), "hosts (%d)", hosts)
	e.add(memFIFO*float64(fifos)*float64(max(1, priorities)), "egress FIFOs (%d port pairs × %d priorities)", fifos, max(1, priorities))
	return e
}

// flowsMemory adds the flows' part: flows (those poisson generators are
// expected to make included) and the packets of those in progress.
func (e *memEstimate) flows(flows, hosts int64) {
	e.add(memFlow*float64(flows), "flows (%d)", flows)
	e.add(memFlowRunning*float64(min(flows, 4*hosts)), "packets of flows in progress")
}

// checkTopologyMemory refuses the topology, at the topology key, when
// its part of the estimate is over the limit; then nothing more is made
// of it (its routes and flows).
func (b *builder) checkTopologyMemory() bool {
	if b.t == nil {
		return true
	}
	b.mem = topologyMemory(b.t, len(b.losslessPriorities()))
	if lim := MemoryLimit(); lim > 0 && b.mem.total() > float64(lim) {
		total := b.mem.total()
		at, path := b.topologyDriver()
		b.errorf(at, path, "this topology needs about %s (%s), over the memory limit of %s (lfsim --max-memory; a smaller topology, or a larger limit on a machine that has it)",
			showBytes(total), b.mem, showBytes(float64(lim)))
		return false
	}
	return true
}

// topologyDriver is the key that sets a topology's size: a fat tree's
// k, a star's hosts, a leaf-spine's leaves; the topology otherwise.
func (b *builder) topologyDriver() (scenario.Pos, string) {
	switch s := b.f.Topology.Spec.(type) {
	case *scenario.FatTreeS:
		return s.K.Pos, "topology.k"
	case *scenario.StarS:
		return s.Hosts.Pos, "topology.hosts"
	case *scenario.LeafSpineS:
		return s.Leaves.Pos, "topology.leaves"
	case *scenario.RingS:
		return s.Switches.Pos, "topology.switches"
	}
	return b.f.Topology.Pos, "topology"
}

// flowsFit reports whether the estimate with n more flows than the
// scenario has so far (those poisson generators are expected to make
// included) is within the limit; if not, it refuses the scenario at tv,
// the generator that takes it over.
func (b *builder) flowsFit(tv *scenario.TrafficV, n int64) bool {
	lim := MemoryLimit()
	if lim == 0 || b.mem == nil {
		return true
	}
	e := &memEstimate{terms: append([]memTerm(nil), b.mem.terms...)}
	e.flows(int64(len(b.s.Flows))+int64(b.poissonFlows)+n, int64(len(b.hostNms)))
	total := e.total()
	if total <= float64(lim) {
		return true
	}
	b.tooBig = true
	b.errorf(tv.Pos, tv.Path+"."+tv.Kind, "with this generator's flows the scenario needs about %s (%s), over the memory limit of %s (lfsim --max-memory)",
		showBytes(total), e, showBytes(float64(lim)))
	return false
}

// estimateMemory sets the scenario's MemoryEstimate once its flows are
// known.
func (b *builder) estimateMemory() {
	if b.mem == nil {
		return
	}
	e := &memEstimate{terms: append([]memTerm(nil), b.mem.terms...)}
	e.flows(int64(len(b.s.Flows))+int64(b.poissonFlows), int64(len(b.hostNms)))
	b.s.MemoryEstimate = int64(e.total())
}

// ShowBytes prints a byte count as messages do, in MiB or GiB.
func ShowBytes(b int64) string { return showBytes(float64(b)) }
