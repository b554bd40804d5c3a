// Package programs holds the rdma-core programs lfsim runs on its
// simulated hosts: perftest's ib_*_bw and ib_*_lat (Perftest),
// libibverbs' ibv_rc_pingpong, ibv_uc_pingpong and ibv_ud_pingpong
// (Pingpong), and librdmacm's rping (Rping), rdma_server and
// rdma_client (RdmaServer, RdmaClient) and mckey (Mckey).
//
// Each is a verbs program written against the exported APIs of hca (the
// verbs) and cm (rdma_cm) only, as the tool is written against
// libibverbs and librdmacm: it allocates its PD, registers its MRs,
// creates its CQs and QPs, posts work requests and reacts to completions
// (CQ.OnEvent, where it polls as ibv_poll_cq does) and to rdma_cm's
// events (cm.Of). They are the examples to read when writing a program
// of one's own, after hca's Example_rcPingpong (ibv_rc_pingpong written
// out in one function). Programs run inside the simulation: they never
// block; each step is an event or a completion's callback.
//
// The package sits above the HCA: it imports sim, fabric, hca and cm,
// and only resolve (for its settings), assembly and cmd import it
// (internal/layers holds the direction).
package programs
