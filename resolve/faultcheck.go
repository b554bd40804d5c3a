package resolve

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

// defaultConvergence is how long, per hop from a link whose state
// changed, switches take to install recomputed routes: the two ends at
// once (they see the loss of signal), a switch d hops away after d ×
// convergence. 100 µs per hop is an optimistic control plane (hardware
// failure detection and a fast routing agent); BGP with BFD takes tens
// to hundreds of ms (RFC 7938 §8.2). Scenarios set it to what they model.
const defaultConvergence = 100 * sim.Microsecond

// faultKeys says which keys each action takes, beyond at and action.
var faultKeys = map[string][]string{
	"loss":          {"link", "rate", "until"},
	"down":          {"link", "until", "convergence"},
	"up":            {"link", "convergence"},
	"pfc-storm":     {"host", "priority", "until"},
	"slow-receiver": {"host", "rate", "until"},
	"rx-hang":       {"host", "until"},
	"missing-entry": {"switch", "dst", "until"},
	"slow-link":     {"link", "rate", "from", "until"},
}

// fault checks one faults: entry and returns the fault it asks for.
func (b *builder) fault(f *scenario.FaultS, path string) (Fault, bool) {
	act := f.Action.V
	fault := Fault{Action: act, At: f.At.V, Until: sim.Never, Convergence: defaultConvergence, Pos: f.Pos}
	allowed, known := faultKeys[act]
	if !known {
		return fault, false // the enum check has said so
	}
	if act == "loss" && f.Host.Set {
		b.errorf(f.KeyPos("host"), path+".host", "action: loss is on a link, not a host; use link: [a, b]")
		return fault, false
	}
	ok := b.faultKeysAllowed(f, path, allowed)
	if f.Until.Set {
		if f.Until.V <= f.At.V {
			b.errorf(f.Until.Pos, path+".until", "until (%s) must be after at (%s)", f.Until.V, f.At.V)
			ok = false
		}
		fault.Until = f.Until.V
	}
	if f.Convergence.Set && b.s.LinkLayer == fabric.InfiniBand {
		b.errorf(f.Convergence.Pos, path+".convergence", "convergence is Ethernet routing's, hop by hop; on InfiniBand the subnet manager installs every switch's new table subnet_manager.sweep_delay after the change")
	}
	if act == "pfc-storm" && b.s.LinkLayer == fabric.InfiniBand {
		b.errorf(f.Action.Pos, path+".action", "a PAUSE storm is PFC's; an InfiniBand NIC sends no PAUSE (a hung receiver, rx-hang, holds its credits instead)")
	}
	override(&fault.Convergence, f.Convergence)
	switch act {
	case "loss", "down", "up", "slow-link":
		ok = b.linkFault(f, path, &fault) && ok
	case "pfc-storm", "slow-receiver", "rx-hang":
		ok = b.hostFault(f, path, &fault) && ok
	case "missing-entry":
		ok = b.entryFault(f, path, &fault) && ok
	}
	return fault, ok
}

// faultKeysAllowed reports whether f gives only keys its action takes
// (allowed), saying which it should not.
func (b *builder) faultKeysAllowed(f *scenario.FaultS, path string, allowed []string) bool {
	ok := true
	for _, k := range []string{"link", "host", "switch", "dst", "priority", "until", "rate", "convergence", "from"} {
		if f.Has(k) && !slices.Contains(allowed, k) {
			b.errorf(f.KeyPos(k), path+"."+k, "action: %s does not take %s:; it takes %s", f.Action.V, k, scenario.ListNames(allowed))
			ok = false
		}
	}
	return ok
}

// need reports whether fault f gives key k, and says what k is for if not.
func (b *builder) need(f *scenario.FaultS, path, k, what string) bool {
	if !f.Has(k) {
		b.errorf(f.Pos, path, "action: %s needs %s: (%s)", f.Action.V, k, what)
		return false
	}
	return true
}

// linkFault resolves a fault on a link (loss, down, up): its two ends,
// which must be linked, and a loss's rate.
func (b *builder) linkFault(f *scenario.FaultS, path string, fault *Fault) bool {
	if !b.need(f, path, "link", "the link's two ends, [a, b]") {
		return false
	}
	if len(f.Link) != 2 {
		b.errorf(f.KeyPos("link"), path+".link", "a link is named by its two ends, [a, b]; this list has %d", len(f.Link))
		return false
	}
	names := b.allNames()
	var ends []fabric.NodeID
	for _, n := range f.Link {
		if n.Set {
			if id, found := b.nodeNamed(n, path+".link", names); found {
				ends = append(ends, id)
			}
		}
	}
	if len(ends) != 2 {
		return false
	}
	ends[0], ends[1] = b.linkedPorts(ends[0], ends[1])
	if _, adj := b.t.PortTo(ends[0], ends[1]); !adj {
		b.errorf(f.Link[1].Pos, path+".link", "%s and %s are not linked; %s's neighbours are %s", scenario.Show(f.Link[0].V), scenario.Show(f.Link[1].V), scenario.Show(f.Link[0].V), b.list(b.neighbours(ends[0])))
		return false
	}
	fault.A, fault.B = ends[0], ends[1]
	if f.Convergence.Set && b.s.Mixed() && b.s.LinkLayerOf(fault.A) == fabric.InfiniBand {
		// The InfiniBand side of a mixed network has its subnet manager
		// (assembly's setLink), as an InfiniBand network does.
		b.errorf(f.Convergence.Pos, path+".convergence", "convergence is Ethernet routing's, hop by hop; %s–%s is on the InfiniBand side, whose subnet manager installs every InfiniBand switch's new table subnet_manager.sweep_delay after the change", scenario.Show(f.Link[0].V), scenario.Show(f.Link[1].V))
		return false
	}
	if f.Action.V == "slow-link" {
		return b.slowLink(f, path, fault)
	}
	if f.Action.V != "loss" {
		return true
	}
	switch rate, err := lossRate(f.Rate.V); {
	case !f.Rate.Set:
		b.errorf(f.Pos, path, "action: loss needs rate:, the probability that a frame is lost (such as 1e-4, 0.1%% or 1/256)")
		return false
	case err != nil:
		b.errorf(f.Rate.Pos, path+".rate", "%v", err)
		return false
	default:
		fault.Rate = rate
	}
	return true
}

// slowLink resolves a slow link's rate and, with from:, the one
// direction it slows: fault.A is then the end named by from, the sender
// of the slowed direction, and fault.OneWay is set.
func (b *builder) slowLink(f *scenario.FaultS, path string, fault *Fault) bool {
	r, ok := b.faultRate(f, path, "the link's new rate", "25Gbps")
	if !ok {
		return false
	}
	fault.LinkRate = r
	if !f.From.Set {
		return true
	}
	switch f.From.V {
	case f.Link[0].V:
	case f.Link[1].V:
		fault.A, fault.B = fault.B, fault.A
	default:
		b.errorf(f.From.Pos, path+".from", "from names the end of the link whose sending is slowed: %s or %s, not %s", scenario.Show(f.Link[0].V), scenario.Show(f.Link[1].V), scenario.Show(f.From.V))
		return false
	}
	fault.OneWay = true
	return true
}

// hostFault resolves a fault of a host's NIC (pfc-storm, slow-receiver,
// rx-hang): the host, the priority (default the NIC's) and a slow
// receiver's drain rate.
func (b *builder) hostFault(f *scenario.FaultS, path string, fault *Fault) bool {
	if !b.need(f, path, "host", "the host whose NIC misbehaves") {
		return false
	}
	h, found := b.faultPort(f.Host)
	if !found {
		if h, found = b.host(f.Host, path+".host"); !found {
			return false
		}
	}
	fault.Host = h
	if f.Action.V == "pfc-storm" && b.s.Mixed() && b.s.LinkLayerOf(h) == fabric.InfiniBand {
		// A host's faults reach its port 1, or a VPI host's port 2
		// named h/2, each its own HCA (assembly/faults.go), and on a
		// mixed network the network's link layer is Ethernet's: the
		// check in fault does not see this port's.
		other := ""
		if p2, ok := b.t.SecondPort(h); ok && b.s.VPI(h) {
			other = fmt.Sprintf(" (host: %s names its port on Ethernet)", scenario.Show(b.t.Nodes[p2].Name))
		}
		b.errorf(f.Action.Pos, path+".action", "a PAUSE storm is PFC's, and this fault reaches %s: an InfiniBand NIC sends no PAUSE (a hung receiver, rx-hang, holds its credits instead)%s", b.portName(h), other)
		return false
	}
	fault.Priority = uint8(b.s.HCAProfile(h).Priority)
	overrideNum(&fault.Priority, f.Priority)
	if f.Action.V != "slow-receiver" {
		return true
	}
	r, ok := b.faultRate(f, path, "the receive drain rate", "20Gbps")
	if !ok {
		return false
	}
	fault.RxRate = r
	return true
}

// faultRate resolves a fault's rate: key, a positive rate (what it is,
// and an example of one, for the errors).
func (b *builder) faultRate(f *scenario.FaultS, path, what, example string) (fabric.Rate, bool) {
	if !b.need(f, path, "rate", what+", such as "+example) {
		return 0, false
	}
	r, err := fabric.ParseRate(f.Rate.V)
	if err != nil || r <= 0 {
		b.errorf(f.Rate.Pos, path+".rate", "expected a rate such as %s, found %s", example, scenario.Quote(f.Rate.V))
		return 0, false
	}
	return r, true
}

// faultPort is the HCA a host fault names with a VPI host's second port
// (h0/2): that port's own (resolve/vpi.go), so that a fault can reach the
// port on either fabric. Other names are host's to resolve.
func (b *builder) faultPort(n scenario.StrV) (fabric.NodeID, bool) {
	id, ok := b.t.Lookup(n.V)
	if !ok || !b.t.Nodes[id].Second || !b.s.VPI(b.t.Owner(id)) {
		return 0, false
	}
	return id, true
}

// linkedPorts reads a link fault's two ends (a, b) as topology.links
// writes them: where a host's port 1 is not linked to the other end and
// its port 2 is, the port 2 (a VPI host's [h0, eth0] for h0/2's link, a
// dual-port InfiniBand HCA's [h0, s2]).
func (b *builder) linkedPorts(a, c fabric.NodeID) (fabric.NodeID, fabric.NodeID) {
	if _, adj := b.t.PortTo(a, c); adj {
		return a, c
	}
	for _, e := range []*fabric.NodeID{&a, &c} {
		if p2, ok := b.t.SecondPort(*e); ok {
			old := *e
			*e = p2
			if _, adj := b.t.PortTo(a, c); adj {
				return a, c
			}
			*e = old
		}
	}
	return a, c
}

// entryFault resolves a missing forwarding entry: the switch that loses
// it and the host it is for.
func (b *builder) entryFault(f *scenario.FaultS, path string, fault *Fault) bool {
	if !b.need(f, path, "switch", "the switch that loses the entry") || !b.need(f, path, "dst", "the host whose entry it loses") {
		return false
	}
	sw, found := b.t.Lookup(f.Switch.V)
	if !found || b.t.Nodes[sw].Kind != fabric.Switch {
		b.errorf(f.Switch.Pos, path+".switch", "unknown switch %s%s; switches are %s", scenario.Show(f.Switch.V), b.d.Suggest(f.Switch.V, b.switchNames()), b.list(b.switchNames()))
		return false
	}
	dst, found := b.host(f.Dst, path+".dst")
	if !found {
		return false
	}
	fault.Switch, fault.Dst = sw, dst
	return true
}

// faults checks every fault (faultcheck.go) and builds what the run
// applies.
func (b *builder) faults() {
	if b.t == nil {
		return
	}
	for i := range b.f.Faults {
		if f, ok := b.fault(&b.f.Faults[i], fmt.Sprintf("faults[%d]", i)); ok {
			b.s.Faults = append(b.s.Faults, f)
		}
	}
}

// lossRate reads a loss probability: a number (1e-4, 0.004), a
// percentage (0.1%) or a ratio (1/256), in (0, 1].
func lossRate(v string) (float64, error) {
	bad := fmt.Errorf("expected a probability such as 1e-4, 0.1%% or 1/256, found %s", scenario.Quote(v))
	t := strings.TrimSpace(v)
	var x float64
	var err error
	switch {
	case strings.HasSuffix(t, "%"):
		x, err = strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
		x /= 100
	case strings.Contains(t, "/"):
		num, den, _ := strings.Cut(t, "/")
		var n, d float64
		n, err = strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err == nil {
			d, err = strconv.ParseFloat(strings.TrimSpace(den), 64)
		}
		if err == nil && d == 0 {
			return 0, bad
		}
		x = n / d
	default:
		x, err = strconv.ParseFloat(t, 64)
	}
	if err != nil || math.IsNaN(x) {
		return 0, bad
	}
	if x <= 0 || x > 1 {
		return 0, fmt.Errorf("a loss probability is more than 0 and at most 1, not %s", v)
	}
	return x, nil
}
