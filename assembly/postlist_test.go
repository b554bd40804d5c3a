package assembly

import (
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/resolve"
)

// TestFlowPostList: a flow of 16 64-byte WRITEs, posted one
// ibv_post_send each or as one chain (flow.post_list: 16), with each
// doorbell taking the posting thread 300 ns (hca.doorbell_cost). The
// separate posts' last WRITE leaves 15 doorbells after the first, the
// chain's 15 frame times after it, so the flow ends 15 × (300 ns − a
// frame time) sooner (hca.TestDoorbellChain times each packet); chains
// of 4 ring 4 doorbells, the last at 3 × 300 ns, and its 4 WRITEs leave
// back to back: 12 doorbells less 3 frames sooner.
func TestFlowPostList(t *testing.T) {
	end := func(list string) int64 {
		src := "stop: {at: 1ms, when: flows-done}\ntopology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}\nhca: {doorbell_cost: 300ns}\ntraffic:\n" +
			"  - flow: {from: h0, to: h1, size: 1KiB, messages: 16" + list + "}\n"
		_, r := runSource(t, "p.yaml", src)
		if f := r.Flows[0]; f.Status != "success" {
			t.Fatalf("%q: status %s", list, f.Status)
		}
		return r.Flows[0].EndNs
	}
	ser := float64(fabric.SerializationTime(int64(fabric.RoCEv2Wire(fabric.OpWriteOnly, 64)), 100*fabric.Gbps)) / 1e3
	sep, chain, fours := end(""), end(", post_list: 16"), end(", post_list: 4")
	for _, c := range []struct {
		name          string
		got           int64
		bells, frames float64
	}{{"post_list 16", chain, 15, 15}, {"post_list 4", fours, 12, 3}} {
		if want := c.bells*300 - c.frames*ser; math.Abs(float64(sep-c.got)-want) > 1 {
			t.Errorf("%s ends %d ns sooner than separate posts, want %.1f ± 1", c.name, sep-c.got, want)
		}
	}
	_, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 2}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1MiB, messages: 4, post_list: 8}\n"))
	if want := "t.yaml:3:66: traffic[0].flow.post_list: post_list 8 is longer than the flow's 4 work requests"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("post_list past messages: %v, want %q", err, want)
	}
}
