package assembly

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/resolve"
)

// TestAsyncEvents: a host's link going down and up raises
// IBV_EVENT_PORT_ERR and IBV_EVENT_PORT_ACTIVE at that host's HCA when
// it happens; a responder that refuses a WRITE raises
// IBV_EVENT_QP_ACCESS_ERR on its QP and the requester's QP, failed,
// IBV_EVENT_QP_FATAL; each names its flow. asyncwatch prints each
// watched host's events in ibv_asyncwatch's lines, which rdma-core's
// asyncwatch.c prints as
//
//	mlx5_0: async event FD 4
//	  event_type IBV_EVENT_PORT_ERR (10), port 1
//
// (the device here is lfsim0; each line ends with the simulated time).
func TestAsyncEvents(t *testing.T) {
	_, r := runSource(t, "aw.yaml", `
stop: {at: 5ms}
topology: {kind: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}
traffic:
  - flow: {from: h2, to: h1, size: 512KiB, messages: 8, remote_mr: {access: [local_write, remote_read]}}
  - asyncwatch: {hosts: [h0, h1]}
faults:
  - {at: 100us, link: [h0, s0], action: down, until: 300us}
`)
	var got []string
	for _, e := range r.Events {
		got = append(got, strings.Join([]string{e.Host, e.Event, e.Object}, " "))
	}
	want := []string{
		"h1 IBV_EVENT_QP_ACCESS_ERR qp 0x000002 flow 0 responder",
		"h2 IBV_EVENT_QP_FATAL qp 0x000002 flow 0 requester",
		"h0 IBV_EVENT_PORT_ERR port 1",
		"h0 IBV_EVENT_PORT_ACTIVE port 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(r.Events) == 4 && (r.Events[2].TimeNs != 100_000 || r.Events[3].TimeNs != 300_000 || r.Events[2].Code != 10 || r.Events[3].Code != 9) {
		t.Errorf("port events %+v, want PORT_ERR (10) at 100 us and PORT_ACTIVE (9) at 300 us", r.Events[2:])
	}
	aw := string(r.Extra["asyncwatch.txt"])
	for _, line := range []string{
		"# asyncwatch on h0: ibv_asyncwatch -d lfsim0\nlfsim0: async event FD 3\n  event_type IBV_EVENT_PORT_ERR (10), port 1   at 100us\n  event_type IBV_EVENT_PORT_ACTIVE (9), port 1   at 300us\n",
		"# asyncwatch on h1: ibv_asyncwatch -d lfsim0\nlfsim0: async event FD 3\n  event_type IBV_EVENT_QP_ACCESS_ERR (3), qp 0x000002   at ",
	} {
		if !strings.Contains(aw, line) {
			t.Errorf("asyncwatch.txt lacks\n%s\nit is\n%s", line, aw)
		}
	}
	if strings.Contains(aw, "on h2") {
		t.Error("asyncwatch watched h2, which it was not asked to")
	}
}

// TestRpingGenerator: the rping traffic item runs rping -C -S -v -V
// between its client and server; its lines go to perftest.txt with the
// other programs'; a flows-done run waits for it; a QP other than RC and
// a buffer too small for the message are errors at their keys.
func TestRpingGenerator(t *testing.T) {
	_, r := runSource(t, "rp.yaml", "stop: {at: 10ms, when: flows-done}\ntopology: {kind: star, hosts: 2}\ntraffic:\n  - rping: {client: h0, server: h1, count: 3}\n")
	txt := string(r.Extra["perftest.txt"])
	for _, want := range []string{"# h0 (client): rping -c -C 3 -S 64 -v -V\nping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr\n",
		"ping data: rdma-ping-2: CDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrst\n# h1 (server)"} {
		if !strings.Contains(txt, want) {
			t.Errorf("perftest.txt lacks\n%s\nit is\n%s", want, txt)
		}
	}
	if r.Summary.StopReason != "flows-done" {
		t.Errorf("stopped by %s", r.Summary.StopReason)
	}
	for _, tc := range []struct{ item, want string }{
		{"{client: h0, server: h1, count: 3, qp: ud}", "t.yaml:3:51: traffic[0].rping.qp: rping runs on an RC QP"},
		{"{client: h0, server: h1, count: 3, size: 8}", "t.yaml:3:53: traffic[0].rping.size: an rping buffer of 8 bytes cannot hold its message"},
		{"{client: h0, server: h9, count: 3}", "traffic[0].rping.server: unknown host h9"},
	} {
		_, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 2}\ntraffic:\n  - rping: "+tc.item+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.item, err, tc.want)
		}
	}
}
