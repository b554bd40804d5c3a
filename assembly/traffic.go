package assembly

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

// The ring_allreduce and poisson generators (the other generators are in
// build.go's traffic).

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
					return
				}
			}
		}
		if len(hosts) == 0 {
			b.errorf(tv.Pos, path+".hosts", "poisson needs at least one host besides to:")
			return
		}
	} else if len(hosts) < 2 {
		at := g.Hosts.Pos
		if !g.Hosts.Set {
			at = tv.Pos
		}
		b.errorf(at, path+".hosts", "poisson needs at least 2 hosts (or to:), not %d", len(hosts))
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
		Start: g.Start.V, Until: sim.Never, QP: qp, Op: op, Generator: gen, Pos: tv.Pos}
	if g.Until.Set {
		p.Until = g.Until.V
		if g.Until.V <= g.Start.V {
			b.errorf(g.Until.Pos, path+".until", "until (%s) must be after start (%s)", g.Until.V, g.Start.V)
			return
		}
	}
	if g.Priority.Set {
		p.Priority, p.PrioritySet = uint8(g.Priority.V), true
	}
	for _, h := range hosts {
		prio := b.s.HCAProfile(h).Priority
		if p.PrioritySet {
			prio = p.Priority
		}
		if lossless != nil && !lossless[prio] {
			at := g.Priority.Pos
			if !g.Priority.Set {
				at = tv.Pos
			}
			b.warnf(at, path, "priority %d is not lossless on every switch (switch.pfc.priorities); its packets can be dropped", prio)
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
	file := s.Name
	if !filepath.IsAbs(file) {
		file = filepath.Join(filepath.Dir(b.d.File), file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		b.errorf(s.Pos, path, "cannot read the CDF file %s: %v", scenario.Show(s.Name), err)
		return nil
	}
	d, err := scenario.ParseCDF(file, data)
	if err != nil {
		b.errorf(s.Pos, path, "%v", err)
		return nil
	}
	return d
}
