package kind

import (
	"fmt"
	"math"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// Topology is one topology generator's row of the table: what
// topology.kind calls it, its keys, the size of what it builds, and how
// to build it. The package that holds the generators (topologies)
// registers it (RegisterTopology); the explicit kind, which lists its
// nodes and links instead of generating them, is the format's own and
// has no row.
type Topology struct {
	// Name is topology.kind's value.
	Name string
	// Switches and Ports say, for the docs' table of generated names,
	// which switches it names and how their ports are numbered; Sized is
	// the keys that size it, as the table writes them ("hosts: N").
	Switches, Ports, Sized string
	// Params are topology's keys after kind, in the order a message lists
	// them (routing and routes, which every kind shares, follow them).
	// Required ones (Param.Needed) have no default; a link's
	// (TypeLink) default is another link key's (Param.Over), else what
	// Defaults holds for it, else DefaultLink.
	Params []Param
	// SizeKey is the key that sets its size, which a message that the
	// topology is too large to route or to hold in memory points at (a
	// fat tree's k); "" for the topology key.
	SizeKey string
	// LimitAt is the key a message that the topology is past the limits
	// on hosts, switches or links points at; "" for the topology key.
	LimitAt string

	// Defaults are new parameters (a pointer to the generator's struct)
	// holding the defaults of the keys that are not required.
	Defaults func() any
	// Check says what is wrong with the parameters beyond each key's type
	// and bounds (a fat tree's odd k), given the run's limits by their
	// name (resolve.Limits' fields: "FatTreeK"); nil when nothing is.
	Check func(params any, limit func(name string) int64) []Problem
	// Size is how many hosts, switches and links it would build, for the
	// limits, computed so as not to overflow (MulSat).
	Size func(params any) (hosts, switches, links int64)
	// Build builds it.
	Build func(params any) (*fabric.Topology, error)
	// Servers are the GPU servers it built (issue 48), given its
	// parameters and what Build built, each GPU a host of t; nil for a
	// generator of hosts that are not GPUs (WithServers sets it).
	Servers func(params any, t *fabric.Topology) []Server
}

// Server is one GPU server a generator builds: G GPUs, each a host with
// its own NIC, and a scale-up domain (NVLink through NVSwitch) between
// them. The resolution step makes it a resolve.Server.
type Server struct {
	// Name is the server's name ("s0"); it is no node of the topology.
	Name string
	// GPUs are the hosts of GPU 0..G-1, in GPU order.
	GPUs []fabric.NodeID
	// ScaleUp is the scale-up domain: Rate is each GPU's bandwidth into
	// it per direction, Delay one transfer's latency GPU to GPU.
	ScaleUp fabric.LinkSpec
}

// WithServers completes a row made by DefineTopology with the servers
// of a generator whose parameters are a P.
func WithServers[P any](row Topology, servers func(p P, t *fabric.Topology) []Server) Topology {
	row.Servers = func(params any, t *fabric.Topology) []Server { return servers(*params.(*P), t) }
	return row
}

// DefaultNVLink is a GPU server's scale-up domain when the file gives
// none: fourth-generation NVLink through third-generation NVSwitch, as
// on an H100 SXM5 (DGX/HGX H100). Rate: 900 GB/s of NVLink bandwidth
// per GPU, both directions together (NVIDIA H100 Tensor Core GPU
// datasheet; NVIDIA H100 Tensor Core GPU Architecture whitepaper: 18
// NVLink 4 links of 50 GB/s), so 450 GB/s = 3.6 Tb/s per direction.
// Delay: 600 ns, the latency NCCL's own cost model gives one NVLink hop
// with its lowest-latency protocol (NCCL 2.18 and later,
// src/graph/tuning.cc: hwLat[NVLink][Ring][LL] = 0.6 us; 0.47 us in
// earlier releases). NVIDIA publishes no port-to-port figure for the
// NVSwitch itself.
var DefaultNVLink = fabric.LinkSpec{Rate: 3600 * fabric.Gbps, Delay: 600 * sim.Nanosecond}

// DefineTopology completes row with the functions of a generator whose
// parameters are a P: defaults gives the defaults, check (nil for none)
// checks them whole, size counts what build builds.
func DefineTopology[P any](row Topology, defaults func() P, check func(p *P, limit func(name string) int64) []Problem,
	size func(*P) (hosts, switches, links int64), build func(P) (*fabric.Topology, error)) Topology {
	row.Defaults = func() any { p := defaults(); return &p }
	row.Check = func(params any, limit func(string) int64) []Problem {
		if check == nil {
			return nil
		}
		return check(params.(*P), limit)
	}
	row.Size = func(params any) (int64, int64, int64) { return size(params.(*P)) }
	row.Build = func(params any) (*fabric.Topology, error) { return build(*params.(*P)) }
	return row
}

var topologies = table[Topology]{name: func(t Topology) string { return t.Name }}

// RegisterTopology adds t to the table, after those registered before
// it (the order of topology.kind's enumeration, before explicit). A
// second row with the same name, one named explicit, or one whose keys
// do not hold together (a link over a key that is no earlier link, a
// SizeKey or LimitAt that is no key, a required link) is a programming
// error: it panics. unregister takes it out again (for a test's toy
// generator).
func RegisterTopology(t Topology) (unregister func()) {
	keys := map[string]Type{}
	for _, p := range t.Params {
		if b, ok := keys[p.Base]; p.Base != "" && (!ok || b != TypeLink || p.Type != TypeLink) || p.Required && p.Type == TypeLink {
			panic(fmt.Sprintf("kind: topology %q: key %s is a link over no earlier link, or a required link", t.Name, p.Key))
		}
		keys[p.Key] = p.Type
	}
	for _, k := range []string{t.SizeKey, t.LimitAt} {
		if _, ok := keys[k]; k != "" && !ok {
			panic(fmt.Sprintf("kind: topology %q: SizeKey or LimitAt %s is none of its keys", t.Name, k))
		}
	}
	return topologies.register("topology", t, func(n string) bool { return n != "" && n != "explicit" })
}

// Topologies is the table, in registration order.
func Topologies() []Topology { return topologies.all() }

// LookupTopology is the row named name.
func LookupTopology(name string) (Topology, bool) { return topologies.lookup(name) }

// DefaultLink is a link's profile when the file gives none, the default
// of a topology's link keys that default to no other key (Param.Over)
// and have none of their generator's (Topology.Defaults): 100
// Gb/s, the common RoCE host speed, and 1 µs, SCENARIO.md's example
// delay.
var DefaultLink = fabric.LinkSpec{Rate: 100 * fabric.Gbps, Delay: sim.Microsecond}

// MulSat multiplies non-negative numbers, saturating at math.MaxInt64
// instead of overflowing (a generator's Size).
func MulSat(xs ...int64) int64 {
	p := int64(1)
	for _, x := range xs {
		if x != 0 && p > math.MaxInt64/x {
			return math.MaxInt64
		}
		p *= x
	}
	return p
}
