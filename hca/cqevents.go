package hca

import "github.com/lfsim/lfsim/sim"

// The completion channel (ibv_create_comp_channel, ibv_req_notify_cq,
// ibv_get_cq_event) and CQ event moderation (ibv_modify_cq's cq_count
// and cq_period). A CQ's Channel is called once per arming: ReqNotify
// arms the CQ, and the next completion it asks for (any, or with
// solicitedOnly a solicited one or an error) makes one event, after
// which the application polls and arms again. A completion present when
// the CQ is armed makes no event; only later ones do (ibv_req_notify_cq(3):
// "The request will be for the next completion").
//
// Moderation holds the event back until Count completions the arming
// asks for have arrived or Period has passed since the first of them,
// whichever is first, as ConnectX's CQ moderation does: fewer
// interrupts under load, at most Period of added latency when idle.

// cqNotify is a CQ's arming and moderation state.
type cqNotify struct {
	armed, solicitedOnly bool
	count                int      // moderation: completions per event (0: every one)
	period               sim.Time // moderation: the longest an event waits (0: none)
	pending              int      // completions the arming counts, not yet evented
	timer                sim.Timer
	Events               int64 // events the channel delivered
}

// ReqNotify arms the CQ's completion channel (ibv_req_notify_cq): the
// next completion, or with solicitedOnly the next solicited or
// unsuccessful one, makes one event.
func (c *CQ) ReqNotify(solicitedOnly bool) {
	c.notify.armed, c.notify.solicitedOnly = true, solicitedOnly
	c.notify.pending = 0
}

// Moderate sets the CQ's event moderation (ibv_modify_cq with
// IBV_CQ_ATTR_MODERATE): an event waits for count completions or for
// period after the first, whichever comes first. Zero for both turns it
// off.
func (c *CQ) Moderate(count int, period sim.Time) {
	c.notify.count, c.notify.period = count, period
}

// ChannelEvents is how many events the completion channel delivered.
func (c *CQ) ChannelEvents() int64 { return c.notify.Events }

// channel runs the completion channel for a completion just added.
func (c *CQ) channel(wc WC) {
	n := &c.notify
	if c.Channel == nil || !n.armed || (n.solicitedOnly && !wc.Solicited && wc.Status == WCSuccess) {
		return
	}
	n.pending++
	switch {
	case n.count <= 0 && n.period <= 0, n.count > 0 && n.pending >= n.count:
		c.fire()
	case n.pending == 1 && n.period > 0:
		n.timer = c.hca.eng.After(n.period, c.hca, evCQPeriod, 0, c)
	}
}

// fire delivers the event and disarms the CQ.
func (c *CQ) fire() {
	n := &c.notify
	c.hca.eng.Cancel(n.timer)
	n.timer = sim.Timer{}
	n.armed, n.pending = false, 0
	n.Events++
	c.Channel(c)
}

// periodOver is the moderation timer: the event goes now if the CQ is
// still armed with completions waiting.
func (c *CQ) periodOver() {
	c.notify.timer = sim.Timer{}
	if c.notify.armed && c.notify.pending > 0 {
		c.fire()
	}
}
