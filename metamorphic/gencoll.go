package metamorphic

import (
	"slices"
	"strconv"

	"github.com/lfsim/lfsim/collective"
)

// Issue 48's traffic and topologies: collectives as NCCL runs them
// (collective:), nccl-tests' programs (nccl_tests:), and the GPU servers
// they run on (kind: rail-optimized, and an explicit topology's
// servers:).

// railOptimized draws a rail-optimized fabric: 1 to 4 servers of 1 to 4
// GPUs, rails a divisor of the GPUs (one a GPU by default), 1 or 2
// spines, at times scalable units smaller than the servers (rail
// switches suU.railR), a fabric link of its own and an nvlink.
func (g *gen) railOptimized() {
	t := &g.s.Topo
	t.Servers, t.GPUs = g.between(1, 4), g.between(1, 4)
	if t.Servers*t.GPUs < 2 {
		g.refuse("a rail-optimized fabric has two GPUs or more")
		t.Servers = 2
	}
	t.Rails = t.GPUs
	if g.chance(0.3) {
		var divisors []int
		for r := 1; r <= t.GPUs; r++ {
			if t.GPUs%r == 0 {
				divisors = append(divisors, r)
			}
		}
		t.Rails = one(g, divisors...)
	}
	t.Spines = g.between(1, 2)
	if t.Servers >= 2 && g.chance(0.15) {
		t.PerUnit = g.between(1, t.Servers-1)
	}
	if g.chance(0.3) {
		t.Rate2, t.Delay2Ns = g.rate(), g.delay()
	}
	if g.chance(0.4) {
		t.NVLink = g.nvlink()
	}
}

// nvlink draws a scale-up domain's rate and latency (NVLink 4's 3.6 Tb/s
// a direction, NVLink 3's half, and slower ones), in part or whole.
func (g *gen) nvlink() string {
	var kvs []KV
	if g.chance(0.7) {
		kvs = append(kvs, KV{"rate", one(g, "3.6Tbps", "1.8Tbps", "900Gbps", "400Gbps")})
	}
	if len(kvs) == 0 || g.chance(0.5) {
		kvs = append(kvs, KV{"delay", Ns(int64(one(g, 600, 300, 1000, 0)))})
	}
	return flowMap(kvs)
}

// explicitServers gives a third of the explicit topologies of one link
// layer GPU servers: one GPU of each switch a server (as rails cable
// them), each switch's hosts a server, or runs of consecutive hosts;
// some hosts may be in none, and a server may have its own nvlink.
func (g *gen) explicitServers() {
	t := &g.s.Topo
	if t.IBSwitch != nil || !g.chance(0.3) {
		return
	}
	n := t.NumHosts()
	switch g.weighted("rails", 40, "switch", 30, "runs", 30) {
	case "rails":
		for k := range t.HostsPerSwitch {
			var sv []int
			for sw := range t.Switches {
				sv = append(sv, sw*t.HostsPerSwitch+k)
			}
			t.ServerGPUs = append(t.ServerGPUs, sv)
		}
	case "switch":
		for sw := range t.Switches {
			t.ServerGPUs = append(t.ServerGPUs, seq(n)[sw*t.HostsPerSwitch:(sw+1)*t.HostsPerSwitch])
		}
	default:
		for h := 0; h < n; {
			size := min(g.between(1, 3), n-h)
			t.ServerGPUs = append(t.ServerGPUs, seq(n)[h:h+size])
			h += size
		}
	}
	if len(t.ServerGPUs) > 1 && g.chance(0.2) {
		g.refuse("a host in no server")
		i := g.intn(len(t.ServerGPUs))
		t.ServerGPUs = slices.Delete(t.ServerGPUs, i, i+1)
	}
	t.ServerNVLink = make([]string, len(t.ServerGPUs))
	for i := range t.ServerNVLink {
		if g.chance(0.15) {
			t.ServerNVLink[i] = g.nvlink()
		}
	}
}

// collectiveOps are NCCL's collectives, with the weight each is drawn
// by.
var collectiveOps = []any{"all_reduce", 35, "reduce_scatter", 12, "all_gather", 12, "all_to_all", 15, "broadcast", 13, "reduce", 13}

// collectiveItem draws a collective (or, with ncclTests, an nccl_tests
// program): its ranks among hosts whose first ports share a fabric, its
// algorithm and protocol where they run its op, channels, QPs, a chunk,
// a root, the rails' keys on GPU servers; a collective's size from 0 to
// a few MiB, iterations, start and after:; an nccl_tests' small range of
// sizes and few iterations.
func (g *gen) collectiveItem(it *Item, ncclTests bool) {
	kv := func(k, v string) { it.Opts = append(it.Opts, KV{k, v}) }
	opName := g.weighted(collectiveOps...)
	op, _ := collective.ParseOp(opName)
	kv("op", opName)
	pool := g.sameFabricPool()
	t := &g.s.Topo
	// The ranks: every host, or some, drawn until the layout is one
	// the loader takes (collective.NewComm's rules: rails need every
	// server to hold the same GPUs of the collective, halving-doubling
	// a power of two of ranks).
	channels := 2 // NCCL's, as resolve gives it
	if g.chance(0.4) {
		channels = one(g, 1, 1, 2, 3, 4, 8)
		kv("channels", itoa(channels))
	}
	var alg string
	var algo collective.Algorithm
	railAware, pxn := "", ""
	for try := 0; ; try++ {
		it.All, it.Hosts = false, nil
		if len(pool) == g.hosts() && g.chance(0.4) {
			it.All = true
		} else if t.HasServers() && g.chance(0.5) {
			it.Hosts = g.serverRanks()
		} else {
			it.Hosts = g.subsetOf(pool, 2, 8)
		}
		ranks := it.ranks(g.hosts())
		alg, algo = "", collective.DefaultAlgorithm(op)
		if g.chance(0.6) {
			var valid []string
			for _, a := range collective.Algorithms() {
				x, _ := collective.ParseAlgorithm(a)
				if x.Supports(op) {
					valid = append(valid, a)
				}
			}
			alg = one(g, valid...)
			algo, _ = collective.ParseAlgorithm(alg)
		}
		railAware, pxn = "", ""
		if t.HasServers() {
			// Drawn as before the loader took rail_aware for rings only
			// and pxn for rings and direct (so that the seeds draw the
			// same), and written only there.
			if algo != collective.Tree && g.chance(0.2) {
				railAware = one(g, "false", "true")
			}
			if algo != collective.Tree && g.chance(0.2) {
				pxn = one(g, "false", "true")
			}
			if algo != collective.Ring {
				railAware = ""
			}
			if algo != collective.Ring && algo != collective.Direct {
				pxn = ""
			}
		}
		n := len(ranks)
		switch {
		case len(ranks) < 2:
			g.refuse("a collective has two ranks or more")
		case algo == collective.HalvingDoubling && n&(n-1) != 0:
			g.refuse("halving_doubling runs on a power of two of ranks")
		case !g.layoutOK(ranks, algo, channels, railAware != "false", pxn != "false"):
			g.refuse("rails need every server to hold the same GPUs of the collective")
		default:
			try = -1
		}
		if try < 0 {
			break
		}
		if try >= 20 {
			// One ring in host order, each GPU from its own NIC, runs
			// on any ranks.
			it.All, it.Hosts, alg, algo, railAware, pxn = false, g.subsetOf(pool, 2, 2), "ring", collective.Ring, pick(t.HasServers(), "false", ""), ""
			break
		}
	}
	if alg != "" {
		kv("algorithm", alg)
	}
	if g.chance(0.3) {
		var valid []string
		for _, p := range collective.Protocols() {
			x, _ := collective.ParseProtocol(p)
			if algo.Uses(x) {
				valid = append(valid, p)
			}
		}
		kv("protocol", one(g, valid...))
	}
	if g.chance(0.2) {
		kv("qps", itoa(g.between(1, 4)))
	}
	if g.chance(0.1) {
		kv("chunk", Bytes(int64(one(g, 4<<10, 64<<10, 128<<10, 1<<20, 100000))))
	}
	if op.Rooted() && g.chance(0.5) {
		it.To = one(g, it.ranks(g.hosts())...)
	}
	if railAware != "" {
		kv("rail_aware", railAware)
	}
	if pxn != "" {
		kv("pxn", pxn)
	}
	if g.chance(0.15) {
		if g.s.IB || g.s.Mixed() && g.fabricOfHosts(it.ranks(g.hosts())) != 0 {
			// Seed 30000703: priority 7 on InfiniBand was the QPs' VL,
			// past data_vls (a panic); now refused there.
			g.refuse("a collective's priority is Ethernet's: not on InfiniBand")
		} else {
			kv("priority", itoa(one(g, 0, 3, 4)))
		}
	}
	if g.chance(0.2) {
		kv("start", Ns(g.timeNs(0, g.s.StopNs/2)))
	}
	if ncclTests {
		lo := g.logSize(4, 64<<10)
		if g.chance(0.05) {
			lo = 0
		}
		kv("minbytes", Bytes(lo))
		kv("maxbytes", Bytes(max(lo, 1)*int64(one(g, 1, 2, 4, 16))))
		if g.chance(0.8) {
			kv("stepfactor", itoa(one(g, 2, 4)))
		} else {
			kv("stepbytes", Bytes(int64(one(g, 1024, 4096, 65536))))
		}
		kv("iters", itoa(g.between(1, 4)))
		if g.chance(0.5) {
			kv("warmup_iters", itoa(g.between(0, 2)))
		}
		return
	}
	size := g.logSize(1, 4<<20)
	if g.chance(0.03) {
		size = 0
	}
	// size: comes second, as people write it.
	it.Opts = slices.Insert(it.Opts, 1, KV{"size", Bytes(size)})
	if g.chance(0.25) {
		kv("iterations", itoa(g.between(2, 5)))
	}
	var earlier []int
	for i, x := range g.s.Traffic {
		if x.Kind == "collective" {
			earlier = append(earlier, i)
		}
	}
	if len(earlier) > 0 && g.chance(0.4) {
		it.After = g.subsetOf(earlier, 1, 2)
		slices.Sort(it.After)
	}
}

// serverRanks draws ranks on GPU servers as NCCL's rails want them:
// some servers, and the same GPUs of each (of those they all have).
func (g *gen) serverRanks() []int {
	t := &g.s.Topo
	byServer := map[int][]int{} // server -> its hosts by GPU
	servers := 0
	for h := range g.hosts() {
		if sv, _ := t.ServerOf(h); sv >= 0 {
			byServer[sv] = append(byServer[sv], h)
			servers = max(servers, sv+1)
		}
	}
	least := 0
	for sv := range servers {
		if n := len(byServer[sv]); sv == 0 || n < least {
			least = n
		}
	}
	svs := g.subsetOf(seq(servers), 1, servers)
	slices.Sort(svs)
	gpus := g.subsetOf(seq(least), 1, least)
	slices.Sort(gpus)
	var out []int
	for _, sv := range svs {
		for _, k := range gpus {
			out = append(out, byServer[sv][k])
		}
	}
	return out
}

// layoutOK says whether the ranks' layout on the GPU servers is one
// collective.NewComm takes (always, without servers).
func (g *gen) layoutOK(ranks []int, algo collective.Algorithm, channels int, railAware, pxn bool) bool {
	t := &g.s.Topo
	if !t.HasServers() {
		return true
	}
	places := make([]collective.Place, len(ranks))
	for i, h := range ranks {
		sv, gpu := t.ServerOf(h)
		places[i] = collective.Place{Server: sv, GPU: gpu}
	}
	_, err := collective.NewComm(places, collective.Options{Algorithm: algo, Channels: channels, RailAware: railAware, PXN: pxn})
	return err == nil
}

// ranks are an item's hosts, all of them for all.
func (it *Item) ranks(hosts int) []int {
	if it.All {
		return seq(hosts)
	}
	return it.Hosts
}

// collectiveKind says whether kind is a collective's.
func collectiveKind(kind string) bool { return kind == "collective" || kind == "nccl_tests" }

// afterList writes after: as a flow sequence.
func afterList(after []int) string {
	s := make([]string, len(after))
	for i, a := range after {
		s[i] = strconv.Itoa(a)
	}
	return "[" + join(s) + "]"
}
