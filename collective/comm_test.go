package collective

import (
	"slices"
	"strings"
	"testing"
)

// servers lays out s servers of g GPUs, ranks in server order.
func servers(s, g int) []Place {
	var p []Place
	for i := range s {
		for j := range g {
			p = append(p, Place{Server: i, GPU: j})
		}
	}
	return p
}

// TestRingLayout: on 2 servers of 4 GPUs, channel 1's rail-aware ring
// enters each server at GPU 1 and crosses GPUs 1, 2, 3, 0 over the
// scale-up domain; its step out of a server goes from GPU 0 through the
// server's GPU 1 (PXN) to the next server's GPU 1 over the network, on
// rail 1. Without PXN GPU 0's own NIC sends it; without rails the ring
// is the ranks in order, server to server from GPU 3 to GPU 0.
func TestRingLayout(t *testing.T) {
	c, err := NewComm(servers(2, 4), Options{Algorithm: Ring, Channels: 2, RailAware: true, PXN: true})
	if err != nil {
		t.Fatal(err)
	}
	r := c.rings[1]
	if want := []int{1, 2, 3, 0, 5, 6, 7, 4}; !slices.Equal(r.order, want) {
		t.Errorf("channel 1's ring %v, want %v", r.order, want)
	}
	exit := r.hops[3] // from rank 0 (s0/g0) to rank 5 (s1/g1)
	if exit.relay != 1 || c.Links[exit.out].Kind != ScaleUp || c.Links[exit.in].Kind != Network || c.Links[exit.in].From != 1 || c.Links[exit.in].To != 5 {
		t.Errorf("the step out of server 0: relay %d, links %+v then %+v", exit.relay, c.Links[exit.out], c.Links[exit.in])
	}
	for i, h := range r.hops {
		if i%4 != 3 && (h.relay >= 0 || c.Links[h.out].Kind != ScaleUp) {
			t.Errorf("step %d inside a server: %+v", i, c.Links[h.out])
		}
	}
	c, _ = NewComm(servers(2, 4), Options{Algorithm: Ring, Channels: 2, RailAware: true})
	if h := c.rings[1].hops[3]; h.relay >= 0 || c.Links[h.out].From != 0 || c.Links[h.out].To != 5 || c.Links[h.out].Kind != Network {
		t.Errorf("without PXN, the step out of server 0 is %+v", c.Links[h.out])
	}
	c, _ = NewComm(servers(2, 4), Options{Algorithm: Ring, Channels: 2, PXN: true})
	if r := c.rings[1]; !slices.Equal(r.order, []int{0, 1, 2, 3, 4, 5, 6, 7}) || c.Links[r.hops[3].out].Kind != Network {
		t.Errorf("without rails: ring %v, step 3 %+v", r.order, c.Links[r.hops[3].out])
	}
	p := servers(2, 4)
	p = p[:7] // server 1 without GPU 3
	if _, err := NewComm(p, Options{Algorithm: Ring, Channels: 2, RailAware: true}); err == nil || !strings.Contains(err.Error(), "the same GPUs of every server") {
		t.Errorf("rails over servers of different GPUs: %v", err)
	}
	// A tree's chains are on the rails whatever rail_aware says: its
	// refusal does not advise rail_aware: false, which would not help.
	for _, rail := range []bool{true, false} {
		_, err := NewComm(p, Options{Algorithm: Tree, Channels: 2, RailAware: rail})
		if err == nil || !strings.Contains(err.Error(), "a tree needs the same GPUs of every server") || strings.Contains(err.Error(), "rail_aware") {
			t.Errorf("a tree over servers of different GPUs, rail_aware %v: %v", rail, err)
		}
	}
}
