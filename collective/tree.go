package collective

// NCCL's double binary tree (src/graph/trees.cc, ncclGetBtree and
// ncclGetDtree; src/graph/connect.cc, connectTrees; src/device/
// all_reduce.h, runTreeSplit), from "Massively Scale Your Deep Learning
// Training with NCCL 2.4" (NVIDIA developer blog, 2019).
//
// Layout (buildTrees): the nodes of the trees are the servers (a
// single-NIC host is a node of its own). Tree 0 is a binary tree over
// the node indices whose leaves alternate with inner nodes (ncclGetBtree:
// node 0 the root, with one child; a node's parent is found from its
// lowest set bit); tree 1 is its mirror (n-1-i) for an even number of
// nodes, or its shift by one for an odd one, so that a node that is a
// leaf in one tree is an inner node in the other. Channel c uses tree
// c mod 2, so each tree carries half the data (with 2 channels, the
// default). Inside a server the GPUs are a chain (NCCL's intra-node
// tree), starting at the GPU on the channel's rail (rail c/2 of the
// servers' GPUs in turn): the chain's first GPU is the node's head,
// linked to the parent node's head and to its children nodes' heads
// (NCCL's TREE pattern), all on that rail.
//
// Running (treeStream): a rank reduces up and broadcasts down at once,
// as runTreeSplit's two thread groups do, chunk by chunk (a chunk one
// protocol step: NCCL's chunkSteps is 1 for trees): up, it waits for
// chunk k from each child and sends it to its parent; down, it waits for
// chunk k from its parent and sends it to each child; the root turns
// chunk k round as soon as its children's have arrived.
//
// Closed form (the blog's, with the pipeline's terms): every rank sends
// S/2 up in each tree and, in the tree where it is an inner node, S/2
// to each of its two children, 2S in all; its NIC's two directions are
// busy in parallel, so t = 2S/B + 2·D·(c/B + h) for a tree of depth D
// (about log2 of the nodes), chunks of c bytes and h the step's latency
// (one hop's wire and NCCL's per-step latency): busbw = 2(n-1)/n·S/t
// tends to B·(n-1)/n, as the ring's, for large S, and the latency grows
// with log2(n) where the ring's grows with n.
//
// On a simulated network the tree takes longer than this, and the cause
// is the network, not the schedule. The model alone (TestTreeClosedForm:
// each rank's port serializes its sends, nothing shares a receiver's
// port) takes 1.009·2S/B for 64 MiB over 8 ranks, whatever the channels.
// Over 8 single-NIC hosts on one 100 Gb/s switch (98.04 Gb/s of goodput,
// 2 channels, Simple; the closed form 11.30 ms, of which 2S/B is 10.95
// and the pipeline's fill, 2·3 hops of a 512 KiB chunk's 42.8 µs and
// 14 µs of latency, 0.34) it takes:
//   - 12.10 ms (+7.1%) with buffers large enough for no PAUSE: six of
//     the eight hosts (those inner in one tree) must send and receive
//     2S, so their links are the bottleneck and must never idle; their
//     switch ports, each fed by four senders (two children's reductions,
//     two parents' broadcasts) in arrival order, are 91-93% busy in the
//     steady state. The leaves' reductions need nothing and run ahead
//     (hosts 0 and 7, which send S, at 100 Gb/s for the first 0.8 ms),
//     so the ports of their parents (hosts 1 and 6) hold 4.3 MiB on
//     average, 9.1 at most, against 0.35-1.65 elsewhere, and the
//     reductions wait for one of their connection's NCCL_STEPS slots
//     (8 steps of 512 KiB in flight, their completions a queue behind)
//     37% of the call on average. Slots are the larger part: with 16 it
//     takes 11.70 ms (+3.5%), with 4 12.32, 2 12.41, 1 13.02; the rest is
//     the FIFO sharing (more channels interleave finer: 4 take +5.9%,
//     8 +3.6%).
//   - 12.52 ms (+10.8%) with the switch's PFC (xoff 96 KiB, the default
//     switch's and the test's): the run-ahead now backs up into the
//     senders, which PFC pauses whatever they send (head-of-line
//     blocking): hosts 0 and 7 are paused 49.6% of the call, the
//     bottleneck hosts 1, 2, 5 and 6 11-12%, which is their links' loss
//     (each sends 87.7% of the call); the slots no longer bind (2 to 16
//     give the same 12.52 ms). Finer channels pause more: 4 take +12.4%,
//     8 +14.1%, 4 QPs per connection +14.3%. Smaller chunks do not help
//     (128 KiB: +10.1%).
//
// NCCL's own model expects no better: tuning.cc gives a 64 MiB Simple
// tree over such nodes 0.92 · 0.85 (the TREE pattern) · 0.8
// (treeCorrectionFactor) = 0.63 of the link's bus bandwidth, where lfsim
// runs it at 0.90 of the closed form's.

// treeNode is a rank's place in one channel's tree: its links to its
// parent (up: its sends up; down: its parent's sends down to it; -1 at
// the root) and to each child.
type treeNode struct {
	upOut, downIn int32
	kids          []treeKid
}

type treeKid struct{ upIn, downOut int32 }

// btree is ncclGetBtree: node r's parent and children among n (-1: none).
func btree(n, r int) (up, d0, d1 int) {
	bit := 1
	for ; bit < n; bit <<= 1 {
		if bit&r != 0 {
			break
		}
	}
	if r == 0 {
		d1 = -1
		if n > 1 {
			d1 = bit >> 1
		}
		return -1, -1, d1
	}
	up = (r ^ bit) | (bit << 1)
	if up >= n {
		up = r ^ bit
	}
	low := bit >> 1
	d0, d1 = -1, -1
	if low != 0 {
		d0, d1 = r-low, r+low
	}
	for d1 >= n { // as trees.cc keeps down1 within bounds
		d1 = -1
		if low != 0 {
			d1 = r + low
		}
		low >>= 1
	}
	return up, d0, d1
}

// dtree is ncclGetDtree's tree t (0 or 1): node r's parent and children.
func dtree(n, r, t int) (up, d0, d1 int) {
	if t == 0 {
		return btree(n, r)
	}
	m := func(x int) int { // back to node numbers
		if x < 0 {
			return -1
		}
		if n%2 == 1 {
			return (x + 1) % n
		}
		return n - 1 - x
	}
	var u, a, b int
	if n%2 == 1 {
		u, a, b = btree(n, (r-1+n)%n)
	} else {
		u, a, b = btree(n, n-1-r)
	}
	return m(u), m(a), m(b)
}

func (c *Comm) buildTrees() {
	nodes := len(c.servers)
	c.trees = make([][]treeNode, c.Opt.Channels)
	for ch := 0; ch < c.Opt.Channels; ch++ {
		t := ch % 2
		tn := make([]treeNode, c.N())
		for i := range tn {
			tn[i] = treeNode{upOut: -1, downIn: -1}
		}
		chains := make([][]int, nodes)
		for i, s := range c.servers {
			chains[i] = s
			if len(s) > 1 {
				chains[i] = c.rotate(s, c.rail(ch/2))
			}
		}
		edge := func(parent, child int) {
			k := Network
			if c.sameServer(parent, child) {
				k = ScaleUp
			}
			up := c.link(child, parent, k, ch, false)
			down := c.link(parent, child, k, ch, false)
			tn[child].upOut, tn[child].downIn = c.outIdx(up), c.inIdx(down)
			tn[parent].kids = append(tn[parent].kids, treeKid{upIn: c.inIdx(up), downOut: c.outIdx(down)})
		}
		// The chains first, then the nodes' edges child by child, so
		// that a head's children are its chain's GPU, then its
		// children nodes' heads in order (NCCL's down[0..2]).
		for i := range nodes {
			for j := 1; j < len(chains[i]); j++ {
				edge(chains[i][j-1], chains[i][j])
			}
		}
		for i := range nodes {
			if up, _, _ := dtree(nodes, i, t); up >= 0 {
				edge(chains[up][0], chains[i][0])
			}
		}
		c.trees[ch] = tn
	}
}

// planTree gives every rank its tree streams on every channel: up and
// down, or the root's one.
func (p *Plan) planTree() {
	c := p.Comm
	for ch := 0; ch < p.Channels; ch++ {
		d := p.channelBytes(p.Spec.Size, ch)
		for r := range c.N() {
			tn := &c.trees[ch][r]
			if tn.upOut < 0 {
				p.ranks[r] = append(p.ranks[r], &treeStream{node: tn, d: d, piece: p.piece(), root: true})
				continue
			}
			p.ranks[r] = append(p.ranks[r], &treeStream{node: tn, d: d, piece: p.piece(), up: true},
				&treeStream{node: tn, d: d, piece: p.piece()})
		}
	}
}

// treeStream is a rank's reduce (up) or broadcast (down) half of one
// channel's tree, or the root's turn of both.
type treeStream struct {
	node     *treeNode
	d, piece int64
	up, root bool
}

func (s *treeStream) Len() int64 { return max(1, ceilDiv(s.d, s.piece)) }

func (s *treeStream) Count(add func(bool, int32, int64)) {
	k := s.Len()
	if s.up || s.root {
		for _, kid := range s.node.kids {
			add(false, kid.upIn, k)
		}
	}
	if s.up {
		add(true, s.node.upOut, k)
	}
	if !s.up {
		for _, kid := range s.node.kids {
			add(true, kid.downOut, k)
		}
	}
	if !s.up && !s.root {
		add(false, s.node.downIn, k)
	}
}

func (s *treeStream) Step(k int64) Step {
	var st Step
	bytes := clamp(s.d-k*s.piece, s.piece)
	if s.up || s.root {
		for _, kid := range s.node.kids {
			st.wait(kid.upIn, k+1)
		}
	} else {
		st.wait(s.node.downIn, k+1)
	}
	if s.up {
		st.send(s.node.upOut, bytes)
		return st
	}
	for _, kid := range s.node.kids {
		st.send(kid.downOut, bytes)
	}
	return st
}
