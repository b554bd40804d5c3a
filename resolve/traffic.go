package resolve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

// The traffic: generators expanded into flows (poisson's are made while
// the run goes, dynamic.go), and the checks of each generator's hosts,
// QP, operation, size and priority.

// ringAllreduce expands a ring all-reduce into its 2(N-1) steps of N
// flows (see Scenario.Flows). It returns false when the flow limit is hit
// (the expansion stops there).
func (b *builder) ringAllreduce(gen int, tv *scenario.TrafficV, path string, g *scenario.RingAllreduceS, lossless map[uint8]bool) bool {
	hosts, _, ok := b.hostList(&g.Hosts, path+".hosts")
	if !ok || !g.Size.Set {
		return true
	}
	n := len(hosts)
	if n < 2 {
		at := g.Hosts.Pos
		if !g.Hosts.Set {
			at = tv.Pos
		}
		b.errorf(at, path+".hosts", "ring_allreduce needs at least 2 hosts, not %d", n)
		return true
	}
	if int64(g.Size.V) < int64(n) {
		b.errorf(g.Size.Pos, path+".size", "the %d hosts each take a chunk of at least one byte: size must be at least %d bytes, not %s", n, n, g.Size.V)
		return true
	}
	if g.Op.Set && (g.Op.V == "read" || g.Op.V == "atomic") {
		b.errorf(g.Op.Pos, path+".op", "ring_allreduce pushes each chunk to the next host: use op: write, write_imm or send, not %s", g.Op.V)
		return true
	}
	steps := 2 * (n - 1)
	total := satMul(int64(steps), int64(n))
	if int64(len(b.s.Flows))+total > int64(b.lim.Flows) {
		b.tooManyFlows(tv, total)
		return false
	}
	if !b.flowsFit(tv, total) {
		return false
	}
	size := int64(g.Size.V)
	chunk := func(c int) int64 {
		s := size / int64(n)
		if int64(c) < size%int64(n) {
			s++
		}
		return s
	}
	first := len(b.s.Flows)
	pairs := make([][2]fabric.NodeID, 0, total)
	sizes := make([]int64, 0, total)
	after := make([][]int, 0, total)
	for s := 0; s < steps; s++ {
		for i := range hosts {
			pairs = append(pairs, [2]fabric.NodeID{hosts[i], hosts[(i+1)%n]})
			sizes = append(sizes, chunk(((i-s)%n+n)%n))
			if s == 0 {
				after = append(after, nil)
			} else {
				// The previous step's flow into host i: from host i-1.
				after = append(after, []int{first + (s-1)*n + (i-1+n)%n})
			}
		}
	}
	maxChunk := scenario.SizeV{V: fabric.Size(chunk(0)), Pos: g.Size.Pos, Set: true}
	b.addFlowsSized(gen, tv, path, &g.GenCommon, pairs, maxChunk, sizes, after, lossless)
	return true
}

// poisson checks a poisson generator and adds it to Scenario.Poisson.
func (b *builder) poisson(gen int, tv *scenario.TrafficV, path string, g *scenario.PoissonS, lossless map[uint8]bool) {
	hosts, at, ok := b.hostList(&g.Hosts, path+".hosts")
	var to fabric.NodeID
	if g.To.Set {
		var found bool
		if to, found = b.host(g.To, path+".to"); !found {
			ok = false
		}
	}
	dist := b.sizeDist(&g.Sizes, path+".sizes")
	if !ok || dist == nil || !g.Load.Set {
		return
	}
	if g.Load.V <= 0 {
		b.errorf(g.Load.Pos, path+".load", "load must be above 0")
		return
	}
	if hosts, ok = b.poissonSenders(tv, path, g, hosts, at, to); !ok {
		return
	}
	qp, op, ok := b.qpOp(tv, path, &g.GenCommon, hosts, dist.Max(), g.Sizes.Pos)
	if !ok {
		return
	}
	if op == "atomic" && dist.Fixed != 8 {
		b.errorf(g.Sizes.Pos, path+".sizes", "an atomic is 8 bytes: use sizes: 8 with op: atomic")
		return
	}
	p := PoissonGen{Hosts: hosts, To: to, HasTo: g.To.Set, Load: g.Load.V, Sizes: dist,
		Start: g.Start.V, Until: sim.Never, QP: qp, Op: op, Generator: gen, Pos: tv.Pos, CM: g.Connect.V == "cm"}
	if g.Until.Set {
		p.Until = g.Until.V
		if g.Until.V <= g.Start.V {
			b.errorf(g.Until.Pos, path+".until", "until (%s) must be after start (%s)", g.Until.V, g.Start.V)
			return
		}
	}
	if !b.poissonBounded(tv, path, &p) {
		return
	}
	if g.Priority.Set || g.SL.Set {
		p.Priority, p.PrioritySet = b.portPriority(&g.GenCommon, hosts[0], 0, path), true
		p.SL = slOf(&g.GenCommon)
	}
	for _, h := range hosts {
		if prio := b.s.PoissonPriority(&p, h); lossless != nil && !lossless[prio] && b.s.LinkLayerOf(h) != fabric.InfiniBand {
			b.warnLossy(&g.GenCommon, tv, path, prio)
			break
		}
	}
	if g.Start.Set && g.Start.V >= b.s.Stop.At {
		b.warnf(g.Start.Pos, path+".start", "starts at %s, not before stop.at (%s); it will not run", g.Start.V, b.s.Stop.At)
	}
	b.s.Poisson = append(b.s.Poisson, p)
}

// sizeDist resolves sizes: a fixed size, a built-in distribution, or a
// CDF file relative to the scenario's folder.
func (b *builder) sizeDist(s *scenario.SizesV, path string) *scenario.SizeDist {
	if !s.Set {
		return nil
	}
	if s.Fixed.Set {
		return &scenario.SizeDist{Name: s.Fixed.V.String(), Fixed: int64(s.Fixed.V)}
	}
	for _, name := range scenario.SizeDists {
		if s.Name == name {
			d, err := scenario.BuiltinSizeDist(name)
			if err != nil {
				panic(err) // embedded and tested
			}
			return d
		}
	}
	looksLikeFile := strings.ContainsAny(s.Name, `/\.`)
	if !looksLikeFile {
		b.errorf(s.Pos, path, "unknown flow-size distribution %s%s; expected one of %s, a CDF file (a path) or a size such as 1000 or 64KiB",
			scenario.Show(s.Name), b.d.Suggest(s.Name, scenario.SizeDists), strings.Join(scenario.SizeDists, ", "))
		return nil
	}
	data, file, err := b.d.ReadInput(s.Name, "CDF file", scenario.MaxCDFBytes)
	if err != nil {
		b.errorf(s.Pos, path, "cannot read the CDF file %s: %v", scenario.Show(s.Name), err)
		return nil
	}
	d, err := scenario.ParseCDF(file, data)
	if err != nil {
		b.errorf(s.Pos, path, "%v", err)
		return nil
	}
	b.d.InputAt(s.Name, s.Pos)
	return d
}

func (b *builder) traffic() {
	if len(b.f.Traffic) == 0 && b.f.Set {
		b.warnf(b.f.KeyPos("traffic"), "traffic", "no traffic: the run only idles until stop.at")
	}
	if b.t == nil {
		return
	}
	errs := b.d.ErrorCount()
	defer func() { b.flowsOK = b.d.ErrorCount() == errs }()
	lossless := b.losslessPriorities()
	for i := range b.f.Traffic {
		tv := &b.f.Traffic[i]
		if tv.Gen == nil {
			continue
		}
		path := tv.Path + "." + tv.Kind
		b.rdmapTraffic(tv, path)
		b.atomicTraffic(tv, path)
		var com *scenario.GenCommon
		var pairs [][2]fabric.NodeID
		ok, stop := false, false
		switch g := tv.Gen.(type) {
		case *scenario.FlowS:
			com = &g.GenCommon
			pairs, ok = b.flowPair(g, path)
		case *scenario.IncastS:
			com = &g.GenCommon
			pairs, ok = b.incastPairs(g, path)
		case *scenario.PermutationS:
			com = &g.GenCommon
			pairs, ok, stop = b.hostPairs(i, tv, &g.Hosts, path)
		case *scenario.AllToAllS:
			com = &g.GenCommon
			pairs, ok, stop = b.hostPairs(i, tv, &g.Hosts, path)
		case *scenario.PerftestS, *scenario.PingpongS, *scenario.RpingS:
			b.test(i, tv, path)
		case *scenario.RingAllreduceS:
			stop = !b.ringAllreduce(i, tv, path, g, lossless)
		case *scenario.PoissonS:
			b.poisson(i, tv, path, g, lossless)
			stop = !b.flowsFit(tv, 0)
		case *scenario.AsyncwatchS:
			b.asyncwatch(g, path)
		case *scenario.RdmaServerS, *scenario.RdmaClientS:
			b.rdmaExample(i, tv, path)
		case *scenario.MckeyS:
			b.mckey(i, tv, path, g)
		case *scenario.CollectiveS:
			b.collective(i, tv, path, g)
			stop = !b.collectiveFits(tv)
		case *scenario.NCCLTestsS:
			b.ncclTests(i, tv, path, g)
			stop = !b.collectiveFits(tv)
		case *scenario.JobS:
			b.job(i, tv, path, g)
			stop = !b.collectiveFits(tv)
		case *scenario.FlowTraceS:
			stop = !b.flowTrace(i, tv, path, g, lossless)
		case *scenario.ChakraS:
			stop = b.chakra(i, tv, path, g) && !b.collectiveFits(tv)
		}
		if stop {
			return
		}
		if !ok {
			continue
		}
		if n := int64(len(pairs)); int64(len(b.s.Flows))+n > int64(b.lim.Flows) {
			b.tooManyFlows(tv, n)
			return
		} else if !b.flowsFit(tv, n) {
			return
		}
		n := len(b.s.Flows)
		b.addFlows(i, tv, path, com, pairs, lossless)
		if g, ok := tv.Gen.(*scenario.FlowS); ok {
			errs := b.d.ErrorCount()
			for j := n; j < len(b.s.Flows); j++ {
				b.flowExtras(g, path, &b.s.Flows[j])
				if b.d.ErrorCount() > errs {
					break // said once, not count times
				}
			}
			b.warnDSCPLossy(g, path, n, lossless)
		}
	}
}

// flowPair is a flow generator's one (source, destination) pair.
func (b *builder) flowPair(g *scenario.FlowS, path string) ([][2]fabric.NodeID, bool) {
	src, ok1 := b.hostIf(g.From, path+".from")
	dst, ok2 := b.hostIf(g.To, path+".to")
	if !ok1 || !ok2 {
		return nil, false
	}
	if src == dst {
		b.errorf(g.To.Pos, path+".to", "a flow from %s to itself", scenario.Show(g.To.V))
		return nil, false
	}
	n := 1
	overrideNum(&n, g.Count)
	pairs := make([][2]fabric.NodeID, n)
	for i := range pairs {
		pairs[i] = [2]fabric.NodeID{src, dst}
	}
	return pairs, true
}

// incastPairs are an incast's pairs: each sender of from: (from: all,
// every host but the receiver, in host order) to the receiver.
func (b *builder) incastPairs(g *scenario.IncastS, path string) ([][2]fabric.NodeID, bool) {
	dst, ok := b.hostIf(g.To, path+".to")
	if !g.From.Set {
		return nil, false // missing, or not a list: reported
	}
	var srcs []fabric.NodeID
	if g.From.All {
		for _, h := range b.t.Hosts() {
			if h != dst {
				srcs = append(srcs, h)
			}
		}
	} else {
		var at []scenario.Pos
		var okl bool
		srcs, at, okl = b.hostList(&g.From, path+".from")
		ok = ok && okl
		for j, s := range srcs {
			if ok && s == dst {
				b.errorf(at[j], path+".from", "a flow from %s to itself: %s is the receiver (to:)", scenario.Show(g.To.V), scenario.Show(g.To.V))
				ok = false
			}
		}
	}
	if !ok {
		return nil, false
	}
	var pairs [][2]fabric.NodeID
	for _, s := range srcs {
		pairs = append(pairs, [2]fabric.NodeID{s, dst})
	}
	return pairs, true
}

// hostPairs are a permutation's or an all_to_all's pairs among the hosts
// of hl (generator gen of traffic:). stop says the flows would pass the
// limit: counted before they are made, so that no file can make the
// loader allocate them.
func (b *builder) hostPairs(gen int, tv *scenario.TrafficV, hl *scenario.NameListV, path string) (pairs [][2]fabric.NodeID, ok, stop bool) {
	hosts, _, ok := b.hostList(hl, path+".hosts")
	if !ok {
		return nil, false, false
	}
	if len(hosts) < 2 {
		at := hl.Pos
		if !hl.Set {
			at = tv.Pos
		}
		b.errorf(at, path+".hosts", "%s needs at least 2 hosts, not %d", tv.Kind, len(hosts))
		return nil, false, false
	}
	n := int64(len(hosts))
	if tv.Kind == "all_to_all" {
		n = satMul(n, n-1)
	}
	if int64(len(b.s.Flows))+n > int64(b.lim.Flows) {
		b.tooManyFlows(tv, n)
		return nil, false, true
	}
	if tv.Kind == "permutation" {
		perm := derangement(sim.Stream(b.s.Seed, fmt.Sprintf("traffic/permutation/%d", gen)), len(hosts))
		for j, s := range hosts {
			pairs = append(pairs, [2]fabric.NodeID{s, hosts[perm[j]]})
		}
		return pairs, true, false
	}
	for _, s := range hosts {
		for _, d := range hosts {
			if s != d {
				pairs = append(pairs, [2]fabric.NodeID{s, d})
			}
		}
	}
	return pairs, true, false
}

func (b *builder) tooManyFlows(tv *scenario.TrafficV, n int64) {
	b.tooBig = true
	b.errorf(tv.Pos, tv.Path, "this %s makes %s flows, %s in all; at most %d flows are supported", tv.Kind, count(n), count(n+int64(len(b.s.Flows))), b.lim.Flows)
}

// genSize is the size: of a generator (all modelled ones require it).
func genSize(g any) scenario.SizeV {
	switch g := g.(type) {
	case *scenario.FlowS:
		return g.Size
	case *scenario.IncastS:
		return g.Size
	case *scenario.PermutationS:
		return g.Size
	case *scenario.AllToAllS:
		return g.Size
	}
	return scenario.SizeV{}
}

func (b *builder) addFlows(gen int, tv *scenario.TrafficV, path string, com *scenario.GenCommon, pairs [][2]fabric.NodeID, lossless map[uint8]bool) {
	size := genSize(tv.Gen)
	if !size.Set {
		return
	}
	b.addFlowsSized(gen, tv, path, com, pairs, size, nil, nil, lossless)
}

// qpOp returns a generator's qp: and op: with their defaults (rc, write),
// and checks that they go together and with the largest message size
// (at that position); ok is false after an error.
func (b *builder) qpOp(tv *scenario.TrafficV, path string, com *scenario.GenCommon, srcs []fabric.NodeID, maxSize int64, sizeAt scenario.Pos) (qp, op string, ok bool) {
	qp, op = "rc", "write"
	override(&qp, com.QP)
	override(&op, com.Op)
	opAt := com.Op.Pos
	if !com.Op.Set {
		opAt = tv.Pos
	}
	if why := opRefused(qp, op); why != "" {
		b.errorf(opAt, path+".op", "%s", why)
		return qp, op, false
	}
	if op == "read" {
		for _, s := range srcs {
			if row, ok := kind.LookupCC(b.s.HCAProfile(s).CC); ok && !row.ControlsReads {
				do := ccList(func(r kind.CC) bool { return r.RDMA && r.ControlsReads && r.Ethernet == row.Ethernet }, func(r kind.CC) string { return r.Title })
				verb := "does"
				if len(do) > 1 {
					verb = "do"
				}
				b.warnf(opAt, path+".op", "%s does not control READs: the data is the responder's READ responses, which no ACK answers, so they go at line rate (%s %s control them)", row.Title, strings.Join(do, " and "), verb)
				break
			}
		}
	}
	b.checkSprayedQP(path, qp, op, com.QP.Pos, opAt)
	for _, s := range srcs {
		if why := sizeRefused(b.s.HCAProfile(s), qp, maxSize); why != "" {
			b.errorf(sizeAt, path+".size", "%s", why)
			return qp, op, false
		}
	}
	return qp, op, true
}

// opRefused says why a QP of type qp cannot carry op, and what to use
// instead; "" when it can.
func opRefused(qp, op string) string {
	switch {
	case qp == "ud" && op != "send":
		return fmt.Sprintf("UD carries only SEND, not %s; use op: send with qp: ud", op)
	case qp == "uc" && (op == "read" || op == "atomic"):
		return fmt.Sprintf("UC has no %s (only RC does); use qp: rc", op)
	}
	return ""
}

// sizeRefused says why a flow of size bytes on a QP of type qp does not
// fit an HCA of profile prof; "" when it fits.
func sizeRefused(prof hca.Profile, qp string, size int64) string {
	if mtu := prof.MTU; qp == "ud" && size > int64(mtu) {
		return fmt.Sprintf("a UD message is at most one MTU (%d bytes), not %d bytes", mtu, size)
	}
	// A flow longer than the largest message is posted as several
	// work requests on one QP; they must fit its send queue.
	if limit := prof.MaxMsgSize * int64(prof.MaxSendWR); size > limit {
		return fmt.Sprintf("a flow is at most max_send_wr (%d) messages of %s, %s in all, not %s",
			prof.MaxSendWR, fabric.Size(prof.MaxMsgSize), fabric.Size(limit), fabric.Size(size))
	}
	return ""
}

// addFlowsSized adds one flow per pair: of size sizes[i] (or size when
// sizes is nil), waiting for the flows after[i] (none when after is nil).
func (b *builder) addFlowsSized(gen int, tv *scenario.TrafficV, path string, com *scenario.GenCommon, pairs [][2]fabric.NodeID, size scenario.SizeV, sizes []int64, after [][]int, lossless map[uint8]bool) {
	srcs := make([]fabric.NodeID, len(pairs))
	for i, p := range pairs {
		srcs[i] = p[0]
	}
	largest := int64(size.V)
	for _, sz := range sizes {
		largest = max(largest, sz)
	}
	qp, op, ok := b.qpOp(tv, path, com, srcs, largest, size.Pos)
	if !ok {
		return
	}
	if op == "atomic" && size.V != 8 {
		b.errorf(size.Pos, path+".size", "an atomic is 8 bytes, not %s", size.V)
		return
	}
	warned := false
	firstID := len(b.s.Flows)
	mixed := b.s.Mixed()
	given := com.Priority.Set || com.SL.Set && !mixed
	fixed := b.priorityOf(com, 0, path)
	for _, p := range pairs {
		prio := b.s.HCAProfile(p[0]).Priority
		if mixed {
			// The Ethernet side's: a flow on an InfiniBand port takes
			// its SL's VL once its ports are known (flowPorts).
			prio = b.s.HCA.Priority
		}
		if given {
			prio = fixed
		}
		if lossless != nil && !lossless[prio] && !warned && !mixed { // mixed: flowPorts, once the port is known
			warned = true
			b.warnLossy(com, tv, path, prio)
		}
		f := Flow{
			ID: len(b.s.Flows), Src: p[0], Dst: p[1], QP: qp, Op: op,
			Size: int64(size.V), Start: com.Start.V, Priority: prio, SL: slOf(com),
			Generator: gen, Pos: tv.Pos, CM: com.Connect.V == "cm",
		}
		if sizes != nil {
			f.Size = sizes[len(b.s.Flows)-firstID]
		}
		if after != nil {
			f.After = after[len(b.s.Flows)-firstID]
		}
		b.s.Flows = append(b.s.Flows, f)
	}
	if com.Start.Set && com.Start.V >= b.s.Stop.At {
		b.warnf(com.Start.Pos, path+".start", "starts at %s, not before stop.at (%s); it will not run", com.Start.V, b.s.Stop.At)
	}
}

// derangement draws a uniformly random permutation of 0..n-1 without fixed
// points (n >= 2): Fisher-Yates, repeated until no element stays.
func derangement(r *rand.Rand, n int) []int {
	p := make([]int, n)
	for {
		for i := range p {
			p[i] = i
		}
		for i := n - 1; i > 0; i-- {
			j := int(Uniform(r, uint64(i+1)))
			p[i], p[j] = p[j], p[i]
		}
		fixed := false
		for i, v := range p {
			if v == i {
				fixed = true
				break
			}
		}
		if !fixed {
			return p
		}
	}
}

// Uniform draws from 0..n-1 (n > 0) by rejection sampling from Uint64, so
// that the sequence depends only on the stream, not on how a library
// version implements bounded draws.
func Uniform(r *rand.Rand, n uint64) uint64 {
	rem := (math.MaxUint64%n + 1) % n // 2^64 mod n: the values to reject
	for {
		x := r.Uint64()
		if rem == 0 || x <= math.MaxUint64-rem {
			return x % n
		}
	}
}

// poissonSenders are the hosts that start a poisson generator's flows:
// hosts: (every host but to:, when to: is given without hosts:), at least
// one besides to:, or at least two without it. at are hosts' positions.
func (b *builder) poissonSenders(tv *scenario.TrafficV, path string, g *scenario.PoissonS, hosts []fabric.NodeID, at []scenario.Pos, to fabric.NodeID) ([]fabric.NodeID, bool) {
	if g.To.Set {
		if !g.Hosts.Set || g.Hosts.All {
			hosts = hosts[:0:0]
			for _, h := range b.t.Hosts() {
				if h != to {
					hosts = append(hosts, h)
				}
			}
		} else {
			for j, h := range hosts {
				if h == to {
					b.errorf(at[j], path+".hosts", "a flow from %s to itself: %s is the destination (to:)", scenario.Show(g.To.V), scenario.Show(g.To.V))
					return nil, false
				}
			}
		}
		if len(hosts) == 0 {
			b.errorf(tv.Pos, path+".hosts", "poisson needs at least one host besides to:")
			return nil, false
		}
	} else if len(hosts) < 2 {
		at := g.Hosts.Pos
		if !g.Hosts.Set {
			at = tv.Pos
		}
		b.errorf(at, path+".hosts", "poisson needs at least 2 hosts (or to:), not %d", len(hosts))
		return nil, false
	}
	return hosts, true
}

// poissonBounded reports whether a poisson generator's flows are bounded:
// it ends (until:, or a run with a time limit), and the flows it is
// expected to make, with the generators' before it, stay within the flow
// limit. Each host is expected to start load × its link's rate × its
// time / the mean size flows; a run makes no more than the limit anyway
// (the sources stop there, dynamic.go).
func (b *builder) poissonBounded(tv *scenario.TrafficV, path string, p *PoissonGen) bool {
	end := min(p.Until, b.s.Stop.At)
	if end == sim.Never {
		b.errorf(tv.Pos, path, "poisson without until: in a run without a time limit (stop.at: 0) makes flows for ever; give it until:")
		return false
	}
	var n float64
	if end > p.Start {
		secs := (end - p.Start).Seconds()
		for _, h := range p.Hosts {
			rate := b.t.Links[b.t.Nodes[h].Ports[0].Link].Rate
			n += secs * float64(rate) * p.Load / 8 / p.Sizes.Mean()
		}
	}
	if total := float64(len(b.s.Flows)) + b.poissonFlows + n; total > float64(b.lim.Flows) {
		b.tooBig = true
		b.errorf(tv.Pos, path, "this poisson makes about %s flows (load × link rate × time / mean size), %s in all; at most %d flows are supported",
			count(int64(min(n, 1e18))), count(int64(min(total, 1e18))), b.lim.Flows)
		return false
	}
	b.poissonFlows += n
	return true
}
