package metamorphic

// knownDefect names the known defect that explains a failure of check
// on s, or "" when none does: those of issue 45 being fixed, and those
// this test found, whose minimal cases wait in testdata/pending. Each
// entry goes when its fix is merged, and the failures it excused are
// then failures again. An entry excuses one check only, so that anything
// else the same scenario does wrong still fails.
func knownDefect(s *Spec, check string) string {
	// None is open. (read-path-mtu, a READ between hosts whose own
	// hca.mtu differ, was fixed by the QPs' path MTU, hca.QPAttr.PathMTU;
	// go-back-0-window, go-back-0 under a window (a congestion control's,
	// hca.bdp_cap's) never completing a message longer than the window,
	// by the window counting from the highest PSN acknowledged,
	// hca.flightFrom. Both are replayed from testdata.) An entry reads,
	// for example,
	//
	//	if check == CheckPanic && s.IB && s.has("mckey") {
	//		return "issue 45 item 1 (testdata/pending/ib-mckey-credits): ..."
	//	}
	//
	// Issue 45's five (items 1, 3 and the three this test found: iWARP's
	// READ resent after its completion, go-back-0 READs counted twice,
	// iWARP's SEND before its RECV) were fixed, and their cases are
	// replayed from testdata. Item 6 (InfiniBand with UD poisson traffic
	// cost more than linearly in time) never needed an entry: its events
	// grew linearly while each event's cost grew with the waiting QPs (the
	// transmit arbiter read every one); hca's parking fixed it, and
	// assembly's TestIBUDBacklogLinear holds it by the QPs the arbiters
	// read.
	return ""
}

// has says whether s has a traffic item of kind.
func (s *Spec) has(kind string) bool {
	for _, it := range s.Traffic {
		if it.Kind == kind {
			return true
		}
	}
	return false
}
