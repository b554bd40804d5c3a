package fabric

import (
	"fmt"
	"unsafe"
)

// Routing's size, counted from the topology before any table is made:
// what ComputeRoutes, and lash's and dfsssp's layering, will hold and
// check, so that a topology past its engine's limits is refused at once
// (SizeRouting), and the memory estimate knows the tables' part before
// they exist. A 1,000-switch ring under lash took 13 to 46 s and 3.4 GiB
// of paths before it was refused for its VLs; a 1,100-switch one built
// its tables before it was refused for its size.

// MaxLASHSwitches bounds the switches lash lays out: it checks the
// switch pairs' paths one by one against the layers' dependency graphs
// (a k=16 fat tree, 320 switches, takes 0.3 s; k=24, 720, 1.5 s).
const MaxLASHSwitches = 1024

// MaxDFSSSPHosts bounds the hosts dfsssp lays out: its cycle checks grow
// with the square of the hosts and the size of the dependency graph.
const MaxDFSSSPHosts = 1024

// MaxLayeredHops bounds the channels of the paths lash or dfsssp lays
// on layers, counted over every path (lash: each switch pair's, both
// ways; dfsssp: each host pair's, from its first switch): each is a
// dependency checked against a layer, and lash keeps its paths, 4 bytes
// a channel, while it balances the layers. At the bound (measured,
// Go 1.25, amd64, on a shared machine): a ring of 640 switches under
// lash, 65 million, took 4 to 5.4 s and 320 MiB; one of 600 hosts under
// dfsssp, 54 million, 1.9 to 3.8 s. A k=24 fat tree under lash has 1.5
// million, a k=16 one under dfsssp 4.8 million. A ring of 1,000 switches
// under lash (250 million) had taken 13 to 46 s and 3.4 GiB before it was
// refused for its VLs.
const MaxLayeredHops = 1 << 26

// RoutingSize is what building an engine's tables on a topology takes,
// counted by SizeRouting before anything is built.
type RoutingSize struct {
	Algo RoutingAlgo
	// Nodes, Switches and Hosts count the topology's nodes (hosts are
	// its endpoints: a dual-port HCA's second port is one).
	Nodes, Switches, Hosts int
	// HostSwitches is the switches linked to a host: the rows of the
	// hop distances routing computes the tables from.
	HostSwitches int
	// Channels is the switch ports: the channels of a layer's
	// dependency graph (lash, dfsssp).
	Channels int
	// LayeredPaths and LayeredHops are, for lash, its switch pairs'
	// paths (each way) and their channels in all; for dfsssp, its host
	// pairs' paths and their channels. 0 for the other engines.
	LayeredPaths, LayeredHops int64
}

// SizeRouting counts what building algo's tables on t takes, and fails,
// naming the limit, when t is past the engine's: lash lays out at most
// MaxLASHSwitches switches, dfsssp at most MaxDFSSSPHosts hosts, and
// neither more than MaxLayeredHops channels of paths. It takes a
// breadth-first search per switch under lash (at most MaxLASHSwitches)
// and per host's switch under dfsssp, nothing more for the others.
func SizeRouting(t *Topology, algo RoutingAlgo) (RoutingSize, error) {
	if algo == "" {
		algo = RoutingECMP
	}
	z := RoutingSize{Algo: algo, Nodes: len(t.Nodes), Hosts: len(t.Endpoints())}
	hostSw := make([]bool, len(t.Nodes))
	for _, h := range t.Endpoints() {
		for _, ref := range t.Nodes[h].Ports {
			if ref.Peer >= 0 && int(ref.Peer) < len(t.Nodes) {
				hostSw[ref.Peer] = true
			}
		}
	}
	for id, n := range t.Nodes {
		if n.Kind == Switch {
			z.Switches++
			z.Channels += len(n.Ports)
			if hostSw[id] {
				z.HostSwitches++
			}
		}
	}
	switch algo {
	case RoutingLASH:
		if z.Switches > MaxLASHSwitches {
			return z, fmt.Errorf("lash lays out at most %d switches' paths; this topology has %d (minhop, updn and ftree route any size)", MaxLASHSwitches, z.Switches)
		}
		g := newHopCounter(t)
		for s := range g.adj {
			g.from(int32(s))
			for _, d := range g.dist {
				if d > 0 {
					z.LayeredPaths++
					z.LayeredHops += int64(d)
				}
			}
		}
		if z.LayeredHops > MaxLayeredHops {
			return z, fmt.Errorf("lash lays each switch pair's path, both ways, on a layer and keeps them while it balances the layers: this topology's %d switches have %d such paths of %d channels in all, more than the %d it takes (at that bound it takes some 5 s and 320 MiB); minhop, updn and ftree route any size",
				z.Switches, z.LayeredPaths, z.LayeredHops, MaxLayeredHops)
		}
	case RoutingDFSSSP:
		if z.Hosts > MaxDFSSSPHosts {
			return z, fmt.Errorf("dfsssp lays out at most %d hosts' paths; this topology has %d (minhop, updn and ftree route any size)", MaxDFSSSPHosts, z.Hosts)
		}
		z.LayeredPaths, z.LayeredHops = dfssspHops(t)
		if z.LayeredHops > MaxLayeredHops {
			return z, fmt.Errorf("dfsssp lays each host pair's path on a layer: this topology's %d hosts have %d such paths of %d channels in all, more than the %d it takes (at that bound it takes some 4 s); minhop, updn and ftree route any size",
				z.Hosts, z.LayeredPaths, z.LayeredHops, MaxLayeredHops)
		}
	}
	return z, nil
}

// dfssspHops counts the host pairs' paths as AssignVLs takes them (from
// the source's first switch to the switch nearest the destination, a
// channel per switch) and their channels in all.
func dfssspHops(t *Topology) (paths, hops int64) {
	g := newHopCounter(t)
	hosts := t.Endpoints()
	attach := make([][]int32, len(hosts)) // switch indexes
	for i, h := range hosts {
		for _, ref := range t.Nodes[h].Ports {
			if ref.Peer >= 0 && int(ref.Peer) < len(t.Nodes) && t.Nodes[ref.Peer].Kind == Switch {
				attach[i] = append(attach[i], g.index[ref.Peer])
			}
		}
	}
	done := make([]bool, len(g.adj)) // sources searched
	for _, a := range attach {
		if len(a) == 0 || done[a[0]] {
			continue
		}
		src := a[0]
		done[src] = true
		g.from(src)
		var sources int64 // hosts whose first switch is src
		for _, b := range attach {
			if len(b) > 0 && b[0] == src {
				sources++
			}
		}
		for _, b := range attach {
			best := int32(-1)
			for _, s := range b {
				if d := g.dist[s]; d >= 0 && (best < 0 || d < best) {
					best = d
				}
			}
			if best >= 0 {
				paths += sources
				hops += sources * int64(best+1)
			}
		}
		// A host to itself is no pair: it was counted at distance 0.
		paths -= sources
		hops -= sources
	}
	return paths, hops
}

// hopCounter finds hop distances between switches by breadth-first
// search.
type hopCounter struct {
	index []int32   // by NodeID: switch index, -1 for a host
	adj   [][]int32 // switch index -> neighbouring switch indexes
	dist  []int32   // from the last source; -1 unreached
	queue []int32
}

func newHopCounter(t *Topology) *hopCounter {
	g := &hopCounter{index: make([]int32, len(t.Nodes))}
	for id, n := range t.Nodes {
		g.index[id] = -1
		if n.Kind == Switch {
			g.index[id] = int32(len(g.adj))
			g.adj = append(g.adj, nil)
		}
	}
	for id, n := range t.Nodes {
		if n.Kind != Switch {
			continue
		}
		for _, ref := range n.Ports {
			if ref.Peer >= 0 && int(ref.Peer) < len(t.Nodes) && t.Nodes[ref.Peer].Kind == Switch {
				g.adj[g.index[id]] = append(g.adj[g.index[id]], g.index[ref.Peer])
			}
		}
	}
	g.dist = make([]int32, len(g.adj))
	return g
}

// from sets dist to the hop distances from switch s.
func (g *hopCounter) from(s int32) {
	for i := range g.dist {
		g.dist[i] = -1
	}
	g.dist[s] = 0
	g.queue = append(g.queue[:0], s)
	for q := 0; q < len(g.queue); q++ {
		x := g.queue[q]
		for _, y := range g.adj[x] {
			if g.dist[y] < 0 {
				g.dist[y] = g.dist[x] + 1
				g.queue = append(g.queue, y)
			}
		}
	}
}

// The bytes of routing's structures, for the memory estimate
// (resolve/memory.go): their sizes as declared, and what measurement
// adds where the structures are not all declared.
const (
	spanBytes  = int64(unsafe.Sizeof(portRange{})) // a table entry while the tables are built
	entryBytes = 2                                 // a table entry once built: a uint16 (Routes.entry)
	distBytes  = 4                                 // a hop distance (routeBuilder.dist)
	// lashPairBytes is a lash switch pair: its lashPair and the slice
	// of pairs' growth by append (a quarter more, Go's growth for large
	// slices).
	lashPairBytes = int64(unsafe.Sizeof(lashPair{})) * 5 / 4
	// hopBytes is a channel of a path lash keeps (int32).
	hopBytes = 4
	// cdgChannelBytes is a channel of a layer's dependency graph: its
	// dependency lists' headers, its place in the order and its mark
	// (cdg; the dependencies themselves are a few per channel).
	cdgChannelBytes = int64(2*unsafe.Sizeof([]dep(nil)) + unsafe.Sizeof(int32(0)) + unsafe.Sizeof(false))
)

// BuildBytes is the most the engine's tables take while they are built
// (ComputeRoutes, then lash's or dfsssp's layering on vls layers): the
// spans of every switch and host (twice for an OpenSM engine, which
// keeps each entry's candidates), the distances from every switch with
// hosts, the entries with no row shared; for lash its trees' next hops,
// its pairs and their paths, its layers; for dfsssp its layers and the
// pairs' lanes. The garbage of the breadth-first searches (gonum's, a
// visited set and a queue each) is not counted: a collection takes it
// back as it goes. Measured (runtime/metrics' heap objects, sampled every
// 100 µs, GOGC 25), the peak heap was 1.1 to 1.25 times this on k=24 fat
// trees under ecmp, minhop, updn and lash, and on a ring of 400 under
// lash; up to 1.9 times on a k=16 fat tree and a ring of 500 under
// dfsssp, where the searches' garbage weighs more against small tables.
func (z RoutingSize) BuildBytes(vls int) int64 {
	entries := int64(z.Switches) * int64(z.Hosts)
	lft := int64(1)
	if z.Algo.IsLFT() {
		lft = 2
	}
	build := entries*spanBytes*lft + int64(z.HostSwitches)*int64(z.Switches)*distBytes + entries*entryBytes*lft
	layers := int64(vls) * int64(z.Channels) * cdgChannelBytes
	switch z.Algo {
	case RoutingLASH:
		n := int64(z.Switches)
		layered := z.TableBytes() + n*n*4 + z.LayeredPaths/2*lashPairBytes + z.LayeredHops*hopBytes + layers
		return max(build, layered)
	case RoutingDFSSSP:
		return max(build, z.TableBytes()+layers)
	case RoutingFtree:
		// ftree's own port and hop count per switch and destination
		// (ftreeSwitch.lft, .hops) beside the lists.
		return build + entries*5
	}
	return build
}

// TableBytes bounds what the tables keep once built: every switch's row
// of entries (fewer where switches share rows: a k=24 fat tree's 720
// switches have 313 rows), the lists they number, the node indexes, and
// lash's or dfsssp's lanes of every pair.
func (z RoutingSize) TableBytes() int64 {
	lft := int64(1)
	if z.Algo.IsLFT() {
		lft = 2
	}
	// Lists: a switch has about one per port and another per
	// destination of its own, each a span and a port or more (25,006
	// lists and 23,880 ports for a k=24 fat tree's 720 switches under
	// minhop).
	lists := (int64(z.Channels) + int64(z.Switches)) * lft * (spanBytes + 4)
	b := int64(z.Switches)*int64(z.Hosts)*entryBytes*lft + lists + int64(z.Nodes)*8
	switch z.Algo {
	case RoutingLASH:
		b += int64(z.Switches)*int64(z.Switches) + int64(z.Nodes)*4
	case RoutingDFSSSP:
		b += int64(z.Hosts)*int64(z.Hosts) + int64(z.Nodes)*4
	}
	return b
}

// Bytes is what the tables take.
func (r *Routes) Bytes() int64 { return int64(r.tableBytes()) }
