package collective

// Direct sends: all_to_all as NCCL runs it, a group of ncclSend and
// ncclRecv to and from every peer (nccl-tests' alltoall.cu), each rank
// sending size/n to every other. Rank r's peers go in NCCL's p2p order,
// r+1, r+2, ... (each round sends to r+i and receives from r-i); every
// pair has its own connections on each channel, and a rank's sends to
// all its peers go at once, sharing its NIC (and its scale-up port).
// Between GPUs of one server a send goes through the scale-up domain; to
// another server's GPU on another rail, with PXN, it goes first to the
// GPU of the sender's server on the receiver's rail, whose NIC sends it
// on that rail (the NVIDIA blog on NCCL 2.12's PXN: all-to-all is what
// it was made for). A send's work requests carry NCCL's p2p chunk, 128
// KiB (NCCL_P2P_NET_CHUNKSIZE) under Simple, on the channels NCCL gives a
// send of its size (p2pChannels).

// P2PChunk is NCCL's p2p chunk over the network (src/init.cc:
// NCCL_P2P_NET_CHUNKSIZE, 128 KiB).
const P2PChunk = 128 << 10

func (c *Comm) buildDirect() {
	n := c.N()
	c.direct = make([][][]hop, c.Opt.Channels)
	for ch := range c.direct {
		c.direct[ch] = make([][]hop, n)
		for a := range n {
			c.direct[ch][a] = make([]hop, n)
			for i := 1; i < n; i++ {
				b := (a + i) % n
				relay := -1
				if c.Opt.PXN && !c.sameServer(a, b) && c.Places[a].Server >= 0 && c.Places[b].Server >= 0 && c.Places[a].GPU != c.Places[b].GPU {
					relay = c.onGPU(c.serverOf(a), c.Places[b].GPU)
				}
				c.direct[ch][a][b] = c.connect(a, b, ch, relay)
			}
		}
	}
}

func (p *Plan) planDirect() {
	c := p.Comm
	n := c.N()
	per := p.Spec.Size / int64(n)
	piece := p.piece()
	// A send takes the channels NCCL gives a point-to-point send of its
	// bytes (p2pChannels: src/enqueue.cc halves nChannelsMin until a
	// channel each covers every rank, gives one channel per 64 KiB up to
	// it, and doubles while a part is above 128 KiB between servers), not
	// every channel: 24 KiB goes on one.
	p.Channels = int(p2pChannels(per, p.Channels, n, c.Nodes()))
	for ch := 0; ch < p.Channels; ch++ {
		d := p.channelBytes(per, ch)
		for a := range n {
			for i := 1; i < n; i++ {
				b := (a + i) % n
				h := c.direct[ch][a][b]
				send := &chainStream{in: -1, out: c.outIdx(h.out), d: d, piece: piece}
				p.ranks[a] = append(p.ranks[a], send)
				if h.relay >= 0 {
					p.ranks[h.relay] = append(p.ranks[h.relay], newRelay(c.inIdx(h.relayIn), c.outIdx(h.relayOut), send, c.outIdx(h.out)))
				}
			}
			for i := 1; i < n; i++ {
				b := (a - i + n) % n
				h := c.direct[ch][b][a]
				p.ranks[a] = append(p.ranks[a], &chainStream{in: c.inIdx(h.in), out: -1, d: d, piece: piece})
			}
		}
	}
}
