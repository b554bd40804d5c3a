package assembly

import (
	"fmt"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// A run on several workers (issue 31): BuildWorkers cuts the network
// into partitions (planPartitions), each node's models schedule on its
// partition's engine of a sim.Group, and frames that cross between
// partitions are handed over at the end of each window of the lookahead
// (the links' smallest delay). A node's events fire in the same order as
// on one engine (sim/group.go), so the run's results do not depend on
// the workers.
//
// What acts across nodes other than through a link is what makes a
// scenario serial for now: serialReason names it, and such a run uses
// one worker and says why (Network.Serial).

// topologyLookahead is the smallest delay of t's links (0 if one has
// none): the window of the hand-over.
func topologyLookahead(t *fabric.Topology) sim.Time {
	look := sim.Never
	for _, l := range t.Links {
		look = min(look, l.Delay)
	}
	if look == sim.Never {
		return 0
	}
	return look
}

// serialReason says why n's scenario cannot be cut by plan, or "" when
// it can.
func (n *Network) serialReason(plan partitionPlan) string {
	s := n.Scenario
	if topologyLookahead(s.Topology) <= 0 {
		return "a link has no delay, so no window is safe to run apart"
	}
	delays := map[sim.Time]bool{} // counted, never iterated
	for _, l := range s.Topology.Links {
		delays[l.Delay] = true
	}
	if len(delays) > sim.MaxLanes {
		return fmt.Sprintf("its links have %d distinct delays, more than the %d the engine keeps arrivals in order for", len(delays), sim.MaxLanes)
	}
	if plan.parts < 2 {
		return "the topology cannot be cut in two"
	}
	if s.Observe.Timeline != nil {
		return "observe.timeline follows one message through every node it crosses, into one record"
	}
	if len(s.Collectives)+len(s.NCCLTests) > 0 {
		// A server's scale-up domain is one object its GPUs' events
		// share (collective.go): they must run on one worker.
		for _, sv := range s.Servers {
			for _, g := range sv.GPUs {
				if plan.part[g] != plan.part[sv.GPUs[0]] {
					return fmt.Sprintf("the cut puts the GPUs of server %s in different partitions, and collectives share its scale-up domain", sv.Name)
				}
			}
		}
	}
	for _, f := range s.Flows {
		// A flow that waits for others starts its responder's side a
		// lookahead later, at the responder's host (responderResv),
		// unless it is a READ: its responder sends the data, and runs
		// its congestion control (no generator makes one).
		if len(f.After) > 0 && f.Op == "read" {
			return "what acts across partitions other than through links runs on one worker so far: READ flows that wait for others"
		}
	}
	return ""
}

// Workers says how a run asked for workers goroutines is spread over
// them, for the console: how many partitions run, and why not as many
// as workers (or, when it stays on one, Serial's reason). "" when one
// worker was asked for.
func (n *Network) Workers(workers int) string {
	switch {
	case workers <= 1:
		return ""
	case n.Serial != "":
		return "on one worker: " + n.Serial
	case n.plan.parts < workers:
		return fmt.Sprintf("%d partitions on %d of %d workers: the topology cuts into no more (a switch keeps its hosts, and switches that meet only through the top tier stay together)",
			n.plan.parts, n.plan.parts, workers)
	}
	return fmt.Sprintf("%d partitions, one per worker", n.plan.parts)
}
