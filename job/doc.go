// Package job is a training job as a graph: each rank's nodes (compute,
// collectives, point-to-point sends and receives) and the dependencies
// between them, repeated for a number of iterations. It is pure data and
// its checks: the scenario's job: generator (package resolve) and a
// Chakra execution trace are each turned into a Job, and the runner
// (assembly's job*.go) runs one. (A flow trace, trace:, is flows, not a
// job.)
//
// A Job is per rank, as a Chakra trace is (a file per rank): rank r's
// Graphs[r] lists its nodes, each naming the nodes of the same rank it
// waits for (Deps, by ID). What ties the ranks together is the
// communication: the k-th collective node of a communicator (Comm) in a
// rank's order (Order: a topological order, ties by list position) is
// the same call at every rank of the communicator, and the k-th Send
// from rank a to rank b with tag t is received by the k-th Recv at b
// from a with tag t. Validate holds all of that, and names the rank and
// node of what it refuses.
//
// The call order is static: a rank's node list order (after its
// dependencies) decides which of its collective nodes is call k, not
// when the nodes become ready, and a rank makes its calls on a
// communicator one after the other. A runtime that issues calls as they
// become ready (NCCL under PyTorch, ASTRA-sim replaying a Chakra trace
// of data dependencies only) may run a job that this order deadlocks;
// Validate refuses such a job, with every rank waiting in a loop across
// ranks (dependencies, sends to their receives, calls and their order),
// and says to reorder the nodes or add a dependency.
//
// Iterations: a rank's iteration i+1 starts when its iteration i is
// done (all its nodes are); nothing else waits across iterations. The
// ranks of a job line up through their collectives and receives.
//
// It imports only sim (times) and collective (operations and
// algorithms): no scenario file, no HCA, no I/O. assembly, resolve and
// the trace readers import it; it must not import them.
package job
