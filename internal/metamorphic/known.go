package metamorphic

// knownDefect names the known defect that explains a failure of check
// on s, or "" when none does: those of issue 45 being fixed, and those
// this test found, whose minimal cases wait in testdata/pending. Each
// entry goes when its fix is merged, and the failures it excused are
// then failures again. An entry excuses one check only, so that anything
// else the same scenario does wrong still fails.
func knownDefect(s *Spec, check string) string {
	switch {
	case check == CheckConservation && s.Transport == "iwarp" && s.sendBeforeRecv():
		return "found by this test (testdata/pending/iwarp-send-before-recv): on iWARP a SEND that arrives before its RECV is posted ends the connection, and its bytes are counted nowhere"
	}
	// Issue 45 item 6 (InfiniBand with UD poisson traffic cost more than
	// linearly in time) never needed an entry: its events grew linearly
	// while each event's cost grew with the waiting QPs (the transmit
	// arbiter read every one); hca's parking fixed it, and assembly's
	// TestIBUDBacklogLinear holds it by the QPs the arbiters read.
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

// sendBeforeRecv says whether s has a flow of SENDs whose RECVs are
// posted later than its start (recv_at).
func (s *Spec) sendBeforeRecv() bool {
	for _, it := range s.Traffic {
		op, _ := Get(it.Opts, "op")
		_, late := Get(it.Opts, "recv_at")
		if it.Kind == "flow" && op == "send" && late {
			return true
		}
	}
	return false
}
