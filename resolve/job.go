package resolve

import (
	"errors"
	"fmt"
	"math"

	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/job"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

// Job is a training job to run: its graph (package job), the hosts its
// ranks run on (Hosts[r] is rank r's), when its first iteration starts,
// and the priority of its traffic.
type Job struct {
	Job   *job.Job
	Hosts []fabric.NodeID
	// Graphs are Job.Validate's graphs, made when it was resolved.
	Graphs []*job.Graph
	// Start is start: (default 0).
	Start sim.Time
	// Priority is its QPs' priority (priority:, default the hosts' HCA's).
	Priority    uint8
	PrioritySet bool
	Generator   int
	Pos         scenario.Pos
}

// job checks a job generator and adds it to Scenario.Jobs: its phases
// become the same nodes on every rank (a phase's id is its node's name,
// its index the node's id), a collective phase a call on the
// communicator of its hosts and settings, a flow phase a send at from
// and a receive at to (nothing at the other ranks).
func (b *builder) job(gen int, tv *scenario.TrafficV, path string, g *scenario.JobS) {
	hosts, _, ok := b.hostList(&g.Hosts, path+".hosts")
	if !ok || len(g.Phases) == 0 {
		if ok {
			b.errorf(g.KeyPos("phases"), path+".phases", "a job needs at least one phase: - {id: fwd, compute: {duration: 100us}}")
		}
		return
	}
	rank := map[fabric.NodeID]int{}
	for r, h := range hosts {
		rank[h] = r
	}
	j := &job.Job{Name: fmt.Sprintf("job%d", gen), Ranks: len(hosts), Iterations: 1}
	override(&j.Name, g.Name)
	overrideNum(&j.Iterations, g.Iterations)
	ids := map[string]int{}
	for i := range g.Phases {
		p := &g.Phases[i]
		if !p.ID.Set {
			return
		}
		if at, dup := ids[p.ID.V]; dup {
			b.errorf(p.ID.Pos, fmt.Sprintf("%s.phases[%d].id", path, i), "phase id %s is already phase %d's; ids must be unique in a job", scenario.Show(p.ID.V), at)
			return
		}
		ids[p.ID.V] = i
	}
	nodes := make([][]job.Node, len(hosts))
	comms := map[string]int{}
	for i := range g.Phases {
		p := &g.Phases[i]
		pp := fmt.Sprintf("%s.phases[%d]", path, i)
		nd := job.Node{ID: uint64(i), Name: p.ID.V}
		for _, a := range p.After {
			k, found := ids[a.V]
			if !found {
				b.errorf(a.Pos, pp+".after", "unknown phase %s%s; after lists the ids of the job's phases (%s)", scenario.Show(a.V), b.d.Suggest(a.V, phaseIDs(g)), b.list(phaseIDs(g)))
				return
			}
			nd.Deps = append(nd.Deps, uint64(k))
		}
		kinds := 0
		for _, set := range []bool{p.Compute.Set, p.Collective.Set, p.Flow.Set} {
			if set {
				kinds++
			}
		}
		if kinds != 1 {
			b.errorf(p.Pos, pp, "a phase does one thing: give one of compute, collective and flow, not %d", kinds)
			return
		}
		per := make([]job.Node, len(hosts)) // the node at each rank
		for r := range per {
			per[r] = nd
		}
		switch {
		case p.Compute.Set:
			c := &p.Compute
			switch {
			case c.Duration.Set == c.FLOPs.Set:
				b.errorf(c.Pos, pp+".compute", "a compute phase takes a duration, or flops at a rate (FLOP/s): one of them")
				return
			case c.FLOPs.Set && (!c.Rate.Set || c.Rate.V <= 0):
				b.errorf(c.KeyPos("flops"), pp+".compute.rate", "flops needs a rate, the FLOP/s the ranks compute at (above 0), such as rate: 300e12")
				return
			case c.Rate.Set && !c.FLOPs.Set:
				b.errorf(c.KeyPos("rate"), pp+".compute.rate", "rate goes with flops; with a duration, leave it out")
				return
			}
			for r := range per {
				per[r].Kind, per[r].Duration, per[r].FLOPs, per[r].Rate = job.Compute, c.Duration.V, c.FLOPs.V, c.Rate.V
			}
		case p.Collective.Set:
			if !b.jobCollective(gen, tv, pp+".collective", &p.Collective, g, j, rank, comms, per) {
				return
			}
		case p.Flow.Set:
			f := &p.Flow
			if !f.From.Set || !f.To.Set || !f.Size.Set {
				return
			}
			src, ok1 := b.host(f.From, pp+".flow.from")
			dst, ok2 := b.host(f.To, pp+".flow.to")
			if !ok1 || !ok2 {
				return
			}
			rs, in1 := rank[src]
			rd, in2 := rank[dst]
			switch {
			case !in1 || !in2:
				at := f.From
				if in1 {
					at = f.To
				}
				b.errorf(at.Pos, pp+".flow", "%s is not one of the job's hosts (%s)", scenario.Show(at.V), b.list(hostNames(b, hosts)))
				return
			case rs == rd:
				b.errorf(f.To.Pos, pp+".flow.to", "a flow from %s to itself; from and to are two of the job's hosts", scenario.Show(f.To.V))
				return
			}
			per[rs].Kind, per[rs].Peer, per[rs].Size, per[rs].Tag = job.Send, rd, int64(f.Size.V), int64(i)
			per[rd].Kind, per[rd].Peer, per[rd].Size, per[rd].Tag = job.Recv, rs, int64(f.Size.V), int64(i)
		}
		for r := range per {
			nodes[r] = append(nodes[r], per[r])
		}
	}
	j.Graphs = nodes
	b.countJobSends(j)
	graphs, err := j.Validate(len(hosts))
	if err != nil {
		at := tv.Pos
		var je *job.Error
		if errors.As(err, &je) && je.HasNode && int(je.Node) < len(g.Phases) {
			at = g.Phases[je.Node].KeyPos("after")
		}
		b.errorf(at, path+".phases", "%v", err)
		return
	}
	jb := Job{Job: j, Hosts: hosts, Graphs: graphs, Start: g.Start.V, Generator: gen, Pos: tv.Pos}
	if g.Priority.Set {
		jb.Priority, jb.PrioritySet = uint8(g.Priority.V), true
	}
	if g.Start.Set && g.Start.V >= b.s.Stop.At {
		b.warnf(g.Start.Pos, path+".start", "starts at %s, not before stop.at (%s); it will not run", g.Start.V, b.s.Stop.At)
	}
	b.s.Jobs = append(b.s.Jobs, jb)
}

// jobCollective makes a collective phase's nodes (per, at each rank):
// its communicator's hosts are the phase's hosts: (default the job's),
// which must be the job's; calls of the same hosts and settings share
// one.
func (b *builder) jobCollective(gen int, tv *scenario.TrafficV, path string, c *scenario.PhaseCollectiveS, g *scenario.JobS, j *job.Job, rank map[fabric.NodeID]int, comms map[string]int, per []job.Node) bool {
	if !c.Op.Set || !c.Size.Set {
		return false
	}
	switch {
	case c.Start.Set:
		b.errorf(c.Start.Pos, path+".start", "a phase starts when the phases it comes after are done; give the job's start instead")
		return false
	case c.Priority.Set:
		b.errorf(c.Priority.Pos, path+".priority", "a job's traffic takes the job's priority; give it on the job")
		return false
	}
	cs := c.CommS
	if !cs.Hosts.Set {
		cs.Hosts = g.Hosts
	}
	op, _ := collective.ParseOp(c.Op.V)
	counted := b.memColl // commSpec counts the communicator's connections
	spec, ok := b.commSpec(gen, tv, path, &cs, op)
	if !ok {
		return false
	}
	var ranks []int
	for _, h := range spec.Hosts {
		r, in := rank[h]
		if !in {
			b.errorf(cs.Hosts.Pos, path+".hosts", "%s is not one of the job's hosts; a collective phase runs on the job's hosts or some of them", b.t.Nodes[h].Name)
			return false
		}
		ranks = append(ranks, r)
	}
	call := Collective{CommSpec: spec, Op: op, Size: int64(c.Size.V)}
	b.collectiveSize(&call, c.Size.Pos, path+".size")
	cm := job.Comm{Ranks: ranks, Algorithm: spec.Algorithm, AlgorithmSet: true, Protocol: spec.Protocol, ProtocolSet: spec.ProtocolSet,
		Channels: spec.Channels, QPs: spec.QPs, Chunk: spec.Chunk, NoRailAware: !spec.RailAware, NoPXN: !spec.PXN}
	key := fmt.Sprintf("%v|%d|%d|%t|%d|%d|%d|%t|%t", ranks, cm.Algorithm, cm.Protocol, cm.ProtocolSet, cm.Channels, cm.QPs, cm.Chunk, cm.NoRailAware, cm.NoPXN)
	k, found := comms[key]
	if found {
		b.memColl = counted // a communicator of an earlier phase: counted once
	} else {
		k = len(j.Comms)
		comms[key] = k
		j.Comms = append(j.Comms, cm)
	}
	for _, r := range ranks {
		per[r].Kind, per[r].Op, per[r].Size, per[r].Comm, per[r].Root = job.Collective, op, call.Size, k, spec.Root
	}
	return true
}

func phaseIDs(g *scenario.JobS) []string {
	var s []string
	for _, p := range g.Phases {
		s = append(s, p.ID.V)
	}
	return s
}

func hostNames(b *builder, hosts []fabric.NodeID) []string {
	var s []string
	for _, h := range hosts {
		s = append(s, b.t.Nodes[h].Name)
	}
	return s
}

// jobExpect resolves expect's job keys.
func (b *builder) jobExpect(e *scenario.ExpectS, se *observe.Expect) {
	if jc := &e.JobsCompleted; jc.All || jc.N.Set {
		v := -1
		if jc.N.Set {
			v = int(min(jc.N.V, math.MaxInt32))
		}
		se.JobsCompleted, se.JobsCompletedAt = &v, cite(e.KeyPos("jobs_completed"))
	}
	se.MinIterationTime, se.MinIterationTimeAt = given(e.MinIterationTime.Set, e.MinIterationTime.V, e, "min_iteration_time")
	se.MaxIterationTime, se.MaxIterationTimeAt = given(e.MaxIterationTime.Set, e.MaxIterationTime.V, e, "max_iteration_time")
	se.MinJobSlowdown, se.MinJobSlowdownAt = given(e.MinJobSlowdown.Set, e.MinJobSlowdown.V, e, "min_job_slowdown")
	se.MaxJobSlowdown, se.MaxJobSlowdownAt = given(e.MaxJobSlowdown.Set, e.MaxJobSlowdown.V, e, "max_job_slowdown")
}

// countJobSends counts a job's sends' QP pairs, one each way a pair of
// ranks exchanges messages (assembly's job_p2p.go), as a collective's
// links, in the memory estimate.
func (b *builder) countJobSends(j *job.Job) {
	pairs := map[[2]int]bool{}
	for r := range j.Graphs {
		for _, n := range j.Graphs[r] {
			if n.Kind == job.Send {
				pairs[[2]int{r, n.Peer}] = true
			}
		}
	}
	if len(pairs) > 0 {
		b.countCollective(&CommSpec{QPs: 1}, int64(len(pairs)))
	}
}
