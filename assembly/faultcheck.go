package assembly

import (
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
	ok := true
	for _, k := range []string{"link", "host", "switch", "dst", "priority", "until", "rate", "convergence"} {
		if !f.Has(k) {
			continue
		}
		found := false
		for _, a := range allowed {
			found = found || a == k
		}
		if !found {
			b.errorf(f.KeyPos(k), path+"."+k, "action: %s does not take %s:; it takes %s", act, k, scenario.ListNames(allowed))
			ok = false
		}
	}
	need := func(k, what string) bool {
		if !f.Has(k) {
			b.errorf(f.Pos, path, "action: %s needs %s: (%s)", act, k, what)
			return false
		}
		return true
	}
	if f.Until.Set {
		if f.Until.V <= f.At.V {
			b.errorf(f.Until.Pos, path+".until", "until (%s) must be after at (%s)", f.Until.V, f.At.V)
			ok = false
		}
		fault.Until = f.Until.V
	}
	if f.Convergence.Set {
		fault.Convergence = f.Convergence.V
	}
	switch act {
	case "loss", "down", "up":
		if !need("link", "the link's two ends, [a, b]") {
			return fault, false
		}
		if len(f.Link) != 2 {
			b.errorf(f.KeyPos("link"), path+".link", "a link is named by its two ends, [a, b]; this list has %d", len(f.Link))
			return fault, false
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
			return fault, false
		}
		if _, adj := b.t.PortTo(ends[0], ends[1]); !adj {
			b.errorf(f.Link[1].Pos, path+".link", "%s and %s are not linked; %s's neighbours are %s", scenario.Show(f.Link[0].V), scenario.Show(f.Link[1].V), scenario.Show(f.Link[0].V), b.list(b.neighbours(ends[0])))
			return fault, false
		}
		fault.A, fault.B = ends[0], ends[1]
		if act == "loss" {
			switch rate, err := lossRate(f.Rate.V); {
			case !f.Rate.Set:
				b.errorf(f.Pos, path, "action: loss needs rate:, the probability that a frame is lost (such as 1e-4, 0.1%% or 1/256)")
				ok = false
			case err != nil:
				b.errorf(f.Rate.Pos, path+".rate", "%v", err)
				ok = false
			default:
				fault.Rate = rate
			}
		}
	case "pfc-storm", "slow-receiver", "rx-hang":
		if !need("host", "the host whose NIC misbehaves") {
			return fault, false
		}
		h, found := b.host(f.Host, path+".host")
		if !found {
			return fault, false
		}
		fault.Host = h
		fault.Priority = uint8(b.s.HCAProfile(h).Priority)
		if f.Priority.Set {
			fault.Priority = uint8(f.Priority.V)
		}
		if act == "slow-receiver" {
			if !need("rate", "the receive drain rate, such as 20Gbps") {
				return fault, false
			}
			r, err := fabric.ParseRate(f.Rate.V)
			if err != nil || r <= 0 {
				b.errorf(f.Rate.Pos, path+".rate", "expected a rate such as 20Gbps, found %s", scenario.Quote(f.Rate.V))
				return fault, false
			}
			fault.RxRate = r
		}
	case "missing-entry":
		if !need("switch", "the switch that loses the entry") || !need("dst", "the host whose entry it loses") {
			return fault, false
		}
		sw, found := b.t.Lookup(f.Switch.V)
		if !found || b.t.Nodes[sw].Kind != fabric.Switch {
			b.errorf(f.Switch.Pos, path+".switch", "unknown switch %s%s; switches are %s", scenario.Show(f.Switch.V), b.d.Suggest(f.Switch.V, b.switchNames()), b.list(b.switchNames()))
			return fault, false
		}
		dst, found := b.host(f.Dst, path+".dst")
		if !found {
			return fault, false
		}
		fault.Switch, fault.Dst = sw, dst
	}
	return fault, ok
}
