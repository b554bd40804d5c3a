// Package hca models an RDMA NIC (host channel adapter) and the verbs it
// runs: queue pairs, work requests, segmentation into packets with PSNs,
// ACKs and retransmission, and the transmit arbiter that feeds the port.
// It imports only sim and fabric of lfsim's: congestion control comes in
// through the CongestionControl interface, not the congestion package.
// Connection management (package cm: rdma_cm, the CM MADs, the SA's path
// records, SIDR) and the rdma-core programs that run on it (package
// programs: perftest, the pingpongs, rping, rdma_server and rdma_client,
// mckey) are above it and use only what this package exports; the HCA
// knows the connection manager only as the owner of QP1 (GSIAgent).
//
// The files, by seam:
//
// The NIC: hca.go (the HCA, its counters, New, its events, what the
// observers read), profile.go (Profile and its defaults), faults.go (a
// slow or hung receiver, PFC storms, the NIC watchdog).
//
// The verbs API: verbs.go (the objects: PD, MR, SGE, work requests, AH,
// WC, CQ), qp.go (the QP, its WQEs, states and transitions),
// resources.go (create, modify and destroy: ibv_alloc_pd to
// ibv_destroy_qp), post.go (ibv_post_send and ibv_post_recv, the
// doorbell, completions), cqevents.go (completion channels and CQ
// moderation), multicast.go (attaching UD QPs to groups), gsi.go (QP1
// and its owner).
//
// The transmit path: transmit.go (the arbiter: control packets first,
// then the QPs in round robin, and what holds a QP back), requester.go
// (segmentation, ACKs and NAKs, retransmission, timers, RNR),
// parking.go (the QPs a paused port refuses, passed by unread),
// vlarb.go (InfiniBand's VL arbitration), congestion.go (the congestion
// control's interface, pacing and rate), dualport.go and apm.go (the
// second port and path migration).
//
// The receive path: receive.go (the receive buffer and pipeline, and
// process, which hands each packet to its QP; CNPs), responder.go (PSN
// checks, protection, RECVs, READ responses, atomics, ACKs and NAKs),
// reorder.go (placement ahead of a gap), selective.go (IRN's selective
// repeat).
//
// iWARP's TCP: tcp.go (one connection each way per QP: the sender's
// scoreboard, SACK, recovery, RFC 6298's timer; the receiver's ACKs) and
// tcpread.go (READ responses on the responder's own stream); the
// connection the NIC makes for rdma_cm, iwconn.go and iwsegment.go (TCP's
// handshake, MPA's Request and Reply, the RTR, the close), which package
// cm drives (IWConnect, IWListen). It stays in
// this package: its state is the QP's (the PSNs it sends and
// acknowledges are the QP's nextPSN, ackHigh and maxSent, its window the
// QP's Window, its READs the QP's READ jobs), and the transmit and
// receive paths ask it per packet (tcpHold, tcpResend, tcpReceived,
// rspHold). A package of its own would take either the QP's internals
// exported or an interface call per packet on iWARP, for about 750
// lines.
package hca
