package resolve

import (
	"fmt"
	"slices"

	"github.com/lfsim/lfsim/chakra"
	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/job"
	"github.com/lfsim/lfsim/scenario"
)

// chakra resolves a chakra generator: the trace's rank files (and its
// communicator-group file) read as the scenario's inputs, checked and
// converted into a job (package chakra), run on ranks; its
// communicators take channels, qps, rail_aware and pxn. An error in a
// trace names its file and node. ok is false after an error.
func (b *builder) chakra(gen int, tv *scenario.TrafficV, path string, g *scenario.ChakraS) bool {
	hosts, _, ok := b.hostList(&g.Ranks, path+".ranks")
	if !ok {
		return false
	}
	read := func(name string) ([]byte, error) {
		data, _, err := b.d.ReadInput(name, "Chakra trace file", chakra.MaxFileBytes)
		if err == nil {
			if name == g.CommGroup.V {
				b.d.InputAt(name, g.CommGroup.Pos)
			} else {
				b.d.InputAtPrefix(name, g.Trace.V, g.Trace.Pos)
			}
		}
		return data, err
	}
	cj, err := chakra.Load(read, g.Trace.V, len(hosts), g.CommGroup.V)
	if err != nil {
		b.errorf(g.Trace.Pos, path+".trace", "%v", err)
		return false
	}
	iterations := 1
	overrideNum(&iterations, g.Iterations)
	name := fmt.Sprintf("job%d", gen)
	override(&name, g.Name)
	jb, err := cj.JobGraph(name, iterations)
	if err != nil {
		b.errorf(g.Trace.Pos, path+".trace", "%v", err)
		return false
	}
	for c := range jb.Comms {
		cm := &jb.Comms[c]
		cm.Channels, cm.QPs = 2, 1
		overrideNum(&cm.Channels, g.Channels)
		overrideNum(&cm.QPs, g.QPs)
		cm.NoRailAware = g.RailAware.Set && !g.RailAware.V
		cm.NoPXN = g.PXN.Set && !g.PXN.V
		if !b.chakraComm(gen, tv, path, g, jb, c, hosts) {
			return false
		}
	}
	// The sends' QP pairs (COMM_SEND nodes, and GATHER's and SCATTER's),
	// counted as a job generator counts its flows'.
	b.countJobSends(jb)
	graphs, err := jb.Validate(len(hosts))
	if err != nil {
		b.errorf(g.Trace.Pos, path+".trace", "%v", err)
		return false
	}
	j := Job{Job: jb, Hosts: hosts, Graphs: graphs, Start: g.Start.V, Generator: gen, Pos: tv.Pos}
	if g.Priority.Set {
		j.Priority, j.PrioritySet = uint8(g.Priority.V), true
	}
	b.s.Jobs = append(b.s.Jobs, j)
	return true
}

// chakraComm lays out communicator c of the trace's job for each
// algorithm its calls take (each operation's default), as the runner
// will: on GPU servers a layout that cannot be made is an error here,
// where lfsim validate sees it; and counts its connections for the
// memory estimate.
func (b *builder) chakraComm(gen int, tv *scenario.TrafficV, path string, g *scenario.ChakraS, jb *job.Job, c int, hosts []fabric.NodeID) bool {
	cm := &jb.Comms[c]
	var algos []collective.Algorithm
	for _, n := range jb.Graphs[cm.Ranks[0]] {
		if a := collective.DefaultAlgorithm(n.Op); n.Kind == job.Collective && n.Comm == c && !slices.Contains(algos, a) {
			algos = append(algos, a)
		}
	}
	for _, a := range algos {
		s := CommSpec{Algorithm: a, Channels: cm.Channels, QPs: cm.QPs, RailAware: !cm.NoRailAware, PXN: !cm.NoPXN, Generator: gen, Pos: tv.Pos}
		for _, r := range cm.Ranks {
			s.Hosts = append(s.Hosts, hosts[r])
		}
		var comm *collective.Comm
		if b.s.Servers != nil {
			places := make([]collective.Place, len(s.Hosts))
			for i, h := range s.Hosts {
				places[i] = collective.Place{Server: -1}
				if sv, gpu, ok := b.s.ServerOf(h); ok {
					places[i] = collective.Place{Server: sv, GPU: gpu}
				}
			}
			var err error
			comm, err = collective.NewComm(places, collective.Options{Algorithm: a, Channels: s.Channels, RailAware: s.RailAware, PXN: s.PXN})
			if err != nil {
				b.errorf(g.Trace.Pos, path+".trace", "%s on ranks %v (%s): %v", groupName(cm.Name), cm.Ranks, a, err)
				return false
			}
		}
		b.countCollective(&s, networkLinks(&s, comm))
	}
	return true
}

func groupName(pg string) string {
	if pg == "" {
		return "the collectives of every rank"
	}
	return fmt.Sprintf("the collectives of process group %q", pg)
}
