package resolve

import (
	"github.com/lfsim/lfsim/chakra"
	"github.com/lfsim/lfsim/scenario"
)

// chakra resolves a chakra generator: the trace's rank files (and its
// communicator-group file) read as the scenario's inputs, checked and
// converted into a job (package chakra), run on ranks. An error in a
// trace names its file and node.
func (b *builder) chakra(gen int, tv *scenario.TrafficV, path string, g *scenario.ChakraS) {
	hosts, _, ok := b.hostList(&g.Ranks, path+".ranks")
	if !ok {
		return
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
		return
	}
	iterations := 1
	overrideNum(&iterations, g.Iterations)
	jb, err := cj.JobGraph(g.Trace.V, iterations)
	if err != nil {
		b.errorf(g.Trace.Pos, path+".trace", "%v", err)
		return
	}
	graphs, err := jb.Validate(len(hosts))
	if err != nil {
		b.errorf(g.Trace.Pos, path+".trace", "%v", err)
		return
	}
	j := Job{Job: jb, Hosts: hosts, Graphs: graphs, Start: g.Start.V, Generator: gen, Pos: tv.Pos}
	if g.Priority.Set {
		j.Priority, j.PrioritySet = uint8(g.Priority.V), true
	}
	b.s.Jobs = append(b.s.Jobs, j)
}
