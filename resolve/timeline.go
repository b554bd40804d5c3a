package resolve

import (
	"github.com/lfsim/lfsim/observe"
)

// timeline resolves observe.timeline: the program it follows (traffic:,
// by default the first pingpong or perftest send_lat of the traffic) and the iteration
// (iteration:, default 2: the first with an iteration before it, whose
// last ACK may still be going out as it starts, as in every later one),
// which must be one the program runs, of
// messages of one packet each (the timeline follows one frame per
// message).
func (b *builder) timeline() {
	o := &b.f.Observe.Timeline
	if !o.Set || !b.flowsOK {
		return
	}
	var t *Test
	at := o.Pos
	if o.Traffic.Set {
		at = o.Traffic.Pos
		n := int64(len(b.f.Traffic))
		if o.Traffic.V >= n {
			b.errorf(at, "observe.timeline.traffic", "traffic[%d] does not exist; traffic has %d entries (0..%d)", o.Traffic.V, n, n-1)
			return
		}
		for i := range b.s.Tests {
			if b.s.Tests[i].Generator == int(o.Traffic.V) {
				t = &b.s.Tests[i]
			}
		}
		if t == nil || !timelined(t) {
			what := b.f.Traffic[o.Traffic.V].Kind
			if t != nil && t.Kind == "perftest" {
				what = "perftest " + t.Perftest.Test
			}
			b.errorf(at, "observe.timeline.traffic", "traffic[%d] is a %s; observe.timeline follows an iteration of a pingpong or a perftest send_lat (its ping, pong and their ACKs)", o.Traffic.V, what)
			return
		}
	} else {
		for i := range b.s.Tests {
			if timelined(&b.s.Tests[i]) {
				t = &b.s.Tests[i]
				break
			}
		}
		if t == nil {
			b.errorf(at, "observe.timeline", "traffic has no pingpong and no perftest send_lat; the timeline follows one iteration of either")
			return
		}
	}
	iters, size := t.Pingpong.Iters, t.Pingpong.Size
	if t.Kind == "perftest" {
		iters, size = t.Perftest.Iters, t.Perftest.Size
	}
	iter := min(2, iters)
	if o.Iteration.Set {
		iter = int(o.Iteration.V)
		if iter > iters {
			b.errorf(o.Iteration.Pos, "observe.timeline.iteration", "iteration %d is past the %s's last (traffic[%d] runs %d iterations)", iter, t.Kind, t.Generator, iters)
			return
		}
	}
	if mtu := min(b.s.HCAProfile(t.Src).MTU, b.s.HCAProfile(t.Dst).MTU); size > int64(mtu) {
		b.errorf(at, "observe.timeline", "traffic[%d]'s messages of %d bytes take %d packets; observe.timeline follows messages of one packet (size at most the MTU, %d)",
			t.Generator, size, (size+int64(mtu)-1)/int64(mtu), mtu)
		return
	}
	test := 0
	for i := range b.s.Tests {
		if &b.s.Tests[i] == t {
			test = i
		}
	}
	b.s.Observe.Timeline = &observe.TimelineAt{Traffic: t.Generator, Test: test, Iteration: iter}
}

// timelined reports whether observe.timeline can follow t: a pingpong,
// or perftest's send_lat (a SEND each way, each side answering its
// RECV's completion; write_lat's server polls memory, read_lat and
// atomic_lat have no answer to follow).
func timelined(t *Test) bool {
	return t.Kind == "pingpong" || t.Kind == "perftest" && t.Perftest.Test == "send_lat"
}
