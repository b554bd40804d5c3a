package scenario

// The schema of the training jobs (job:) and flow traces (trace:),
// two items of traffic: (schema_traffic.go's generators).

// JobS is a training job: its phases run on every rank (hosts, a rank
// each, in rank order), each when the phases it comes after are done on
// that rank, iterations times (a rank's next iteration starts when its
// last is done).
type JobS struct {
	meta
	// Name names it in the outputs (default job<traffic index>).
	Name  StrV      `yaml:"name"`
	Hosts NameListV `yaml:"hosts"`
	// Priority is its QPs' priority (default the hosts' HCA's).
	Priority   IntV     `yaml:"priority" min:"0" max:"7"`
	Iterations IntV     `yaml:"iterations" min:"1" max:"100000"`
	Start      TimeV    `yaml:"start"`
	Phases     []PhaseS `yaml:"phases" required:""`
}

// PhaseS is one phase of a job: an id, the phases it comes after, and
// what it does, one of compute, collective and flow.
type PhaseS struct {
	meta
	ID         StrV             `yaml:"id" required:""`
	After      []StrV           `yaml:"after"`
	Compute    PhaseComputeS    `yaml:"compute"`
	Collective PhaseCollectiveS `yaml:"collective"`
	Flow       PhaseFlowS       `yaml:"flow"`
}

// PhaseComputeS is a phase of compute on every rank: a duration, or
// flops at rate (floating-point operations, and FLOP/s).
type PhaseComputeS struct {
	meta
	Duration TimeV `yaml:"duration"`
	FLOPs    numV  `yaml:"flops" min:"0"`
	Rate     numV  `yaml:"rate" min:"0"`
}

// PhaseCollectiveS is a collective call: on the job's ranks, or on
// hosts:, a subset of them (a process group). Calls with the same hosts
// and settings share a communicator, and run on it one after another.
type PhaseCollectiveS struct {
	meta
	Op   StrV  `yaml:"op" required:"" enum:"all_reduce|reduce_scatter|all_gather|all_to_all|broadcast|reduce"`
	Size SizeV `yaml:"size" required:""`
	CommS
}

// PhaseFlowS is a message from one of the job's hosts to another: a
// send on from, a receive on to (the ranks not in it are done with the
// phase at once).
type PhaseFlowS struct {
	meta
	From StrV  `yaml:"from" required:""`
	To   StrV  `yaml:"to" required:""`
	Size SizeV `yaml:"size" required:"" min:"1"`
}

// FlowTraceS is a flow trace: a CSV file of flows, one a row (start,
// from, to, size; optional op, qp, priority, after, id). The generator's
// qp, op and priority are the rows' defaults; its start is added to
// every row's.
type FlowTraceS struct {
	meta
	File StrV `yaml:"file" required:""`
	GenCommon
}
