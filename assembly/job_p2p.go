package assembly

import (
	"fmt"

	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/resolve"
)

// A job's sends and receives: for each ordered pair of ranks that
// exchange messages, one RC QP at each end, made when the network is
// built (as NCCL connects a peer at its first send or receive, here
// before the run), with the receiver's region and RECVs posted. A send
// is an RDMA WRITE with immediate (NCCL's IB transport, as for the
// collectives' steps) of its bytes, in work requests of at most the
// HCA's longest message, the last carrying the message's number; its
// node is done when they have all completed (acknowledged). The
// receiver's RECV completion says which message landed. The sender
// does not wait for the receiver to be ready (NCCL's clear-to-send is
// not modelled: the receiver's buffer is taken as posted), and two
// ranks of one GPU server exchange through the network, not the
// server's scale-up domain.

// p2pLink is the QPs from one rank of a job to another.
type p2pLink struct {
	from, to *jobRank
	sq, rq   *hca.QP
	mr       *hca.MR
	// msgs are the messages of one iteration, in the order their
	// matches were listed (job.Matches): message m of iteration it
	// carries immediate it·len(msgs)+m.
	msgs []p2pMsg
	// posted counts the payload bytes posted, finished those whose work
	// requests completed.
	posted, finished int64
}

type p2pMsg struct {
	send, recv int32
	size       int64
}

// p2pRef is a send node's link (index in jobRun.links) and message.
type p2pRef struct {
	link int32
	msg  int32
}

// jobP2P makes the job's links and tells each send node its message.
func (n *Network) jobP2P(jr *jobRun) error {
	j := jr.j
	m := j.Matches(jr.graphs)
	byPair := map[[2]int]int{}
	for _, key := range m.Keys {
		pair := [2]int{key.From, key.To}
		li, ok := byPair[pair]
		if !ok {
			li = len(jr.links)
			byPair[pair] = li
			jr.links = append(jr.links, &p2pLink{from: jr.ranks[key.From], to: jr.ranks[key.To]})
		}
		l := jr.links[li]
		for k, s := range m.Sends[key] {
			r := m.Recvs[key][k]
			jr.ranks[key.From].sendOf[s] = p2pRef{link: int32(li), msg: int32(len(l.msgs))}
			l.msgs = append(l.msgs, p2pMsg{send: s, recv: r, size: j.Graphs[key.From][s].Size})
		}
	}
	if len(jr.links) == 0 {
		return nil
	}
	for _, k := range jr.ranks {
		k.cq = k.h.CreateCQ(1 << 16)
		k.cq.OnEvent = k.completions
	}
	for li, l := range jr.links {
		n.connectP2P(jr, l, li)
	}
	return nil
}

// connectP2P makes link l's QPs, the receiver's region and its RECVs
// (one a message of an iteration: a sender's iteration is done only
// when its messages are acknowledged, so no more are in flight), and
// the sender's congestion control.
func (n *Network) connectP2P(jr *jobRun, l *p2pLink, li int) {
	src, dst := l.from.h, l.to.h
	maxMsg := src.Prof.MaxMsgSize
	var wrs, longest int64
	for _, m := range l.msgs {
		wrs += max(1, (m.size+maxMsg-1)/maxMsg)
		longest = max(longest, min(m.size, maxMsg))
	}
	caps := func(h *hca.HCA, cq *hca.CQ) hca.QPCaps {
		return hca.QPCaps{Type: hca.RC, PD: h.DefaultPD(), SendCQ: cq, RecvCQ: cq, MaxSend: int(wrs) + 1, MaxRecv: len(l.msgs) + 1}
	}
	l.mr = dst.RegMR(dst.DefaultPD(), max(longest, 1), nil, hca.AccessAll)
	a, b := src.CreateQPWith(caps(src, l.from.cq)), dst.CreateQPWith(caps(dst, l.to.cq))
	must(src.ModifyQP(a, hca.QPAttr{State: hca.QPInit, Access: hca.AccessAll}))
	must(dst.ModifyQP(b, hca.QPAttr{State: hca.QPInit, Access: hca.AccessAll}))
	src.Connect(a, dst.ID, dst.IP, b.QPN)
	dst.Accept(b, src.ID, src.IP, a.QPN)
	prio := n.Scenario.HCAProfile(src.ID).Priority
	if jr.spec.PrioritySet {
		prio = jr.spec.Priority
	}
	a.Priority, b.Priority = prio, prio
	l.sq, l.rq = a, b
	for range l.msgs {
		must(dst.PostRecv(b, hca.RecvWR{ID: uint64(li)}))
	}
	path := n.pathOf(resolve.Flow{Src: src.ID, Dst: dst.ID}, a)
	n.attachCC(src, a, dst.ID, n.Scenario.HCAProfile(src.ID), path)
}

// send posts send node i's message, in work requests of at most the
// HCA's longest message, the last a WRITE with immediate.
func (k *jobRank) send(i int32) {
	ref := k.sendOf[i]
	l := k.run.links[ref.link]
	size := k.run.j.Graphs[k.r][i].Size
	maxMsg := k.h.Prof.MaxMsgSize
	imm := uint32(int64(k.iter)*int64(len(l.msgs)) + int64(ref.msg))
	k.chunks[i] = 0
	for off := int64(0); ; off += maxMsg {
		n := min(size-off, maxMsg)
		last := off+n >= size
		wr := hca.SendWR{ID: uint64(i), Op: hca.WRWrite, Length: n, Signaled: true, RemoteAddr: l.mr.Addr, RKey: l.mr.RKey}
		if last {
			wr.Op, wr.Imm = hca.WRWriteImm, imm
		}
		if _, err := k.h.PostSend(l.sq, wr); err != nil {
			panic(fmt.Sprintf("job: rank %d posts on a QP that refuses: %v", k.r, err))
		}
		l.posted += n
		k.chunks[i]++
		if last {
			return
		}
	}
}

// completions polls the rank's CQ: a send's work request done, or a
// message landed (its RECV posted again).
func (k *jobRank) completions(cq *hca.CQ) {
	for {
		c := cq.PollInto(k.wcs[:])
		if c == 0 {
			return
		}
		for _, wc := range k.wcs[:c] {
			if wc.Status != hca.WCSuccess {
				if k.failure == "" {
					k.failure = fmt.Sprintf("%s: a work request of traffic[%d]'s job failed at %v: %s", k.h.Name, k.run.spec.Generator, k.eng.Now(), wc.Status)
				}
				continue
			}
			if wc.Opcode == hca.WCOpRecvImm {
				l := k.run.links[wc.WRID]
				must(k.h.PostRecv(l.rq, hca.RecvWR{ID: wc.WRID}))
				it, m := int64(wc.Imm)/int64(len(l.msgs)), int64(wc.Imm)%int64(len(l.msgs))
				k.landed(int(it), l.msgs[m].recv)
				continue
			}
			i := int32(wc.WRID)
			l := k.run.links[k.sendOf[i].link]
			l.finished += wc.ByteLen
			if k.chunks[i]--; k.chunks[i] == 0 {
				k.done(i)
			}
		}
	}
}

// landed is receive node i's message of iteration it landed: the node
// is done if it is ready, else when it is.
func (k *jobRank) landed(it int, i int32) {
	if it == k.iter && k.ready[i] {
		k.done(i)
		return
	}
	k.arrived[int64(it)*int64(len(k.deps))+int64(i)] = true
}
