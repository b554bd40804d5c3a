// Package assembly builds a resolved scenario (package resolve) into a
// runnable network and runs it.
//
// Build makes a resolve.Scenario a Network: the engine, a model per node
// (swtch, hca, congestion), the flows' QPs and work requests, the faults
// scheduled. Network.Run runs it to its stop condition with the observers
// switched on (package observe) and returns what a run writes
// (reports.Results).
//
// The files, by concern: assemble.go (Build), network.go (the Network
// and its records), flows.go (a flow's QPs, path and congestion control),
// connect.go (flows with connect: cm), dynamic.go (flows that start and
// end while it runs), faults.go (faults at run time), events.go (the
// asynchronous events), run.go (Run, and the summary it collects),
// drive.go (the observation points a run shares), partition.go and
// parallel.go (a run cut into partitions, and what keeps one on one
// worker), conservation.go (every byte accounted for), and job.go, job_p2p.go
// and job_report.go (training jobs: package job's graphs run rank by
// rank over the collectives and point-to-point QPs).
//
// assembly may import resolve, the observers (observe), the programs,
// the models (sim, fabric, swtch, hca, congestion) and reports. It does
// not read the scenario format (scenario): what it builds is what
// resolve resolved. It must not import sweep or cmd; the models,
// observers and resolve must not import it.
package assembly
