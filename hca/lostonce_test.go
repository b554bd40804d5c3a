package hca_test

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
)

// postAll posts wrs on qp in order and returns their WQEs.
func postAll(t *testing.T, h *hca.HCA, qp *hca.QP, wrs ...hca.SendWR) []*hca.WQE {
	t.Helper()
	ws := make([]*hca.WQE, 0, len(wrs))
	for _, wr := range wrs {
		w, err := h.PostSend(qp, wr)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	return ws
}

// wantLostOnceAllDone checks that the case's one loss happened on l (else
// it tested nothing) and that every WQE of ws completed with success;
// what names them in a failure ("READ", "WQE").
func wantLostOnceAllDone(t *testing.T, l *fabric.Link, what string, ws []*hca.WQE) {
	t.Helper()
	if n := l.Lost; n != 1 {
		t.Fatalf("%d frames lost, want 1 (the case tests nothing)", n)
	}
	for i, w := range ws {
		if w.Status != hca.WCSuccess {
			t.Errorf("%s %d: %v; want success", what, i, w.Status)
		}
	}
}
