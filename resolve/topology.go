package resolve

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
	swtch "github.com/lfsim/lfsim/switch"
	_ "github.com/lfsim/lfsim/topologies" // the topology generators register in kind's table
)

// link returns base overridden by l's fields.
func link(base fabric.LinkSpec, l *scenario.LinkS) fabric.LinkSpec {
	override(&base.Rate, l.Rate)
	override(&base.Delay, l.Delay)
	return base
}

// satMul multiplies non-negative numbers, saturating instead of
// overflowing.
func satMul(xs ...int64) int64 { return kind.MulSat(xs...) }

// fits checks a generated topology's size against the limits.
func (b *builder) fits(at scenario.Pos, hosts, switches, links int64) bool {
	what := ""
	switch {
	case hosts > int64(b.lim.Hosts):
		what = fmt.Sprintf("%s hosts; at most %d are supported", count(hosts), b.lim.Hosts)
	case switches > int64(b.lim.Switches):
		what = fmt.Sprintf("%s switches; at most %d are supported", count(switches), b.lim.Switches)
	case links > int64(b.lim.Links):
		what = fmt.Sprintf("%s links; at most %d are supported", count(links), b.lim.Links)
	case satMul(switches, hosts) > int64(b.lim.RouteEntries) || satMul(switches, switches) > int64(b.lim.RouteEntries)/4:
		what = fmt.Sprintf("%s switches and %s hosts, too many for the routing tables (one entry per switch and host)", count(switches), count(hosts))
	default:
		return true
	}
	b.errorf(at, "topology", "this topology would have %s", what)
	return false
}

func count(n int64) string {
	if n == math.MaxInt64 {
		return "more than 9223372036854775806"
	}
	return strconv.FormatInt(n, 10)
}

func (b *builder) topology() {
	tv := &b.f.Topology
	if s, ok := tv.Spec.(*scenario.ExplicitS); ok {
		b.explicit(s)
		return
	}
	t, servers, err := b.generate(tv)
	if t == nil && err == nil {
		return // reported, or not given
	}
	if err != nil { // the schema's bounds should have caught it
		b.errorf(tv.Pos, "topology", "%v", err)
		return
	}
	b.setTopology(t)
	if servers != nil {
		b.s.SetServers(servers, len(t.Nodes))
	}
	b.topoOK = true
	if err := t.Check(); err != nil {
		b.errorf(tv.Pos, "topology", "%v", err)
		b.topoOK = false
	}
}

// generate builds a generated topology (a row of the table of topology
// generators, kind.Topologies), after checking it and that it fits the
// limits, and the GPU servers it holds (nil for a generator of plain
// hosts). It returns nil and no error where the file's values are
// missing or out of bounds (reported).
func (b *builder) generate(tv *scenario.TopologyV) (*fabric.Topology, []Server, error) {
	g := tv.Generated()
	if g == nil {
		return nil, nil, nil
	}
	params := g.Row.Defaults()
	links := map[string]fabric.LinkSpec{}
	at := map[string]scenario.Pos{}
	for _, k := range g.Keys {
		p := k.Param
		at[p.Key] = k.Pos
		switch {
		case p.Type == kind.TypeLink: // over the link it defaults to
			base := defaultLink
			if own, _ := p.Value(params).(fabric.LinkSpec); own != (fabric.LinkSpec{}) {
				base = own // the generator's own default
			}
			if p.Base != "" {
				base = links[p.Base]
			}
			links[p.Key] = link(base, k.V.(*scenario.LinkS))
			p.Set(params, links[p.Key])
		case k.V != nil:
			p.Set(params, k.V)
		case p.Required || g.Has(p.Key):
			return nil, nil, nil // missing, or given but not usable: reported
		}
	}
	if problems := g.Row.Check(params, b.limit); len(problems) > 0 {
		for _, pr := range problems {
			b.errorf(at[pr.Key], "topology."+pr.Key, "%s", pr.Msg)
		}
		return nil, nil, nil
	}
	hosts, switches, nLinks := g.Row.Size(params)
	limitAt := tv.Pos
	if g.Row.LimitAt != "" {
		limitAt = at[g.Row.LimitAt]
	}
	if !b.fits(limitAt, hosts, switches, nLinks) {
		return nil, nil, nil
	}
	t, err := g.Row.Build(params)
	if err != nil || g.Row.Servers == nil {
		return t, nil, err
	}
	return t, serversOf(g.Row.Servers(params, t)), nil
}

// limit is the limit named name (a field of Limits, FatTreeK), for a
// generator's check.
func (b *builder) limit(name string) int64 {
	f := reflect.ValueOf(b.lim).FieldByName(name)
	if !f.IsValid() || !f.CanInt() {
		panic("resolve: a topology generator reads limit " + name + ", which Limits does not have")
	}
	return f.Int()
}

func (b *builder) setTopology(t *fabric.Topology) {
	b.t, b.s.Topology = t, t
	for _, h := range t.Hosts() {
		b.hostNms = append(b.hostNms, t.Nodes[h].Name)
	}
}

// checkNodeName checks a name an explicit topology declares: it must be
// usable in port names (s0:p8, s0->h8) and lists (all).
func (b *builder) checkNodeName(n scenario.StrV, path string) bool {
	return b.checkName(n, path, "node")
}

// checkName checks a name an explicit topology declares for what (a
// node, a server), as checkNodeName.
func (b *builder) checkName(n scenario.StrV, path, what string) bool {
	bad := ""
	switch {
	case n.V == "all" || n.V == "none":
		bad = n.V + " is a keyword (hosts: all)"
	case strings.Contains(n.V, "->"):
		bad = "-> is how ports are named (s0->h8)"
	default:
		for _, r := range n.V {
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.') {
				bad = fmt.Sprintf("%q is not allowed", r)
				break
			}
		}
	}
	if bad != "" {
		b.errorf(n.Pos, path, "%s is not a valid %s name: %s; use letters, digits, '_', '-' and '.'", scenario.Quote(n.V), what, bad)
		return false
	}
	return true
}

func (b *builder) explicit(s *scenario.ExplicitS) {
	errs := b.d.ErrorCount()
	b.declPos, b.declPath = map[fabric.NodeID]scenario.Pos{}, map[fabric.NodeID]string{}
	if !b.fits(b.f.Topology.Pos, int64(len(s.Hosts)), int64(len(s.Switches)), int64(len(s.Links))) {
		return
	}
	t := b.explicitNodes(s)
	b.setTopology(t)
	b.explicitLinks(t, s)
	b.nodeLinks(t)
	b.explicitServers(t, s)
	if b.d.ErrorCount() > errs {
		return // the checks below would only repeat what is wrong
	}
	b.checkExplicit(t, s, errs)
}

// explicitNodes declares an explicit topology's hosts and switches, in
// file order, with the profiles of those that override them.
func (b *builder) explicitNodes(s *scenario.ExplicitS) *fabric.Topology {
	t := fabric.NewTopology()
	declared := map[string]scenario.Pos{}
	add := func(n scenario.StrV, kind fabric.NodeKind, path string) (fabric.NodeID, bool) {
		if !n.Set || !b.checkNodeName(n, path) {
			return 0, false
		}
		if first, dup := declared[n.V]; dup {
			b.errorf(n.Pos, path, "node %s is declared twice (first at %s)", scenario.Show(n.V), scenario.FirstAt(first, n.Pos))
			return 0, false
		}
		declared[n.V] = n.Pos
		id, err := t.AddNode(n.V, kind)
		if err != nil {
			b.errorf(n.Pos, path, "%v", err)
			return 0, false
		}
		b.declPos[id], b.declPath[id] = n.Pos, path
		return id, true
	}
	for i := range s.Hosts {
		h := &s.Hosts[i]
		id, ok := add(h.Name, fabric.Host, h.Path)
		if ok && h.HCA.Set {
			p, c := b.s.HCA, b.s.CM
			b.applyHCA(&p, &h.HCA)
			applyCM(&c, &h.HCA.CM)
			b.noNodeCCParams(&h.HCA, h.Path+".hca")
			b.checkHostUET(&h.HCA, h.Path)
			if h.HCA.Overlay.Set {
				b.errorf(h.HCA.Overlay.Pos, h.Path+".hca.overlay", "every adapter of a virtual network encapsulates alike (an adapter outside the overlay cannot reach one inside): set hca.overlay at the top level")
			}
			b.checkOverlayHost(&p, &h.HCA, h.Path+".hca")
			if h.HCA.Transport.Set {
				b.errorf(h.HCA.Transport.Pos, h.Path+".hca.transport", "every NIC of a fabric frames RDMA the same way (a RoCEv1 NIC and a RoCEv2 NIC cannot talk): set hca.transport at the top level")
			}
			if h.HCA.Has("vlarb") {
				if b.s.LinkLayer == fabric.InfiniBand {
					b.hcaVLArb(&p, &h.HCA.VLArb, h.Path+".hca.vlarb")
				} else {
					b.errorf(h.HCA.KeyPos("vlarb"), h.Path+".hca.vlarb", "VL arbitration is InfiniBand's; this scenario's links are Ethernet")
				}
			}
			if b.s.HCAProfiles == nil {
				b.s.HCAProfiles = map[fabric.NodeID]hca.Profile{}
			}
			b.s.HCAProfiles[id] = p
			if h.HCA.Has("host_bandwidth") {
				if b.s.HostBandwidths == nil {
					b.s.HostBandwidths = map[fabric.NodeID]fabric.Rate{}
				}
				b.s.HostBandwidths[id] = hostBandwidth(b.s.HostBandwidth, &h.HCA)
			}
			if b.s.CMProfiles == nil {
				b.s.CMProfiles = map[fabric.NodeID]cm.Profile{}
			}
			b.s.CMProfiles[id] = c
		}
	}
	for i := range s.Switches {
		sw := &s.Switches[i]
		id, ok := add(sw.Name, fabric.Switch, sw.Path)
		if ok && sw.Switch.Set {
			p := b.s.Switch
			b.applySwitch(&p, &sw.Switch, sw.Path+".switch")
			ib := b.ibSwitchDecl(&sw.Switch, sw.Path+".switch")
			b.checkTrim(&sw.Switch, &p, sw.Path+".switch", ib || b.s.LinkLayer == fabric.InfiniBand)
			if ib {
				b.ibOwnBlock(&sw.Switch, sw.Path+".switch")
				ibSwitch(&p, 0, sw.Switch.Forwarding.Set)
				if h := b.f.Switch.IB.HOQLifetime; h.Time.Set {
					p.HOQLifetime = h.Time.V
				}
				if b.ibSwitches == nil {
					b.ibSwitches = map[fabric.NodeID]bool{}
				}
				b.ibSwitches[id] = true
			}
			if sw.Switch.RangeExtender.Set && b.declaresIBSwitch() {
				b.mixedExtender(id, &sw.Switch, sw.Path+".switch.range_extender")
			}
			if b.s.SwitchProfiles == nil {
				b.s.SwitchProfiles = map[fabric.NodeID]swtch.Profile{}
			}
			b.s.SwitchProfiles[id] = p
		}
	}
	return t
}

// explicitLinks connects an explicit topology's links, each with the
// default link's profile under its own rate and delay.
func (b *builder) explicitLinks(t *fabric.Topology, s *scenario.ExplicitS) {
	def := link(defaultLink, &s.Link)
	names := t.Names()
	for i := range s.Links {
		l := &s.Links[i]
		if !l.OK {
			continue
		}
		x, okA := b.nodeNamed(l.A, l.Path, names)
		y, okB := b.nodeNamed(l.B, l.Path, names)
		if !okA || !okB {
			continue
		}
		switch {
		case x == y:
			b.errorf(l.Pos, l.Path, "a link from %s to itself", scenario.Show(l.A.V))
			continue
		case t.Nodes[x].Kind == fabric.Host && t.Nodes[y].Kind == fabric.Host:
			b.errorf(l.Pos, l.Path, "a link between two hosts, %s and %s; hosts connect to switches", scenario.Show(l.A.V), scenario.Show(l.B.V))
			continue
		}
		if !b.sameFabric(t, x, y, l) {
			continue
		}
		var ok bool
		x0 := x
		if x, ok = b.hostPort(t, x, y, l); !ok {
			continue
		}
		if y, ok = b.hostPort(t, y, x0, l); !ok {
			continue
		}
		spec := def
		override(&spec.Rate, l.Rate)
		override(&spec.Delay, l.Delay)
		t.Connect(x, y, spec)
	}
}

// hostPort returns the port node a link to node id takes: id itself,
// unless id is a host that has its link already. On InfiniBand a host's
// second link is its HCA's second port (fabric.Topology.AddSecondPort),
// as a dual-port HCA has, for APM's alternate path; a third is an error,
// and so is a second on Ethernet, where the HCA has one port, p0.
func (b *builder) hostPort(t *fabric.Topology, id, other fabric.NodeID, l *scenario.LinkItemV) (fabric.NodeID, bool) {
	n := &t.Nodes[id]
	if n.Kind != fabric.Host || len(n.Ports) == 0 {
		return id, true
	}
	peer := scenario.Show(t.Nodes[n.Ports[0].Peer].Name)
	first, this := b.linkLayerAt(t, id), b.linkLayerAt(t, other)
	if first == fabric.Ethernet && this == fabric.Ethernet && len(b.ibSwitches) > 0 {
		b.errorf(l.Pos, l.Path, "a second link for host %s, which is linked to %s already, both on Ethernet; a host has one Ethernet port (its second port is on InfiniBand: a dual-port HCA, or a VPI adapter with a port on each fabric)", scenario.Show(n.Name), peer)
		return id, false
	}
	if first == fabric.Ethernet && this == fabric.Ethernet {
		b.errorf(l.Pos, l.Path, "a second link for host %s, which is linked to %s already; a host has one port, p0 (a second port, for APM's alternate path, is InfiniBand's: switch.link_layer: infiniband)", scenario.Show(n.Name), peer)
		return id, false
	}
	if _, two := t.SecondPort(id); two {
		b.errorf(l.Pos, l.Path, "a third link for host %s; an HCA has at most two ports", scenario.Show(n.Name))
		return id, false
	}
	p2, err := t.AddSecondPort(id)
	if err != nil {
		b.errorf(l.Pos, l.Path, "%v", err)
		return id, false
	}
	if b.declPos != nil {
		b.declPos[p2], b.declPath[p2] = l.Pos, l.Path
	}
	return p2, true
}

// checkExplicit checks what an explicit topology needs as a whole: every
// node linked, hosts, and every node reachable from the first host.
func (b *builder) checkExplicit(t *fabric.Topology, s *scenario.ExplicitS, errs int) {
	for id, n := range t.Nodes {
		if len(n.Ports) == 0 {
			b.errorf(b.declPos[fabric.NodeID(id)], "topology", "%s %s has no links", n.Kind, scenario.Show(n.Name))
		}
	}
	if b.d.ErrorCount() > errs || len(t.Hosts()) == 0 {
		if len(t.Hosts()) == 0 {
			b.errorf(s.KeyPos("hosts"), "topology.hosts", "the topology has no hosts")
		}
		return
	}
	// Connectivity through switches (hosts do not forward), from the first
	// host, as fabric.Topology.Check sees it; the error points at the first
	// node that cannot be reached.
	// On a network of two fabrics each is checked on its own, from its
	// first endpoint (fabric.Topology.SetLinkLayers).
	first, unreached := t.Unreachable()
	var cut []string
	for _, id := range unreached {
		cut = append(cut, t.Nodes[id].Name)
	}
	if len(cut) > 0 {
		b.errorf(b.declPos[unreached[0]], "topology", "the topology is not connected: %s cannot be reached from %s%s", b.list(cut), scenario.Show(t.Nodes[first].Name), t.FabricOf(unreached[0]))
		return
	}
	if err := t.Check(); err != nil {
		b.errorf(b.f.Topology.Pos, "topology", "%v", err)
		return
	}
	b.topoOK = true
}

// nodeNamed looks up any node by name.
func (b *builder) nodeNamed(n scenario.StrV, path string, names []string) (fabric.NodeID, bool) {
	id, ok := b.t.Lookup(n.V)
	if !ok {
		b.errorf(n.Pos, path, "unknown node %s%s; nodes are %s", scenario.Show(n.V), b.d.Suggest(n.V, names), b.list(names))
	}
	return id, ok
}

// host looks up a host by name.
func (b *builder) host(n scenario.StrV, path string) (fabric.NodeID, bool) {
	id, ok := b.t.Lookup(n.V)
	switch {
	case !ok:
		b.errorf(n.Pos, path, "unknown host %s%s; hosts are %s", scenario.Show(n.V), b.d.Suggest(n.V, b.hostNms), b.list(b.hostNms))
	case b.t.Nodes[id].Kind != fabric.Host:
		b.errorf(n.Pos, path, "%s is a switch, not a host; hosts are %s", scenario.Show(n.V), b.list(b.hostNms))
		ok = false
	case b.t.Nodes[id].Second:
		b.errorf(n.Pos, path, "%s is %s's second port, not a host; name %s (its HCA uses either port)", scenario.Show(n.V), scenario.Show(b.t.Nodes[b.t.Owner(id)].Name), scenario.Show(b.t.Nodes[b.t.Owner(id)].Name))
		ok = false
	}
	return id, ok
}

func (b *builder) switchNames() []string {
	if b.swNames == nil {
		b.swNames = []string{}
		for _, n := range b.t.Nodes {
			if n.Kind == fabric.Switch {
				b.swNames = append(b.swNames, n.Name)
			}
		}
	}
	return b.swNames
}

// neighbours lists the names of a node's peers, in port order, once each.
func (b *builder) neighbours(id fabric.NodeID) []string {
	var out []string
	seen := map[fabric.NodeID]bool{}
	for _, p := range b.t.Nodes[id].Ports {
		if p.Peer >= 0 && !seen[p.Peer] {
			seen[p.Peer] = true
			out = append(out, b.t.Nodes[p.Peer].Name)
		}
	}
	return out
}

// hostIf resolves a host name that was given (an unset name already has
// its error).
func (b *builder) hostIf(n scenario.StrV, path string) (fabric.NodeID, bool) {
	if !n.Set {
		return 0, false
	}
	return b.host(n, path)
}

// hostList resolves a list of host names (or all) for a generator, without
// duplicates.
func (b *builder) hostList(l *scenario.NameListV, path string) ([]fabric.NodeID, []scenario.Pos, bool) {
	if !l.Set || l.All {
		return b.t.Hosts(), nil, true
	}
	ok := true
	out := make([]fabric.NodeID, 0, len(l.Names))
	var at []scenario.Pos
	first := map[fabric.NodeID]scenario.Pos{}
	for _, n := range l.Names {
		if !n.Set {
			ok = false
			continue
		}
		id, found := b.host(n, path)
		if !found {
			ok = false
			continue
		}
		if at, dup := first[id]; dup {
			b.errorf(n.Pos, path, "%s is listed twice (first at %s)", scenario.Show(n.V), scenario.FirstAt(at, n.Pos))
			ok = false
			continue
		}
		first[id] = n.Pos
		out = append(out, id)
		at = append(at, n.Pos)
	}
	return out, at, ok
}
