package collective

// Halving-doubling: Rabenseifner's all-reduce, as MPICH
// (MPIR_Allreduce_intra_reduce_scatter_allgather) and Gloo
// (allreduce_halving_doubling) run it, not NCCL: a reduce-scatter by
// recursive halving, then an all-gather by recursive doubling, over
// n = 2^m ranks in the order given. Reduce-scatter step k (k = 0..m-1)
// pairs rank r with r XOR n/2^(k+1): the two hold the same block, split
// it in halves, and each sends the other the half it does not keep (the
// lower half stays with the rank whose bit is clear), so each step moves
// half of the last one's bytes and rank r ends with block r, S/n.
// All-gather step k pairs r with r XOR 2^k, and each sends the other
// what it holds, doubling it. reduce_scatter and all_gather run one half
// each. A step is a whole exchange, as in MPI and Gloo: the next starts
// when what it needs of the last has all arrived (its pieces go as work
// requests of at most a protocol step, back to back). Each rank sends
// (n-1)/n·S per half, as the ring does, in log2(n) steps rather than
// n-1. Steps between GPUs of one server go through its scale-up domain;
// no rail is taken into account (MPI's and Gloo's peers are ranks, each
// sending from its own NIC): rail_aware and pxn are refused for it, and
// its servers need not hold the same GPUs.

// hdLink is a rank's connection to its partner across bit b: its out-
// and in-link.
type hdLink struct{ out, in int32 }

func (c *Comm) buildHalvingDoubling() {
	n := c.N()
	m := log2(n)
	c.hd = make([][][]hdLink, c.Opt.Channels)
	for ch := range c.hd {
		c.hd[ch] = make([][]hdLink, n)
		for r := range n {
			c.hd[ch][r] = make([]hdLink, m)
		}
		for b := range m {
			for r := range n {
				q := r ^ 1<<b
				k := Network
				if c.sameServer(r, q) {
					k = ScaleUp
				}
				id := c.link(r, q, k, ch, false)
				c.hd[ch][r][b].out = c.outIdx(id)
				c.hd[ch][q][b].in = c.inIdx(id)
			}
		}
	}
}

func log2(n int) int {
	m := 0
	for 1<<m < n {
		m++
	}
	return m
}

// blocks is the byte range [lo, hi) of d that the blocks whose indices
// start with prefix (plen bits of m) cover: d halved bit by bit from the
// top, the lower half to a clear bit (the lower half the smaller by a
// byte at most).
func blocks(d int64, m int, prefix, plen int) (lo, hi int64) {
	lo, hi = 0, d
	for i := 0; i < plen; i++ {
		mid := lo + (hi-lo)/2
		if prefix>>(plen-1-i)&1 == 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo, hi
}

// hdStep is one exchange of a rank's halving-doubling: what it sends and
// receives on the link across one bit.
type hdStep struct {
	link        hdLink
	send, recv  int64 // bytes
	sent, recvd int64 // pieces
	inBefore    int64 // pieces received on link.in before this step
}

func (p *Plan) planHalvingDoubling() {
	c := p.Comm
	n, m := c.N(), log2(c.N())
	piece := p.piece()
	pieces := func(b int64) int64 { return max(1, ceilDiv(b, piece)) }
	for ch := 0; ch < p.Channels; ch++ {
		d := p.channelBytes(p.Spec.Size, ch)
		for r := range n {
			var steps []hdStep
			add := func(b int, send, recv int64) {
				st := hdStep{link: c.hd[ch][r][b], send: send, recv: recv, sent: pieces(send), recvd: pieces(recv)}
				for _, x := range steps {
					if x.link == st.link {
						st.inBefore += x.recvd
					}
				}
				steps = append(steps, st)
			}
			if p.Spec.Op != AllGather {
				for k := range m {
					// Both hold the block of prefix r>>(m-k); the bit
					// below says which half each keeps.
					b := m - 1 - k
					lo, hi := blocks(d, m, r>>(m-k), k)
					mid := lo + (hi-lo)/2
					keep, give := mid-lo, hi-mid
					if r>>b&1 == 1 {
						keep, give = give, keep
					}
					add(b, give, keep)
				}
			}
			if p.Spec.Op != ReduceScatter {
				for k := range m {
					mine, mineHi := blocks(d, m, r>>k, m-k)
					theirs, theirsHi := blocks(d, m, (r^1<<k)>>k, m-k)
					add(k, mineHi-mine, theirsHi-theirs)
				}
			}
			p.ranks[r] = append(p.ranks[r], &hdStream{steps: steps, piece: piece})
		}
	}
}

// hdStream is a rank's halving-doubling on one channel.
type hdStream struct {
	steps []hdStep
	piece int64
}

func (s *hdStream) Len() int64 {
	var n int64
	for _, st := range s.steps {
		n += st.sent
	}
	return n + 1
}

func (s *hdStream) Count(add func(bool, int32, int64)) {
	for _, st := range s.steps {
		add(true, st.link.out, st.sent)
		add(false, st.link.in, st.recvd)
	}
}

func (s *hdStream) Step(i int64) Step {
	var st Step
	for k, x := range s.steps {
		if i >= x.sent {
			i -= x.sent
			continue
		}
		if i == 0 && k > 0 {
			prev := s.steps[k-1]
			st.wait(prev.link.in, prev.inBefore+prev.recvd)
		}
		st.send(x.link.out, clamp(x.send-i*s.piece, s.piece))
		return st
	}
	last := s.steps[len(s.steps)-1]
	st.wait(last.link.in, last.inBefore+last.recvd)
	return st
}
