package collective

// Rings, as NCCL builds and runs them.
//
// Layout (buildRings): every channel has its own ring and its own
// connections. Over single-NIC hosts, or without RailAware, the ring is
// the ranks in the order given, a GPU's steps to another of its server
// over the scale-up domain and to another server's over its own NIC.
// RailAware, channel c takes rail g (the servers' GPUs in turn): the ring
// enters every server at its GPU g, crosses the server's GPUs g, g+1,
// ... over the scale-up domain, and leaves from the last of them to the
// next server's GPU g; with PXN that step goes over the scale-up domain
// to the server's GPU g first, whose NIC (on rail g) sends it, so every
// step between servers stays on its rail (NCCL_CROSS_NIC=0's rings;
// their exit through PXN). Without PXN the last GPU's own NIC sends it,
// to another rail.
//
// Running (ringStream): NCCL's runRing (src/device/all_reduce.h, and
// reduce_scatter.h, all_gather.h). A channel's data is cut in loops of n
// chunks; in a loop the rank at ring index i sends chunk i-1 (step 0),
// then for each later step receives a chunk from its predecessor, reduces
// or copies it, and sends it on: 2(n-1) sends for all_reduce
// (reduce-scatter, then all-gather), n-1 for reduce_scatter and
// all_gather; the loop ends with a last receive. A step's chunk goes as
// work requests of at most a protocol step each, or under Simple as
// NCCL's two slices (Sliced: half the chunk each, up to 1 MiB, the second
// of 0 bytes for a chunk of at most 32 KiB), and a rank forwards each as
// soon as it has arrived, so chunk k moves on while k+1 arrives.
// A loop's first send waits for the previous loop's last receive, as
// NCCL's primitives do, in program order. Broadcast and reduce
// (chainStream) run the ring as a chain: broadcast from the root round
// to the rank before it, reduce from the rank after the root round to
// the root, chunk by chunk (src/device/broadcast.h, reduce.h).

// ring is one channel's ring: the ranks in order, and the way from each
// to the next.
type ring struct {
	order []int
	pos   []int // by rank: its index in order
	hops  []hop // hops[i]: from order[i] to order[(i+1) % n]
}

func (c *Comm) buildRings() {
	n := c.N()
	railed := c.Opt.RailAware && len(c.servers) < n
	for ch := 0; ch < c.Opt.Channels; ch++ {
		r := ring{order: make([]int, 0, n), pos: make([]int, n), hops: make([]hop, n)}
		if railed {
			g := c.rail(ch)
			for _, s := range c.servers {
				r.order = append(r.order, c.rotate(s, g)...)
			}
		} else {
			for i := range n {
				r.order = append(r.order, i)
			}
		}
		for i, rk := range r.order {
			r.pos[rk] = i
		}
		for i, a := range r.order {
			b := r.order[(i+1)%n]
			relay := -1
			if railed && c.Opt.PXN && !c.sameServer(a, b) && c.Places[a].Server >= 0 {
				relay = c.onGPU(c.serverOf(a), c.Places[b].GPU)
			}
			r.hops[i] = c.connect(a, b, ch, relay)
		}
		c.rings = append(c.rings, r)
	}
}

// outIdx and inIdx are a link's local indices at its sender and receiver.
func (c *Comm) outIdx(id int32) int32 { return c.Links[id].OutIdx }
func (c *Comm) inIdx(id int32) int32  { return c.Links[id].InIdx }

// planRing gives every rank a stream per channel (and a relay stream for
// each ring step it forwards).
func (p *Plan) planRing() {
	c, s := p.Comm, p.Spec
	n := c.N()
	for ch := 0; ch < p.Channels; ch++ {
		rg := &c.rings[ch]
		d := p.channelBytes(s.Size, ch)
		for i, rk := range rg.order {
			out := c.outIdx(rg.hops[i].out)
			in := c.inIdx(rg.hops[(i-1+n)%n].in)
			var st Stream
			switch s.Op {
			case Broadcast, Reduce:
				st = p.chain(rg, i, in, out, d)
			default:
				st = newRingStream(s.Op, n, i, in, out, d, s.Chunk, p.piece(), p.Sliced())
			}
			p.ranks[rk] = append(p.ranks[rk], st)
		}
		for i, rk := range rg.order {
			h := rg.hops[i]
			if h.relay < 0 || p.ranks[rk][len(p.ranks[rk])-1] == nil {
				continue
			}
			src := p.ranks[rk][len(p.ranks[rk])-1]
			p.ranks[h.relay] = append(p.ranks[h.relay], newRelay(c.inIdx(h.relayIn), c.outIdx(h.relayOut), src, c.outIdx(h.out)))
		}
	}
}

// ringStream is one rank's part of one channel's ring all_reduce,
// reduce_scatter or all_gather (see the file's comment).
type ringStream struct {
	in, out   int32
	n, ix     int   // ranks, this rank's ring index
	steps     int64 // sends per loop
	gather    bool  // all_gather: step s carries chunk ix-s, else ix-1-s
	d         int64 // the channel's bytes
	chunk     int64 // a full loop's chunk
	piece     int64 // a work request's data at most (not sliced)
	sliced    bool  // NCCL's slices (Sliced) rather than pieces
	loops     int64
	p, pLast  int64 // work requests per chunk in a full loop, in the last
	chunkLast int64 // the last loop's chunk (NCCL: divUp(rem, n), 16-byte aligned)
	perFull   int64 // sends in a full loop
}

func newRingStream(op Op, n, ix int, in, out int32, d, chunk, piece int64, sliced bool) *ringStream {
	r := &ringStream{in: in, out: out, n: n, ix: ix, d: d, chunk: chunk, piece: piece, sliced: sliced, gather: op == AllGather}
	r.steps = int64(n - 1)
	if op == AllReduce {
		r.steps = int64(2 * (n - 1))
	}
	loop := int64(n) * chunk
	r.loops = max(1, ceilDiv(d, loop))
	rem := d - (r.loops-1)*loop
	r.chunkLast = min(chunk, (ceilDiv(rem, int64(n))+15)/16*16)
	r.p = max(1, ceilDiv(chunk, piece))
	r.pLast = max(1, ceilDiv(r.chunkLast, piece))
	if sliced {
		// Every chunk goes as SlicePerChunk slices, an empty one too
		// (NCCL's genericOp posts the slices it has no data for).
		r.p = max(SlicePerChunk, ceilDiv(chunk, SliceMax))
		r.pLast = max(SlicePerChunk, ceilDiv(r.chunkLast, SliceMax))
	}
	r.perFull = r.steps * r.p
	return r
}

func (r *ringStream) sends() int64 { return (r.loops-1)*r.perFull + r.steps*r.pLast }

func (r *ringStream) Len() int64 { return r.sends() + 1 }

func (r *ringStream) Count(add func(bool, int32, int64)) {
	add(true, r.out, r.sends())
	add(false, r.in, r.sends())
}

func (r *ringStream) Step(i int64) Step {
	var st Step
	if i == r.sends() {
		st.wait(r.in, i) // the last loop's last receive
		return st
	}
	l := min(i/r.perFull, r.loops-1)
	within := i - l*r.perFull
	pl, chunk := r.p, r.chunk
	if l == r.loops-1 {
		pl, chunk = r.pLast, r.chunkLast
	}
	s, piece := within/pl, within%pl
	base := l * r.perFull // the receives of the loops before: as many as their sends
	switch {
	case s > 0:
		st.wait(r.in, base+(s-1)*pl+piece+1)
	case l > 0:
		st.wait(r.in, base)
	}
	k := int64(r.ix) - 1 - s
	if r.gather {
		k++
	}
	k = (k%int64(r.n) + int64(r.n)) % int64(r.n)
	rem := r.d - l*int64(r.n)*r.chunk
	bytes := clamp(rem-k*chunk, chunk)
	part := r.piece
	if r.sliced {
		part = sliceOf(bytes)
	}
	st.send(r.out, clamp(bytes-piece*part, part))
	return st
}

// chainStream is one rank's part of a chain: it waits for piece k from
// its predecessor (in >= 0) and sends it to its successor (out >= 0).
type chainStream struct {
	in, out int32
	d       int64
	piece   int64
}

// chain is the stream of the rank at ring index i in a broadcast's or a
// reduce's chain over rg.
func (p *Plan) chain(rg *ring, i int, in, out int32, d int64) Stream {
	n := len(rg.order)
	root := rg.pos[p.Spec.Root]
	at := (i - root + n) % n // broadcast: 0 is the root
	if p.Spec.Op == Reduce {
		at = (i - root - 1 + 2*n) % n // reduce: the root is last
	}
	c := &chainStream{in: in, out: out, d: d, piece: p.piece()}
	if at == 0 {
		c.in = -1
	}
	if at == n-1 {
		c.out = -1
	}
	return c
}

func (c *chainStream) Len() int64 { return max(1, ceilDiv(c.d, c.piece)) }

func (c *chainStream) Count(add func(bool, int32, int64)) {
	if c.out >= 0 {
		add(true, c.out, c.Len())
	}
	if c.in >= 0 {
		add(false, c.in, c.Len())
	}
}

func (c *chainStream) Step(k int64) Step {
	var st Step
	if c.in >= 0 {
		st.wait(c.in, k+1)
	}
	if c.out >= 0 {
		st.send(c.out, clamp(c.d-k*c.piece, c.piece))
	}
	return st
}

// relayStream is a PXN relay: the GPU on the destination's rail
// forwards, in order, what another GPU of its server sent it over the
// scale-up domain (src's sends on srcOut) to its NIC's peer.
type relayStream struct {
	in, out int32
	src     Stream
	n       int64 // the pieces: src's sends on the relayed link
}

func newRelay(in, out int32, src Stream, srcOut int32) *relayStream {
	r := &relayStream{in: in, out: out, src: src}
	src.Count(func(out bool, l int32, k int64) {
		if out && l == srcOut {
			r.n += k
		}
	})
	return r
}

func (r *relayStream) Len() int64 { return r.n }

func (r *relayStream) Count(add func(bool, int32, int64)) {
	add(true, r.out, r.n)
	add(false, r.in, r.n)
}

// Step k forwards piece k: its size is the k-th the source sends on the
// relayed link (each of whose steps sends one piece there).
func (r *relayStream) Step(k int64) Step {
	var st Step
	st.wait(r.in, k+1)
	src := r.src.Step(k)
	st.send(r.out, src.Send[0].Bytes)
	return st
}
