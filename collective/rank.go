package collective

import (
	"fmt"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// Transport carries a rank's steps: the runner's side of the model
// (assembly posts them as work requests on the link's QPs, or hands them
// to the server's scale-up domain). It tells the rank back, in events
// of the rank's own host, when a step lands at its receiver (Rank.Land)
// and when a send is done at its sender (Rank.Done).
type Transport interface {
	// Send carries step seq (counted from 0 over the run) of rank r's
	// out-link out: wire bytes, now.
	Send(r *Rank, out int32, seq int64, wire int64)
}

// Call is one call of a collective on one rank (one iteration): the
// runner fills in At and Plan, the rank the rest.
type Call struct {
	Plan *Plan
	// At is the earliest time the call may start (the collective's
	// start); Gate counts what it still waits for besides its rank's
	// previous call (the runner's: after:).
	At   sim.Time
	Gate int
	// Began says the rank has made the call, at Started (the call,
	// before NCCL's base latency); End is when its last step was done,
	// and Done says it was.
	Started, End sim.Time
	Began, Done  bool
	// Tag is the runner's.
	Tag int
}

// Rank is one rank's state machine over one communicator: its calls,
// run one after the other (as NCCL's kernels on one CUDA stream), and
// the steps of the call in progress. It changes only its own state, in
// events of its host: a step's arrival and a send's end come from its
// transport, and its delays (NCCL's base latency, a protocol's step
// latency) are its own timers.
type Rank struct {
	ID   int
	Comm *Comm
	eng  *sim.Engine
	tr   Transport
	out  []outLink
	in   []inLink
	// calls are the rank's calls in order; next is the first not done.
	calls []*Call
	next  int
	cur   *Call
	// begun: the running call's streams have started (its base latency
	// is over).
	begun bool
	// streams are the running call's streams' states.
	streams []streamState
	running int // streams not yet done
	// OnDone, if set, is told of each call the rank finishes, when it does.
	OnDone func(r *Rank, c *Call)
	// Sent and Landed count the rank's steps' data bytes sent and
	// arrived, and SentWire its bytes on the wire (or through the
	// scale-up domain).
	Sent, Landed, SentWire int64
}

type outLink struct {
	posted, done int64
	base         int64   // steps before the running call
	total        int64   // steps through the running call
	waiters      []int32 // streams waiting for a slot
	// pace is the channel's pace on this link (SetPace); rate 0: none.
	pace pace
}

// pace is what a step sent on a link costs the channel that sends it
// (its thread block, on the GPU): the step latency, per protocol, and
// the step's wire bytes at the channel's own rate, one after the other.
type pace struct {
	lat  [3]sim.Time
	rate fabric.Rate
}

type inLink struct {
	// arrived is how many steps have arrived in order; ahead holds
	// those arrived beyond it (bit i: step arrived+1+i), which a link
	// spread over several QPs may deliver out of order.
	arrived int64
	ahead   uint64
	base    int64
	total   int64
	waiters []int32
	// Delay is each protocol's step latency at this link's receiver
	// (ProtocolLatency, less what the path itself takes): when a step
	// that has landed is seen.
	Delay [3]sim.Time
	// call is the index in the rank's calls of the call whose steps on
	// this link are [from, to) (-1 before any): where the last step
	// that landed was, so that the next is found near it (callOf).
	call     int
	from, to int64
}

type streamState struct {
	s   Stream
	cur int64
	n   int64
	// ready is when the stream's channel may send its next step (its
	// pace: Rank.SetPace); paced says a timer for it is set.
	ready sim.Time
	paced bool
}

// Event kinds: a call's begin (after the base latency), and, plus a
// link's index, a step seen (its landing plus the step latency) and a
// send done; plus a stream's index, its channel's pace over.
const (
	evBegin  int32 = 1
	evSeen   int32 = 1 << 24
	evDone   int32 = 2 << 24
	evPace   int32 = 3 << 24
	kindMask int32 = 1<<24 - 1
)

// NewRank makes rank id of c, on its host's engine, sending through tr.
func NewRank(c *Comm, id int, eng *sim.Engine, tr Transport) *Rank {
	r := &Rank{ID: id, Comm: c, eng: eng, tr: tr, out: make([]outLink, len(c.Out[id])), in: make([]inLink, len(c.In[id]))}
	for i := range r.in {
		r.in[i].call = -1
	}
	return r
}

// SetDelay sets in-link i's step latency under protocol p.
func (r *Rank) SetDelay(i int32, p Protocol, d sim.Time) { r.in[i].Delay[p] = d }

// SetPace makes the steps sent on out-link i cost the stream (the
// channel's thread block) that sends them lat[p] and then their wire
// bytes at rate, in turn: the stream sends its next step no sooner. A
// channel of NCCL's is its own thread block moving its own share of
// the links (its graph's bwIntra a channel, src/graph/search.cc:1045,
// which tuning.cc:324 multiplies by the channels for the bus
// bandwidth), so a step's latency is not hidden by another channel's
// idle time: a ring's step then takes lat + piece/rate, NCCL's model's
// form (latency plus size over bandwidth), and its channels run side
// by side. Rate 0 (the default) paces nothing.
func (r *Rank) SetPace(i int32, lat [3]sim.Time, rate fabric.Rate) {
	r.out[i].pace = pace{lat: lat, rate: rate}
}

// Queue adds a call after the rank's others.
func (r *Rank) Queue(c *Call) { r.calls = append(r.calls, c) }

// Calls are the rank's calls, in order.
func (r *Rank) Calls() []*Call { return r.calls }

// Engine is the rank's host's engine.
func (r *Rank) Engine() *sim.Engine { return r.eng }

// Kick starts the next call if it may start (its gate open, its time
// come; a call whose time is to come gets a timer), now. The runner
// calls it once the calls are queued, and when it opens a gate.
func (r *Rank) Kick() {
	if r.cur != nil || r.next >= len(r.calls) {
		return
	}
	c := r.calls[r.next]
	if c.Gate > 0 {
		return
	}
	now := r.eng.Now()
	if c.At > now {
		r.eng.Schedule(c.At, r, evBegin, -1, nil)
		return
	}
	r.cur = c
	c.Started, c.Began = now, true
	lat := BaseLatency(c.Plan.Comm.Opt.Algorithm, c.Plan.Spec.Proto)
	if c.Plan.Empty() {
		lat = 0 // NCCL returns at once: it launches nothing
	}
	r.eng.After(lat, r, evBegin, int64(r.next), nil)
}

// KickAt is Kick at time at (now or later), in an event of the rank's
// own (the runner calls it where no event runs: an observation point).
func (r *Rank) KickAt(at sim.Time) { r.eng.Schedule(at, r, evBegin, -1, nil) }

// HandleEvent is the rank's timers.
func (r *Rank) HandleEvent(ev *sim.Event) {
	switch {
	case ev.Kind == evBegin && ev.N < 0:
		r.Kick()
	case ev.Kind == evBegin:
		r.begin()
	case ev.Kind&^kindMask == evSeen:
		r.seen(ev.Kind&kindMask, ev.N)
	case ev.Kind&^kindMask == evDone:
		r.Done(ev.Kind & kindMask)
	case ev.Kind&^kindMask == evPace:
		// A timer of an earlier call (its streams gone) does nothing.
		i := ev.Kind & kindMask
		if r.begun && ev.N == int64(r.next) && int(i) < len(r.streams) {
			r.streams[i].paced = false
			r.advance(i)
			r.maybeDone()
		}
	}
}

// begin starts the running call's streams.
func (r *Rank) begin() {
	c := r.cur
	p := c.Plan
	for i := range r.out {
		l := &r.out[i]
		if l.posted != l.total {
			panic(fmt.Sprintf("collective: rank %d begins a call with %d of %d steps posted on out-link %d", r.ID, l.posted, l.total, i))
		}
		l.base = l.total
		l.total += p.OutSteps(r.ID)[i]
	}
	for i := range r.in {
		l := &r.in[i]
		l.base = l.total
		l.total += p.InSteps(r.ID)[i]
	}
	r.streams = r.streams[:0]
	for _, s := range p.Streams(r.ID) {
		r.streams = append(r.streams, streamState{s: s, n: s.Len()})
	}
	r.running = len(r.streams)
	r.begun = true
	for i := range r.streams {
		r.advance(int32(i))
	}
	r.maybeDone()
}

// advance runs stream i's steps until one must wait: for a step to
// arrive, or for a slot on an out-link (the plan's Depth per
// connection: NCCL_STEPS buffer steps).
func (r *Rank) advance(i int32) {
	st := &r.streams[i]
	for st.cur < st.n {
		step := st.s.Step(st.cur)
		for _, w := range step.Wait[:step.NWait] {
			if l := &r.in[w.In]; l.arrived < l.base+w.Count {
				l.waiters = append(l.waiters, i)
				return
			}
		}
		depth := r.cur.Plan.Depth()
		for _, s := range step.Send[:step.NSend] {
			if l := &r.out[s.Out]; l.posted-l.done >= depth {
				l.waiters = append(l.waiters, i)
				return
			}
		}
		now := r.eng.Now()
		if step.NSend > 0 && st.ready > now {
			if !st.paced {
				st.paced = true
				r.eng.Schedule(st.ready, r, evPace|i, int64(r.next), nil)
			}
			return
		}
		proto := r.cur.Plan.Spec.Proto
		var lat, busy sim.Time
		paced := false
		for _, s := range step.Send[:step.NSend] {
			l := &r.out[s.Out]
			seq := l.posted
			l.posted++
			wire := proto.Wire(s.Bytes)
			r.Sent += s.Bytes
			r.SentWire += wire
			if pc := &l.pace; pc.rate > 0 {
				paced = true
				lat = max(lat, pc.lat[proto])
				busy += fabric.SerializationTime(wire, pc.rate)
			}
			r.tr.Send(r, s.Out, seq, wire)
		}
		if paced {
			st.ready = now + lat + busy
		}
		st.cur++
	}
	if st.n >= 0 {
		st.n = -1 // counted once
		r.running--
	}
}

// Arrived is how many steps of in-link i have arrived in order.
func (r *Rank) Arrived(i int32) int64 { return r.in[i].arrived }

// stepDelay is the step latency of step seq of in-link i: the one of
// the protocol of the call the step belongs to, which need not be the
// call the rank is running (a sender may be a call ahead of its
// receiver, which is still waiting for its last sends' completions,
// or not yet at the call at all). The calls' steps on a link follow
// one another (each call's InSteps), so the step's call is found by
// moving from the last step's, a call at a time. A step beyond every
// queued call takes the last's protocol.
func (r *Rank) stepDelay(i int32, seq int64) sim.Time {
	l := &r.in[i]
	for seq >= l.to && l.call+1 < len(r.calls) {
		l.call++
		l.from = l.to
		l.to += r.calls[l.call].Plan.InSteps(r.ID)[i]
	}
	for seq < l.from && l.call > 0 {
		l.to = l.from
		l.call--
		l.from -= r.calls[l.call].Plan.InSteps(r.ID)[i]
	}
	if l.call < 0 {
		return l.Delay[Simple]
	}
	return l.Delay[r.calls[l.call].Plan.Spec.Proto]
}

// Land tells the rank that step seq of in-link i has landed, at now:
// the rank sees it after the step latency of its call's protocol.
func (r *Rank) Land(i int32, seq int64) {
	d := r.stepDelay(i, seq)
	if d <= 0 {
		r.seen(i, seq)
		return
	}
	r.eng.After(d, r, evSeen|i, seq, nil)
}

// LandAt is Land for a step that lands at time at (later than now): a
// transfer of the scale-up domain, whose landing is known when it is
// sent. It is a timer of the receiving rank (the runner calls it in the
// sender's event: the two GPUs share their server's engine).
func (r *Rank) LandAt(i int32, seq int64, at sim.Time) {
	d := r.stepDelay(i, seq)
	r.eng.Schedule(at+max(d, 0), r, evSeen|i, seq, nil)
}

// seen counts step seq of in-link i as arrived, in order, and wakes what
// waited for it.
func (r *Rank) seen(i int32, seq int64) {
	l := &r.in[i]
	switch d := seq - l.arrived; {
	case d == 0:
		l.arrived++
		for l.ahead&1 != 0 {
			l.ahead >>= 1
			l.arrived++
		}
		l.ahead >>= 1
	case d > 0 && d <= 64:
		l.ahead |= 1 << (d - 1)
		return
	default:
		panic(fmt.Sprintf("collective: rank %d in-link %d: step %d seen with %d in order", r.ID, i, seq, l.arrived))
	}
	r.wake(&l.waiters)
	r.maybeDone()
}

// Done tells the rank a send of its out-link i is done (the step's
// work request completed, or its transfer landed and the receiver's
// slot is free again).
func (r *Rank) Done(i int32) {
	l := &r.out[i]
	l.done++
	r.wake(&l.waiters)
	r.maybeDone()
}

// DoneAt is Done at time at: a scale-up transfer's, whose end is known
// when it is sent.
func (r *Rank) DoneAt(i int32, at sim.Time) { r.eng.Schedule(at, r, evDone|i, 0, nil) }

func (r *Rank) wake(w *[]int32) {
	if len(*w) == 0 || !r.begun {
		return
	}
	waiting := *w
	*w = nil
	for _, s := range waiting {
		r.advance(s)
	}
	if *w == nil {
		*w = waiting[:0] // keep the array
	}
}

// maybeDone ends the running call once its streams are done and its
// sends are: the rank may then start its next.
func (r *Rank) maybeDone() {
	c := r.cur
	if c == nil || !r.begun || r.running > 0 {
		return
	}
	for i := range r.out {
		if l := &r.out[i]; l.done < l.total {
			return
		}
	}
	c.End, c.Done = r.eng.Now(), true
	r.cur, r.begun = nil, false
	r.streams = r.streams[:0]
	r.next++
	if r.OnDone != nil {
		r.OnDone(r, c)
	}
	r.Kick()
}

// Busy reports whether the rank has a call running or to run.
func (r *Rank) Busy() bool { return r.next < len(r.calls) }
