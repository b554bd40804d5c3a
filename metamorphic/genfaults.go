package metamorphic

import (
	"fmt"
	"strconv"
)

// faultActions are the fault actions with the weight the generator draws
// each by.
var faultActions = []any{"loss", 30, "down", 20, "pfc-storm", 10, "slow-receiver", 15, "rx-hang", 10, "missing-entry", 10, "up", 5}

func (g *gen) faults() {
	n := 0
	switch x := g.r.Float64(); {
	case x < 0.3:
		n = 1
	case x < 0.45:
		n = 2
	}
	for range n {
		g.fault()
	}
}

// link draws a link: a host's (its first, or at times its second) or
// one between switches (range extenders' among them).
func (g *gen) link() [2]Node {
	t := &g.s.Topo
	pairs := t.SwitchLinkNames()
	if len(pairs) == 0 || g.chance(0.4) {
		h := g.intn(g.hosts())
		if second, ok := t.SecondSwitch(h); ok && g.chance(0.4) {
			// A VPI host's second link is named as topology.links
			// names it; a dual-port HCA's by its port, hN/2.
			return [2]Node{{Switch: Switch(second)}, {Host: h, Port2: !g.s.VPIHost(h)}}
		}
		return [2]Node{{Switch: Switch(t.HostSwitch(h))}, {Host: h}}
	}
	p := one(g, pairs...)
	return [2]Node{{Switch: p[0]}, {Switch: p[1]}}
}

// linkIB says whether a link is on InfiniBand (on a mixed network, its
// switch's side).
func (g *gen) linkIB(l [2]Node) bool {
	var i int
	if _, err := fmt.Sscanf(l[0].Switch, "s%d", &i); err != nil {
		return g.s.IB // a range extender's: InfiniBand's
	}
	return g.s.OnIB(i)
}

// nicHost draws the host (and on a VPI host, at times, its port 2) a
// fault of a NIC reaches; eth: a port on Ethernet (a PAUSE storm is
// PFC's), and false when none is.
func (g *gen) nicHost(f *Fault, eth bool) bool {
	for range 2 * g.hosts() {
		f.Host = g.intn(g.hosts())
		f.Port2 = g.s.VPIHost(f.Host) && g.chance(0.3)
		if !eth || !g.s.PortIB(f.Host, pick(f.Port2, 2, 1)) {
			return true
		}
		if g.s.VPIHost(f.Host) {
			f.Port2 = !f.Port2
			return true
		}
	}
	return false
}

func (g *gen) fault() {
	s := g.s
	action := g.weighted(faultActions...)
	for s.IB && action == "pfc-storm" || g.llr() && action == "down" {
		g.refuse(pick(s.IB, "a PAUSE storm is PFC's: not on InfiniBand", "a link cut under switch.llr is not modelled"))
		action = g.weighted(faultActions...)
	}
	mixed := s.Mixed() || s.Topo.DualStar
	f := Fault{Action: action, AtNs: g.timeNs(0, s.StopNs*3/4), Host: -1}
	kv := func(k, v string) { f.Opts = append(f.Opts, KV{k, v}) }
	until := func(p float64) {
		if g.chance(p) {
			kv("until", Ns(g.timeNs(f.AtNs+1000, f.AtNs+s.StopNs/2)))
		}
	}
	switch action {
	case "loss":
		f.Link = g.link()
		kv("rate", one(g, "1e-3", "0.1%", "1%", "1/256", "5%", "0.02"))
		until(0.3)
	case "down", "up":
		f.Link = g.link()
		until(0.5)
		if action == "up" {
			f.Opts = nil // up takes no until
		}
		if !s.IB && g.chance(0.3) {
			if g.linkIB(f.Link) {
				g.refuse("convergence is Ethernet routing's: not on a mixed network's InfiniBand side")
			} else {
				kv("convergence", Ns(int64(one(g, 0, 1000, 5000, 20000))))
			}
		}
	case "pfc-storm":
		if !mixed {
			f.Host = g.intn(g.hosts())
		} else if !g.nicHost(&f, true) {
			g.refuse("a PAUSE storm is PFC's: from a port on Ethernet")
			return
		}
		if g.chance(0.5) {
			kv("priority", strconv.Itoa(one(g, 3, 3, 0)))
		}
		until(0.7)
	case "slow-receiver":
		if !mixed {
			f.Host = g.intn(g.hosts())
		} else {
			g.nicHost(&f, false)
		}
		kv("rate", one(g, "10Gbps", "20Gbps", "50Gb/s"))
		until(0.5)
	case "rx-hang":
		if !mixed {
			f.Host = g.intn(g.hosts())
		} else {
			g.nicHost(&f, false)
		}
		until(0.7)
	case "missing-entry":
		f.Switch = Switch(g.intn(s.Topo.NumSwitches()))
		f.Host = g.intn(g.hosts())
		until(0.5)
	}
	s.Faults = append(s.Faults, f)
}

func (g *gen) observe() {
	s := g.s
	if !g.chance(0.7) {
		return
	}
	kv := func(k, v string) { s.Observe = append(s.Observe, KV{k, v}) }
	if g.chance(0.8) {
		kv("interval", Ns(int64(one(g, 1000, 2000, 3000, 5000, 7000, 10000, 2500))))
	}
	if g.chance(0.4) {
		kv("queues", one(g, "all", "none", "[s0:p0]", "[s0]"))
	}
	if g.chance(0.4) {
		links := one(g, "all", "none", "[s0:p0, s0:p1]")
		if links == "[s0:p0, s0:p1]" && s.Topo.portsOf(0) < 2 {
			// A mixed network's s0 may be alone on its fabric with one
			// host (seed 9018554).
			g.refuse("observe.links names ports s0 has")
			links = "[s0:p0]"
		}
		kv("links", links)
	}
	if g.chance(0.3) {
		kv("flows", one(g, "all", "none"))
	}
	// iWARP's captures too, since they are written (with a warning of
	// connections made out of band); not UET's, which are not.
	if !g.uet() && g.chance(0.35) {
		s.PcapHosts = append(s.PcapHosts, g.subset(1, 2)...)
		var vpi []int
		for h := range g.hosts() {
			if g.s.VPIHost(h) {
				vpi = append(vpi, h)
			}
		}
		if len(vpi) > 0 && g.chance(0.5) {
			// A VPI host's port on its other fabric: hN/2.
			s.PcapPort2 = append(s.PcapPort2, one(g, vpi...))
		}
		if g.chance(0.3) {
			s.PcapPorts = append(s.PcapPorts, "s0:p0")
		}
		if g.chance(0.3) {
			kv("snaplen", one(g, "full", "64", "256"))
		}
	}
	if g.chance(0.2) {
		kv("deadlock", "{after: "+one(g, "10us", "20us", "50us")+"}")
	}
}

func (g *gen) expect() {
	s := g.s
	if !g.chance(0.1) {
		return
	}
	kv := func(k, v string) { s.Expect = append(s.Expect, KV{k, v}) }
	kv("drops", "0")
	if g.chance(0.5) {
		kv("flows_completed", "all")
	}
	if g.chance(0.5) {
		kv("deadlock", "false")
	}
	if g.chance(0.3) {
		kv("max_mean_slowdown", "50")
	}
	if g.chance(0.3) {
		kv("max_retransmitted", "0")
	}
}
