package hca

import "testing"

// TestReadRecovered: the PSNs of a timeout's recovery span that recovery
// does not resend because they are a READ's or an atomic's
// (readRecovered, which creditBacklog takes off the span): a READ of 4
// PSNs at 10..13 and a WRITE of 3 at 14..16 on a QP with the READ
// outstanding. srHole resends a READ's request only from its first PSN
// and only while no response came; once resent (recovery's next past
// it) or answered, none of its PSNs is resent. Before, a READ counted
// one request in every case: 1 too many in the last three rows (tried).
func TestReadRecovered(t *testing.T) {
	for _, c := range []struct {
		name               string
		from, to, respPkts int64
		respDone           bool
		want               int64
	}{
		{"the READ's request still to resend", 10, 17, 0, false, 3},
		{"its request resent: recovery next at 11", 11, 17, 0, false, 3},
		{"some responses came", 10, 17, 2, false, 4},
		{"all its responses came", 10, 17, 4, true, 4},
		{"span below the READ", 0, 10, 0, false, 0},
		{"span on the WRITE only", 14, 17, 0, false, 0},
	} {
		read := &WQE{Op: WRRead, FirstPSN: 10, NPkts: 4, reqPkts: 1, respPkts: c.respPkts, respDone: c.respDone}
		write := &WQE{Op: WRWrite, FirstPSN: 14, NPkts: 3, reqPkts: 3}
		qp := &QP{sq: []*WQE{read, write}, rdOut: 1}
		if got := readRecovered(qp, c.from, c.to); got != c.want {
			t.Errorf("%s: %d PSNs not resent; want %d", c.name, got, c.want)
		}
	}
}
