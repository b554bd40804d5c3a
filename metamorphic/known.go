package metamorphic

import (
	"slices"

	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/reports"
)

// knownDefect names the known defect that explains a failure of check
// on s, or "" when none does: those of issue 45 being fixed, and those
// this test found, whose minimal cases wait in testdata/pending. Each
// entry goes when its fix is merged, and the failures it excused are
// then failures again. An entry excuses one check only, so that anything
// else the same scenario does wrong still fails.
func knownDefect(s *Spec, check string) string {
	if check == CheckCollectives && s.goBack0Window() {
		return "go-back-0 under a window (a congestion control's, hca.bdp_cap's): a message longer than the window never completes, its window measured from qp.una, which go-back-0 holds at the message's first PSN (testdata/pending/go-back-0-window)"
	}
	// No other is open. (read-path-mtu, a READ between hosts whose own
	// hca.mtu differ, was fixed by the QPs' path MTU, hca.QPAttr.PathMTU,
	// and is replayed from testdata.) An entry reads, for example,
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

// goBack0Window says whether s's hosts retransmit by go-back-0 under a
// window: a congestion control's (those that draw window_bytes, as the
// table says: two today) or hca.bdp_cap's (seed 31014941: an
// all_to_all of 512 KiB on RoCEv1 with bdp_cap: auto, none of it done at
// 100 ms, done without the cap): go-back-0-window's case.
func (s *Spec) goBack0Window() bool {
	if get(s.HCA, "retransmit") != "go-back-0" {
		return false
	}
	if _, ok := Get(s.HCA, "bdp_cap"); ok {
		return true
	}
	cc := get(s.HCA, "cc")
	for _, r := range kind.CCs() {
		if r.Name == cc && slices.Contains(r.Metrics, reports.MetricWindowBytes) {
			return true
		}
	}
	return false
}
