package collective

import (
	"math"

	"github.com/lfsim/lfsim/sim"
)

// NCCL's choice of protocol: its cost model (src/graph/tuning.cc,
// ncclTopoTuneModel and ncclTopoGetAlgoTime), time = latency + size /
// bandwidth for each protocol, the least time winning (protocols tried
// in NCCL's order, LL, LL128, Simple, a later one only if strictly
// faster), for the algorithm the collective runs. The model's constants
// are NCCL's defaults for a Hopper GPU (compute capability 9.0, where
// LL128 is on by default over the network) and an Intel host; the
// bandwidth is the collective's bottleneck link (NCCL's graph bandwidth
// times its channels). What tuning.cc does and this does not: NVLS,
// CollNet and PAT (not modelled), NCCL_ALGO's choice between ring and
// tree (the scenario names the algorithm), the thread counts.

// Model is what NCCL's tuning knows of a communicator.
type Model struct {
	Ranks, Nodes, Channels int
	// BusBw is the bandwidth of the collective's bottleneck link, in
	// GB/s (10^9 bytes per second): a NIC's goodput between servers, the
	// scale-up domain's inside one.
	BusBw float64
	// SameChannels is NCCL's graph's sameChannels: every channel's ring
	// visits the ranks in the same order (Comm.SameChannels).
	SameChannels bool
}

// tuning.cc's tables, Hopper's rows where they depend on the GPU.
var (
	// llMaxBws: [nNodes==1 ? Hopper : Intel][min(nNodes-1, 2)].
	llMaxBwHopper       = [3]float64{141.0, 45.0, 35.0}
	llMaxBwIntel        = [3]float64{39.0, 39.0, 20.4}
	perChMaxRingLL128Bw = 36.7
	perChMaxTreeLL128Bw = [3]float64{36.7, 36.7, 29.0}
	perChMaxTreeBw      = [3]float64{38.7, 41.4, 36.0}
	// treeCorrectionFactor[proto][log2(size/64)], 64 B to 256 MB.
	treeCorrection = [3][23]float64{
		{1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
		{1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
		{.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
	}
)

// treePatternFactor is tuning.cc's correction of a tree's bus bandwidth
// when its pattern is NCCL_TOPO_PATTERN_TREE (all of a node's NIC
// traffic through one GPU), the pattern lfsim's trees have.
const treePatternFactor = 0.85

// netOverhead is getNetOverhead's on an Intel host: 1 µs (times 3 under
// Simple) per inter-node ring step.
const netOverhead = 1.0

func log2i(n int) int {
	l := 0
	for n > 1 {
		n >>= 1
		l++
	}
	return l
}

// steps is tuning.cc's nsteps for op over n ranks.
func steps(op Op, n int) int {
	switch op {
	case AllReduce:
		return 2 * (n - 1)
	case ReduceScatter, AllGather:
		return n - 1
	}
	return n
}

// Predict is NCCL's predicted time, in microseconds, of op of size bytes
// with algorithm a under protocol p (ncclTopoGetAlgoTime for one
// operation); +Inf where NCCL would not use p.
func (m Model) Predict(op Op, a Algorithm, p Protocol, size int64) float64 {
	n, nodes := m.Ranks, max(1, m.Nodes)
	idx2 := min(nodes-1, 2)
	bw := m.BusBw
	nsteps := steps(op, n)
	switch a {
	case Ring:
		switch p {
		case LL:
			cap := llMaxBwIntel[idx2]
			if nodes == 1 {
				cap = llMaxBwHopper[idx2]
			}
			bw = min(cap, bw*0.5)
		case LL128:
			bw = min(bw*0.92, float64(m.Channels)*perChMaxRingLL128Bw)
		}
		bw *= float64(n) / float64(nsteps)
	case Tree:
		if op != AllReduce {
			return math.Inf(1)
		}
		bw = min(bw*0.92, float64(m.Channels)*perChMaxTreeBw[idx2])
		switch p {
		case LL:
			cap := llMaxBwIntel[idx2]
			if nodes == 1 {
				cap = llMaxBwHopper[idx2]
			}
			bw = min(bw/3.8, cap)
		case LL128:
			f := 120.0 / 128.0
			if nodes == 1 {
				f = 7.0 / 9.0
			}
			bw = min(bw*f, float64(m.Channels)*perChMaxTreeLL128Bw[idx2])
		}
		// tuning.cc: "if (a == NCCL_ALGO_TREE && comm->maxTreePattern ==
		// NCCL_TOPO_PATTERN_TREE) busBw *= .85;". lfsim's trees are that
		// pattern (tree.go: one GPU per node, its chain's head, links
		// to the parent and the children; search.cc also gives it to
		// every node of one GPU, "if (ngpus == 1 && graph->pattern !=
		// NCCL_TOPO_PATTERN_RING) graph->pattern = NCCL_TOPO_PATTERN_TREE").
		bw *= treePatternFactor
		bw *= 0.5
		if l := log2i(int(size >> 6)); size>>6 > 0 && l < 23 {
			bw *= treeCorrection[p][l]
		}
	default:
		return math.Inf(1)
	}
	lat := m.Latency(op, a, p)
	if a == Ring && p == Simple && nodes > 1 && op == AllReduce && size/int64(m.Channels*n) >= 64 {
		lat *= 1.4 // ncclTopoGetAlgoTime: the ring's plateau on compute capability >= 8.0
	}
	return lat + float64(size)/(1000*bw)
}

// Latency is NCCL's latency, in microseconds, of op with algorithm a
// under protocol p: tuning.cc's comm->latencies (ncclTopoTuneModel), its
// base latency and its steps' hardware latencies, what its model adds
// to size / bandwidth whatever the size (Predict; without
// ncclTopoGetAlgoTime's factor of 1.4 for a ring's Simple all-reduce
// across nodes, which is a correction of the plateau, not a latency).
// For the ring all_reduce of nccl-tests-h800 (8 GPUs on 2 servers,
// LL128): 14 + 12 × 1.9 + 2 × 4.0 = 44.8 µs. +Inf for the algorithms
// NCCL's model has no latency for (halving-doubling, direct sends).
func (m Model) Latency(op Op, a Algorithm, p Protocol) float64 {
	if a != Ring && a != Tree {
		return math.Inf(1)
	}
	n, nodes := m.Ranks, max(1, m.Nodes)
	ppn := float64(n) / float64(nodes)
	nsteps := steps(op, n)
	us := func(t sim.Time) float64 { return float64(t) / float64(sim.Microsecond) }
	lat := us(BaseLatency(a, p))
	intra := us(ProtocolLatency(a, p, NVLink, false))
	inter := us(ProtocolLatency(a, p, Net, ppn == 1))
	switch a {
	case Ring:
		over := 0.0
		if nodes > 1 {
			over = netOverhead
			if p == Simple {
				over *= 3
			}
		}
		intra = max(intra, over)
		inter1 := 0
		if nodes > 1 {
			inter1 = nodes - 1
			if op == AllReduce {
				inter1 = 2 * (nodes - 1)
			}
		}
		if op == Broadcast || op == Reduce {
			// tuning.cc's ring branch for broadcast and reduce: the
			// ring's latency on hw[a] (NVLink when the ranks are on
			// one node, else the network), once where the channels are
			// the same ring, else once per step, Simple taking the
			// tree's ("Add some chunk latency, waiting for proper
			// chunk modeling").
			hw := Net
			if nodes == 1 {
				hw = NVLink
			}
			step := us(ProtocolLatency(Ring, p, hw, false))
			if m.SameChannels {
				lat += step
			} else {
				if p == Simple {
					step = us(ProtocolLatency(Tree, p, hw, false))
				}
				lat += float64(nsteps) * step
			}
		} else {
			lat += float64(nsteps-inter1)*intra + float64(inter1)*inter
		}
	case Tree:
		if op == AllReduce {
			lat += 2 * ((ppn-1)*intra + float64(log2i(nodes))*inter)
		}
	}
	return lat
}

// Tune is the protocol NCCL's tuning chooses for op of size bytes with
// algorithm a (ring or tree): the one of least predicted time.
func (m Model) Tune(op Op, a Algorithm, size int64) Protocol {
	best, bt := Simple, math.Inf(1)
	for p := LL; p <= Simple; p++ {
		if t := m.Predict(op, a, p, size); t < bt {
			best, bt = p, t
		}
	}
	return best
}

// P2PLLThreshold is NCCL_P2P_LL_THRESHOLD's default (src/enqueue.cc,
// 16384 bytes): a point-to-point send of at most this many bytes per
// channel goes under LL, a larger one under Simple.
const P2PLLThreshold = 16384

// p2pNVLChunk is NCCL's p2p chunk between GPUs of one server joined by
// NVLink (src/init.cc: NCCL_P2P_NVL_CHUNKSIZE, 512 KiB); between servers
// it is P2PChunk (NCCL_P2P_NET_CHUNKSIZE, 128 KiB).
const p2pNVLChunk = 512 << 10

// p2pChannels is the channels NCCL gives a point-to-point send of bytes
// in a communicator of ranks ranks on nodes servers, in NCCL's three
// steps (src/enqueue.cc, NVIDIA/nccl 5067397c):
//
//  1. nChannelsMax = p2pnChannelsPerPeer and nChannelsMin starts there,
//     halved while nChannelsMin·nRanks > p2pnChannels ("one channel per
//     operation", :1143-1146);
//  2. addP2pToPlan takes nChannels = min(nChannelsMin, divUp(bytes,
//     minPartSize)) (:921), minPartSize being p2pChunkSize/2 between
//     servers (64 KiB) and p2pChunkSize/8 within one (64 KiB too);
//  3. and doubles it while the part, divUp(bytes, nChannels), is above
//     maxPartSize and nChannels <= nChannelsMax/2 (:922-926):
//     maxPartSize is p2pChunkSize between servers (128 KiB), ·32 within
//     one (16 MiB).
//
// channels, the collective's channels, stands for both p2pnChannels and
// p2pnChannelsPerPeer: NCCL makes p2pnChannels its nChannels and takes
// p2pnChannelsPerPeer from the topology (src/graph/paths.cc, 2 a network
// peer for one NIC), both rounded up to powers of two; lfsim has only
// channels channels built, so a send takes at most that many. With a
// power of two channels this is NCCL's count for p2pnChannelsPerPeer =
// p2pnChannels = channels: 8 ranks on 2 channels send up to 128 KiB a
// peer on one channel, more on two; on 16 channels, 256 KiB on two.
func p2pChannels(bytes int64, channels, ranks, nodes int) int64 {
	nMax := int64(max(1, channels))
	nMin := nMax
	for nMin*int64(ranks) > nMax && nMin > 1 {
		nMin /= 2
	}
	minPart, maxPart := int64(P2PChunk/2), int64(P2PChunk)
	if nodes <= 1 {
		minPart, maxPart = p2pNVLChunk/8, p2pNVLChunk*32
	}
	n := max(1, min(nMin, divUp(bytes, minPart)))
	part := max(minPart, divUp(bytes, n))
	for part > maxPart && n <= nMax/2 {
		n *= 2
		part = divUp(bytes, n)
	}
	return n
}

// ChooseProtocol is the protocol a collective runs when none is given:
// NCCL's tuning's for rings and trees; for direct sends NCCL's p2p rule
// (LL while a peer's bytes are at most P2PLLThreshold times the
// channels NCCL gives that send, p2pChannels: so LL up to 16 KiB per
// peer whatever channels says, since a send of at most 64 KiB takes one
// channel); Simple for halving-doubling (MPI's and
// Gloo's, which have no LL).
func (m Model) ChooseProtocol(op Op, a Algorithm, size int64) Protocol {
	switch a {
	case Ring, Tree:
		return m.Tune(op, a, size)
	case Direct:
		peer := size / int64(max(1, m.Ranks))
		if peer <= p2pChannels(peer, m.Channels, m.Ranks, m.Nodes)*P2PLLThreshold {
			return LL
		}
	}
	return Simple
}

// divUp is a/b rounded up, for a >= 0 and b > 0 (NCCL's DIVUP).
func divUp(a, b int64) int64 { return (a + b - 1) / b }
