package resolve

import (
	"github.com/lfsim/lfsim/observe"
)

// timeline resolves observe.timeline: the pingpong it follows (traffic:,
// by default the first pingpong of the traffic) and the iteration
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
		if t == nil || t.Kind != "pingpong" {
			b.errorf(at, "observe.timeline.traffic", "traffic[%d] is a %s; observe.timeline follows a pingpong's iteration (its ping, pong and their ACKs)", o.Traffic.V, b.f.Traffic[o.Traffic.V].Kind)
			return
		}
	} else {
		for i := range b.s.Tests {
			if b.s.Tests[i].Kind == "pingpong" {
				t = &b.s.Tests[i]
				break
			}
		}
		if t == nil {
			b.errorf(at, "observe.timeline", "traffic has no pingpong; the timeline follows one iteration of a pingpong")
			return
		}
	}
	iter := min(2, t.Pingpong.Iters)
	if o.Iteration.Set {
		iter = int(o.Iteration.V)
		if iter > t.Pingpong.Iters {
			b.errorf(o.Iteration.Pos, "observe.timeline.iteration", "iteration %d is past the pingpong's last (traffic[%d] runs %d iterations)", iter, t.Generator, t.Pingpong.Iters)
			return
		}
	}
	if mtu := min(b.s.HCAProfile(t.Src).MTU, b.s.HCAProfile(t.Dst).MTU); t.Pingpong.Size > int64(mtu) {
		b.errorf(at, "observe.timeline", "traffic[%d]'s messages of %d bytes take %d packets; observe.timeline follows messages of one packet (size at most the MTU, %d)",
			t.Generator, t.Pingpong.Size, (t.Pingpong.Size+int64(mtu)-1)/int64(mtu), mtu)
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
