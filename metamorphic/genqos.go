package metamorphic

import (
	"slices"
	"strconv"
	"strings"
)

// The generator's QoS as switches and NICs are configured (SCENARIO.md,
// "QoS as configured") and the adapters' overlay (eRDMA's VXLAN or
// Geneve): Ethernet's, so never on InfiniBand.

// dscps are DSCPs people configure: best effort, CS1..CS7, AF11, AF21,
// AF31 (RoCE's 26), AF41 and EF.
var dscps = []int{0, 8, 10, 16, 18, 24, 26, 32, 34, 40, 46, 48, 56}

// dscp draws a DSCP: one people configure, or any at times.
func (g *gen) dscp() int {
	if g.chance(0.2) {
		return g.intn(64)
	}
	return one(g, dscps...)
}

// etsShares are ETS shares in percent as switches are configured, each
// summing to 100.
var etsShares = [][]int{{50, 50}, {70, 30}, {60, 40}, {90, 10}, {34, 33, 33}, {20, 30, 50}, {100}}

// qos draws a switch block's classification and scheduling (kv adds a
// key): trust, dscp2prio, prio2tc, and ETS when no other scheduler was
// drawn (scheduled). Trust dscp needs an IP header (not RoCEv1). It
// returns whether it gave any key.
func (g *gen) qos(kv func(k, v string), scheduled bool) bool {
	trust := ""
	switch {
	case g.rocev1():
		if g.chance(0.3) {
			trust = "pcp"
		}
	case g.chance(0.7):
		trust = "dscp"
	case g.chance(0.4):
		trust = "pcp"
	}
	if trust != "" {
		kv("trust", trust)
	}
	if trust == "dscp" && g.chance(0.8) || trust != "dscp" && g.chance(0.1) {
		// Under trust: pcp the map is a warning (no effect), not an error.
		n := g.between(1, 4)
		from := slices.Clone(dscps)
		g.r.Shuffle(len(from), func(i, j int) { from[i], from[j] = from[j], from[i] })
		var m []KV
		for _, d := range from[:n] {
			prio := g.intn(8)
			switch {
			case d == 26 && g.chance(0.7):
				prio = 3 // RoCE's lossless priority
			case d == 48 && g.chance(0.7):
				prio = 6 // CNPs'
			}
			m = append(m, KV{strconv.Itoa(d), strconv.Itoa(prio)})
		}
		kv("dscp2prio", flowMap(m))
	}
	var tcs []int // the classes prio2tc names
	if g.chance(0.4) {
		var m []KV
		prios := seq(8)
		g.r.Shuffle(8, func(i, j int) { prios[i], prios[j] = prios[j], prios[i] })
		for _, p := range prios[:g.between(1, 3)] {
			tc := g.intn(8)
			tcs = append(tcs, tc)
			m = append(m, KV{strconv.Itoa(p), strconv.Itoa(tc)})
		}
		kv("prio2tc", flowMap(m))
	}
	if !scheduled && g.chance(0.6) {
		kv("scheduler", g.ets(tcs))
	}
	return true
}

// ets draws scheduler: {ets: {tc: percent}, strict: [tcs]}: shares that
// sum to 100 over distinct classes, strict classes apart from them, and
// every class prio2tc names (named) in one or the other.
func (g *gen) ets(named []int) string {
	shares := one(g, etsShares...)
	classes := seq(8)
	g.r.Shuffle(8, func(i, j int) { classes[i], classes[j] = classes[j], classes[i] })
	in := classes[:len(shares)]
	if g.chance(0.5) {
		// Traffic class 3 (RoCE's priority 3, by identity) weighted.
		if k := slices.Index(classes, 3); k >= len(shares) {
			classes[0], classes[k] = classes[k], classes[0]
		}
	}
	var strict []int
	if g.chance(0.5) {
		strict = append(strict, classes[len(shares):][:g.between(1, 2)]...)
	}
	for _, tc := range named {
		if !slices.Contains(in, tc) && !slices.Contains(strict, tc) {
			strict = append(strict, tc)
		}
	}
	var e []KV
	for i, tc := range in {
		e = append(e, KV{strconv.Itoa(tc), strconv.Itoa(shares[i])})
	}
	sch := []KV{{"ets", flowMap(e)}}
	if len(strict) > 0 {
		slices.Sort(strict)
		var st []string
		for _, tc := range strict {
			st = append(st, strconv.Itoa(tc))
		}
		sch = append(sch, KV{"strict", "[" + join(st) + "]"})
	}
	return flowMap(sch)
}

// switchQoS draws the top-level QoS (a third of the Ethernet scenarios
// but RoCEv1's) and, on an explicit topology, an Ethernet switch's own
// block that differs (trusting the other way, or scheduling its own).
func (g *gen) switchQoS(kv func(k, v string), scheduled bool) {
	if !g.chance(pick(g.rocev1(), 0.15, 0.35)) {
		return
	}
	g.qos(kv, scheduled)
	t := &g.s.Topo
	if t.Kind != "explicit" && !t.DualStar || !g.chance(0.3) {
		return
	}
	var eth []int
	for i := range t.NumSwitches() {
		if !g.s.OnIB(i) {
			eth = append(eth, i)
		}
	}
	sw := one(g, eth...)
	var own []KV
	g.qos(func(k, v string) { own = append(own, KV{k, v}) }, false)
	g.s.SwitchBlocks = append(g.s.SwitchBlocks, SwitchBlock{Switch: sw, KVs: own})
}

// hcaQoS draws hca.dscp, the DSCP of the NICs' packets: on Ethernet with
// an IP header (RoCEv2, iWARP).
func (g *gen) hcaQoS() {
	if g.s.IB || g.rocev1() || !g.chance(0.2) {
		return
	}
	g.s.HCA = append(g.s.HCA, KV{"dscp", strconv.Itoa(g.dscp())})
}

// notificationQoS draws hca.dcqcn's QoS and NVIDIA keys: the CNPs' DSCP and
// 802.1p priority, rpg_gd and rpg_min_dec_fac.
func (g *gen) notificationQoS() []KV {
	var d []KV
	if g.chance(0.35) {
		if g.chance(0.8) {
			d = append(d, KV{"cnp_dscp", strconv.Itoa(one(g, 48, 48, 46, 56, g.intn(64)))})
		}
		if g.chance(0.8) {
			d = append(d, KV{"cnp_802p_prio", strconv.Itoa(one(g, 6, 6, 7, 3, g.intn(8)))})
		}
	}
	if g.chance(0.25) {
		d = append(d, KV{"rpg_gd", strconv.Itoa(one(g, 10, 11))})
	}
	if g.chance(0.2) {
		d = append(d, KV{"rpg_min_dec_fac", strconv.Itoa(one(g, 0, 25, 50, 75, 100))})
	}
	return d
}

// overlay draws hca.overlay (a fifth of the RoCEv2 and iWARP scenarios):
// VXLAN or Geneve with its options, the outer source port hashed or
// fixed, and an underlay MTU that the largest frame fits once wrapped:
// the default 9000, 1500 (which needs an MTU of 1024 or less), or that
// frame exactly.
func (g *gen) overlay() {
	if g.s.IB || g.rocev1() || g.uet() || !g.chance(0.2) { // UET in an overlay is not modelled
		return
	}
	encap := one(g, "vxlan", "geneve")
	o := []KV{{"encap", encap}, {"vni", strconv.Itoa(one(g, 0, 1, 100, 4096, 16777215, g.intn(1<<24)))}}
	if g.chance(0.4) {
		o = append(o, KV{"source_port", one(g, "hash", "49152", "4791", strconv.Itoa(g.between(1, 65535)))})
	}
	options := 0
	if encap == "geneve" && g.chance(0.5) {
		options = 4 * g.between(0, 63)
		o = append(o, KV{"options", strconv.Itoa(options)})
	}
	if g.chance(0.4) {
		need := g.overlayPacket(g.mtu(), options)
		u := one(g, 9000, 1500, max(need, 576), 4500, 65535) // 576: IPv4's least (the schema's)
		if need > u {
			g.refuse("an overlay's largest frame fits underlay_mtu once wrapped")
			u = 9000
		}
		o = append(o, KV{"underlay_mtu", strconv.Itoa(u)})
	}
	g.s.HCA = append(g.s.HCA, KV{"overlay", flowMap(o)})
}

// overlayPacket is the largest IP packet on the underlay for an MTU of
// mtu (resolve.OverlayIPPacket): the outer IPv4 20, UDP 8, VXLAN or
// Geneve 8 and options, around the largest inner frame less its FCS. For
// RoCEv2 that is a WRITE Only with Immediate (Ethernet 14, IPv4 20, UDP
// 8, BTH 12, RETH 16, immediate 4, the payload, ICRC 4); for iWARP a SEND
// segment (Ethernet 14, IPv4 20, TCP 20, MPA 2, DDP/RDMAP 18, the
// payload, MPA's CRC 4, and TCP's timestamps 12 when on): 78 bytes
// either way, and 4,210 in all at an MTU of 4096.
func (g *gen) overlayPacket(mtu, options int) int {
	p := 36 + options + 78 + mtu
	if g.iwarp() && g.timestamps() {
		p += 12
	}
	return p
}

// timestamps says whether hca.tcp turns TCP's timestamps on.
func (g *gen) timestamps() bool {
	return strings.Contains(get(g.s.HCA, "tcp"), "timestamps: true")
}

// overlaid says whether the adapters wrap their frames (hca.overlay).
func (g *gen) overlaid() bool {
	_, ok := Get(g.s.HCA, "overlay")
	return ok
}

// overlayOptions and underlayMTU are hca.overlay's options (0 when none)
// and underlay_mtu (its default, 9000, when none).
func (g *gen) overlayOptions() int { return overlayKey(get(g.s.HCA, "overlay"), "options", 0) }
func (g *gen) underlayMTU() int    { return overlayKey(get(g.s.HCA, "overlay"), "underlay_mtu", 9000) }

// overlayKey reads a number key of the flow mapping v as the generator
// writes it, or def.
func overlayKey(v, k string, def int) int {
	_, rest, ok := strings.Cut(v, k+": ")
	if !ok {
		return def
	}
	end := strings.IndexAny(rest, ",}")
	n, err := strconv.Atoi(rest[:end])
	if err != nil {
		return def
	}
	return n
}
