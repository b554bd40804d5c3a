package resolve

import (
	"fmt"
	"slices"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/programs"
	"github.com/lfsim/lfsim/scenario"
)

var qpTypes = map[string]hca.QPType{"rc": hca.RC, "uc": hca.UC, "ud": hca.UD}

// test checks a perftest or pingpong generator and adds it to Tests,
// with the tools' defaults filled in.
func (b *builder) test(gen int, tv *scenario.TrafficV, path string) {
	var from, to scenario.StrV
	var com *scenario.GenCommon
	switch g := tv.Gen.(type) {
	case *scenario.PerftestS:
		from, to, com = g.From, g.To, &g.GenCommon
	case *scenario.PingpongS:
		from, to, com = g.From, g.To, &g.GenCommon
	case *scenario.RpingS:
		from, to, com = g.Client, g.Server, &g.GenCommon
	}
	fromKey, toKey := ".from", ".to"
	if tv.Kind == "rping" {
		fromKey, toKey = ".client", ".server"
		if com.QP.Set && com.QP.V != "rc" {
			b.errorf(com.QP.Pos, path+".qp", "rping runs on an RC QP (READ and WRITE need one), not %s; remove qp:", com.QP.V)
			return
		}
	}
	src, ok1 := b.hostIf(from, path+fromKey)
	dst, ok2 := b.hostIf(to, path+toKey)
	if com.Op.Set {
		b.errorf(com.Op.Pos, path+".op", "%s chooses its operation itself (perftest's test:, pingpong always SENDs); remove op:", tv.Kind)
		ok1 = false
	}
	if com.Connect.Set && com.Connect.V == "cm" && tv.Kind == "pingpong" {
		b.errorf(com.Connect.Pos, path+".connect", "ibv_*_pingpong connects out of band, over its TCP socket; it has no rdma_cm mode (rping and perftest do); remove connect:")
		ok1 = false
	}
	if !ok1 || !ok2 {
		return
	}
	if src == dst {
		b.errorf(to.Pos, path+".to", "a %s from %s to itself", tv.Kind, scenario.Show(to.V))
		return
	}
	qt := hca.RC
	if com.QP.Set {
		qt = qpTypes[com.QP.V]
	}
	prio := b.portPriority(com, src, b.s.HCAProfile(src).Priority, path)
	if lossless := b.losslessPriorities(); lossless != nil && !lossless[prio] && b.s.LinkLayerOf(src) != fabric.InfiniBand {
		b.warnLossy(com, tv, path, prio)
	}
	t := Test{Kind: tv.Kind, Src: src, Dst: dst, Generator: gen, Pos: tv.Pos}
	mtu := min(b.s.HCAProfile(src).MTU, b.s.HCAProfile(dst).MTU)
	ok := false
	switch g := tv.Gen.(type) {
	case *scenario.PerftestS:
		t.Perftest, ok = b.perftestConfig(g, tv, path, qt, prio, mtu)
	case *scenario.PingpongS:
		t.Pingpong, ok = b.pingpongConfig(g, tv, path, qt, prio, mtu)
	case *scenario.RpingS:
		t.Rping = programs.RpingConfig{Count: int(g.Count.V), Size: int64(g.Size.V), Verbose: !g.Verbose.Set || g.Verbose.V,
			Validate: !g.Validate.Set || g.Validate.V, Priority: prio, SL: slOf(com), Start: com.Start.V, CM: com.Connect.V == "cm"}
		ok = true
		if min := int64(len(fmt.Sprintf("rdma-ping-%d: ", t.Rping.Count-1)) + 1); g.Size.Set && t.Rping.Size < min {
			b.errorf(g.Size.Pos, path+".size", "an rping buffer of %d bytes cannot hold its message \"rdma-ping-%d: \"; size must be at least %d", t.Rping.Size, t.Rping.Count-1, min)
			ok = false
		}
	}
	if !ok {
		return
	}
	if com.Start.Set && com.Start.V >= b.s.Stop.At {
		b.warnf(com.Start.Pos, path+".start", "starts at %s, not before stop.at (%s); it will not run", com.Start.V, b.s.Stop.At)
	}
	b.s.Tests = append(b.s.Tests, t)
}

// perftestConfig is a perftest generator's configuration, perftest's
// defaults filled in and checked against the path's MTU.
func (b *builder) perftestConfig(g *scenario.PerftestS, tv *scenario.TrafficV, path string, qt hca.QPType, prio uint8, mtu int) (programs.PerftestConfig, bool) {
	com := &g.GenCommon
	c := programs.PerftestConfig{Test: g.Test.V, Type: qt, Size: int64(g.Size.V), Iters: int(g.Iterations.V),
		QPs: int(g.QPs.V), TxDepth: int(g.TxDepth.V), CQMod: int(g.CQMod.V), RxDepth: int(g.RxDepth.V),
		Priority: prio, SL: slOf(com), Start: com.Start.V, CM: com.Connect.V == "cm"}
	c = programs.PerftestDefaults(c)
	if err := programs.CheckPerftest(c, mtu); err != nil {
		at := tv.Pos
		for _, p := range []scenario.Pos{g.Size.Pos, com.QP.Pos, g.QPs.Pos} {
			if p.Line > 0 {
				at = p
				break
			}
		}
		b.errorf(at, path, "%s: %v", g.Test.V, err)
		return c, false
	}
	if n := int64(c.Iters) * int64(c.QPs); n > 10_000_000 {
		b.errorf(g.QPs.Pos, path+".qps", "iterations × qps is %d; at most 10000000 are supported", n)
		return c, false
	}
	return c, true
}

// pingpongConfig is a pingpong generator's configuration, the
// ibv_*_pingpong defaults filled in; a UD message must fit one MTU.
func (b *builder) pingpongConfig(g *scenario.PingpongS, tv *scenario.TrafficV, path string, qt hca.QPType, prio uint8, mtu int) (programs.PingpongConfig, bool) {
	c := programs.PingpongDefaults(programs.PingpongConfig{Type: qt, Size: int64(g.Size.V), Iters: int(g.Iterations.V),
		RxDepth: int(g.RxDepth.V), Priority: prio, SL: slOf(&g.GenCommon), Start: g.Start.V})
	if qt == hca.UD && c.Size > int64(mtu) {
		at := g.Size.Pos
		if !g.Size.Set {
			at = tv.Pos
		}
		b.errorf(at, path+".size", "a UD message is at most one MTU (%d bytes), not %d", mtu, c.Size)
		return c, false
	}
	return c, true
}

// rdmaExample reads an rdma_server or rdma_client generator into Tests.
func (b *builder) rdmaExample(gen int, tv *scenario.TrafficV, path string) {
	t := Test{Kind: tv.Kind, Generator: gen, Pos: tv.Pos, Port: programs.RdmaServerPort}
	var host scenario.StrV
	var port scenario.IntV
	ok := true
	switch g := tv.Gen.(type) {
	case *scenario.RdmaServerS:
		host, port, t.Start = g.Host, g.Port, g.Start.V
		t.Src, ok = b.hostIf(host, path+".host")
		t.Dst = t.Src
	case *scenario.RdmaClientS:
		host, port, t.Start = g.Host, g.Port, g.Start.V
		var ok2 bool
		t.Src, ok = b.hostIf(host, path+".host")
		t.Dst, ok2 = b.hostIf(g.Server, path+".server")
		if ok && ok2 && t.Src == t.Dst {
			b.errorf(g.Server.Pos, path+".server", "an rdma_client on %s connecting to itself", scenario.Show(g.Server.V))
			return
		}
		ok = ok && ok2
	}
	if !ok {
		return
	}
	overrideNum(&t.Port, port)
	for _, o := range b.s.Tests {
		if tv.Kind == "rdma_server" && o.Kind == "rdma_server" && o.Src == t.Src && o.Port == t.Port {
			b.errorf(host.Pos, path+".host", "%s already runs an rdma_server on port %d (traffic[%d])", scenario.Show(host.V), t.Port, o.Generator)
			return
		}
	}
	b.s.Tests = append(b.s.Tests, t)
}

// asyncwatch reads an asyncwatch generator: its hosts join the watched.
func (b *builder) asyncwatch(g *scenario.AsyncwatchS, path string) {
	var hosts []fabric.NodeID
	switch {
	case !g.Hosts.Set:
		return
	case g.Hosts.All:
		hosts = b.t.Hosts()
	default:
		for _, name := range g.Hosts.Names {
			if h, ok := b.hostIf(name, path+".hosts"); ok {
				hosts = append(hosts, h)
			}
		}
	}
	b.s.AsyncWatch = append(b.s.AsyncWatch, hosts...)
	slices.Sort(b.s.AsyncWatch)
	b.s.AsyncWatch = slices.Compact(b.s.AsyncWatch)
}
