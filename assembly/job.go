package assembly

import (
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/job"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// Jobs (issue 49): a training job (package job) runs as a state machine
// per rank on its host's engine. A node is released when its
// dependencies are done: a compute node is a timer of the rank's; a
// collective node opens its call on the communicator's rank (the
// collectives' runner, collective.go), and is done when the call is; a
// send posts an RDMA WRITE with immediate on the QP the job keeps from
// the rank to its peer (job_p2p.go), done when it completes; a receive
// is done when its dependencies are and the matching WRITE has landed.
// A rank's iteration i+1 starts when its iteration i is done. Every
// state change of rank r happens in an event of r's host (its timers,
// its HCA's completions, its calls' ends), so a run cut into partitions
// needs nothing more.

// jobRun is a job during a run.
type jobRun struct {
	spec   *resolve.Job
	j      *job.Job
	graphs []*job.Graph
	ranks  []*jobRank
	// colls are its communicators' runs (one per communicator and
	// algorithm), in the order made.
	colls []*commRun
	links []*p2pLink // job_p2p.go
}

// jobRank is one rank of a job: the state of its current iteration and
// the record of every node's start and end.
type jobRank struct {
	n    *Network
	run  *jobRun
	r    int
	h    *hca.HCA
	eng  *sim.Engine
	deps [][]int32 // the rank's graph's
	succ [][]int32
	// iter is the iteration running (Iterations once done), begun the
	// iterations begun; left counts its nodes not done, pending each
	// node's dependencies not done.
	iter    int
	begun   int
	left    int
	pending []int32
	// failure is the first of the rank's send work requests that
	// failed: the rank's own, as each rank's state is touched only from
	// its host's events (a run cut into partitions).
	failure string
	// calls[it][i] is collective node i's call in iteration it; nil
	// for the other nodes.
	calls [][]*collective.Call
	// collRank[i] is the collective rank that runs collective node i's
	// calls.
	collRank []*collective.Rank
	// Receives: ready says node i's dependencies are done in the
	// current iteration; landed holds (iteration, node) of the receives
	// whose data has arrived before they were ready (it·len(nodes)+i).
	ready   []bool
	arrived map[int64]bool
	// finished says node i is done in the current iteration.
	finished []bool
	// Sends: sendOf[i] is send node i's link and message (-1: not a
	// send); chunks[i] the work requests of it still to complete.
	sendOf []p2pRef
	chunks []int32
	cq     *hca.CQ
	wcs    [16]hca.WC
	// Start and End are node i's in iteration it: Start[it][i] when it
	// began (a collective: when the rank made the call), End[it][i]
	// when it was done; Begin[it] and Finish[it] the iteration's.
	Start, End    [][]sim.Time
	Begin, Finish []sim.Time
}

// Event kinds of a jobRank's timers.
const (
	evJobBegin int32 = iota + 1
	evJobCompute
)

// buildJobs makes every job's ranks, communicators and point-to-point
// QPs, and schedules their first iterations.
func (n *Network) buildJobs() error {
	for i := range n.Scenario.Jobs {
		if err := n.buildJob(&n.Scenario.Jobs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (n *Network) buildJob(spec *resolve.Job) error {
	j := spec.Job
	graphs := spec.Graphs
	if graphs == nil {
		var err error
		if graphs, err = j.Validate(len(spec.Hosts)); err != nil {
			return fmt.Errorf("%s: %v", jobWhere(spec), err)
		}
	}
	jr := &jobRun{spec: spec, j: j, graphs: graphs}
	rankOf := map[fabric.NodeID]int{}
	for r, h := range spec.Hosts {
		if q, dup := rankOf[h]; dup {
			return fmt.Errorf("%s: %s is rank %d and rank %d of job %s; a job's ranks are on hosts of their own", jobWhere(spec), n.Scenario.Topology.Nodes[h].Name, q, r, j.Name)
		}
		rankOf[h] = r
	}
	for r, h := range spec.Hosts {
		nodes := len(j.Graphs[r])
		k := &jobRank{n: n, run: jr, r: r, h: n.HCAs[h], deps: graphs[r].Deps, succ: graphs[r].Succ,
			pending: make([]int32, nodes), ready: make([]bool, nodes), finished: make([]bool, nodes), arrived: map[int64]bool{},
			sendOf: make([]p2pRef, nodes), chunks: make([]int32, nodes), collRank: make([]*collective.Rank, nodes)}
		if k.h == nil {
			return fmt.Errorf("%s: job %s: rank %d's %s is not a host", jobWhere(spec), j.Name, r, n.Scenario.Topology.Nodes[h].Name)
		}
		k.eng = k.h.Engine()
		for i := range k.sendOf {
			k.sendOf[i] = p2pRef{link: -1}
		}
		k.calls = make([][]*collective.Call, j.Iterations)
		k.Start, k.End = make([][]sim.Time, j.Iterations), make([][]sim.Time, j.Iterations)
		for it := range j.Iterations {
			k.calls[it] = make([]*collective.Call, nodes)
			k.Start[it], k.End[it] = make([]sim.Time, nodes), make([]sim.Time, nodes)
		}
		k.Begin, k.Finish = make([]sim.Time, j.Iterations), make([]sim.Time, j.Iterations)
		jr.ranks = append(jr.ranks, k)
	}
	for c := range j.Comms {
		if err := n.jobComm(jr, c); err != nil {
			return err
		}
	}
	if err := n.jobP2P(jr); err != nil {
		return err
	}
	for _, k := range jr.ranks {
		k.eng.Schedule(spec.Start, k, evJobBegin, 0, nil)
		n.jobIters += j.Iterations
	}
	n.jobs = append(n.jobs, jr)
	return nil
}

// jobComm makes communicator c's runs (one per algorithm its calls
// use) and queues its calls, every iteration's, each closed (Gate 1)
// until its node is released.
func (n *Network) jobComm(jr *jobRun, c int) error {
	j, spec := jr.j, jr.spec
	cm := &j.Comms[c]
	algo := func(op collective.Op) collective.Algorithm {
		if cm.AlgorithmSet {
			return cm.Algorithm
		}
		return collective.DefaultAlgorithm(op)
	}
	// The calls, in the order of the communicator's first rank (the
	// others make the same: job.Validate).
	r0 := cm.Ranks[0]
	first := j.Collectives(jr.graphs[r0], r0, c)
	if len(first) == 0 {
		return nil
	}
	runs := map[collective.Algorithm]*commRun{}
	var order []collective.Algorithm
	for _, i := range first {
		a := algo(j.Graphs[r0][i].Op)
		if runs[a] != nil {
			continue
		}
		cs := &resolve.CommSpec{Algorithm: a, Protocol: cm.Protocol, ProtocolSet: cm.ProtocolSet, Channels: cm.Channels, QPs: cm.QPs,
			Chunk: cm.Chunk, RailAware: !cm.NoRailAware, PXN: !cm.NoPXN, Start: spec.Start, Priority: spec.Priority,
			PrioritySet: spec.PrioritySet, Generator: spec.Generator, Pos: spec.Pos}
		if cs.Channels == 0 {
			cs.Channels = 2
		}
		if cs.QPs == 0 {
			cs.QPs = 1
		}
		for _, r := range cm.Ranks {
			cs.Hosts = append(cs.Hosts, spec.Hosts[r])
		}
		run, err := n.newCommRun(cs)
		if err != nil {
			return jobErr(spec, fmt.Sprintf("job %s, %s", j.Name, j.CommName(c)), err)
		}
		run.job, run.jobRanks = jr, cm.Ranks
		run.jobNodes = make([][]int32, len(cm.Ranks))
		runs[a] = run
		order = append(order, a)
	}
	for it := range j.Iterations {
		for _, i := range first {
			nd := &j.Graphs[r0][i]
			run := runs[algo(nd.Op)]
			size := collective.CallSize(nd.Op, nd.Size, len(cm.Ranks))
			if err := n.queueCall(run, spec.Generator, collective.Spec{Op: nd.Op, Size: size, Root: nd.Root, Chunk: cm.Chunk}, spec.Start, it); err != nil {
				return jobErr(spec, fmt.Sprintf("job %s, %s, rank %d's node %d (%s)", j.Name, j.CommName(c), r0, nd.ID, nd.Label()), err)
			}
		}
	}
	// A rank's calls on the communicator run one after the other, as
	// one CUDA stream runs NCCL's kernels: a call of another run (another
	// algorithm) than the rank's previous call waits for its end (gate);
	// calls of one run wait in its queue.
	for p, r := range cm.Ranks {
		nodes := j.Collectives(jr.graphs[r], r, c)
		k := jr.ranks[r]
		seen := map[collective.Algorithm]int{}
		var prev *collective.Call
		var prevRun *commRun
		for it := range j.Iterations {
			for _, i := range nodes {
				a := algo(j.Graphs[r][i].Op)
				run := runs[a]
				call := run.ranks[p].Calls()[seen[a]]
				seen[a]++
				call.Gate = 1
				if prev != nil && prevRun != run {
					n.gate(prev, call, run.ranks[p])
				}
				prev, prevRun = call, run
				k.calls[it][i] = call
				k.collRank[i] = run.ranks[p]
				run.jobNodes[p] = append(run.jobNodes[p], i)
			}
		}
	}
	for _, a := range order {
		jr.colls = append(jr.colls, runs[a])
		n.colls = append(n.colls, runs[a])
	}
	return nil
}

// jobWhere is where a job's errors are: its traffic entry's place in
// the scenario file (when it has one) and its index.
func jobWhere(spec *resolve.Job) string {
	if spec.Pos.File == "" {
		return fmt.Sprintf("traffic[%d]", spec.Generator)
	}
	return fmt.Sprintf("%s: traffic[%d]", spec.Pos, spec.Generator)
}

// jobErr is err, from the collectives' runner (which prefixes
// "traffic[g]: "), put at the job's place with what of it failed.
func jobErr(spec *resolve.Job, what string, err error) error {
	msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("traffic[%d]: ", spec.Generator))
	return fmt.Errorf("%s: %s: %s", jobWhere(spec), what, msg)
}

// HandleEvent is the rank's timers: its first iteration's start, and a
// compute node's end.
func (k *jobRank) HandleEvent(ev *sim.Event) {
	switch ev.Kind {
	case evJobBegin:
		k.begin()
	case evJobCompute:
		k.done(int32(ev.N))
	}
}

// begin starts the rank's iteration k.iter: its nodes without
// dependencies are released.
func (k *jobRank) begin() {
	now := k.eng.Now()
	k.Begin[k.iter] = now
	k.begun = k.iter + 1
	k.left = len(k.deps)
	for i := range k.deps {
		k.pending[i] = int32(len(k.deps[i]))
		k.ready[i] = false
		k.finished[i] = false
	}
	if k.left == 0 {
		k.finish()
		return
	}
	for i := range k.deps {
		if len(k.deps[i]) == 0 {
			k.release(int32(i))
		}
	}
}

// release starts node i, its dependencies done.
func (k *jobRank) release(i int32) {
	now := k.eng.Now()
	it := k.iter
	k.Start[it][i] = now
	nd := &k.run.j.Graphs[k.r][i]
	switch nd.Kind {
	case job.Compute:
		if d := nd.ComputeTime(); d > 0 {
			k.eng.After(d, k, evJobCompute, int64(i), nil)
			return
		}
		k.done(i)
	case job.Collective:
		c := k.calls[it][i]
		c.Gate--
		k.collRank[i].Kick()
	case job.Send:
		k.send(i)
	case job.Recv:
		k.ready[i] = true
		if k.arrived[k.key(i)] {
			delete(k.arrived, k.key(i))
			k.done(i)
		}
	default:
		k.done(i)
	}
}

// key names node i of the current iteration in landed.
func (k *jobRank) key(i int32) int64 { return int64(k.iter)*int64(len(k.deps)) + int64(i) }

// done ends node i of the current iteration: its dependents whose
// dependencies are all done are released, and the iteration ends with
// its last node.
func (k *jobRank) done(i int32) {
	it := k.iter
	k.End[it][i] = k.eng.Now()
	k.finished[i] = true
	if c := k.calls[it][i]; c != nil && c.Began {
		k.Start[it][i] = max(k.Start[it][i], c.Started)
	}
	k.left--
	for _, s := range k.succ[i] {
		if k.pending[s]--; k.pending[s] == 0 {
			k.release(s)
		}
	}
	if k.left == 0 && k.iter == it {
		k.finish()
	}
}

// finish ends the rank's iteration, and starts its next.
func (k *jobRank) finish() {
	k.Finish[k.iter] = k.eng.Now()
	k.iter++
	k.n.part(k.h.ID).jobIters++
	k.n.poll(k.h.ID)
	if k.iter < k.run.j.Iterations {
		k.begin()
	}
}

// jobCallDone is a job's collective call done at a rank: its node is.
func (n *Network) jobCallDone(e *collEnd, c *collective.Call) {
	run := e.run
	p := e.rank.ID
	k := run.job.ranks[run.jobRanks[p]]
	k.done(run.jobNodes[p][c.Tag])
}

// jobsDone reports whether every rank of every job has finished every
// iteration.
func (n *Network) jobsDone() bool {
	done := 0
	for i := range n.parts {
		done += n.parts[i].jobIters
	}
	return done == n.jobIters
}

// iterationTime is iteration it's time for the job: from the end of the
// previous iteration at its last rank (the job's start for the first)
// to its end at its last rank; false if a rank has not finished it.
func (jr *jobRun) iterationTime(it int) (sim.Time, bool) {
	var from, to sim.Time
	if it == 0 {
		from = jr.spec.Start
	}
	for _, k := range jr.ranks {
		if k.iter <= it {
			return 0, false
		}
		if it > 0 {
			from = max(from, k.Finish[it-1])
		}
		to = max(to, k.Finish[it])
	}
	return to - from, true
}
