package resolve

import (
	"fmt"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
)

// The GPU servers of a topology (issue 48): a generator's
// (rail-optimized: kind.Topology.Servers) or an explicit topology's
// servers key, each a list of hosts that share a scale-up domain.

// serversOf makes a generator's servers the scenario's.
func serversOf(ks []kind.Server) []Server {
	out := make([]Server, len(ks))
	for i, k := range ks {
		out[i] = Server{Name: k.Name, GPUs: k.GPUs, ScaleUp: ScaleUp{Rate: k.ScaleUp.Rate, Delay: k.ScaleUp.Delay}}
	}
	return out
}

// explicitServers resolves an explicit topology's servers: each named
// once (and not as a node), its GPUs hosts of the topology, each in one
// server only, its scale-up domain over kind.DefaultNVLink.
func (b *builder) explicitServers(t *fabric.Topology, s *scenario.ExplicitS) {
	if len(s.Servers) == 0 {
		return
	}
	errs := b.d.ErrorCount()
	named := map[string]scenario.Pos{}
	type place struct {
		server string
		at     scenario.Pos
	}
	owner := map[fabric.NodeID]place{}
	var out []Server
	for i := range s.Servers {
		sv := &s.Servers[i]
		if !sv.Name.Set || !b.checkName(sv.Name, sv.Path+".name", "server") {
			continue
		}
		if first, dup := named[sv.Name.V]; dup {
			b.errorf(sv.Name.Pos, sv.Path+".name", "server %s is declared twice (first at %s)", scenario.Show(sv.Name.V), scenario.FirstAt(first, sv.Name.Pos))
			continue
		}
		named[sv.Name.V] = sv.Name.Pos
		if id, ok := t.Lookup(sv.Name.V); ok {
			b.errorf(sv.Name.Pos, sv.Path+".name", "server %s has the name of %s %s; a server's name is none of the nodes'", scenario.Show(sv.Name.V), t.Nodes[id].Kind, scenario.Show(sv.Name.V))
			continue
		}
		if len(sv.GPUs) == 0 && sv.Has("gpus") {
			b.errorf(sv.KeyPos("gpus"), sv.Path+".gpus", "server %s has no GPUs; list its hosts, in GPU order", scenario.Show(sv.Name.V))
			continue
		}
		server := Server{Name: sv.Name.V}
		for j, g := range sv.GPUs {
			path := fmt.Sprintf("%s.gpus[%d]", sv.Path, j)
			h, ok := b.hostIf(g, path)
			if !ok {
				continue
			}
			if first, dup := owner[h]; dup {
				in := "twice in this server"
				if first.server != sv.Name.V {
					in = "in two servers, " + scenario.Show(first.server) + " and " + scenario.Show(sv.Name.V)
				}
				b.errorf(g.Pos, path, "host %s is %s (first at %s); a GPU is in one server", scenario.Show(g.V), in, scenario.FirstAt(first.at, g.Pos))
				continue
			}
			owner[h] = place{sv.Name.V, g.Pos}
			server.GPUs = append(server.GPUs, h)
		}
		nv := link(kind.DefaultNVLink, &sv.NVLink)
		server.ScaleUp = ScaleUp{Rate: nv.Rate, Delay: nv.Delay}
		out = append(out, server)
	}
	if b.d.ErrorCount() == errs {
		b.s.SetServers(out, len(t.Nodes))
	}
}
