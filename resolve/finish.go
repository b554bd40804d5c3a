package resolve

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
	// Payload each host must send and receive (a READ's data comes
	// back), from its first flow's start; by node id.
	type load struct {
		bytes int64
		start sim.Time
	}
	sides := [2][]load{make([]load, len(b.t.Nodes)), make([]load, len(b.t.Nodes))}
	verbs := [2]string{"send", "receive"}
	for i := range s.Flows {
		f := &s.Flows[i]
		ends := [2]fabric.NodeID{f.Src, f.Dst}
		if f.Op == "read" {
			ends[0], ends[1] = f.Dst, f.Src
		}
		for k, h := range ends {
			l := &sides[k][h]
			if l.bytes == 0 || f.Start < l.start {
				l.start = f.Start
			}
			l.bytes += f.Size
		}
	}
	var worst sim.Time
	var host fabric.NodeID
	var bytes int64
	var verb string
	var rate fabric.Rate
	for h, n := range b.t.Nodes { // in id order: the same message every time
		if len(n.Ports) == 0 {
			continue // an unlinked host: an error said elsewhere
		}
		r := b.t.Links[n.Ports[0].Link].Rate
		for k := range sides {
			l := sides[k][h]
			if l.bytes == 0 {
				continue
			}
			need := l.start + sim.Time(math.Ceil(float64(l.bytes)*8/float64(r)*float64(sim.Second)))
			if need > worst {
				worst, host, bytes, verb, rate = need, fabric.NodeID(h), l.bytes, verbs[k], r
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
	b.warnf(pos, "stop.at", "the flows cannot finish by stop.at (%s): %s must %s %s, which takes until %s at its link's %s even alone; raise stop.at to at least that to see them end",
		s.Stop.At, b.t.Nodes[host].Name, verb, ShowBytes(bytes), worst.Short(), rate)
}
