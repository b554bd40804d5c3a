package resolve

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/job"
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
