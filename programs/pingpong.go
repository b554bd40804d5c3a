package programs

import (
	"fmt"
	"strings"

	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
)

// Pingpong runs rdma-core's ibv_rc_pingpong, ibv_uc_pingpong or
// ibv_ud_pingpong between two hosts: each side posts RxDepth RECVs
// (reposting when one is left), the client sends first, and each side
// sends again once both its previous SEND and the peer's message have
// completed (the tools' "pending" mask), Iters times. A side's loop ends
// when it has received Iters messages and posted Iters SENDs; each side
// then prints the tools' two summary lines, with the time from the start
// to the end of its loop.
type Pingpong struct {
	Cfg PingpongConfig
	// Sides are the client [0] and the server [1].
	Sides [2]PingpongSide

	// Watch, if set, is told of each side's SENDs and completions (a
	// timeline of one iteration: observe.Timeline).
	Watch IterationWatcher

	h      [2]*hca.HCA
	qp     [2]*hca.QP
	inline bool
}

// IterationWatcher follows a latency program's iterations (a pingpong,
// perftest's send_lat). Side 0 is the client, 1 the server; iterations
// count from 1 on each side (the server's iteration k answers the
// client's k-th message).
type IterationWatcher interface {
	// Posted: side posted the SEND of its iteration iter.
	Posted(side, iter int, w *hca.WQE)
	// Received: side's iter-th RECV completed, its CQE written at at.
	Received(side, iter int, at sim.Time)
	// Ended: side's iteration iter is over at at (its SEND and the
	// peer's message have both completed: the tool's pending mask is
	// empty; perftest: the client may post again), when the client
	// posts its next SEND.
	Ended(side, iter int, at sim.Time)
}

// QP returns side's QP (0: the client's, 1: the server's).
func (p *Pingpong) QP(side int) *hca.QP { return p.qp[side] }

// PingpongSide is one side's progress.
type PingpongSide struct {
	Sent, Received int // SENDs posted, RECVs completed
	Done           bool
	End            sim.Time
	Err            string

	pending uint8 // bits: pendSend, pendRecv
	routs   int   // RECVs posted and not completed
}

const (
	pendSend = 1 << iota
	pendRecv
)

// PingpongConfig is a pingpong run: the tool (-c of the type), -s, -n, -r.
type PingpongConfig struct {
	Type hca.QPType
	// Size is -s: default 4096 (ibv_rc_pingpong, ibv_uc_pingpong) or
	// 2048 (ibv_ud_pingpong).
	Size int64
	// Iters is -n, default 1000; RxDepth -r, default 500.
	Iters, RxDepth int
	Priority       uint8
	SL             uint8 // InfiniBand service level (Priority is its VL)
	Start          sim.Time
}

// PingpongDefaults fills in c's zero fields with the tools' defaults.
func PingpongDefaults(c PingpongConfig) PingpongConfig {
	if c.Size == 0 {
		c.Size = 4096
		if c.Type == hca.UD {
			c.Size = 2048
		}
	}
	if c.Iters == 0 {
		c.Iters = 1000
	}
	if c.RxDepth == 0 {
		c.RxDepth = 500
	}
	return c
}

// NewPingpong sets up c between client and server and starts it at
// c.Start.
func NewPingpong(client, server *hca.HCA, c PingpongConfig) (*Pingpong, error) {
	c = PingpongDefaults(c)
	if c.Type == hca.UD && c.Size > int64(client.Prof.MTU) {
		return nil, fmt.Errorf("a UD message is at most one MTU (%d bytes), not %d", client.Prof.MTU, c.Size)
	}
	p := &Pingpong{Cfg: c, h: [2]*hca.HCA{client, server}}
	p.inline = c.Size <= int64(client.Prof.MaxInline)
	for i, h := range p.h {
		pd := h.AllocPD()
		cq := h.CreateCQ(c.RxDepth + 1)
		side := i
		cq.OnEvent = func(cq *hca.CQ) { p.event(side, cq) }
		p.qp[i] = h.CreateQPWith(hca.QPCaps{Type: c.Type, PD: pd, SendCQ: cq, RecvCQ: cq, MaxSend: 1, MaxRecv: c.RxDepth})
		p.qp[i].Priority, p.qp[i].SL = c.Priority, c.SL
	}
	for i, h := range p.h {
		qp, peer := p.qp[i], p.h[1-i]
		if c.Type == hca.UD {
			must(h.ModifyQP(qp, hca.QPAttr{State: hca.QPInit}))
			must(h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTR}))
			must(h.ModifyQP(qp, hca.QPAttr{State: hca.QPRTS}))
		} else if i == 0 {
			h.Connect(qp, peer.ID, peer.IP, p.qp[1-i].QPN)
		} else {
			h.Accept(qp, peer.ID, peer.IP, p.qp[1-i].QPN) // the server
		}
		p.postRecvs(i)
	}
	p.Sides[1].pending = pendRecv
	client.Engine().Schedule(c.Start, p, 0, 0, nil)
	return p, nil
}

func (p *Pingpong) recvLen() int64 {
	if p.Cfg.Type == hca.UD {
		return p.Cfg.Size + hca.GRHBytes
	}
	return p.Cfg.Size
}

func (p *Pingpong) postRecvs(i int) {
	s := &p.Sides[i]
	for s.routs < p.Cfg.RxDepth {
		must(p.h[i].PostRecv(p.qp[i], hca.RecvWR{ID: pendRecv, Length: p.recvLen()}))
		s.routs++
	}
}

// HandleEvent starts the client (its first SEND).
func (p *Pingpong) HandleEvent(*sim.Event) { p.send(0) }

var _ sim.Handler = (*Pingpong)(nil)

func (p *Pingpong) send(i int) {
	s := &p.Sides[i]
	wr := hca.SendWR{ID: pendSend, Op: hca.WRSend, Length: p.Cfg.Size, Signaled: true, Inline: p.inline}
	if p.Cfg.Type == hca.UD {
		peer := p.h[1-i]
		wr.AH, wr.RemoteQPN, wr.RemoteQKey = &hca.AH{Dest: peer.ID, DestIP: peer.IP}, p.qp[1-i].QPN, p.qp[1-i].QKey
	}
	w, err := p.h[i].PostSend(p.qp[i], wr)
	if err != nil {
		s.Err = "Couldn't post send: " + err.Error()
		return
	}
	s.Sent++
	if p.Watch != nil {
		p.Watch.Posted(i, s.Sent, w)
	}
	s.pending = pendSend | pendRecv
}

func (p *Pingpong) event(i int, cq *hca.CQ) {
	s := &p.Sides[i]
	for _, wc := range cq.Poll(cq.Len()) {
		if s.Done || s.Err != "" {
			continue
		}
		if wc.Status != hca.WCSuccess {
			s.Err = fmt.Sprintf("Failed status %s (%d) for wr_id %d", wc.Status, wc.Status, wc.WRID)
			continue
		}
		if wc.WRID == pendRecv {
			s.routs--
			if s.routs <= 1 {
				p.postRecvs(i)
			}
			s.Received++
			if p.Watch != nil {
				p.Watch.Received(i, s.Received, wc.At)
			}
		}
		s.pending &^= uint8(wc.WRID)
		if s.pending == 0 && p.Watch != nil {
			p.Watch.Ended(i, s.Sent, p.h[i].Engine().Now())
		}
		if s.Sent < p.Cfg.Iters && s.pending == 0 {
			p.send(i)
		}
		if s.Received >= p.Cfg.Iters && s.Sent >= p.Cfg.Iters {
			s.Done, s.End = true, p.h[i].Engine().Now()
		}
	}
}

// Report prints each side's summary lines as the tools do, under a
// comment naming the side.
func (p *Pingpong) Report() string {
	var b strings.Builder
	for i, role := range []string{"client", "server"} {
		s := &p.Sides[i]
		fmt.Fprintf(&b, "# %s (%s):\n", p.h[i].Name, role)
		switch {
		case s.Err != "":
			fmt.Fprintf(&b, "%s\n", s.Err)
		case !s.Done:
			fmt.Fprintf(&b, "incomplete: %d of %d iters when the run stopped\n", min(s.Sent, s.Received), p.Cfg.Iters)
		default:
			usec := float64(s.End-p.Cfg.Start) / float64(sim.Microsecond)
			bytes := p.Cfg.Size * int64(p.Cfg.Iters) * 2
			fmt.Fprintf(&b, "%d bytes in %.2f seconds = %.2f Mbit/sec\n", bytes, usec/1e6, float64(bytes)*8/usec)
			fmt.Fprintf(&b, "%d iters in %.2f seconds = %.2f usec/iter\n", p.Cfg.Iters, usec/1e6, usec/float64(p.Cfg.Iters))
		}
	}
	return b.String()
}

// UsecPerIter is the client's time per iteration, in microseconds (0
// until it is done).
func (p *Pingpong) UsecPerIter() float64 {
	s := &p.Sides[0]
	if !s.Done {
		return 0
	}
	return float64(s.End-p.Cfg.Start) / float64(sim.Microsecond) / float64(p.Cfg.Iters)
}
