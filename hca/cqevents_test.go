package hca_test

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

// channelPair is h0's QP a connected to h1's QP b, each with its own CQ;
// b's CQ counts its completion channel's events and re-arms after each,
// as an event loop does (ibv_get_cq_event, poll, ibv_req_notify_cq).
type channelPair struct {
	eng    *sim.Engine
	h      []*hca.HCA
	a, b   *hca.QP
	events []sim.Time // when b's channel fired
}

func newChannelPair(t *testing.T, solicitedOnly bool, count int, period sim.Time) *channelPair {
	t.Helper()
	eng, h, _ := star(t, 2, 100*fabric.Gbps, sim.Microsecond, hca.DefaultProfile(), swtch.DefaultProfile())
	c := &channelPair{eng: eng, h: h}
	mk := func(x *hca.HCA) (*hca.QP, *hca.CQ) {
		cq := x.CreateCQ(1024)
		qp := x.CreateQPWith(hca.QPCaps{Type: hca.RC, PD: x.DefaultPD(), SendCQ: cq, RecvCQ: cq, SigAll: true})
		if err := x.ModifyQP(qp, hca.QPAttr{State: hca.QPInit, Access: hca.AccessAll}); err != nil {
			t.Fatal(err)
		}
		return qp, cq
	}
	var bcq *hca.CQ
	c.a, _ = mk(h[0])
	c.b, bcq = mk(h[1])
	h[0].Connect(c.a, h[1].ID, h[1].IP, c.b.QPN)
	h[1].Connect(c.b, h[0].ID, h[0].IP, c.a.QPN)
	bcq.Moderate(count, period)
	bcq.Channel = func(cq *hca.CQ) {
		c.events = append(c.events, eng.Now())
		cq.Poll(cq.Len())
		cq.ReqNotify(solicitedOnly)
	}
	bcq.ReqNotify(solicitedOnly)
	return c
}

// sends posts n 4 KiB SENDs from a to b (b's RECVs posted first); the
// ones in solicited carry IBV_SEND_SOLICITED. It returns when each of
// b's RECVs completed, by WR id.
func (c *channelPair) sends(t *testing.T, n int, solicited map[int]bool) map[uint64]sim.Time {
	t.Helper()
	for i := range n {
		if err := c.h[1].PostRecv(c.b, hca.RecvWR{ID: uint64(i), Length: 4096}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if _, err := c.h[0].PostSend(c.a, hca.SendWR{ID: uint64(i), Op: hca.WRSend, Length: 4096, Signaled: true, Solicited: solicited[i]}); err != nil {
			t.Fatal(err)
		}
	}
	done := map[uint64]sim.Time{}
	c.h[1].OnRecv = func(_ *hca.QP, wc hca.WC) { done[wc.WRID] = wc.At }
	c.eng.Run(sim.Millisecond, nil)
	if len(done) != n {
		t.Fatalf("%d of %d RECVs completed", len(done), n)
	}
	return done
}

// TestSolicitedEvents: a CQ armed for solicited completions only
// (ibv_req_notify_cq(cq, 1)) has one event for ten SENDs of which the
// fifth is solicited, when that one completes; armed for any completion,
// and re-armed after each event, it has one per completion.
func TestSolicitedEvents(t *testing.T) {
	c := newChannelPair(t, true, 0, 0)
	done := c.sends(t, 10, map[int]bool{4: true})
	if len(c.events) != 1 || c.events[0] != done[4] {
		t.Errorf("events at %v; want one, at the solicited RECV's completion (%v)", c.events, done[4])
	}
	c = newChannelPair(t, false, 0, 0)
	c.sends(t, 10, nil)
	if len(c.events) != 10 {
		t.Errorf("%d events for 10 completions, armed for any", len(c.events))
	}
}

// TestCQModeration: with cq_count 4 and cq_period 50 us, ten completions
// back to back make three events: at the 4th and 8th completions, and 50
// us after the 9th for the 9th and 10th (the period runs from the first
// completion an event waits for).
func TestCQModeration(t *testing.T) {
	c := newChannelPair(t, false, 4, 50*sim.Microsecond)
	done := c.sends(t, 10, nil)
	want := []sim.Time{done[3], done[7], done[8] + 50*sim.Microsecond}
	if len(c.events) != 3 || c.events[0] != want[0] || c.events[1] != want[1] || c.events[2] != want[2] {
		t.Errorf("events at %v; want %v", c.events, want)
	}
}
