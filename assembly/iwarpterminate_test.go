package assembly

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

// TestConservationIWARPTerminate (issue 45's random scenario, seeds 20313
// and six more): on iWARP a SEND that arrives before its RECV is posted
// ends the connection, RDMAP's Terminate (RFC 5040 §7), and the
// requester's SEND may complete with success, since TCP took the segment
// (docs/SCENARIO.md, iWARP). The bytes the Terminate threw away, and all
// the flow sent or queued after them, are dropped under rdmap_terminate,
// once, and the flow's status in flows.csv is rdmap_terminate, whatever
// its work completions say. Before the fix the 1-byte flow was a
// success with 0 of its 1 byte delivered, its byte in no term: the
// conservation check failed and `lfsim run` exited 3.
//
// A star of 2 hosts with 1 µs links, cut in two at 2 workers. The SENDs
// reach h1 near 3.9 µs (the 1-byte SEND; 4.9 µs for a 64 KiB one),
// their RECVs are posted at 10 µs. The 1-byte SEND's TCP ACK and the
// Terminate reach h0 at about 6.6 µs: a run stopped at 5 µs has the
// responder terminated and the requester still waiting, and the flow
// ends at the Terminate (events.csv's QP_FATAL at h1). Four 1-byte SENDs
// go before the first is refused: it completes with success (acked),
// the others are flushed. Four 64 KiB SENDs are each sixteen 4 KiB
// segments: the first's later segments reach a QP in error, are not
// acknowledged, and all four are flushed. A WRITE and a SEND of their
// own QPs beside are untouched. RoCE's answer to the same SENDs, an RNR
// NAK and a retry (or rnr_retry 0: rnr_retry_exc_err), is unchanged.
func TestConservationIWARPTerminate(t *testing.T) {
	const (
		base   = "topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}\n"
		iwarp  = "hca: {transport: iwarp}\n"
		early  = "  - flow: {from: h0, to: h1, op: send, size: 256KiB, messages: 4, recv_at: 10us}\n"
		beside = "  - flow: {from: h0, to: h1, size: 64KiB}\n" +
			"  - flow: {from: h1, to: h0, op: send, size: 64KiB}\n"
	)
	type flow struct {
		status    string
		delivered int64
	}
	for _, c := range []struct {
		name, hca, stop, traffic string
		flows                    []flow
		offered, dropped         int64
		reasons                  map[string]int64 // bytes.drop_reasons
		wcs                      map[string]int64 // flows.work_completions
		endAtTerminate           bool             // flow 0 ends at h1's QP_FATAL
	}{
		{"a 1-byte SEND (the issue's)", iwarp, "20us", "  - flow: {from: h0, to: h1, op: send, size: 1, recv_at: 10us}\n",
			[]flow{{"rdmap_terminate", 0}}, 1, 1, map[string]int64{"rdmap_terminate": 1}, map[string]int64{"success": 1}, false},
		{"stopped before the requester hears", iwarp, "5us", "  - flow: {from: h0, to: h1, op: send, size: 1, recv_at: 10us}\n",
			[]flow{{"rdmap_terminate", 0}}, 1, 1, map[string]int64{"rdmap_terminate": 1}, map[string]int64{}, true},
		{"four 1-byte SENDs", iwarp, "1ms", "  - flow: {from: h0, to: h1, op: send, size: 4, messages: 4, recv_at: 10us}\n",
			[]flow{{"rdmap_terminate", 0}}, 4, 4, map[string]int64{"rdmap_terminate": 4}, map[string]int64{"success": 1, "wr_flush_err": 3}, false},
		{"four 64 KiB SENDs, flows beside", iwarp, "1ms", early + beside,
			[]flow{{"rdmap_terminate", 0}, {"success", 65536}, {"success", 65536}}, 393216, 262144,
			map[string]int64{"rdmap_terminate": 262144}, map[string]int64{"success": 2, "wr_flush_err": 4}, false},
		{"RoCE: RNR NAK and retry", "", "1ms", early + beside,
			[]flow{{"success", 262144}, {"success", 65536}, {"success", 65536}}, 393216, 0,
			map[string]int64{}, map[string]int64{"success": 6}, false},
		{"RoCE: rnr_retry 0", "hca: {rnr_retry: 0}\n", "1ms", early + beside,
			[]flow{{"rnr_retry_exc_err", 0}, {"success", 65536}, {"success", 65536}}, 393216, 262144,
			map[string]int64{"rnr_retry_exc_err": 262144}, map[string]int64{"rnr_retry_exc_err": 1, "success": 2, "wr_flush_err": 3}, false},
	} {
		for _, workers := range []int{1, 2} {
			what := fmt.Sprintf("%s (%d workers)", c.name, workers)
			_, r := runConserved(t, what, "t.yaml", "name: terminate\nstop: {at: "+c.stop+"}\n"+base+c.hca+"traffic:\n"+c.traffic, workers)
			sum := r.Summary
			if len(r.Flows) != len(c.flows) {
				t.Fatalf("%s: %d rows in flows.csv, want %d", what, len(r.Flows), len(c.flows))
			}
			var delivered int64
			for i, w := range c.flows {
				f := r.Flows[i]
				delivered += w.delivered
				if f.Status != w.status || f.DeliveredBytes != w.delivered {
					t.Errorf("%s: flow %d is %s with %d bytes delivered, want %s with %d", what, i, f.Status, f.DeliveredBytes, w.status, w.delivered)
				}
			}
			b := sum.Bytes
			if b.Offered != c.offered || b.Delivered != delivered || b.Dropped != c.dropped || b.InFlight != 0 || b.Copied != 0 {
				t.Errorf("%s: bytes offered %d, delivered %d, dropped %d, in flight %d, copied %d; want %d, %d, %d, 0, 0",
					what, b.Offered, b.Delivered, b.Dropped, b.InFlight, b.Copied, c.offered, delivered, c.dropped)
			}
			if !maps.Equal(b.DropReasons, c.reasons) {
				t.Errorf("%s: bytes.drop_reasons %v, want %v", what, b.DropReasons, c.reasons)
			}
			if !maps.Equal(sum.Flows.WorkCompletions, c.wcs) {
				t.Errorf("%s: work completions %v, want %v", what, sum.Flows.WorkCompletions, c.wcs)
			}
			if c.endAtTerminate {
				var at int64
				for _, e := range r.Events {
					if e.Host == "h1" && e.Event == "IBV_EVENT_QP_FATAL" && strings.Contains(e.Object, "flow 0 responder") {
						at = e.TimeNs
					}
				}
				if at == 0 || r.Flows[0].EndNs != at {
					t.Errorf("%s: flow 0 ends at %d ns, want at the Terminate, h1's QP_FATAL (%d ns)", what, r.Flows[0].EndNs, at)
				}
			}
		}
	}
}
