package metamorphic

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/lfsim/lfsim/kind"
)

// Generate makes the scenario of a seed: the same seed, the same
// scenario. Its choices are drawn one family at a time, each within what
// the choices before it allow (the rules SCENARIO.md gives, such as UD
// carrying only SENDs of at most one MTU, or iWARP having only RC); a
// scenario it makes that the loader refuses is a bug of the generator.
// Where such a rule refuses a draw (which is then drawn again, or given
// the default), Refusals counts it by rule, so that what the rules keep
// out is seen.
func Generate(seed uint64) (*Spec, Refusals) {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x6c6673696d)), refused: Refusals{}}
	g.s = &Spec{Seed: seed}
	g.stop()
	g.s.IB = g.chance(0.3)
	g.topology()
	g.transport()
	g.switchProfile()
	g.hcaProfile()
	g.hostBlocks()
	g.traffic()
	g.faults()
	g.observe()
	g.expect()
	return g.s, g.refused
}

// Refusals counts draws the generator refused by a rule, by rule.
type Refusals map[string]int

type gen struct {
	r       *rand.Rand
	s       *Spec
	refused Refusals
	// What the traffic drawn so far needs of the profiles.
	cm        bool            // some item connects with rdma_cm
	groups    int             // mckey groups given
	listening map[[2]int]bool // rdma_cm listeners, by host and port
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }
func (g *gen) intn(n int) int        { return g.r.IntN(n) }

// between is a whole number in [lo, hi].
func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// one picks one of the values.
func one[T any](g *gen, vs ...T) T { return vs[g.r.IntN(len(vs))] }

// weighted picks a name by weight: pairs of name and weight.
func (g *gen) weighted(pairs ...any) string {
	total := 0
	for i := 1; i < len(pairs); i += 2 {
		total += pairs[i].(int)
	}
	x := g.r.IntN(total)
	for i := 0; i < len(pairs); i += 2 {
		if x -= pairs[i+1].(int); x < 0 {
			return pairs[i].(string)
		}
	}
	panic("unreachable")
}

// refuse counts a draw refused by rule.
func (g *gen) refuse(rule string) { g.refused[rule]++ }

// logSize is a size in [lo, hi] bytes, about uniform in its logarithm:
// lo doubled a random number of times, then up to twice that.
func (g *gen) logSize(lo, hi int64) int64 {
	for {
		b := lo << g.r.IntN(64)
		if b > hi || b < lo {
			continue
		}
		// Somewhere between b and 2b, rounded to what people write.
		b += int64(g.r.Float64() * float64(b))
		b = min(b, hi)
		if b >= 4096 {
			b &^= 1023
		}
		return b
	}
}

// timeNs is a time in [lo, hi] ns, rounded to 100 ns when above 1 us.
func (g *gen) timeNs(lo, hi int64) int64 {
	t := lo + g.r.Int64N(hi-lo+1)
	if t > 1000 {
		t -= t % 100
	}
	return max(t, lo)
}

func (g *gen) stop() {
	s := g.s
	s.StopNs = 1000 * int64(one(g, 20, 30, 40, 50, 60, 80, 100, 150, 200))
	switch g.weighted("", 60, "flows-done", 30, "deadlock", 5, "both", 5) {
	case "flows-done":
		s.When = []string{"flows-done"}
	case "deadlock":
		s.When = []string{"deadlock"}
	case "both":
		s.When = []string{"flows-done", "deadlock"}
	}
}

// ethRates and ibRates are link rates in the spellings people use.
var (
	ethRates = []string{"100Gbps", "100Gbps", "100Gb/s", "100G", "25Gbps", "40Gbps", "200Gbps", "400Gbps"}
	ibRates  = []string{"EDR", "EDR", "HDR", "4xHDR", "FDR", "QDR", "1xHDR", "2xEDR"}
)

func (g *gen) rate() string {
	if g.s.IB {
		return one(g, ibRates...)
	}
	return one(g, ethRates...)
}

func (g *gen) delay() int64 {
	return int64(one(g, 1000, 1000, 1000, 500, 500, 100, 2000, 300, 0))
}

func (g *gen) topology() {
	t := &g.s.Topo
	// Explicit topologies weigh more than they did before issue 47's
	// systems (15): on Ethernet they carry the mixed networks (VPI), on
	// InfiniBand the range extenders.
	// Rail-optimized fabrics of GPU servers (issue 48) are drawn at a
	// modest weight: their collectives are drawn on other topologies too.
	t.Kind = g.weighted("star", 25, "dumbbell", 15, "leaf-spine", 15, "fat-tree", 20, "ring", 10, "explicit", pick(g.s.IB, 35, 20), "rail-optimized", 8)
	t.Rate, t.DelayNs = g.rate(), g.delay()
	switch t.Kind {
	case "star":
		t.Hosts = g.between(2, 12)
		if !g.s.IB && g.chance(0.25) {
			// A star of VPI hosts: s0 and s1 on different link layers,
			// every host linked to both.
			t.AsExplicit, t.DualStar = true, true
			s0IB := g.chance(0.5)
			t.IBSwitch, t.SayEthernet = []bool{s0IB, !s0IB}, g.chance(0.5)
			break
		}
		t.AsExplicit = g.chance(0.15)
	case "dumbbell":
		t.Left, t.Right = g.between(1, 6), g.between(1, 6)
		if g.chance(0.5) {
			t.Rate2, t.Delay2Ns = g.rate(), g.delay()
		}
	case "leaf-spine":
		t.Leaves, t.Spines, t.HostsPerLeaf = g.between(2, 4), g.between(1, 3), g.between(1, 4)
		if g.chance(0.5) {
			t.Rate2, t.Delay2Ns = g.rate(), g.delay()
		}
	case "fat-tree":
		t.K = 4
		if g.chance(0.08) {
			t.K = 6
		}
	case "ring":
		t.Switches, t.HostsPerSwitch = g.between(3, 6), g.between(1, 3)
	case "rail-optimized":
		g.railOptimized()
	case "explicit":
		if !g.s.IB && g.chance(0.6) {
			g.vpiExplicit()
			break
		}
		// A line of 2 to 4 switches, closed into a ring or not, with hosts
		// spread over them; on InfiniBand some hosts linked twice, to
		// the next switch (a dual-port HCA).
		t.Switches, t.HostsPerSwitch = g.between(2, 4), g.between(1, 3)
		for i := 0; i+1 < t.Switches; i++ {
			t.SwitchLinks = append(t.SwitchLinks, [2]int{i, i + 1})
		}
		if t.Switches >= 3 && g.chance(0.4) {
			t.SwitchLinks = append(t.SwitchLinks, [2]int{t.Switches - 1, 0})
		}
		if g.chance(0.3) {
			t.Rate2, t.Delay2Ns = g.rate(), max(g.delay(), 100)
		}
		if g.s.IB && g.chance(0.3) {
			for h := range t.NumHosts() {
				if g.chance(0.3) {
					t.DualPort = append(t.DualPort, h)
					t.SecondTo = append(t.SecondTo, (t.HostSwitch(h)+1)%t.Switches)
				}
			}
		}
		if g.s.IB && g.chance(0.6) {
			g.extenders()
		}
		g.explicitServers()
	}
}

func (g *gen) transport() {
	s := g.s
	if !s.IB {
		switch t := g.weighted("rocev2", 60, "rocev1", 20, "iwarp", 20, "uet", uetWeight); {
		case t != "rocev2" && s.Mixed():
			g.refuse("a VPI adapter's Ethernet ports run RoCEv2")
		case t == "rocev1":
			s.Transport = "rocev1"
		case t == "iwarp":
			s.Transport = "iwarp"
		case t == "uet":
			s.Transport = "uet"
		}
		if s.Transport == "" && g.chance(0.1) {
			s.Transport = "rocev2"
		}
		if r := g.weighted("", 70, "ecmp", 10, "shortest", 10, "updown", 10); r != "" {
			if s.Transport == "rocev1" {
				g.refuse("rocev1 is bridged: no topology.routing")
			} else {
				s.Topo.Routing = r
			}
		}
	}
	if g.chance(0.5) {
		s.MTU = one(g, 256, 512, 1024, 1024, 2048, 2048, 4096)
	}
}

// mtu is the scenario's MTU.
func (g *gen) mtu() int {
	if g.s.MTU == 0 {
		return 4096
	}
	return g.s.MTU
}

// rocev1 and iwarp say the transport on Ethernet.
func (g *gen) rocev1() bool { return g.s.Transport == "rocev1" }
func (g *gen) iwarp() bool  { return g.s.Transport == "iwarp" }

func (g *gen) switchProfile() {
	s := g.s
	kv := func(k, v string) { s.Switch = append(s.Switch, KV{k, v}) }
	if g.chance(0.2) {
		kv("latency", Ns(int64(one(g, 200, 300, 500, 1000))))
	}
	if g.chance(0.2) {
		kv("forwarding", one(g, "cut-through", "store-and-forward"))
	}
	switch {
	case s.IB:
		g.infiniband()
		g.extenderBuffers()
	case s.Mixed():
		g.ethernetSwitch()
		g.mixedIB()
	default:
		g.ethernetSwitch()
	}
	// Load balancing: RoCEv1 has one tree; on InfiniBand dfsssp, lash and
	// LMC keep one path per destination.
	lb := g.weighted("", 45, "ecmp", 10, "flowlet", 15, "adaptive", 15, "spray", 15)
	switch {
	case lb == "" || lb == "ecmp":
	case g.rocev1():
		g.refuse("rocev1 has one tree: load_balance ecmp only")
		lb = ""
	case s.IB && g.layered():
		g.refuse("dfsssp and lash keep one path: load_balance ecmp only")
		lb = ""
	case s.IB && g.lmc() > 0:
		g.refuse("LMC chooses paths itself: load_balance ecmp only")
		lb = ""
	}
	if lb != "" {
		kv("load_balance", lb)
	}
	switch lb {
	case "flowlet":
		if g.chance(0.7) {
			kv("flowlet_timeout", Ns(int64(one(g, 1000, 2000, 5000, 50000))))
		}
	case "adaptive":
		if g.chance(0.5) {
			kv("adaptive_bias", Bytes(int64(one(g, 0, 1024, 4096, 65536))))
		}
	case "spray":
		if g.chance(0.8) {
			kv("spray", one(g, "round-robin", "random", "entropy"))
		}
	}
	if g.chance(0.1) {
		kv("ecmp_seed", strconv.Itoa(g.intn(1000)))
	}
	if g.chance(0.1) {
		kv("ecmp_per_switch", "false")
	}
	if g.chance(0.1) {
		kv("egress_fifo", "true")
	}
}

// layered is dfsssp or lash, which give each pair of hosts its VL.
func (g *gen) layered() bool {
	r, _ := Get(g.s.SM, "routing")
	return r == "dfsssp" || r == "lash"
}

func (g *gen) lmc() int {
	v, _ := Get(g.s.SM, "lmc")
	n, _ := strconv.Atoi(v)
	return n
}

func (g *gen) dataVLs() int {
	v, ok := Get(g.s.SwitchIB, "data_vls")
	if !ok {
		return 8
	}
	n, _ := strconv.Atoi(v)
	return n
}

func (g *gen) ethernetSwitch() {
	s := g.s
	kv := func(k, v string) { s.Switch = append(s.Switch, KV{k, v}) }
	buffer := int64(32 << 20)
	small := g.chance(0.3)
	if small {
		buffer = int64(one(g, 2, 4, 12)) << 20
	}
	if g.chance(0.1) {
		kv("reserved", Bytes(int64(one(g, 1024, 4096))))
	}
	if g.chance(0.1) {
		kv("ingress_threshold", one(g, "{alpha: 0.5}", "{alpha: 2}", "256KiB"))
	}
	if g.chance(0.1) {
		kv("egress_threshold", one(g, "{alpha: 1}", "512KiB"))
	}
	lossless := 1 // PFC's priorities: [3] by default
	var pfc []KV
	pfcGiven := g.chance(0.6)
	if pfcGiven {
		switch g.weighted("default", 50, "none", 20, "two", 20, "zero", 10) {
		case "none":
			pfc = append(pfc, KV{"priorities", "[]"})
			lossless = 0
		case "two":
			pfc = append(pfc, KV{"priorities", "[3, 4]"})
			lossless = 2
		case "zero":
			pfc = append(pfc, KV{"priorities", "[0, 3]"})
			lossless = 2
		}
	}
	if small {
		// Every port keeps headroom for each lossless priority (IEEE
		// 802.1Qbb: the cable's round trip at line rate, and some
		// frames and the response time, under 80 KiB at 400 Gb/s).
		t := &s.Topo
		delay := max(t.DelayNs, t.Delay2Ns)
		rate := bitsPerSecond(t.Rate)
		if t.Rate2 != "" {
			rate = max(rate, bitsPerSecond(t.Rate2))
		}
		need := int64(t.maxPorts()*lossless) * (2*delay*int64(rate/8e9) + 80<<10)
		if 2*need > buffer {
			g.refuse("a small buffer must hold every port's headroom")
			small, buffer = false, 32<<20
		} else {
			kv("buffer", Bytes(buffer))
		}
	}
	if !small && g.chance(0.08) {
		// The shared pool alone, as a SONiC switch's BUFFER_POOL sizes
		// it (6680960: a Tomahawk's lossless pool less its headroom);
		// the switch adds the reserved minimums and the headroom.
		kv("buffer", "{shared: "+one(g, "6680960", "16MiB", "24MiB")+"}")
	}
	if pfcGiven {
		if g.chance(0.4) {
			if g.chance(0.5) {
				xoff := int64(one(g, 32, 64, 96, 200)) << 10
				pfc = append(pfc, KV{"xoff", Bytes(xoff)}, KV{"xon", Bytes(xoff - 16<<10)})
			} else {
				pfc = append(pfc, KV{"xoff", one(g, "{alpha: 0.125}", "{alpha: 1}")}, KV{"xon", "{offset: 8KiB}"})
			}
		}
		if g.chance(0.2) {
			headroom := one(g, "auto", "200KiB")
			if headroom != "auto" && buffer < 12<<20 {
				// Every port and lossless priority keeps its headroom.
				g.refuse("a fixed headroom needs a buffer of 12 MiB or more")
				headroom = "auto"
			}
			pfc = append(pfc, KV{"headroom", headroom})
		}
		if g.chance(0.1) {
			pfc = append(pfc, KV{"response", one(g, "auto", "1us")})
		}
		if g.chance(0.15) {
			pfc = append(pfc, KV{"watchdog", flowMap([]KV{{"detect", Ns(int64(one(g, 10000, 20000, 50000)))},
				{"restore", Ns(int64(one(g, 20000, 100000)))}, {"action", one(g, "drop", "forward")}})})
		}
		kv("pfc", flowMap(pfc))
	}
	if g.chance(0.35) {
		if g.rocev1() || g.chance(0.2) {
			kv("ecn", one(g, "off", "false"))
		} else {
			kmin := int64(one(g, 5, 20, 50, 100)) << 10
			ecn := []KV{{"kmin", Bytes(kmin)}, {"kmax", Bytes(kmin * int64(one(g, 1, 2, 4)))}}
			if g.chance(0.5) {
				ecn = append(ecn, KV{"pmax", one(g, "0.2", "1%", "1", "50%")})
			}
			if g.chance(0.3) {
				ecn = append(ecn, KV{"mark", one(g, "enqueue", "dequeue")})
			}
			if g.chance(0.25) {
				// The queues that mark, as a SONiC switch marks those its
				// QUEUE table gives a WRED profile.
				ecn = append(ecn, KV{"priorities", one(g, "[3]", "[3, 4]", "[0, 3]", "[]")})
			}
			kv("ecn", flowMap(ecn))
		}
	}
	scheduled := g.chance(0.15)
	if scheduled {
		kv("scheduler", one(g, "strict", "{dwrr: {3: 4, 0: 1}}", "{dwrr: {0: 1, 3: 1, 4: 2}}"))
	}
	g.switchQoS(kv, scheduled)
	if g.chance(0.1) {
		kv("flood_lossless", "false")
	}
	if g.chance(0.05) {
		kv("tagger", "true")
	}
	g.uecSwitch(kv)
}

func (g *gen) infiniband() {
	s := g.s
	ib := func(k, v string) { s.SwitchIB = append(s.SwitchIB, KV{k, v}) }
	sm := func(k, v string) { s.SM = append(s.SM, KV{k, v}) }
	routing := g.weighted("", 30, "minhop", 10, "updn", 20, "ftree", 10, "dfsssp", 15, "lash", 15)
	if routing == "ftree" && s.Topo.Kind != "fat-tree" {
		g.refuse("ftree routes fat trees only")
		routing = "updn"
	}
	if routing != "" {
		sm("routing", routing)
	}
	if g.chance(0.15) {
		// Each host takes 2^lmc LIDs.
		sm("lmc", strconv.Itoa(one(g, 1, 1, 2)))
	}
	if g.chance(0.1) {
		sm("sweep_delay", Ns(int64(one(g, 5000, 20000, 1000000))))
	}
	if g.chance(0.1) {
		sm("host", Host(g.intn(s.Topo.NumHosts())))
	}
	vls := g.ibLinks()
	if g.chance(0.3) {
		ib("fecn", flowMap([]KV{{"threshold", Bytes(int64(one(g, 8, 16, 32)) << 10)}, {"marking_rate", strconv.Itoa(one(g, 0, 0, 3))}}))
	}
	if g.chance(0.15) {
		// Every data VL served, so that no traffic waits on a VL no
		// entry names.
		var low, high []string
		for vl := range vls {
			e := fmt.Sprintf("{vl: %d, weight: %d}", vl, g.between(1, 64))
			if vl == 0 && vls > 1 && g.chance(0.3) {
				high = append(high, e)
			} else {
				low = append(low, e)
			}
		}
		arb := []KV{{"low", "[" + join(low) + "]"}}
		if len(high) > 0 {
			arb = append(arb, KV{"high", "[" + join(high) + "]"}, KV{"high_limit", strconv.Itoa(one(g, 0, 1, 255))})
		}
		ib("vlarb", flowMap(arb))
	}
}

// ibLinks draws switch.ib's keys of the links (the buffer per VL, the
// data VLs, SL to VL and the head-of-queue lifetime), which the
// InfiniBand side of a mixed network takes too, and returns the data
// VLs.
func (g *gen) ibLinks() int {
	ib := func(k, v string) { g.s.SwitchIB = append(g.s.SwitchIB, KV{k, v}) }
	// A VL's buffer holds the largest packet: the MTU and its headers.
	vlbuf := int64(one(g, 8, 16, 32, 64, 64, 128)) << 10
	if g.chance(0.6) {
		ib("vl_buffer", Bytes(vlbuf))
	}
	vls := 8
	if g.chance(0.5) {
		vls = one(g, 1, 2, 4, 8)
		if g.layered() && vls < 4 {
			g.refuse("dfsssp and lash need VLs to break cycles: data_vls 4 or 8")
			vls = 4
		}
		ib("data_vls", strconv.Itoa(vls))
	}
	if g.chance(0.15) {
		vl := make([]string, 16)
		for i := range vl {
			vl[i] = strconv.Itoa(g.intn(vls))
		}
		ib("sl2vl", "["+join(vl)+"]")
	}
	if g.chance(0.1) {
		ib("hoq_lifetime", one(g, "off", "20us", "100us"))
	}
	return vls
}

// mixedIB draws the switch.ib keys a mixed network's InfiniBand side
// takes (vl_buffer, data_vls, sl2vl, hoq_lifetime): no subnet_manager
// settings, FECN or VL arbitration there yet (SCENARIO.md, VPI).
func (g *gen) mixedIB() { g.ibLinks() }

func join(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func (g *gen) hcaProfile() {
	s := g.s
	kv := func(k, v string) { s.HCA = append(s.HCA, KV{k, v}) }
	switch {
	case g.iwarp():
		var tcp []KV
		if g.chance(0.6) {
			tcp = append(tcp, KV{"cc", one(g, tcpCCs()...)})
		}
		if g.chance(0.5) {
			tcp = append(tcp, KV{"rto_min", one(g, "1ms", "200us", "10ms")})
		}
		if g.chance(0.3) {
			tcp = append(tcp, KV{"sack", "true"})
		}
		if g.chance(0.2) {
			tcp = append(tcp, KV{"timestamps", "true"})
		}
		if g.chance(0.2) {
			tcp = append(tcp, KV{"delayed_ack", one(g, "0", "10us")})
		}
		if len(tcp) > 0 {
			kv("tcp", flowMap(tcp))
		}
	case s.IB:
		if g.chance(0.3) {
			kv("retransmit", one(g, "go-back-0", "go-back-n"))
		}
		if g.chance(0.3) {
			kv("ack_timeout", strconv.Itoa(g.between(4, 14)))
		}
		if g.chance(0.3) {
			cc := g.weighted(ccChoices(func(r kind.CC) bool { return r.RDMA && r.InfiniBand }, func(d ccDraw) int { return d.weight }, defaultIBWeight, "none", 1)...)
			kv("cc", cc)
			g.ccParams(cc)
		}
		if g.chance(0.2) {
			kv("grh", "true")
		}
		if g.chance(0.2) {
			if g.lmc() > 0 || len(s.Topo.DualPort) > 0 {
				kv("apm", "true")
			} else {
				g.refuse("apm needs lmc or a dual-port host")
			}
		}
		if g.chance(0.1) {
			vls := g.dataVLs()
			var low []string
			for vl := range vls {
				low = append(low, fmt.Sprintf("{vl: %d, weight: %d}", vl, g.between(1, 32)))
			}
			kv("vlarb", flowMap([]KV{{"low", "[" + join(low) + "]"}}))
		}
	default: // RoCE
		if g.chance(0.1) {
			kv("priority", strconv.Itoa(one(g, 0, 3, 4)))
		}
		rt := ""
		if g.chance(0.35) {
			rt = one(g, "go-back-0", "go-back-n", "selective")
			if rt == "go-back-0" && g.uet() {
				// UET places directly by default.
				g.refuse("direct placement does not go with go-back-0")
				rt = "selective"
			}
			kv("retransmit", rt)
		}
		if g.chance(0.15) {
			if rt == "go-back-0" {
				g.refuse("direct placement does not go with go-back-0")
			} else {
				kv("placement", "direct")
				if g.chance(0.5) {
					kv("reorder_window", strconv.Itoa(one(g, 8, 64, 256)))
				}
			}
		}
		if rt == "selective" && g.chance(0.4) {
			kv("rto_low", "20us")
			kv("rto_high", "60us")
		}
		if g.chance(0.3) {
			kv("ack_timeout", strconv.Itoa(g.between(4, 14)))
		}
		if g.chance(0.1) {
			kv("bdp_cap", one(g, "auto", "64KiB"))
		}
		if g.chance(0.1) {
			kv("ack_every", strconv.Itoa(one(g, 1, 4, 16)))
		}
		if g.chance(0.1) {
			kv("pfc_watchdog", "{after: "+one(g, "20us", "50us")+"}")
		}
		g.cc()
	}
	if g.chance(0.1) && !g.iwarp() {
		kv("retry_count", strconv.Itoa(g.between(1, 7)))
	}
	if g.chance(0.1) && !g.iwarp() {
		kv("rnr_retry", strconv.Itoa(g.between(0, 7)))
		kv("min_rnr_timer", strconv.Itoa(one(g, 1, 5, 12)))
	}
	if g.chance(0.1) {
		kv("max_rd_atomic", strconv.Itoa(one(g, 1, 4, 16)))
	}
	if g.chance(0.1) && !s.IB {
		kv("rx_rate", one(g, "line", "50Gbps", "20Gbps"))
	}
	if g.chance(0.1) {
		kv("doorbell_cost", "75ns")
	}
	if g.chance(0.1) {
		kv("max_inline", Bytes(int64(one(g, 0, 64, 220))))
	}
	if g.chance(0.05) {
		kv("dma_latency", "100ns")
		kv("wqe_fetch_latency", "200ns")
	}
	g.hcaQoS()
	g.overlay()
	g.hostBandwidth()
}

func (g *gen) cc() {
	if g.uet() {
		g.uetCC()
		return
	}
	var cc string
	if g.rocev1() { // RoCEv1's frames have no IP header for ECN, nor the UDP one INT
		cc = g.weighted(ccChoices(func(r kind.CC) bool { return r.RDMA && r.Ethernet && !r.ECN && !r.INT }, func(d ccDraw) int { return d.rocev1 }, defaultWeight, "", 40, "none", 20)...)
	} else {
		cc = g.weighted(ccChoices(func(r kind.CC) bool { return r.RDMA && r.Ethernet }, func(d ccDraw) int { return d.weight }, defaultWeight, "", 20, "none", 10)...)
	}
	if cc == "" {
		return
	}
	g.s.HCA = append(g.s.HCA, KV{"cc", cc})
	g.ccParams(cc)
}
