package labcheck

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/scenarios/labs/first-verbs-program/pingpong"
)

// The teacher's solution of lab first-verbs-program (ANSWERS.md shows it
// too, `lfsim lab first-verbs-program --answers`), out of the student's
// folder. TestPingpongSolution runs it through the check the student's
// test runs, so the check itself is tested: it passes a correct program.

func solutionSetup(client, server *hca.HCA, size int64, rxDepth int) ([2]*pingpong.Side, error) {
	return setupTo(hca.QPRTS)(client, server, size, rxDepth)
}

// setupTo is the solution's Setup with the server's QP taken only as far
// as last (a wrong program's: QPRTR leaves it unable to send).
func setupTo(last hca.QPState) func(client, server *hca.HCA, size int64, rxDepth int) ([2]*pingpong.Side, error) {
	return func(client, server *hca.HCA, size int64, rxDepth int) ([2]*pingpong.Side, error) {
		return setup(client, server, size, rxDepth, last)
	}
}

func setup(client, server *hca.HCA, size int64, rxDepth int, last hca.QPState) ([2]*pingpong.Side, error) {
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
			if i == 1 && a.State > last {
				break
			}
			if err := me.HCA.ModifyQP(me.QP, a); err != nil {
				return s, fmt.Errorf("%s: to %v: %w", me.HCA.Name, a.State, err)
			}
		}
	}
	return s, nil
}

func solutionStart(s [2]*pingpong.Side, size int64, rxDepth, iters int) error {
	return start(s, size, rxDepth, iters, true, 0)
}

// startWith is the solution's Start, sending inline only if inline (the
// solution does when the message fits), and the client stopping short
// iterations before the end (the solution: 0).
func startWith(inline bool, short int) func(s [2]*pingpong.Side, size int64, rxDepth, iters int) error {
	return func(s [2]*pingpong.Side, size int64, rxDepth, iters int) error {
		return start(s, size, rxDepth, iters, inline, short)
	}
}

func start(s [2]*pingpong.Side, size int64, rxDepth, iters int, inline bool, short int) error {
	post := func(me *pingpong.Side) error {
		me.Sent++
		_, err := me.HCA.PostSend(me.QP, hca.SendWR{ID: 1, Op: hca.WRSend, Signaled: true,
			Inline: inline && size <= int64(me.HCA.Prof.MaxInline), // IBV_SEND_INLINE, as ibv_rc_pingpong when it fits
			SGL:    []hca.SGE{{Addr: me.MR.Addr, Len: size, LKey: me.MR.LKey}}})
		return err
	}
	recv := func(me *pingpong.Side) error {
		return me.HCA.PostRecv(me.QP, hca.RecvWR{ID: 2, SGL: []hca.SGE{{Addr: me.MR.Addr, Len: size, LKey: me.MR.LKey}}})
	}
	for i := range s {
		me := s[i]
		last := iters // the SENDs this side posts
		if i == 0 {
			last -= short
		}
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
				if me.Sent < last {
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

// TestPingpongRejects: the check fails wrong programs, each for its
// reason (a recording testing.TB catches the failure): the solution
// without inline sends takes 8.35 us an iteration, the no-inline
// scenario's figure (the lab's README), against ibv_rc_pingpong's 6.85,
// outside the 2%; a client that stops one iteration short leaves both
// sides at 999 of 1000; a QP left in RTR cannot send.
func TestPingpongRejects(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(a, b *hca.HCA, size int64, rxDepth int) ([2]*pingpong.Side, error)
		start func(s [2]*pingpong.Side, size int64, rxDepth, iters int) error
		want  string
	}{
		{"no inline", solutionSetup, startWith(false, 0), "your pingpong: 8.3"},
		{"one iteration short", solutionSetup, startWith(true, 1), "side 0: received 999 of 1000"},
		{"server QP left in RTR", setupTo(hca.QPRTR), solutionStart, "side 1: its QP is not in RTS after Setup"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{TB: t}
			done := make(chan struct{})
			go func() { // Fatal ends this goroutine, as it ends a test's
				defer close(done)
				Pingpong(r, c.setup, c.start)
			}()
			<-done
			msgs := strings.Join(r.msgs, "\n")
			t.Logf("the check said: %s", msgs)
			if !r.failed || r.skipped || !strings.Contains(msgs, c.want) {
				t.Errorf("failed %v, skipped %v, said:\n%s\nwant a failure saying %q", r.failed, r.skipped, msgs, c.want)
			}
		})
	}
}

// recorder is a testing.TB that records failures instead of failing the
// test: Fatal and Skip end the calling goroutine, as they do in a test.
type recorder struct {
	testing.TB
	failed, skipped bool
	msgs            []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Fail()                     { r.failed = true }
func (r *recorder) Failed() bool              { return r.failed }
func (r *recorder) FailNow()                  { r.failed = true; runtime.Goexit() }
func (r *recorder) Log(a ...any)              { r.msgs = append(r.msgs, fmt.Sprint(a...)) }
func (r *recorder) Logf(f string, a ...any)   { r.msgs = append(r.msgs, fmt.Sprintf(f, a...)) }
func (r *recorder) Error(a ...any)            { r.Log(a...); r.Fail() }
func (r *recorder) Errorf(f string, a ...any) { r.Logf(f, a...); r.Fail() }
func (r *recorder) Fatal(a ...any)            { r.Log(a...); r.FailNow() }
func (r *recorder) Fatalf(f string, a ...any) { r.Logf(f, a...); r.FailNow() }
func (r *recorder) Skip(a ...any)             { r.Log(a...); r.SkipNow() }
func (r *recorder) Skipf(f string, a ...any)  { r.Logf(f, a...); r.SkipNow() }
func (r *recorder) SkipNow()                  { r.skipped = true; runtime.Goexit() }
func (r *recorder) Skipped() bool             { return r.skipped }
