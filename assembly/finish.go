package assembly

import (
	"math"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// finishBound warns, before a run that is to stop when its flows are
// done (stop.when: flows-done), when its fixed flows cannot all finish by
// stop.at: some host must send or receive more payload than its link
// carries between its first flow's start and stop.at, even with nothing
// else on the network. (A run that stops at a time, or on a deadlock,
// chose its window.) The bound counts payload only (headers make the
// real time longer) and a host's own link only, so a run it does not warn
// about may still not finish; one it warns about cannot. Poisson flows,
// which come at run time, and perftest and pingpong, which are not
// flows, are left out.
func (b *builder) finishBound() {
	s := b.s
	if !s.Stop.WhenFlowsDone || s.Stop.At == sim.Never || len(s.Flows) == 0 || b.t == nil {
		return
	}
	type load struct {
		bytes int64
		start sim.Time
	}
	in := map[fabric.NodeID]*load{}
	out := map[fabric.NodeID]*load{}
	add := func(m map[fabric.NodeID]*load, h fabric.NodeID, f *Flow) {
		l := m[h]
		if l == nil {
			l = &load{start: f.Start}
			m[h] = l
		}
		l.bytes += f.Size
		l.start = min(l.start, f.Start)
	}
	for i := range s.Flows {
		f := &s.Flows[i]
		src, dst := f.Src, f.Dst
		if f.Op == "read" {
			src, dst = dst, src // the data comes back
		}
		add(out, src, f)
		add(in, dst, f)
	}
	var worst sim.Time
	var host fabric.NodeID
	var bytes int64
	var verb string
	// Hosts in id order, so that the message is the same every time.
	for h := range b.t.Nodes {
		id := fabric.NodeID(h)
		if len(b.t.Nodes[h].Ports) == 0 {
			continue // an unlinked host: an error said elsewhere
		}
		for _, side := range []struct {
			m    map[fabric.NodeID]*load
			verb string
		}{{out, "send"}, {in, "receive"}} {
			l := side.m[id]
			if l == nil {
				continue
			}
			rate := b.t.Links[b.t.Nodes[h].Ports[0].Link].Rate
			need := l.start + sim.Time(math.Ceil(float64(l.bytes)*8/float64(rate)*float64(sim.Second)))
			if need > worst {
				worst, host, bytes, verb = need, id, l.bytes, side.verb
			}
		}
	}
	if worst <= s.Stop.At {
		return
	}
	st := &b.f.Stop
	pos := st.Pos
	if st.At.Set {
		pos = st.At.Pos
	}
	rate := b.t.Links[b.t.Nodes[host].Ports[0].Link].Rate
	b.warnf(pos, "stop.at", "the flows cannot finish by stop.at (%s): %s must %s %s, which takes until %s at its link's %s even alone; raise stop.at to at least that to see them end",
		s.Stop.At, b.t.Nodes[host].Name, verb, ShowBytes(bytes), worst.Short(), rate)
}
