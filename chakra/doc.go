// Package chakra reads MLCommons Chakra execution traces (ET), as
// ASTRA-sim and PyTorch's profiler (through Chakra's converter) write
// them, and checks them into a Job: each rank's nodes with their
// dependencies, the collectives matched across the ranks of their
// process groups, and the sends matched with their receives.
//
// The format: a file per rank, prefix.N.et for rank N (ASTRA-sim's
// Workload opens et_filename.<id>.et), each a stream of messages preceded
// by their lengths as varints: a GlobalMetadata, then Nodes, of Chakra's
// schema et_def.proto (package etdef, generated from Chakra commit
// 21585d8, with google.golang.org/protobuf).
//
// What each node is, as lfsim takes it:
//
//   - COMP_NODE: compute for duration_micros (ASTRA-sim's replay;
//     num_ops and tensor_size, for its roofline model, are ignored).
//   - MEM_LOAD_NODE, MEM_STORE_NODE: lfsim has no remote-memory model,
//     so they take their duration_micros, as compute (0 when none):
//     the trace's measured time, where ASTRA-sim asks its memory
//     backend for tensor_size.
//   - METADATA_NODE, INVALID_NODE: no work, done when their
//     dependencies are (ASTRA-sim's skip_invalid); a METADATA node may
//     declare process groups (PyTorch's process_group:init, read as
//     ASTRA-sim's issue_pytorch_pg_metadata reads it).
//   - COMM_COLL_NODE: a collective of comm_type over the ranks of its
//     process group (pg_name: "" or "0" every rank, else a group of the
//     communicator-group file, ReadGroups, or of a METADATA node),
//     comm_size bytes per rank as
//     ASTRA-sim takes them (CommType.NCCLTestsSize gives nccl-tests'
//     size, lfsim's collective size, per type).
//   - COMM_SEND_NODE, COMM_RECV_NODE: a transfer of comm_size bytes from
//     comm_src to comm_dst, matched by (comm_src, comm_dst, comm_tag).
//
// data_deps and ctrl_deps are both dependencies: a node starts when the
// nodes both name are done. Read, Load and Assemble refuse, naming the
// file, the node id (or the byte where no node could be read) and what
// was expected: a truncated or empty file, a field or an attribute the
// schema or lfsim does not know, a node type or comm_type outside the
// schema, a dependency on a node the file lacks, a dependency cycle,
// rank files other than one per rank, collectives or transfers that do
// not match across ranks, and ranks that would wait on each other for
// ever.
//
// It imports the standard library and google.golang.org/protobuf only:
// a format reader, like sonic; resolve turns a Job into lfsim's job
// graph.
package chakra
