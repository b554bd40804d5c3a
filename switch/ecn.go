package swtch

import "github.com/lfsim/lfsim/fabric"

// MarkProbability is RED's marking probability for a queue of depth bytes
// (Floyd and Jacobson 1993, in DCQCN's form): 0 up to Kmin, rising
// linearly to Pmax at Kmax, 1 above Kmax.
func (e ECN) MarkProbability(depth int64) float64 {
	switch {
	case depth <= int64(e.Kmin):
		return 0
	case e.Constant:
		return e.Pmax
	case depth > int64(e.Kmax):
		return 1
	case e.Kmax == e.Kmin:
		return e.Pmax
	}
	return e.Pmax * float64(depth-int64(e.Kmin)) / float64(e.Kmax-e.Kmin)
}

// maybeMark sets CE on an ECN-capable packet with RED's probability for
// the queue depth, unless its priority's queues do not mark; it reports
// whether it marked.
func (s *Switch) maybeMark(p *fabric.Packet, depth int64) bool {
	if (p.ECN != fabric.ECT0 && p.ECN != fabric.ECT1) || s.Prof.ECN.Unmarked&(1<<(p.Priority&7)) != 0 ||
		s.Prof.ECN.HostLinksUnmarked && s.towardHost(p.Dst) {
		return false
	}
	prob := s.Prof.ECN.MarkProbability(depth)
	if prob <= 0 || (prob < 1 && s.ecnRNG.Float64() >= prob) {
		return false
	}
	p.ECN = fabric.CE
	return true
}

// towardHost reports whether the switch's next link toward dst ends at
// dst, a host attached to it.
func (s *Switch) towardHost(dst fabric.NodeID) bool {
	next := s.row.Next(dst)
	return len(next) > 0 && s.ports[next[0]].Link().To() == dst
}
