package metamorphic

import (
	"slices"
	"strconv"
)

// The topologies of issue 47's systems: mixed networks of InfiniBand and
// Ethernet switches with VPI hosts (a port on each), and InfiniBand range
// extenders on long links.

// vpiExplicit draws a mixed network: 2 to 5 switches, each on InfiniBand
// or Ethernet (at least one of each), each fabric's switches in a line
// (closed into a ring or not) and no link between the fabrics (no gateway
// is modelled: they meet only in the hosts). Hosts are spread over the
// switches; some are linked twice, most to a switch of the other fabric
// (a VPI adapter), some to another switch of their InfiniBand fabric (a
// dual-port HCA). Every fabric is reached by two hosts or more, so that
// a flow can be drawn on it.
func (g *gen) vpiExplicit() {
	t := &g.s.Topo
	t.Switches, t.HostsPerSwitch = g.between(2, 5), g.between(1, 3)
	t.IBSwitch = make([]bool, t.Switches)
	for i := range t.IBSwitch {
		t.IBSwitch[i] = g.chance(0.5)
	}
	if !slices.Contains(t.IBSwitch, true) || !slices.Contains(t.IBSwitch, false) {
		g.refuse("a mixed network has switches of both link layers")
		t.IBSwitch[g.intn(t.Switches)] = !t.IBSwitch[0]
	}
	t.SayEthernet = g.chance(0.5)
	for _, ib := range []bool{true, false} {
		group := t.group(ib)
		for i := 0; i+1 < len(group); i++ {
			t.SwitchLinks = append(t.SwitchLinks, [2]int{group[i], group[i+1]})
		}
		if len(group) >= 3 && g.chance(0.4) {
			t.SwitchLinks = append(t.SwitchLinks, [2]int{group[len(group)-1], group[0]})
		}
	}
	if g.chance(0.3) {
		t.Rate2, t.Delay2Ns = g.rate(), max(g.delay(), 100)
	}
	second := func(h int, sameIB bool) {
		first := t.HostSwitch(h)
		other := t.group(t.IBSwitch[first] == sameIB)
		if sameIB {
			other = slices.DeleteFunc(other, func(sw int) bool { return sw == first })
		}
		t.DualPort = append(t.DualPort, h)
		t.SecondTo = append(t.SecondTo, one(g, other...))
	}
	for h := range t.NumHosts() {
		if !g.chance(0.5) {
			continue
		}
		if t.IBSwitch[t.HostSwitch(h)] && len(t.group(true)) >= 2 && g.chance(0.15) {
			second(h, true)
		} else {
			second(h, false)
		}
	}
	// Every fabric reached by two hosts, and one VPI host at least.
	for _, ib := range []bool{true, false} {
		for h := 0; h < t.NumHosts() && (g.reachers(ib) < 2 || !g.anyVPI()); h++ {
			if _, two := t.SecondSwitch(h); !two && t.IBSwitch[t.HostSwitch(h)] != ib {
				g.refuse("every fabric of a mixed network reached by two hosts")
				second(h, false)
			}
		}
	}
}

// group are the switches on InfiniBand (ib) or Ethernet, in order.
func (t *Topo) group(ib bool) []int {
	var out []int
	for i, x := range t.IBSwitch {
		if x == ib {
			out = append(out, i)
		}
	}
	return out
}

// reachers counts the hosts with a port on fabric ib.
func (g *gen) reachers(ib bool) int {
	n := 0
	for h := range g.hosts() {
		if g.s.Reaches(h, ib) {
			n++
		}
	}
	return n
}

func (g *gen) anyVPI() bool {
	for h := range g.hosts() {
		if g.s.VPIHost(h) {
			return true
		}
	}
	return false
}

// extenders puts one or two pairs of range extenders into the links
// between switches of an InfiniBand explicit topology, each long haul a
// few microseconds to 50 us (10 km of fibre) one way; their buffers are
// drawn once switch.ib.data_vls is (extenderBuffers).
func (g *gen) extenders() {
	t := &g.s.Topo
	n := 1
	if len(t.SwitchLinks) >= 2 && g.chance(0.25) {
		n = 2
	}
	links := seq(len(t.SwitchLinks))
	g.r.Shuffle(len(links), func(i, j int) { links[i], links[j] = links[j], links[i] })
	for _, l := range links[:n] {
		x := Extender{Link: l, LongNs: int64(one(g, 2000, 5000, 10000, 10000, 20000, 50000))}
		for j := range 2 {
			if g.chance(0.3) {
				x.Own[j] = append(x.Own[j], KV{"latency", Ns(int64(one(g, 100, 200, 1000)))})
			}
			if g.chance(0.15) {
				x.Own[j] = append(x.Own[j], KV{"forwarding", one(g, "cut-through", "store-and-forward")})
			}
		}
		t.Extenders = append(t.Extenders, x)
	}
}

// extenderBuffers draws each extender's buffer: at least 128 KiB for each
// data VL (what a plain link's credits reach), at times exactly that.
func (g *gen) extenderBuffers() {
	least := int64(128<<10) * int64(g.dataVLs())
	for i := range g.s.Topo.Extenders {
		x := &g.s.Topo.Extenders[i]
		for j := range 2 {
			b := least
			if !g.chance(0.2) {
				b = max(least, int64(one(g, 1, 2, 4, 16, 16, 64, 256))<<20)
			}
			x.Buffer[j] = Bytes(b)
		}
	}
}

// fabricOfHosts is the fabric the hosts' first ports share: 1 for
// InfiniBand, 0 for Ethernet, -1 when they are on both.
func (g *gen) fabricOfHosts(hosts []int) int {
	f := -1
	for i, h := range hosts {
		x := 0
		if g.s.PortIB(h, 1) {
			x = 1
		}
		if i > 0 && x != f {
			return -1
		}
		f = x
	}
	return f
}

// onFabric are the hosts whose port 1 is on fabric ib.
func (g *gen) onFabric(ib bool) []int {
	var out []int
	for h := range g.hosts() {
		if g.s.PortIB(h, 1) == ib {
			out = append(out, h)
		}
	}
	return out
}

// sameFabricPool is a pool of hosts whose first ports share a fabric, at
// least two of them, drawn among the fabrics that have two: all hosts on
// a network of one link layer; nil when no fabric has two.
func (g *gen) sameFabricPool() []int {
	if !g.s.Mixed() {
		return seq(g.hosts())
	}
	var pools [][]int
	for _, ib := range []bool{true, false} {
		if p := g.onFabric(ib); len(p) >= 2 {
			pools = append(pools, p)
		}
	}
	if len(pools) == 0 {
		return nil
	}
	return one(g, pools...)
}

// reaching are the hosts with a port on the fabric of pool's first
// ports (every host, on a network of one link layer).
func (g *gen) reaching(pool []int) []int {
	if !g.s.Mixed() {
		return seq(g.hosts())
	}
	ib := g.s.PortIB(pool[0], 1)
	var out []int
	for h := range g.hosts() {
		if g.s.Reaches(h, ib) {
			out = append(out, h)
		}
	}
	return out
}

// hostBandwidths are hca.host_bandwidth's values: PCIe as people write
// it (line: no limit; Gen4 x16 carries about 200 Gb/s of payload, x8
// half that).
var hostBandwidths = []string{"line", "50Gbps", "100Gbps", "150Gbps", "200Gbps", "250Gbps"}

// hostBandwidth draws hca.host_bandwidth: on half the mixed networks,
// whose VPI hosts' two ports share it, and a tenth of the others.
func (g *gen) hostBandwidth() {
	if g.chance(pick(g.s.Mixed(), 0.5, 0.1)) {
		g.s.HCA = append(g.s.HCA, KV{"host_bandwidth", one(g, hostBandwidths...)})
	}
}

// hostBlocks gives one or two hosts of an explicit topology (a third of
// them) their own hca: block: the adapter's host interface, the DSCP of
// its packets (Ethernet with an IP header), or a larger MTU than the
// top level's (so that every UD size drawn within the top level's fits
// any path), one whose largest frame fits the overlay's underlay.
func (g *gen) hostBlocks() {
	s := g.s
	if s.Topo.Kind != "explicit" || !g.chance(0.3) {
		return
	}
	for _, h := range g.subset(1, 2) {
		var kvs []KV
		if g.chance(0.5) {
			kvs = append(kvs, KV{"host_bandwidth", one(g, hostBandwidths...)})
		}
		if !s.IB && !g.rocev1() && g.chance(0.4) {
			kvs = append(kvs, KV{"dscp", itoa(g.dscp())})
		}
		if g.chance(0.4) {
			var fit []int
			for _, m := range []int{256, 512, 1024, 2048, 4096} {
				if m >= g.mtu() && (!g.overlaid() || g.overlayPacket(m, g.overlayOptions()) <= g.underlayMTU()) {
					fit = append(fit, m)
				}
			}
			kvs = append(kvs, KV{"mtu", itoa(one(g, fit...))})
		}
		if len(kvs) == 0 {
			kvs = append(kvs, KV{"host_bandwidth", one(g, hostBandwidths...)})
		}
		s.HostBlocks = append(s.HostBlocks, HostBlock{Host: h, KVs: kvs})
	}
}

// itoa is strconv.Itoa.
func itoa(n int) string { return strconv.Itoa(n) }

// poolExists says whether some fabric has two hosts whose first ports
// are on it (always, on a network of one link layer).
func (g *gen) poolExists() bool {
	return !g.s.Mixed() || len(g.onFabric(true)) >= 2 || len(g.onFabric(false)) >= 2
}

// programPair draws a program's two hosts: on a mixed network two whose
// first ports share a fabric (a program runs on each host's port 1).
func (g *gen) programPair() (int, int) {
	if !g.s.Mixed() {
		return g.twoHosts()
	}
	pool := g.subsetOf(g.sameFabricPool(), 2, 2)
	return pool[0], pool[1]
}

// flowPair draws a flow's hosts: on a mixed network its source's port
// (port: 2, at times, from a VPI host's other fabric; port: 1 written at
// times) and a destination with a port on that port's fabric.
func (g *gen) flowPair(it *Item) {
	if !g.s.Mixed() {
		it.From, it.To = g.twoHosts()
		return
	}
	for {
		a := g.intn(g.hosts())
		port := 1
		if g.s.VPIHost(a) && g.chance(0.5) {
			port = 2
		}
		ib := g.s.PortIB(a, port)
		var to []int
		for b := range g.hosts() {
			if b != a && g.s.Reaches(b, ib) {
				to = append(to, b)
			}
		}
		if len(to) == 0 {
			g.refuse("a flow's destination has a port on its source port's fabric")
			continue
		}
		it.From, it.To = a, one(g, to...)
		if port == 2 || g.s.VPIHost(a) && g.chance(0.2) {
			it.Opts = append(it.Opts, KV{"port", itoa(port)})
		}
		return
	}
}

// twinFlow adds a flow from a VPI host's other port, beside flow it, so
// that both ports are busy at once (sharing the adapter's host interface,
// hca.host_bandwidth).
func (g *gen) twinFlow(it Item) {
	port := pick(get(it.Opts, "port") == "2", 1, 2)
	ib := g.s.PortIB(it.From, port)
	var to []int
	for b := range g.hosts() {
		if b != it.From && g.s.Reaches(b, ib) {
			to = append(to, b)
		}
	}
	if len(to) == 0 {
		g.refuse("a flow's destination has a port on its source port's fabric")
		return
	}
	twin := Item{Kind: "flow", From: it.From, To: one(g, to...)}
	if port == 2 || g.chance(0.2) {
		twin.Opts = append(twin.Opts, KV{"port", itoa(port)})
	}
	g.flowOpts(&twin, true)
	g.s.Traffic = append(g.s.Traffic, twin)
}

// incast draws an incast's to: and its senders: on a mixed network those
// whose first port's fabric to: has a port on.
func (g *gen) incast(it *Item) {
	for {
		it.To = g.intn(g.hosts())
		var pool []int
		for h := range g.hosts() {
			if h != it.To && g.s.Reaches(it.To, g.s.PortIB(h, 1)) {
				pool = append(pool, h)
			}
		}
		if len(pool) == 0 {
			g.refuse("an incast's senders have a fabric in common with its to:")
			continue
		}
		if len(pool) == g.hosts()-1 && g.chance(0.2) {
			it.All = true
		} else {
			it.Hosts = g.subsetOf(pool, 1, 6)
		}
		return
	}
}

// itemFabric is the fabric of an item's sources' ports: 1 InfiniBand, 0
// Ethernet, -1 both (a mixed network's incast or asyncwatch).
func (g *gen) itemFabric(it *Item) int {
	if !g.s.Mixed() {
		return pick(g.s.IB, 1, 0)
	}
	var src []int
	switch {
	case it.Kind == "flow":
		return pick(g.flowSrcIB(it), 1, 0)
	case it.From >= 0:
		src = []int{it.From}
	case it.All:
		src = slices.DeleteFunc(seq(g.hosts()), func(h int) bool { return h == it.To })
	default:
		src = it.Hosts
	}
	return g.fabricOfHosts(src)
}

// flowSrcIB says whether a flow: item leaves a port on InfiniBand (its
// port:, 1 by default).
func (g *gen) flowSrcIB(it *Item) bool {
	if it.Kind != "flow" {
		return g.s.IB
	}
	port := 1
	if get(it.Opts, "port") == "2" {
		port = 2
	}
	return g.s.PortIB(it.From, port)
}
