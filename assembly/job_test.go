package assembly

import (
	"testing"

	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/job"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

const star4 = `
topology: {kind: star, hosts: 4, link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 32MiB, pfc: {priorities: [3], xoff: 96KiB, xon: 80KiB, headroom: auto}}
hca: {mtu: 4096, cc: none, priority: 3}
stop: {at: 100ms, when: flows-done}
`

// handJob is compute → all-reduce → compute on every rank, and, after
// the all-reduce, rank 0 sends to rank 1 beside the second compute
// (rank 1's second compute waits for the receive too).
func handJob(ranks int, c1, c2 sim.Time, reduce, p2p int64, iterations int) *job.Job {
	all := make([]int, ranks)
	for i := range all {
		all[i] = i
	}
	j := &job.Job{Name: "hand", Ranks: ranks, Iterations: iterations, Comms: []job.Comm{{Ranks: all}}}
	for r := range ranks {
		g := []job.Node{
			{ID: 1, Name: "fwd", Kind: job.Compute, Duration: c1},
			{ID: 2, Kind: job.Collective, Op: collective.AllReduce, Size: reduce, Deps: []uint64{1}},
			{ID: 3, Name: "bwd", Kind: job.Compute, Duration: c2, Deps: []uint64{2}},
		}
		switch r {
		case 0:
			g = append(g, job.Node{ID: 4, Kind: job.Send, Peer: 1, Size: p2p, Tag: 7, Deps: []uint64{2}})
		case 1:
			g = append(g, job.Node{ID: 4, Kind: job.Recv, Peer: 0, Size: p2p, Tag: 7, Deps: []uint64{2}})
			g[2].Deps = append(g[2].Deps, 4)
		}
		j.Graphs = append(j.Graphs, g)
	}
	return j
}

func addJob(t testing.TB, s *resolve.Scenario, j *job.Job, hosts []fabric.NodeID) {
	t.Helper()
	graphs, err := j.Validate(len(hosts))
	if err != nil {
		t.Fatal(err)
	}
	s.Jobs = append(s.Jobs, resolve.Job{Job: j, Hosts: hosts, Graphs: graphs, Generator: len(s.Jobs)})
}

// TestJobHandBuiltCriticalPath: the iteration of compute (20 µs) →
// all-reduce (1 MiB over 4 ranks) → compute (30 µs), with rank 0
// sending 2 MiB to rank 1 after the all-reduce and rank 1's second
// compute waiting for it, takes its critical path: 20 µs + the
// all-reduce's time (from its last rank's call to its end at rank 0,
// as the simulated call took) + the message
// (2 MiB at the link's goodput plus a hop's delays, computed here) +
// 30 µs, within 1%; every iteration the same.
func TestJobHandBuiltCriticalPath(t *testing.T) {
	const c1, c2 = 20 * sim.Microsecond, 30 * sim.Microsecond
	const reduce, p2p = 1 << 20, 2 << 20
	s := collScenario(t, star4)
	addJob(t, s, handJob(4, c1, c2, reduce, p2p, 2), s.Topology.Hosts())
	files, n := runScenarioFiles(t, s, 1)
	rows := collRows(t, files["collectives.csv"])
	if len(rows) != 2 || rows[0]["status"] != "completed" || rows[1]["status"] != "completed" {
		t.Fatalf("collectives.csv: %v", rows)
	}
	jr := n.jobs[0]
	for it := range 2 {
		// The all-reduce: from its last rank's call to its end at the
		// sender, rank 0 (the simulated call, as collectives.csv times
		// it).
		var call sim.Time
		for _, k := range jr.ranks {
			call = max(call, k.Start[it][1])
		}
		coll := jr.ranks[0].End[it][1] - call
		// The message: 2 MiB of MTU packets at 100 Gb/s on two links
		// (store and forward of one packet at the switch) plus their
		// delays (1 µs each).
		b := goodput(s, 100*fabric.Gbps)
		wire := float64(s.Wire(fabric.OpWriteMiddle, s.HCA.MTU))
		msg := sim.Time((float64(p2p)*8/b+wire*8/100e9)*float64(sim.Second)) + 2*sim.Microsecond
		want := c1 + coll + msg + c2
		got, ok := jr.iterationTime(it)
		if !ok {
			t.Fatalf("iteration %d is not done", it)
		}
		t.Logf("iteration %d: %v, critical path %v", it, got, want)
		if r := float64(got) / float64(want); r < 0.99 || r > 1.01 {
			t.Errorf("iteration %d took %v, the critical path is %v (%.4f×): all-reduce %v, message %v", it, got, want, r, coll, msg)
		}
	}
	assertCollSummary(t, files["summary.json"], 2)
}

// TestJobWorkers: a job over 16 hosts of 4 leaves (a run cut into
// partitions: sends and the all-reduce cross them) writes the same files
// and the same node times at 1 and 2 workers.
func TestJobWorkers(t *testing.T) {
	var runs []map[string][]byte
	var times [][]sim.Time
	for _, w := range []int{1, 2} {
		s := collScenario(t, leafSpine44)
		addJob(t, s, handJob(16, 5*sim.Microsecond, 7*sim.Microsecond, 256<<10, 300<<10, 3), s.Topology.Hosts())
		files, n := runScenarioFiles(t, s, w)
		if w == 2 && n.Group == nil {
			t.Fatal("the run was not cut")
		}
		runs = append(runs, files)
		var ts []sim.Time
		for _, k := range n.jobs[0].ranks {
			if k.iter != 3 {
				t.Fatalf("%d workers: rank %d did %d of 3 iterations", w, k.r, k.iter)
			}
			for it := range 3 {
				ts = append(ts, k.End[it]...)
			}
		}
		times = append(times, ts)
	}
	for name, b := range runs[0] {
		if string(runs[1][name]) != string(b) {
			t.Errorf("%s differs at 1 and 2 workers", name)
		}
	}
	for i := range times[0] {
		if times[0][i] != times[1][i] {
			t.Fatalf("node end %d: %v at 1 worker, %v at 2", i, times[0][i], times[1][i])
		}
	}
}
