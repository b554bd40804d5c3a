package labcheck

import (
	"fmt"
	"testing"

	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/scenarios/labs/first-verbs-program/pingpong"
)

// The teacher's solution of lab first-verbs-program (ANSWERS.md shows it
// too, `lfsim lab first-verbs-program --answers`), out of the student's
// folder. TestPingpongSolution runs it through the check the student's
// test runs, so the check itself is tested: it passes a correct program.

func solutionSetup(client, server *hca.HCA, size int64, rxDepth int) ([2]*pingpong.Side, error) {
	var s [2]*pingpong.Side
	for i, h := range []*hca.HCA{client, server} {
		pd := h.AllocPD()
		mr := h.RegMR(pd, size, make([]byte, size), hca.AccessLocalWrite)
		cq := h.CreateCQ(rxDepth + 1)
		qp := h.CreateQPWith(hca.QPCaps{Type: hca.RC, PD: pd, SendCQ: cq, RecvCQ: cq, MaxSend: 1, MaxRecv: rxDepth})
		s[i] = &pingpong.Side{HCA: h, PD: pd, MR: mr, CQ: cq, QP: qp}
	}
	for i, me := range s {
		peer := s[1-i]
		for _, a := range []hca.QPAttr{
			{State: hca.QPInit},
			{State: hca.QPRTR, Dest: peer.HCA.ID, DestIP: peer.HCA.IP, DestQPN: peer.QP.QPN},
			{State: hca.QPRTS},
		} {
			if err := me.HCA.ModifyQP(me.QP, a); err != nil {
				return s, fmt.Errorf("%s: to %v: %w", me.HCA.Name, a.State, err)
			}
		}
	}
	return s, nil
}

func solutionStart(s [2]*pingpong.Side, size int64, rxDepth, iters int) error {
	post := func(me *pingpong.Side) error {
		me.Sent++
		_, err := me.HCA.PostSend(me.QP, hca.SendWR{ID: 1, Op: hca.WRSend, Signaled: true,
			Inline: size <= int64(me.HCA.Prof.MaxInline), // IBV_SEND_INLINE, as ibv_rc_pingpong when it fits
			SGL:    []hca.SGE{{Addr: me.MR.Addr, Len: size, LKey: me.MR.LKey}}})
		return err
	}
	recv := func(me *pingpong.Side) error {
		return me.HCA.PostRecv(me.QP, hca.RecvWR{ID: 2, SGL: []hca.SGE{{Addr: me.MR.Addr, Len: size, LKey: me.MR.LKey}}})
	}
	for i := range s {
		me := s[i]
		for k := 0; k < rxDepth; k++ {
			if err := recv(me); err != nil {
				return err
			}
		}
		me.CQ.OnEvent = func(cq *hca.CQ) {
			for _, wc := range cq.Poll(cq.Len()) {
				if wc.Status != hca.WCSuccess {
					panic(fmt.Sprintf("%s: completion %v", me.HCA.Name, wc))
				}
				if wc.Opcode != hca.WCOpRecv {
					continue
				}
				if err := recv(me); err != nil {
					panic(err)
				}
				me.Received++
				if me.Received == iters {
					me.Done = me.HCA.Engine().Now()
				}
				// The server answers every SEND; the client sends the
				// next until it has sent iters.
				if me.Sent < iters {
					if err := post(me); err != nil {
						panic(err)
					}
				}
			}
		}
	}
	return post(s[0])
}

// TestPingpongSolution runs the teacher's solution through the check the
// student's program meets (Pingpong).
func TestPingpongSolution(t *testing.T) { Pingpong(t, solutionSetup, solutionStart) }
