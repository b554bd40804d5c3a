package hca_test

import (
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// Example_rcPingpong is ibv_rc_pingpong on two simulated hosts: each side
// allocates a PD, registers a buffer, creates a CQ and an RC QP, moves
// the QP through INIT, RTR and RTS with the peer's QP number and PSN (what
// the real tool exchanges over TCP), posts RECVs, and then the client and
// the server bounce a SEND back and forth. Programs run inside the
// simulation: they react to completions (a CQ's OnEvent, where they poll
// the CQ as ibv_poll_cq does) instead of blocking.
func Example_rcPingpong() {
	// Two hosts around one switch, 100 Gb/s links of 1 us.
	topo, _ := fabric.Star(2, fabric.LinkSpec{Rate: 100 * fabric.Gbps, Delay: sim.Microsecond})
	routes, _, _ := fabric.ComputeRoutes(topo, fabric.RoutingECMP, nil)
	eng := sim.NewEngine(1)
	net := fabric.NewNetwork(eng, topo)
	prof := hca.DefaultProfile()
	var nic [2]*hca.HCA
	for i, id := range topo.Hosts() {
		nic[i] = hca.New(eng, net.Pool, id, topo.Nodes[id].Name, fabric.HostIP(i), prof, net.Ports[id][0])
	}
	swtch.New(eng, net.Pool, 0, "s0", swtch.DefaultProfile(), net.Ports[0], routes, fabric.MaxRoCEv2Frame(prof.MTU))

	const size, iters, rxDepth = 64, 1000, 500
	type side struct {
		h          *hca.HCA
		qp         *hca.QP
		cq         *hca.CQ
		mr         *hca.MR
		scnt, rcnt int
		routs      int
		pending    int
		end        sim.Time
	}
	const sendWRID, recvWRID = 1, 2
	var s [2]*side
	for i, h := range nic {
		pd := h.AllocPD()                                                             // ibv_alloc_pd
		mr := h.RegMR(pd, size, make([]byte, size), hca.AccessLocalWrite)             // ibv_reg_mr
		cq := h.CreateCQ(rxDepth + 1)                                                 // ibv_create_cq
		qp := h.CreateQPWith(hca.QPCaps{Type: hca.RC, PD: pd, SendCQ: cq, RecvCQ: cq, // ibv_create_qp
			MaxSend: 1, MaxRecv: rxDepth})
		s[i] = &side{h: h, qp: qp, cq: cq, mr: mr}
	}
	for i, me := range s {
		peer := s[1-i]
		fmt.Printf("%s: local QPN 0x%06x, remote QPN 0x%06x\n", me.h.Name, me.qp.QPN, peer.qp.QPN)
		must := func(err error) {
			if err != nil {
				panic(err)
			}
		}
		// ibv_modify_qp: RESET -> INIT -> RTR (the peer's address, QPN and
		// PSN) -> RTS (our PSN, timeouts).
		must(me.h.ModifyQP(me.qp, hca.QPAttr{State: hca.QPInit, Access: hca.AccessLocalWrite}))
		must(me.h.ModifyQP(me.qp, hca.QPAttr{State: hca.QPRTR, Dest: peer.h.ID, DestIP: peer.h.IP,
			DestQPN: peer.qp.QPN, RQPSN: 0, MinRNRTimer: 12}))
		must(me.h.ModifyQP(me.qp, hca.QPAttr{State: hca.QPRTS, SQPSN: 0, Timeout: 14, RetryCnt: 7, RNRRetry: 7}))
	}
	sge := func(me *side) []hca.SGE { return []hca.SGE{{Addr: me.mr.Addr, Len: size, LKey: me.mr.LKey}} }
	postRecvs := func(me *side) {
		for ; me.routs < rxDepth; me.routs++ {
			if err := me.h.PostRecv(me.qp, hca.RecvWR{ID: recvWRID, SGL: sge(me)}); err != nil { // ibv_post_recv
				panic(err)
			}
		}
	}
	postSend := func(me *side) {
		copy(me.mr.Buf, fmt.Sprintf("ping %d from %s", me.scnt, me.h.Name))
		wr := hca.SendWR{ID: sendWRID, Op: hca.WRSend, SGL: sge(me), Signaled: true}
		if _, err := me.h.PostSend(me.qp, wr); err != nil { // ibv_post_send
			panic(err)
		}
		me.scnt++
		me.pending = sendWRID | recvWRID
	}
	for i, me := range s {
		postRecvs(me)
		me.cq.OnEvent = func(cq *hca.CQ) {
			for _, wc := range cq.Poll(16) { // ibv_poll_cq
				if wc.Status != hca.WCSuccess {
					fmt.Printf("%s: failed status %s for wr_id %d\n", me.h.Name, wc.Status, wc.WRID)
					return
				}
				if wc.WRID == recvWRID {
					if me.routs--; me.routs <= 1 {
						postRecvs(me)
					}
					if me.rcnt++; me.rcnt == 1 || me.rcnt == iters {
						fmt.Printf("%s: received %q\n", me.h.Name, strings.TrimRight(string(me.mr.Buf[:wc.ByteLen]), "\x00"))
					}
				}
				me.pending &^= int(wc.WRID)
				if me.scnt < iters && me.pending == 0 {
					postSend(me)
				}
				if me.scnt == iters && me.rcnt == iters && me.end == 0 {
					me.end = eng.Now()
				}
			}
		}
		if i == 1 {
			me.pending = recvWRID // the server waits for the first message
		}
	}
	postSend(s[0]) // the client starts
	eng.Run(sim.Second, nil)
	for _, me := range s {
		usec := float64(me.end) / float64(sim.Microsecond)
		bytes := size * iters * 2
		fmt.Printf("%s: %d bytes in %.4f seconds = %.2f Mbit/sec\n", me.h.Name, bytes, usec/1e6, float64(bytes)*8/usec)
		fmt.Printf("%s: %d iters in %.4f seconds = %.2f usec/iter\n", me.h.Name, iters, usec/1e6, usec/iters)
	}
	// Output:
	// h0: local QPN 0x000002, remote QPN 0x000002
	// h1: local QPN 0x000002, remote QPN 0x000002
	// h1: received "ping 0 from h0"
	// h0: received "ping 0 from h1"
	// h1: received "ping 999 from h0"
	// h0: received "ping 999 from h1"
	// h0: 128000 bytes in 0.0083 seconds = 122.68 Mbit/sec
	// h0: 1000 iters in 0.0083 seconds = 8.35 usec/iter
	// h1: 128000 bytes in 0.0083 seconds = 122.74 Mbit/sec
	// h1: 1000 iters in 0.0083 seconds = 8.34 usec/iter
}
