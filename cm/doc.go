// Package cm is a host's connection management: the rdma_cm state
// machine that connects RC and UC QPs (REQ, REP, RTU; DREQ, DREP; REJ)
// and UD QPs by service ID resolution (SIDR), the CM MADs as they go on
// the wire, and on InfiniBand the path query to the subnet
// administrator that comes before a REQ. It owns a host's QP1 (the GSI
// QP): the HCA knows only that QP1 has an owner (hca.GSIAgent), made by
// the function its profile holds (hca.Profile.NewGSIAgent, which Agent
// gives), and asks it for QP1 when a MAD comes before anyone has;
// everything else goes through the verbs the HCA exports, as librdmacm's
// goes through libibverbs and the kernel's MAD layer.
//
// Files: cm.go (Manager, its connections and listeners, QP1 and its
// MADs in and out, rdma_connect and rdma_disconnect, the command
// interface's and the CM thread's time, timeouts and resends),
// exchange.go (the CM thread's handling of each MAD: REQ, REP, RTU, REJ,
// DREQ, DREP), profile.go (timing and the protocol's constants),
// cmmad.go (the CM MADs' layout, encode and decode), sa.go (the SA's
// path records), sidr.go (UD: SIDR_REQ and SIDR_REP), iwarp.go (rdma_cm
// over iw_cm on iWARP, which has no QP1: the NIC's own connection, hca's
// iwconn.go).
//
// It imports sim, fabric and hca of lfsim's, and nothing above them: no
// congestion control, switch or scenario. The HCA must not import it
// (internal/layers holds both directions); the programs (package
// programs) and the assembly use it.
package cm
