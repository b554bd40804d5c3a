package metamorphic

import (
	"fmt"
	"slices"
	"strconv"
)

// trafficKinds are the traffic generators and programs, with the weight
// the generator draws each by.
var trafficKinds = []any{"flow", 25, "incast", 10, "permutation", 8, "all_to_all", 5, "ring_allreduce", 8, "poisson", 10,
	"perftest", 8, "pingpong", 6, "rping", 5, "rdma_pair", 4, "mckey", 5, "asyncwatch", 3, "collective", 6, "nccl_tests", 2}

// serverKinds are the weights on a topology of GPU servers, where
// collectives are what runs.
var serverKinds = []any{"flow", 25, "incast", 10, "permutation", 8, "all_to_all", 5, "ring_allreduce", 4, "poisson", 10,
	"perftest", 8, "pingpong", 6, "rping", 5, "rdma_pair", 4, "mckey", 5, "asyncwatch", 3, "collective", 40, "nccl_tests", 10}

func (g *gen) traffic() {
	g.listening = map[[2]int]bool{}
	for range g.between(1, 4) {
		g.item()
	}
	if g.cm && g.chance(0.7) {
		// rdma_cm's QP commands take 222 us each by default, so no
		// connection is made in these short runs; faster ones are.
		g.s.HCA = append(g.s.HCA, KV{"cm", flowMap([]KV{{"qp_command", Ns(int64(one(g, 1000, 2000, 5000, 20000)))}, {"mad_processing", Ns(int64(one(g, 500, 1000, 5000)))}})})
	}
}

func (g *gen) hosts() int { return g.s.Topo.NumHosts() }

// twoHosts draws two different hosts.
func (g *gen) twoHosts() (int, int) {
	a := g.intn(g.hosts())
	b := g.intn(g.hosts() - 1)
	if b >= a {
		b++
	}
	return a, b
}

// subset draws between lo and hi different hosts, none of them except,
// in the order drawn.
func (g *gen) subset(lo, hi int, except ...int) []int {
	return g.subsetOf(seq(g.hosts()), lo, hi, except...)
}

// subsetOf draws between lo and hi different hosts of pool, none of them
// except, in the order drawn.
func (g *gen) subsetOf(pool []int, lo, hi int, except ...int) []int {
	pool = slices.DeleteFunc(slices.Clone(pool), func(h int) bool { return slices.Contains(except, h) })
	g.r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	n := g.between(min(lo, len(pool)), min(hi, len(pool)))
	return pool[:n]
}

func (g *gen) item() {
	kinds := trafficKinds
	if g.s.Topo.HasServers() {
		kinds = serverKinds
	}
	kind := g.weighted(kinds...)
	for {
		if g.iwarp() && kind == "mckey" {
			g.refuse("iwarp has no UD: no mckey")
		} else if g.iwarp() && collectiveKind(kind) {
			// NCCL's IB transport writes with immediate, which iWARP's
			// RDMAP has not (the loader refuses op: write_imm there, but
			// takes a collective: not drawn until it says which).
			g.refuse("iwarp has no immediate data: no collective")
		} else if g.s.Mixed() && (kind == "mckey" || kind == "rdma_pair") {
			g.refuse("a mixed network has no rdma_cm or mckey yet")
		} else if g.s.Mixed() && kind != "flow" && kind != "incast" && kind != "asyncwatch" && !g.poolExists() {
			g.refuse("a program or generator runs among hosts whose first ports share a fabric")
		} else {
			break
		}
		kind = g.weighted(kinds...)
	}
	it := Item{Kind: kind, From: -1, To: -1}
	switch kind {
	case "flow":
		g.flowPair(&it)
		g.flowOpts(&it, true)
	case "incast":
		g.incast(&it)
		g.flowOpts(&it, false)
	case "permutation", "all_to_all":
		limit := 16
		if kind == "all_to_all" {
			limit = 6
		}
		pool := g.sameFabricPool()
		if len(pool) == g.hosts() && g.hosts() <= limit && g.chance(0.5) {
			it.All = true
		} else {
			it.Hosts = g.subsetOf(pool, 2, limit)
		}
		g.flowOpts(&it, false)
	case "ring_allreduce":
		pool := g.sameFabricPool()
		if len(pool) == g.hosts() && g.hosts() <= 8 && g.chance(0.3) {
			it.All = true
		} else {
			it.Hosts = g.subsetOf(pool, 2, 6)
		}
		g.ringOpts(&it)
	case "poisson":
		g.poisson(&it)
	case "perftest":
		it.From, it.To = g.programPair()
		g.perftest(&it)
	case "pingpong":
		it.From, it.To = g.programPair()
		g.pingpong(&it)
	case "rping":
		it.From, it.To = g.programPair()
		it.Opts = append(it.Opts, KV{"count", strconv.Itoa(g.between(2, 20))})
		if g.chance(0.5) {
			it.Opts = append(it.Opts, KV{"size", Bytes(int64(one(g, 32, 64, 1024, 4096)))})
		}
		if g.chance(0.1) {
			it.Opts = append(it.Opts, KV{"verbose", "false"})
		}
		if g.chance(0.1) {
			it.Opts = append(it.Opts, KV{"validate", "false"})
		}
		g.common(&it, "rc", "", true)
	case "rdma_pair":
		g.rdmaPair()
		return
	case "mckey":
		it.From = g.intn(g.hosts())
		it.Hosts = g.subset(1, 5, it.From)
		it.Opts = append(it.Opts, KV{"count", strconv.Itoa(g.between(3, 30))})
		if g.chance(0.7) {
			it.Opts = append(it.Opts, KV{"size", Bytes(g.logSize(16, int64(g.mtu())))})
		}
		if g.chance(0.8) {
			// The tool's sleep(3) is three seconds; these runs are
			// shorter.
			it.Opts = append(it.Opts, KV{"settle", Ns(int64(one(g, 0, 1000, 5000)))})
		}
		if g.chance(0.2) {
			g.groups++
			it.Opts = append(it.Opts, KV{"group", fmt.Sprintf("239.2.0.%d", g.groups)})
		}
		if !g.s.IB && g.chance(0.2) {
			it.Opts = append(it.Opts, KV{"priority", strconv.Itoa(one(g, 0, 3))})
		}
		if g.chance(0.2) {
			it.Opts = append(it.Opts, KV{"start", Ns(g.timeNs(0, g.s.StopNs/2))})
		}
	case "collective", "nccl_tests":
		g.collectiveItem(&it, kind == "nccl_tests")
	case "asyncwatch":
		if g.chance(0.5) {
			it.All = true
		} else {
			it.Hosts = g.subset(1, 3)
		}
	}
	g.s.Traffic = append(g.s.Traffic, it)
	if kind == "flow" && g.s.VPIHost(it.From) && g.chance(0.4) {
		g.twinFlow(it)
	}
}

// qp draws a QP type that the transport has.
func (g *gen) qp() string {
	qp := g.weighted("rc", 70, "uc", 15, "ud", 15)
	if qp != "rc" && g.iwarp() {
		g.refuse("iwarp has only RC")
		qp = "rc"
	}
	return qp
}

// op draws an operation that qp and the transport have; ring says a
// ring all-reduce's (it pushes: no READ or atomic).
func (g *gen) op(qp string, ring bool) string {
	switch qp {
	case "ud":
		return "send"
	case "uc":
		return one(g, "write", "send", "write_imm")
	}
	for {
		op := g.weighted("write", 40, "read", 20, "send", 20, "write_imm", 10, "atomic", 10)
		switch {
		case ring && (op == "read" || op == "atomic"):
			g.refuse("ring_allreduce pushes: write, write_imm or send")
		case g.iwarp() && (op == "write_imm" || op == "atomic"):
			g.refuse("iwarp has no immediate data or atomics")
		case g.uet() && op == "atomic":
			g.refuse("uet's atomics are not modelled")
		default:
			return op
		}
	}
}

// size draws a message size for qp and op.
func (g *gen) size(qp, op string) int64 {
	switch {
	case op == "atomic":
		return 8
	case qp == "ud":
		return g.logSize(1, int64(g.mtu()))
	case g.chance(0.1):
		return 1 << 20
	}
	return g.logSize(1, 256<<10)
}

// common adds the keys every generator takes: qp and op (when given),
// priority or sl, start and connect (when cm may be).
func (g *gen) common(it *Item, qp, op string, cm bool) {
	kv := func(k, v string) { it.Opts = append(it.Opts, KV{k, v}) }
	if qp != "rc" || g.chance(0.2) {
		kv("qp", qp)
	}
	if op != "" && (op != "write" || g.chance(0.2)) {
		kv("op", op)
	}
	// On a mixed network an item whose sources are on InfiniBand takes
	// sl, one whose sources are on Ethernet priority, and one with
	// sources on both neither.
	switch g.itemFabric(it) {
	case 1:
		if g.chance(0.2) {
			if g.layered() {
				g.refuse("dfsssp and lash give each pair its SL: no sl")
			} else {
				kv("sl", strconv.Itoa(g.intn(16)))
			}
		}
	case 0:
		if g.chance(0.15) {
			kv("priority", strconv.Itoa(one(g, 0, 3, 4)))
		}
	}
	if g.chance(0.25) {
		kv("start", Ns(g.timeNs(0, g.s.StopNs/2)))
	}
	if cm && g.chance(0.2) {
		// rping's server listens on 7174 and perftest -R's on 18515:
		// one listener per host and port (flows share theirs, 18516).
		port := map[string]int{"rping": 7174, "perftest": 18515}[it.Kind]
		switch {
		case g.s.Mixed():
			g.refuse("a mixed network has no rdma_cm yet: no connect: cm")
		case port != 0 && g.listening[[2]int{it.To, port}]:
			g.refuse("one rdma_cm listener per host and port")
		default:
			if port != 0 {
				g.listening[[2]int{it.To, port}] = true
			}
			kv("connect", "cm")
			g.cm = true
		}
	}
}

// flowOpts draws a flow generator's keys; one says a flow: item (which
// takes count, messages, post_list, recv_at and remote_mr).
func (g *gen) flowOpts(it *Item, one bool) {
	qp := g.qp()
	op := g.op(qp, false)
	size := g.size(qp, op)
	it.Opts = append(it.Opts, KV{"size", Bytes(size)})
	if one {
		kv := func(k, v string) { it.Opts = append(it.Opts, KV{k, v}) }
		if g.chance(0.1) {
			kv("count", strconv.Itoa(g.between(2, 4)))
		}
		if qp != "ud" && op != "atomic" && size >= 8 && g.chance(0.15) {
			m := g.between(2, 8)
			kv("messages", strconv.Itoa(m))
			if g.chance(0.4) {
				// A flow with messages: m goes as exactly m work requests
				// (assembly's partSize). This once counted the fewer that
				// ceil(size / m) made (15 bytes in 7 messages: 5 of 3
				// bytes); wrs is now always m, and the refusal cannot
				// fire, but the draws stay so that seeds make the same
				// scenarios.
				part := (size + int64(m) - 1) / int64(m)
				wrs := int((size + part - 1) / part)
				if wrs < m {
					g.refuse("post_list at most the work requests a flow's messages make")
				}
				kv("post_list", strconv.Itoa(g.between(1, wrs)))
			}
		}
		if (op == "send" || op == "write_imm") && g.chance(0.15) {
			kv("recv_at", Ns(g.timeNs(0, g.s.StopNs)))
		}
		if !g.flowSrcIB(it) && !g.rocev1() && g.chance(0.15) {
			// The DSCP of the flow's packets, over hca.dscp: IP's.
			kv("dscp", strconv.Itoa(g.dscp()))
		}
		if qp == "rc" && op != "send" && g.chance(0.08) {
			switch g.intn(4) {
			case 0:
				kv("remote_mr", "{access: [local_write, remote_read]}")
			case 1:
				kv("remote_mr", "{rkey: invalid}")
			case 2:
				kv("remote_mr", "{pd: other}")
			default:
				kv("remote_mr", "{length: "+Bytes(max(1, size/2))+"}")
			}
		}
	}
	g.common(it, qp, op, true)
}

func (g *gen) ringOpts(it *Item) {
	qp := g.qp()
	op := g.op(qp, true)
	n := int64(len(it.Hosts))
	if it.All {
		n = int64(g.hosts())
	}
	size := g.logSize(n, 512<<10)
	if qp == "ud" {
		// Each step is one chunk of size/n: one UD message.
		size = g.logSize(n, n*int64(g.mtu()))
	}
	it.Opts = append(it.Opts, KV{"size", Bytes(size)})
	g.common(it, qp, op, true)
}

func (g *gen) poisson(it *Item) {
	// On a mixed network a generator's hosts have their first ports on
	// one fabric (flows leave port 1), and its to: a port there.
	pool := g.sameFabricPool()
	all := len(pool) == g.hosts()
	if g.chance(0.3) {
		it.To = one(g, g.reaching(pool)...)
		if all && g.chance(0.3) {
			it.All = true // every host but to:
		} else {
			it.Hosts = g.subsetOf(pool, 1, 6, it.To)
		}
	} else if all && g.hosts() <= 16 && g.chance(0.5) {
		it.All = true
	} else {
		it.Hosts = g.subsetOf(pool, 2, 8)
	}
	qp := g.qp()
	op := g.op(qp, false)
	sizes := one(g, "websearch", "hadoop", "alistorage2019", "googlerpc2008", "fixed", "fixed")
	switch {
	case op == "atomic":
		sizes = "8"
	case qp == "ud":
		sizes = Bytes(g.logSize(1, int64(g.mtu())))
	case sizes == "fixed":
		sizes = Bytes(g.logSize(64, 64<<10))
	}
	load := one(g, "10%", "30%", "0.5", "70%")
	if c := capLoad(parseLoad(load), meanSize(sizes), bitsPerSecond(g.s.Topo.Rate), g.s.StopNs); c < parseLoad(load) {
		g.refuse("poisson makes at most 200 flows per host")
		load = percent(c)
	}
	it.Opts = append(it.Opts, KV{"load", load}, KV{"sizes", sizes})
	g.common(it, qp, op, true)
	if g.chance(0.4) {
		start := int64(0)
		if v, ok := Get(it.Opts, "start"); ok {
			start = parseNs(v)
		}
		it.Opts = append(it.Opts, KV{"until", Ns(g.timeNs(start+1000, g.s.StopNs))})
	}
}

// perftests are perftest's tests.
var perftests = []string{"write_bw", "write_lat", "read_bw", "read_lat", "send_bw", "send_lat", "atomic_bw", "atomic_lat"}

func (g *gen) perftest(it *Item) {
	test := one(g, perftests...)
	for (g.iwarp() || g.uet()) && (test == "atomic_bw" || test == "atomic_lat") {
		g.refuse("iwarp has no atomics, uet's are not modelled")
		test = one(g, perftests...)
	}
	kv := func(k, v string) { it.Opts = append(it.Opts, KV{k, v}) }
	kv("test", test)
	qp := "rc"
	switch test[:len(test)-3] {
	case "write":
		qp = one(g, "rc", "rc", "uc")
	case "send":
		qp = one(g, "rc", "rc", "uc", "ud")
	}
	if qp != "rc" && g.iwarp() {
		g.refuse("iwarp has only RC")
		qp = "rc"
	}
	bw := test[len(test)-2:] == "bw"
	switch {
	case qp == "ud":
		kv("size", Bytes(g.logSize(1, int64(g.mtu())))) // the default, 65536, is above any MTU
	case test[:6] == "atomic":
	case g.chance(0.5):
		kv("size", Bytes(g.logSize(1, 64<<10)))
	}
	if bw {
		kv("iterations", strconv.Itoa(g.between(5, 200)))
		if g.chance(0.3) {
			kv("qps", strconv.Itoa(g.between(1, 4)))
		}
		if g.chance(0.2) {
			kv("tx_depth", strconv.Itoa(one(g, 1, 16, 128)))
		}
		if g.chance(0.1) {
			kv("cq_mod", strconv.Itoa(one(g, 1, 10)))
		}
	} else {
		kv("iterations", strconv.Itoa(g.between(5, 50)))
	}
	if g.chance(0.1) {
		kv("rx_depth", strconv.Itoa(one(g, 16, 512)))
	}
	g.common(it, qp, "", true)
}

func (g *gen) pingpong(it *Item) {
	qp := one(g, "rc", "rc", "uc", "ud")
	if qp != "rc" && g.iwarp() {
		g.refuse("iwarp has only RC")
		qp = "rc"
	}
	kv := func(k, v string) { it.Opts = append(it.Opts, KV{k, v}) }
	if qp == "ud" {
		kv("size", Bytes(g.logSize(1, int64(g.mtu())))) // its default, 2048, may be above the MTU
	} else if g.chance(0.5) {
		kv("size", Bytes(g.logSize(1, 64<<10)))
	}
	kv("iterations", strconv.Itoa(g.between(5, 50)))
	if g.chance(0.1) {
		kv("rx_depth", strconv.Itoa(one(g, 2, 16, 500)))
	}
	g.common(it, qp, "", false)
}

// rdmaPair adds an rdma_server and its rdma_client (or, at times, a
// client whose server does not listen: it is refused).
func (g *gen) rdmaPair() {
	srv, cli := g.twoHosts()
	port := 7471
	if g.chance(0.3) {
		port = g.between(1024, 60000)
		if port == 7174 || port == 18515 || port == 18516 {
			g.refuse("an rdma_server's port is not rping's, perftest's or the flows' listener's")
			port = 7471
		}
	}
	if !g.listening[[2]int{srv, port}] && g.chance(0.9) {
		g.listening[[2]int{srv, port}] = true
		it := Item{Kind: "rdma_server", From: srv, To: -1}
		if port != 7471 {
			it.Opts = append(it.Opts, KV{"port", strconv.Itoa(port)})
		}
		g.s.Traffic = append(g.s.Traffic, it)
	}
	it := Item{Kind: "rdma_client", From: cli, To: srv}
	if port != 7471 {
		it.Opts = append(it.Opts, KV{"port", strconv.Itoa(port)})
	}
	if g.chance(0.3) {
		it.Opts = append(it.Opts, KV{"start", Ns(g.timeNs(0, g.s.StopNs/2))})
	}
	g.s.Traffic = append(g.s.Traffic, it)
}

// parseNs reads a time as Ns writes it.
func parseNs(v string) int64 {
	for _, u := range []struct {
		suffix string
		ns     int64
	}{{"ms", 1000000}, {"us", 1000}, {"ns", 1}} {
		if len(v) > len(u.suffix) && v[len(v)-len(u.suffix):] == u.suffix {
			n, _ := strconv.ParseInt(v[:len(v)-len(u.suffix)], 10, 64)
			return n * u.ns
		}
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}
