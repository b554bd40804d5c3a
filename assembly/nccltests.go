package assembly

import (
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/collective"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// nccl_tests: an nccl-tests program (all_reduce_perf, ...) on its
// communicator, as nccl-tests' TimeTest and BenchTime run it
// (src/common.cu): a warm-up (warmup_iters calls of every size from
// minbytes to maxbytes, doubling), then for each size, out of place and
// then in place, one call to synchronise, a barrier, and iters timed
// calls, each rank timing from the barrier to its last call's end; the
// time is that over iters, averaged over the ranks (nccl-tests'
// default, -a 1). Each call starts on a rank when its previous one is
// done (one CUDA stream). Its data check (-c 1: one more call per
// timed batch, and a barrier) moves no data lfsim could check: it is
// not run, and the table says N/A. The barrier is released at the
// observation point after the last rank reaches it (within one
// lookahead, the links' smallest delay; at once on a network without
// one), the same for every worker count.

// ncclRun is an nccl_tests program during a run.
type ncclRun struct {
	t     *resolve.NCCLTest
	run   *commRun
	sizes []ncclSize
	// gated are the calls (indices) that wait at a barrier for every
	// rank's call before them; next is the next to release.
	gated []int
	next  int
	// arrived counts, by partition, the ranks that have reached the
	// barrier of gated[next].
	arrived []int
}

// ncclSize is one line of the table: a size and where its timed calls
// are (indices of the first, out of place and in place).
type ncclSize struct {
	size        collective.TestSize
	oop, inPlac int
}

// buildNCCLTests makes an nccl_tests program's communicator and calls.
func (n *Network) buildNCCLTests(t *resolve.NCCLTest) error {
	run, err := n.newCommRun(&t.CommSpec)
	if err != nil {
		return err
	}
	nr := &ncclRun{t: t, run: run, arrived: make([]int, len(n.parts))}
	run.nccl = nr
	nranks := len(t.Hosts)
	call := func(size int64, iteration int) error {
		ts := collective.NCCLTestSize(t.Op, size, nranks)
		return n.queueCall(run, t.Generator, collective.Spec{Op: t.Op, Size: ts.Bytes, Root: t.Root, Chunk: t.Chunk}, t.Start, iteration)
	}
	for size := t.MinBytes; size <= t.MaxBytes; size *= 2 {
		for it := 0; it < t.WarmupIters; it++ {
			if err := call(size, it); err != nil {
				return err
			}
		}
		if size == 0 {
			// nccl-tests doubles 0 forever here (src/common.cu's
			// warm-up); resolve warns of it, and 0 is warmed up once.
			break
		}
	}
	for _, size := range t.Sizes() {
		s := ncclSize{size: collective.NCCLTestSize(t.Op, size, nranks)}
		for place := range 2 {
			if err := call(size, 0); err != nil { // the call that synchronises
				return err
			}
			first := len(run.rows)
			nr.gated = append(nr.gated, first)
			for it := 0; it < t.Iters; it++ {
				if err := call(size, it); err != nil {
					return err
				}
			}
			if place == 0 {
				s.oop = first
			} else {
				s.inPlac = first
			}
		}
		nr.sizes = append(nr.sizes, s)
	}
	for _, i := range nr.gated {
		for _, r := range run.ranks {
			r.Calls()[i].Gate++
		}
	}
	n.colls = append(n.colls, run)
	n.nccls = append(n.nccls, nr)
	return nil
}

// ncclCallDone is a rank's call of an nccl_tests program done: if the
// rank's next call waits at the barrier, the rank has reached it.
func (n *Network) ncclCallDone(e *collEnd, c *collective.Call) {
	nr := e.run.nccl
	if nr.next >= len(nr.gated) || c.Tag+1 != nr.gated[nr.next] {
		return
	}
	if !n.windowed {
		nr.arrived[0]++
		if nr.arrived[0] == len(nr.run.ranks) {
			n.releaseBarrier(nr, e.h.Engine().Now())
		}
		return
	}
	nr.arrived[n.Fabric.Partition(e.h.ID)]++
}

// releaseBarriers is an observation point's look at the nccl_tests
// programs' barriers: one every rank has reached is released at t.
func (n *Network) releaseBarriers(t sim.Time) {
	for _, nr := range n.nccls {
		total := 0
		for _, k := range nr.arrived {
			total += k
		}
		if nr.next < len(nr.gated) && total == len(nr.run.ranks) {
			n.releaseBarrier(nr, t)
		}
	}
}

// releaseBarrier opens the barrier of gated[next] on every rank at t.
func (n *Network) releaseBarrier(nr *ncclRun, t sim.Time) {
	clear(nr.arrived)
	i := nr.gated[nr.next]
	nr.next++
	for _, r := range nr.run.ranks {
		r.Calls()[i].Gate--
		r.KickAt(t)
	}
}

// ncclTestsReport is nccl_tests.txt: each program's output in traffic
// order, under a line naming it.
func (n *Network) ncclTestsReport() []byte {
	var b strings.Builder
	for i, nr := range n.nccls {
		if i > 0 {
			b.WriteString("\n")
		}
		t := nr.t
		step := fmt.Sprintf("-i %d", t.StepBytes)
		if t.StepFactor > 1 {
			step = fmt.Sprintf("-f %d", t.StepFactor)
		}
		fmt.Fprintf(&b, "# traffic[%d] nccl_tests on %d ranks: %s -b %d -e %d %s -n %d -w %d -c 0 (%s, %d channels)\n", t.Generator, len(t.Hosts),
			collective.ProgramName(t.Op), t.MinBytes, t.MaxBytes, step, t.Iters, t.WarmupIters, nr.run.comm.Opt.Algorithm, nr.run.comm.Opt.Channels)
		var hosts []string
		for _, h := range t.Hosts {
			hosts = append(hosts, n.Scenario.Topology.Nodes[h].Name)
		}
		var rows []collective.TestResult
		for _, s := range nr.sizes {
			oop, ok1 := nr.time(s.oop)
			ip, ok2 := nr.time(s.inPlac)
			if !ok1 || !ok2 {
				break
			}
			rows = append(rows, collective.TestResult{Size: s.size, OutOfPlace: oop, InPlace: ip})
		}
		b.WriteString(collective.NCCLTestsReport(collective.TestHeader{Op: t.Op, Ranks: len(t.Hosts), Hosts: hosts,
			MinBytes: t.MinBytes, MaxBytes: t.MaxBytes, StepFactor: t.StepFactor, StepBytes: t.StepBytes,
			Iters: t.Iters, WarmupIters: t.WarmupIters, Root: t.Root}, rows))
		if len(rows) < len(nr.sizes) {
			fmt.Fprintf(&b, "# incomplete: %d of %d sizes done when the run stopped\n", len(rows), len(nr.sizes))
		}
	}
	return []byte(b.String())
}

// time is the time per call of the timed calls from call first: each
// rank's, from its first's start (the barrier's release) to its last's
// end, over iters, averaged over the ranks; false if a rank has not
// finished them.
func (nr *ncclRun) time(first int) (float64, bool) {
	last := first + nr.t.Iters - 1
	var sum float64
	for _, r := range nr.run.ranks {
		c := r.Calls()
		if !c[last].Done {
			return 0, false
		}
		sum += (c[last].End - c[first].Started).Seconds() / float64(nr.t.Iters)
	}
	return sum / float64(len(nr.run.ranks)), true
}
