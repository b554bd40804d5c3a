package chakra

// BarrierBytes is the size a BARRIER all-reduces: PyTorch's
// ProcessGroupNCCL::barrier all-reduces a one-element float32 tensor
// (4 bytes), since NCCL has no barrier.
const BarrierBytes = 4

// NCCLTestsSize converts comm_size, the bytes each of n ranks puts in as
// ASTRA-sim takes them, to the size nccl-tests prints for the same call
// (lfsim's collective size). From ASTRA-sim's Ring and HalvingDoubling
// (astra-sim/system/astraccl/native_collectives/collective_algorithm/,
// their final_data_size and msg_size for data_size = comm_size) and
// nccl-tests' src/*.cu GetCollByteCount:
//
//   - ALL_REDUCE: each rank holds comm_size and ends with comm_size;
//     nccl-tests prints the buffer: comm_size.
//   - REDUCE_SCATTER (and REDUCE_SCATTER_BLOCK, MPI's equal blocks):
//     each rank puts in comm_size and keeps comm_size/n; nccl-tests
//     prints the send buffer: comm_size.
//   - ALL_GATHER: each rank puts in comm_size (ASTRA-sim's msg_size) and
//     ends with n × comm_size; nccl-tests prints the receive buffer:
//     n × comm_size.
//   - ALL_TO_ALL: each rank sends comm_size in n pieces of comm_size/n;
//     nccl-tests prints the buffer: comm_size.
//   - BROADCAST and REDUCE: the root's buffer, comm_size (ASTRA-sim
//     replays a BROADCAST's duration; lfsim runs it over the fabric).
//   - BARRIER: BarrierBytes, whatever comm_size says.
//
// GATHER and SCATTER have no nccl-tests size; lfsim runs them as flows
// of comm_size bytes from each rank to the root, or from the root to
// each rank, and this returns n × comm_size, what the root receives or
// sends with its own piece.
func (c CommType) NCCLTestsSize(commSize uint64, n int) uint64 {
	switch c {
	case AllGather, Gather, Scatter:
		return commSize * uint64(n)
	case Barrier:
		return BarrierBytes
	}
	return commSize
}
