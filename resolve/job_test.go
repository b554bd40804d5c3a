package resolve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/job"
	"github.com/lfsim/lfsim/sim"
)

const jobTopo = "topology: {kind: star, hosts: 4, link: {rate: 100Gbps, delay: 1us}}\n"

// TestJobResolves: a job's phases become the same nodes on every rank,
// a collective over a subset its communicator, a flow a send and a
// receive (nothing elsewhere), and calls of the same hosts and
// settings share a communicator.
func TestJobResolves(t *testing.T) {
	s, err := Parse("t.yaml", []byte(jobTopo+`traffic:
  - job:
      name: a
      hosts: [h0, h1, h2]
      iterations: 4
      priority: 5
      start: 3us
      phases:
        - {id: fwd, compute: {flops: 2e9, rate: 1e12}}
        - {id: ar, after: [fwd], collective: {op: all_reduce, size: 1MiB}}
        - {id: pg, after: [fwd], collective: {op: all_gather, size: 3KiB, hosts: [h2, h0]}}
        - {id: ar2, after: [ar], collective: {op: all_reduce, size: 2MiB}}
        - {id: p2p, after: [ar], flow: {from: h2, to: h1, size: 1KiB}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Jobs) != 1 {
		t.Fatalf("%d jobs", len(s.Jobs))
	}
	jb := s.Jobs[0]
	j := jb.Job
	if j.Name != "a" || j.Ranks != 3 || j.Iterations != 4 || jb.Priority != 5 || !jb.PrioritySet || jb.Start != 3*sim.Microsecond {
		t.Errorf("job %+v", jb)
	}
	if len(j.Comms) != 2 || len(j.Comms[0].Ranks) != 3 || j.Comms[1].Ranks[0] != 2 || j.Comms[1].Ranks[1] != 0 {
		t.Errorf("communicators %+v", j.Comms)
	}
	want := [][]job.Kind{
		{job.Compute, job.Collective, job.Collective, job.Collective, job.None},
		{job.Compute, job.Collective, job.None, job.Collective, job.Recv},
		{job.Compute, job.Collective, job.Collective, job.Collective, job.Send},
	}
	for r, g := range j.Graphs {
		for i, n := range g {
			if n.Kind != want[r][i] {
				t.Errorf("rank %d phase %d is %v, want %v", r, i, n.Kind, want[r][i])
			}
		}
	}
	if d := j.Graphs[0][0].ComputeTime(); d != 2*sim.Millisecond {
		t.Errorf("2e9 FLOPs at 1e12 FLOP/s: %v", d)
	}
}

// TestJobErrors: a job's refusals, at the key and naming what was
// expected.
func TestJobErrors(t *testing.T) {
	for _, c := range []struct{ name, traffic, want string }{
		{"cycle", `  - job: {phases: [{id: a, after: [b], compute: {duration: 1us}}, {id: b, after: [a], compute: {duration: 1us}}]}`,
			"t.yaml:3:75: traffic[0].job.phases: job job0: rank 0: node 1 (b): a dependency cycle: 1 (b) -> 0 (a) -> 1 (b)"},
		{"unknown after", `  - job: {phases: [{id: a, after: [fwd], compute: {duration: 1us}}]}`,
			"t.yaml:3:36: traffic[0].job.phases[0].after: unknown phase fwd; after lists the ids of the job's phases (a)"},
		{"two kinds", `  - job: {phases: [{id: a, compute: {duration: 1us}, flow: {from: h0, to: h1, size: 1}}]}`,
			"traffic[0].job.phases[0]: a phase does one thing: give one of compute, collective and flow, not 2"},
		{"no kind", `  - job: {phases: [{id: a}]}`, "a phase does one thing: give one of compute, collective and flow, not 0"},
		{"duplicate id", `  - job: {phases: [{id: a, compute: {duration: 1us}}, {id: a, compute: {duration: 1us}}]}`,
			"traffic[0].job.phases[1].id: phase id a is already phase 0's"},
		{"flops without rate", `  - job: {phases: [{id: a, compute: {flops: 1e9}}]}`, "flops needs a rate"},
		{"flow outside", `  - job: {hosts: [h0, h1], phases: [{id: a, flow: {from: h0, to: h3, size: 1}}]}`,
			"traffic[0].job.phases[0].flow: h3 is not one of the job's hosts (h0, h1)"},
		{"flow to itself", `  - job: {phases: [{id: a, flow: {from: h0, to: h0, size: 1}}]}`, "a flow from h0 to itself"},
		{"collective outside", `  - job: {hosts: [h0, h1], phases: [{id: a, collective: {op: all_reduce, size: 1MiB, hosts: [h0, h2]}}]}`,
			"h2 is not one of the job's hosts"},
		{"collective start", `  - job: {phases: [{id: a, collective: {op: all_reduce, size: 1MiB, start: 1us}}]}`,
			"traffic[0].job.phases[0].collective.start: a phase starts when the phases it comes after are done"},
		{"no phases", `  - job: {phases: []}`, "a job needs at least one phase"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(jobTopo+"traffic:\n"+c.traffic+"\n"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant %q", err, c.want)
			}
		})
	}
}

// TestFlowTrace: a flow trace's rows become flows in row order (start
// after the generator's, after as flow ids), and its errors name the
// file's line and column.
func TestFlowTrace(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("f.csv", "start,from,to,size,op,priority,after,id\n0,h0,h1,1MiB,,,,5\n2us,h1,h2,4KiB,send,1,5,\n")
	s, err := Load(write("t.yaml", jobTopo+"traffic:\n  - trace: {file: f.csv, start: 1us, priority: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Flows) != 2 {
		t.Fatalf("%d flows", len(s.Flows))
	}
	f0, f1 := s.Flows[0], s.Flows[1]
	if f0.Start != sim.Microsecond || f0.Size != 1<<20 || f0.Op != "write" || f0.Priority != 2 ||
		f1.Start != 3*sim.Microsecond || f1.Op != "send" || f1.Priority != 1 || len(f1.After) != 1 || f1.After[0] != 0 {
		t.Errorf("flows %+v %+v", f0, f1)
	}
	for _, c := range []struct{ name, csv, want string }{
		{"host", "start,from,to,size\n0,h0,h9,1\n", "traffic[0].trace.file: b.csv:2:6: to is h9, not a host; hosts are h0..h3"},
		{"after not into source", "start,from,to,size,after\n0,h0,h1,1,\n0,h2,h3,1,0\n", "b.csv:3:11: after names flow 0, which goes to h1, not to h2"},
		{"syntax", "start,from,to\n", "b.csv:1: the header has no size column"},
		// Each row's size and qp/op are checked at the row, not at the
		// first of the rows of the same qp and op, nor at the YAML.
		{"atomic size", "start,from,to,size,op\n0,h0,h1,8,atomic\n0,h0,h1,4096,atomic\n", "b.csv:3:9: an atomic is 8 bytes, not 4KiB"},
		{"ud size", "start,from,to,size,op,qp\n0,h0,h1,1,,\n0,h0,h1,1,,\n0,h0,h1,1MiB,send,ud\n", "b.csv:4:9: a UD message is at most one MTU (4096 bytes), not 1048576 bytes"},
		{"uc read", "start,from,to,size,op,qp\n0,h0,h1,1,,\n0,h0,h1,1,,\n0,h0,h1,1,read,uc\n", "b.csv:4:11: UC has no read"},
		// Each start is within the clock, their sum is not (it wrapped
		// negative, and the run panicked on an event in the past).
		{"start overflow", "start,from,to,size\n0,h0,h1,1\n5000000s,h0,h1,1\n", "b.csv:3:1: start 5000000s after the generator's start 5000000s is beyond the simulator's clock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			write("b.csv", c.csv)
			_, err := Load(write("b.yaml", jobTopo+"stop: {at: 9000000s}\ntraffic:\n  - trace: {file: b.csv, start: 5000000s}\n"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant %q", err, c.want)
			}
		})
	}
}

// TestJobMemoryCountsCommunicatorsOnce: a job's collective phases on one
// communicator count its connections once in the memory estimate (as
// one collective generator's), and its flows one link each.
func TestJobMemoryCountsCommunicatorsOnce(t *testing.T) {
	estimate := func(phases string) int64 {
		s, err := Parse("t.yaml", []byte(jobTopo+"traffic:\n  - job: {phases: ["+phases+"]}\n"))
		if err != nil {
			t.Fatal(err)
		}
		return s.MemoryEstimate
	}
	one := estimate("{id: a, collective: {op: all_reduce, size: 1MiB}}")
	three := estimate("{id: a, collective: {op: all_reduce, size: 1MiB}}, {id: b, after: [a], collective: {op: all_reduce, size: 2MiB}}, {id: c, after: [b], collective: {op: all_reduce, size: 1MiB}}")
	if one != three {
		t.Errorf("one call %d bytes, three on the same communicator %d", one, three)
	}
	flow := estimate("{id: a, collective: {op: all_reduce, size: 1MiB}}, {id: f, flow: {from: h0, to: h1, size: 1KiB}}")
	// A link of two QPs (3,680 bytes) and the garbage the estimate
	// adds to what a run holds.
	if d := flow - one; d < memCollLink+2*memCollQP || d > 2*(memCollLink+2*memCollQP) {
		t.Errorf("a flow adds %d bytes, want a link of two QPs (%d) and its garbage", d, memCollLink+2*memCollQP)
	}
}
