package collective

import (
	"math"
	"testing"
)

// TestTune: NCCL's choice of protocol by size for a ring all-reduce over
// 8 single-GPU nodes of 100 Gb/s NICs (12.25 GB/s of goodput, 2
// channels), worked by hand from tuning.cc's tables (Hopper, Intel):
// LL: bw min(20.4, 6.1)·8/14 = 3.5 GB/s, latency 6.6 + 14·5.0 = 76.6 µs;
// LL128: min(11.3, 73.4)·8/14 = 6.44 GB/s, 14 + 14·8.5 = 133 µs;
// Simple: 12.25·8/14 = 7 GB/s, (8.4 + 14·14)·1.4 = 286.2 µs. LL wins
// below 432 KB (where LL128's bandwidth pays for its 56.4 µs more
// latency), LL128 below 12.3 MB, Simple beyond.
func TestTune(t *testing.T) {
	m := Model{Ranks: 8, Nodes: 8, Channels: 2, BusBw: 12.25}
	for _, c := range []struct {
		size int64
		want Protocol
	}{
		{1 << 10, LL}, {64 << 10, LL}, {256 << 10, LL}, {512 << 10, LL128}, {1 << 20, LL128},
		{8 << 20, LL128}, {16 << 20, Simple}, {64 << 20, Simple}, {1 << 30, Simple},
	} {
		if got := m.Tune(AllReduce, Ring, c.size); got != c.want {
			t.Errorf("%d bytes: %s (LL %.1f, LL128 %.1f, Simple %.1f µs), want %s", c.size, got,
				m.Predict(AllReduce, Ring, LL, c.size), m.Predict(AllReduce, Ring, LL128, c.size), m.Predict(AllReduce, Ring, Simple, c.size), c.want)
		}
	}
	want := 76.6 + float64(1<<20)/(1000*min(20.4, 12.25*0.5)*8/14)
	if got := m.Predict(AllReduce, Ring, LL, 1<<20); got < want-0.01 || got > want+0.01 {
		t.Errorf("LL at 1 MiB: %.3f µs, want %.3f", got, want)
	}
}

// TestP2PProtocol: all_to_all's direct sends take LL while a peer's
// bytes are at most NCCL_P2P_LL_THRESHOLD (16 KiB) times the channels
// NCCL gives the send (p2pChannels, src/enqueue.cc: one up to 64 KiB),
// so LL up to 16 KiB per peer whatever channels is.
// It had been channels × 16 KiB per peer: LL at 24 KiB per peer with
// the default 2 channels (review B's 192 KiB over 8 ranks), and up to
// 256 KiB with channels: 16.
func TestP2PProtocol(t *testing.T) {
	for _, c := range []struct {
		perPeer  int64
		channels int
		want     Protocol
	}{
		{16 << 10, 2, LL},
		{16<<10 + 4, 2, Simple},
		{24 << 10, 2, Simple},
		{4 << 10, 16, LL},
		{256 << 10, 16, Simple},
		{16 << 10, 1, LL},
	} {
		m := Model{Ranks: 8, Nodes: 8, Channels: c.channels}
		if got := m.ChooseProtocol(AllToAll, Direct, 8*c.perPeer); got != c.want {
			t.Errorf("%d bytes per peer, %d channels: %s, want %s", c.perPeer, c.channels, got, c.want)
		}
	}
}

// TestTuneTree: NCCL's predicted time of a tree all-reduce over 8
// single-GPU nodes of 12.25 GB/s (2 channels), worked by hand from
// tuning.cc: the bus bandwidth min(12.25·0.92, 2·36.0) = 11.27 GB/s,
// times 0.85 (the TREE pattern's correction, which lfsim's trees have:
// "if (a == NCCL_ALGO_TREE && comm->maxTreePattern ==
// NCCL_TOPO_PATTERN_TREE) busBw *= .85"), times 0.5 (algorithm
// bandwidth), times treeCorrectionFactor (Simple, 64 MiB: log2(2^26/64)
// = 20, 0.8) = 3.832 GB/s; the latency 8.4 + 2·(0·0.6 + log2(8)·14.0) =
// 92.4 µs. Without the 0.85 it is 4.508 GB/s and 14,979 µs, 15% less.
func TestTuneTree(t *testing.T) {
	m := Model{Ranks: 8, Nodes: 8, Channels: 2, BusBw: 12.25}
	const size = 64 << 20
	bw := min(12.25*0.92, 2*36.0) * 0.85 * 0.5 * 0.8
	want := 92.4 + size/(1000*bw)
	if got := m.Predict(AllReduce, Tree, Simple, size); got < want-0.01 || got > want+0.01 {
		t.Errorf("tree, Simple, 64 MiB: %.3f µs, want %.3f", got, want)
	}
}

// TestTuneRooted: broadcast's and reduce's latency in NCCL's model is
// tuning.cc's ring branch for them: the ring's latency on hw[a], the
// scale-up domain's (NVLink) when the ranks are on one node, else the
// network's; once where every channel is the same ring (sameChannels),
// else once per step (n), Simple taking the tree's figure. Worked by
// hand: 4 GPUs of one server with rings on rails (not the same), Simple:
// 8.4 + 4·4.0 = 24.4 µs, LL 6.6 + 4·0.6 = 9.0 µs; 8 single-NIC nodes on
// one ring, Simple: 8.4 + 14.0 = 22.4 µs, LL 6.6 + 2.7 = 9.3 µs; the
// same 8 nodes on different rings, LL128: 14.0 + 8·4.0 = 46 µs. (It
// had been n steps of the network's latency, whatever the nodes and
// channels: 8.4 + 4·14.0 = 64.4 µs for Simple inside one server.) The
// bandwidth term is size over the bus bandwidth (n/nsteps = 1), LL's
// half of it (at most llMaxBw, Hopper's 141 GB/s on one node, Intel's
// 20.4 on more), LL128's 0.92.
func TestTuneRooted(t *testing.T) {
	const size = 1 << 20
	for _, c := range []struct {
		name string
		m    Model
		op   Op
		p    Protocol
		lat  float64 // µs
		bw   float64 // GB/s
	}{
		{"one server, rails, Simple", Model{Ranks: 4, Nodes: 1, Channels: 4, BusBw: 450}, Broadcast, Simple, 24.4, 450},
		{"one server, rails, LL", Model{Ranks: 4, Nodes: 1, Channels: 4, BusBw: 450}, Reduce, LL, 9.0, 141},
		{"8 nodes, one ring, Simple", Model{Ranks: 8, Nodes: 8, Channels: 2, BusBw: 12.25, SameChannels: true}, Broadcast, Simple, 22.4, 12.25},
		{"8 nodes, one ring, LL", Model{Ranks: 8, Nodes: 8, Channels: 2, BusBw: 12.25, SameChannels: true}, Reduce, LL, 9.3, 12.25 * 0.5},
		{"8 nodes, rings differ, LL128", Model{Ranks: 8, Nodes: 8, Channels: 2, BusBw: 12.25}, Broadcast, LL128, 46, 12.25 * 0.92},
	} {
		want := c.lat + size/(1000*c.bw)
		if got := c.m.Predict(c.op, Ring, c.p, size); got < want-0.001 || got > want+0.001 {
			t.Errorf("%s: %s of 1 MiB predicted %.3f µs, want %.3f", c.name, c.op, got, want)
		}
	}
}

// TestLatencyH800Ring: NCCL's latency for nccl-tests-h800's ring (8
// GPUs on 2 servers, 8 channels, NVLink at 164.8 GB/s), worked by hand
// from tuning.cc's tables: LL128, 14.0 + 12·max(1.9, 1.0) + 2·4.0 =
// 44.8 µs, the fixed cost the source's all_reduce_perf shows (56 to 65
// µs beyond the transfer from 2 to 64 MiB, docs/REPRODUCE.md), which
// lfsim pays since each channel paces its NVLink steps (Rank.SetPace:
// 92.4 µs at 4 MiB; 76.1 before); with the bandwidth term,
// min(164.8·0.92, 8·36.7)·8/14 = 86.64 GB/s, 93.21 µs at 4 MiB. Simple,
// 8.4 + 12·max(3.4, 3.0) + 2·14.0 = 77.2 µs, which Predict multiplies by
// 1.4 (ncclTopoGetAlgoTime's plateau) and Latency does not. Halving-
// doubling has no latency in NCCL's model.
func TestLatencyH800Ring(t *testing.T) {
	m := Model{Ranks: 8, Nodes: 2, Channels: 8, BusBw: 164.8}
	for _, c := range []struct {
		p        Protocol
		lat, at4 float64 // µs: Latency, Predict at 4 MiB
	}{
		{LL128, 44.8, 44.8 + 4194304/(1000*min(164.8*0.92, 8*36.7)*8/14)},
		{Simple, 77.2, 77.2*1.4 + 4194304/(1000*164.8*8/14)},
	} {
		if got := m.Latency(AllReduce, Ring, c.p); got < c.lat-0.001 || got > c.lat+0.001 {
			t.Errorf("%s: latency %.3f µs, want %.3f", c.p, got, c.lat)
		}
		if got := m.Predict(AllReduce, Ring, c.p, 4<<20); got < c.at4-0.001 || got > c.at4+0.001 {
			t.Errorf("%s: 4 MiB predicted %.3f µs, want %.3f", c.p, got, c.at4)
		}
	}
	if got := m.Latency(AllReduce, HalvingDoubling, Simple); !math.IsInf(got, 1) {
		t.Errorf("halving-doubling: latency %.3f µs, want +Inf", got)
	}
}
