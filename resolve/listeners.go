package resolve

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/programs"
	"github.com/lfsim/lfsim/scenario"
)

// FlowPort is the port the flows' listeners take: one past perftest's
// (18515, where a perftest -R server listens), so that both can share a
// host; rdma_server keeps its own 7471.
const FlowPort = programs.PerftestPort + 1

// checkListeners refuses two rdma_cm listeners on one host and port: an
// rdma_server's port, an rping server's 7174 and a perftest -R server's
// 18515 (with connect: cm), and FlowPort on a host that connect: cm
// flows go to (any number of those flows share it).
func (b *builder) checkListeners() {
	type claim struct {
		what string
		pos  scenario.Pos
	}
	claims := map[[2]int64]claim{} // (host, port): looked up, never iterated
	take := func(host fabric.NodeID, port uint16, what string, pos scenario.Pos) {
		k := [2]int64{int64(host), int64(port)}
		if c, ok := claims[k]; ok {
			if c.what == what && what == "connect: cm flows" {
				return
			}
			b.errorf(pos, "traffic", "%s would listen on port %d of %s, where %s already listens (%s); give it another port or host",
				what, port, b.t.Nodes[host].Name, c.what, scenario.FirstAt(c.pos, pos))
			return
		}
		claims[k] = claim{what, pos}
	}
	for _, t := range b.s.Tests {
		switch {
		case t.Kind == "rdma_server":
			take(t.Src, t.Port, "an rdma_server", t.Pos)
		case t.Kind == "rping" && t.Rping.CM:
			take(t.Dst, programs.RpingPort, "an rping server", t.Pos)
		case t.Kind == "perftest" && t.Perftest.CM:
			take(t.Dst, programs.PerftestPort, "a perftest -R server", t.Pos)
		}
	}
	for _, f := range b.s.Flows {
		if f.CM {
			take(f.Dst, FlowPort, "connect: cm flows", f.Pos)
		}
	}
	for _, g := range b.s.Poisson {
		if !g.CM {
			continue
		}
		dsts := g.Hosts
		if g.HasTo {
			dsts = []fabric.NodeID{g.To}
		}
		for _, d := range dsts {
			take(d, FlowPort, "connect: cm flows", g.Pos)
		}
	}
}
