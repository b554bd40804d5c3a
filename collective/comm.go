package collective

import (
	"fmt"
	"math/bits"
	"slices"
)

// Place is where a rank runs: GPU GPU of server Server, or, with Server
// below 0, a host of its own (a single-NIC host, all of whose steps go
// over the network).
type Place struct{ Server, GPU int }

// Kind is how a link carries its steps.
type Kind uint8

// Network: RDMA WRITE with immediate on the link's QPs, NIC to NIC.
// ScaleUp: a transfer through the server's scale-up domain.
const (
	Network Kind = iota
	ScaleUp
)

// Link is one direction of a connection between two ranks: its steps
// go in order, each numbered from 0 over the whole run (Rank counts
// them).
type Link struct {
	From, To int // ranks
	Kind     Kind
	Channel  int
	// OutIdx and InIdx are the link's place among From's out-links and
	// To's in-links (Comm.Out, Comm.In).
	OutIdx, InIdx int32
	// Relayed: the link's steps are relayed ones (PXN): its sender
	// forwards what it received from another GPU of its server, or its
	// receiver forwards them on.
	Relayed bool
}

// Options are a communicator's: how its connections are laid out.
type Options struct {
	Algorithm Algorithm
	// Channels is NCCL's channels: the collective's data is cut into
	// that many parts, each with its own ring or tree and its own
	// connections (their QPs are the entropy ECMP sees).
	Channels int
	// RailAware lays rings out on rails, as NCCL's topology search does
	// on GPU servers with NCCL_CROSS_NIC=0 (the setting for
	// rail-optimized fabrics, NCCL's docs, "NCCL_CROSS_NIC"): channel c's
	// ring enters and leaves every server on one rail, and crosses the
	// server's GPUs over its scale-up domain. Without it the ranks are
	// one ring in the order given, each GPU using its own NIC. Trees are
	// on the rails whatever it says; halving-doubling and direct sends
	// lay no ring and ignore it (resolve refuses it for them).
	RailAware bool
	// PXN moves a step bound for another server's GPU on another rail
	// over the scale-up domain first, to the GPU of the sender's server
	// on the destination's rail, whose NIC sends it (NCCL's PXN, on by
	// default since 2.12: NCCL_PXN_DISABLE=0; NVIDIA's blog "Doubling
	// all2all Performance with NVIDIA Collective Communication Library
	// 2.12", 2022). NCCL uses it where a rail-aware ring leaves a server
	// from a GPU whose own NIC is on another rail, and for all-to-all
	// sends across rails; trees and halving-doubling ignore it (resolve
	// refuses it for them).
	PXN bool
}

// Comm is a communicator: ranks, their places and their connections
// (links), laid out for one algorithm. A Plan runs one operation on it.
type Comm struct {
	Places []Place
	Opt    Options
	Links  []Link
	// Out and In are each rank's out- and in-links (ids into Links).
	Out, In [][]int32
	// servers are the ranks' servers in order of first appearance, each
	// its ranks in GPU order (a rank of its own for a single-NIC host).
	servers [][]int
	srv     []int        // by rank: its index in servers
	rings   []ring       // Ring: by channel
	trees   [][]treeNode // Tree: by channel, by rank
	hd      [][][]hdLink // HalvingDoubling: by channel, rank, bit
	direct  [][][]hop    // Direct: by channel, sender, receiver
}

// OnePerServer reports whether no two ranks share a server.
func (c *Comm) OnePerServer() bool { return len(c.servers) == c.N() }

// SameChannels reports whether every channel's ring visits the ranks
// in the same order, as NCCL's graph's sameChannels says its channels
// replay one search (src/graph/search.cc): single-NIC hosts, and rings
// that ignore rails; rings on rails enter each server on their own
// GPU, so they differ. False for the other algorithms.
func (c *Comm) SameChannels() bool {
	if c.Opt.Algorithm != Ring {
		return false
	}
	for _, r := range c.rings[1:] {
		if !slices.Equal(r.order, c.rings[0].order) {
			return false
		}
	}
	return true
}

// Nodes is the number of servers the ranks are on (a single-NIC host
// counts as one): NCCL's nNodes.
func (c *Comm) Nodes() int { return len(c.servers) }

// N is the number of ranks.
func (c *Comm) N() int { return len(c.Places) }

// link adds a link and returns its id.
func (c *Comm) link(from, to int, k Kind, ch int, relayed bool) int32 {
	id := int32(len(c.Links))
	l := Link{From: from, To: to, Kind: k, Channel: ch, Relayed: relayed,
		OutIdx: int32(len(c.Out[from])), InIdx: int32(len(c.In[to]))}
	c.Links = append(c.Links, l)
	c.Out[from] = append(c.Out[from], id)
	c.In[to] = append(c.In[to], id)
	return id
}

// sameServer reports whether ranks a and b are GPUs of one server.
func (c *Comm) sameServer(a, b int) bool {
	return c.Places[a].Server >= 0 && c.Places[a].Server == c.Places[b].Server
}

// hop is the way from one rank to another: out is the sender's first
// link, in the receiver's last; relay the GPU that forwards it (PXN), or
// -1.
type hop struct {
	out, in int32
	relay   int
	// relayIn and relayOut are the relay's links (ids).
	relayIn, relayOut int32
}

// connect makes the links from rank a to rank b on channel ch: over the
// scale-up domain inside a server; else over the network, through the
// GPU of a's server on b's rail when relay says so (PXN).
func (c *Comm) connect(a, b, ch int, relay int) hop {
	if c.sameServer(a, b) {
		id := c.link(a, b, ScaleUp, ch, false)
		return hop{out: id, in: id, relay: -1}
	}
	if relay < 0 || relay == a {
		id := c.link(a, b, Network, ch, false)
		return hop{out: id, in: id, relay: -1}
	}
	up := c.link(a, relay, ScaleUp, ch, true)
	net := c.link(relay, b, Network, ch, true)
	return hop{out: up, in: net, relay: relay, relayIn: up, relayOut: net}
}

// NewComm lays out a communicator over places (one per rank, at least
// two) for opt.
func NewComm(places []Place, opt Options) (*Comm, error) {
	n := len(places)
	if n < 2 {
		return nil, fmt.Errorf("a collective needs at least 2 ranks, not %d", n)
	}
	if opt.Channels < 1 {
		opt.Channels = 1
	}
	c := &Comm{Places: places, Opt: opt, Out: make([][]int32, n), In: make([][]int32, n)}
	index := map[int]int{}
	for r, p := range places {
		if p.Server < 0 {
			c.servers = append(c.servers, []int{r})
			continue
		}
		i, ok := index[p.Server]
		if !ok {
			i = len(c.servers)
			index[p.Server] = i
			c.servers = append(c.servers, nil)
		}
		c.servers[i] = append(c.servers[i], r)
	}
	c.srv = make([]int, n)
	for i, s := range c.servers {
		slices.SortStableFunc(s, func(a, b int) int { return places[a].GPU - places[b].GPU })
		for _, r := range s {
			c.srv[r] = i
		}
	}
	if (opt.RailAware && opt.Algorithm == Ring || opt.Algorithm == Tree) && len(c.servers) < n {
		if err := c.sameGPUs(); err != nil {
			return nil, err
		}
	}
	switch opt.Algorithm {
	case Ring:
		c.buildRings()
	case Tree:
		c.buildTrees()
	case HalvingDoubling:
		if n&(n-1) != 0 {
			return nil, fmt.Errorf("halving_doubling needs a power of two of ranks (MPICH's and Gloo's extra ranks are not modelled), not %d", n)
		}
		c.buildHalvingDoubling()
	case Direct:
		c.buildDirect()
	}
	return c, nil
}

// sameGPUs checks that every server holds the same GPUs of the
// collective: rails (and a tree's chains) are the GPU indices.
func (c *Comm) sameGPUs() error {
	gpus := func(s []int) []int {
		var g []int
		for _, r := range s {
			g = append(g, c.Places[r].GPU)
		}
		return g
	}
	first := gpus(c.servers[0])
	for _, s := range c.servers[1:] {
		if g := gpus(s); !slices.Equal(g, first) {
			what, fix := "rings on rails need", "set rail_aware: false, or list whole servers"
			if c.Opt.Algorithm == Tree {
				// A tree's chains are on the rails whatever rail_aware says.
				what, fix = "a tree needs", "list whole servers"
			}
			return fmt.Errorf("%s the same GPUs of every server: server of rank %d takes GPUs %v, server of rank %d %v (%s)",
				what, c.servers[0][0], first, s[0], g, fix)
		}
	}
	return nil
}

// rail is the GPU index channel ch's rings (and trees, by ch/2) use:
// the channels take the servers' GPUs in turn.
func (c *Comm) rail(i int) int {
	s := c.servers[0]
	return c.Places[s[i%len(s)]].GPU
}

// rotate is server s's ranks starting at the one on GPU g.
func (c *Comm) rotate(s []int, g int) []int {
	for i, r := range s {
		if c.Places[r].GPU == g {
			return append(slices.Clone(s[i:]), s[:i]...)
		}
	}
	return s
}

// onGPU is the rank of server s on GPU g, or -1.
func (c *Comm) onGPU(s []int, g int) int {
	for _, r := range s {
		if c.Places[r].GPU == g {
			return r
		}
	}
	return -1
}

// serverOf is rank r's server's ranks.
func (c *Comm) serverOf(r int) []int { return c.servers[c.srv[r]] }

// NetworkLinks is the number of links NewComm lays for algorithm a over
// n ranks on single-NIC hosts, every one a network link, with channels
// channels: a ring's n a channel, the double binary tree's 2(n-1) (an
// up and a down link per edge of its two trees, each carrying half the
// channel), halving-doubling's n·log2 n, direct's n(n-1). On GPU servers
// count Comm.Links instead (scale-up links and PXN relays).
func NetworkLinks(a Algorithm, n, channels int) int64 {
	ch, m := int64(max(1, channels)), int64(n)
	switch a {
	case Tree:
		return ch * 2 * (m - 1)
	case HalvingDoubling:
		return ch * m * int64(bits.Len(uint(max(1, n)))-1)
	case Direct:
		return ch * m * (m - 1)
	}
	return ch * m
}
