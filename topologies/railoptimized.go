package topologies

import (
	"fmt"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// A rail-optimized fabric (issue 48) joins GPU servers as NVIDIA's DGX
// SuperPOD reference architecture does: each GPU has its own NIC, and
// NIC g of every server of a scalable unit goes to that unit's leaf
// switch of rail g, so that GPU g of one server reaches GPU g of another
// in one switch hop; every rail switch links to every spine, which
// carries what crosses rails or units. Inside a server the GPUs share a
// scale-up domain (NVLink through NVSwitch), which is no part of the
// network: the servers are listed beside the topology (kind.Server).
//
// A scalable unit holds at most servers_per_rail_switch servers, 32 by
// default, as in the DGX SuperPOD (H100) reference architecture: 32
// DGX H100 systems per scalable unit, whose eight rail (leaf) switches
// are NVIDIA Quantum-2 QM9700s of 64 NDR (400 Gb/s) ports, 32 down to
// the unit's servers and 32 up to the spines. lfsim's switches have no
// port limit; the key sets how many servers share a rail switch, and a
// fabric of more servers has one unit (and rail switches) per 32.

// railParams are a rail-optimized fabric's keys.
type railParams struct {
	Servers, GPUsPerServer, Rails, Spines, ServersPerRailSwitch int
	Link, HostLink, FabricLink, NVLink                          fabric.LinkSpec
}

// The defaults of a rail-optimized fabric's keys (see railOptimized).
const (
	// defaultGPUsPerServer: a DGX H100 (and an HGX H100 board) holds 8
	// H100 SXM5 GPUs, each with a ConnectX-7 NIC on the compute fabric
	// (NVIDIA DGX H100 user guide, system specifications).
	defaultGPUsPerServer = 8
	// defaultServersPerRailSwitch: the DGX SuperPOD's scalable unit, 32
	// systems (NVIDIA DGX SuperPOD reference architecture, DGX H100).
	defaultServersPerRailSwitch = 32
)

// defaultRailLink is a NIC's and a switch's link: 400 Gb/s, a
// ConnectX-7's NDR port as a DGX H100 has one per GPU, and 250 ns, 50 m
// of fibre (5 ns a metre): a scalable unit's servers sit in the racks
// on either side of its rail switches' rack (DGX SuperPOD reference
// architecture, DGX H100: 32 systems in 8 racks beside the leaf
// switches), cabled with NVIDIA's NDR multimode optics, whose reach is
// 50 m over OM4 (MMA4Z00-NS, the twin-port 2x400G OSFP of the Quantum-2
// switches and the DGX H100's compute ports, and MMA4Z00-NS400, a
// ConnectX-7's), so 250 ns is the longest such a link is. Until
// 2026-12-06 the delay was kind.DefaultLink's 1 µs (200 m), every
// generator's: on InfiniBand a credit round trip of (2 µs + a switch's
// 500 ns of cut-through latency) × 400 Gb/s = 125 KB, twice the 62 KB of
// whole packets the default 64 KiB switch.ib.vl_buffer holds, so every
// NVIDIA-like rail fabric ran a VL at 198 Gb/s of 400 (the
// nccl-tests-h800 reproduction's first run, REPRODUCE.md); at 250 ns it
// is 50 KB and NDR runs at line rate (64 KiB covers NDR links up to
// 369 ns). XDR (800 Gb/s) needs more than the default vl_buffer at any
// length past 60 ns; resolve warns of such links (resolve/credits.go).
var defaultRailLink = fabric.LinkSpec{Rate: 400 * fabric.Gbps, Delay: 250 * sim.Nanosecond}

// units is how many scalable units (rail switches per rail) p has.
func (p *railParams) units() int {
	return (p.Servers + p.ServersPerRailSwitch - 1) / p.ServersPerRailSwitch
}

// rails is how many rails p has: rails, or one a GPU.
func (p *railParams) rails() int {
	if p.Rails == 0 {
		return p.GPUsPerServer
	}
	return p.Rails
}

// railOptimized is the rail-optimized generator.
func railOptimized() kind.Topology {
	type P = railParams
	row := kind.Topology{
		Name: "rail-optimized", Sized: "`servers`, `gpus_per_server`",
		Switches: "hosts `sS/gG` (GPU G of server S, server by server); rail switches `rail0..rail(R-1)` (R = rails), or with more than one scalable unit `suU.railR` unit by unit; then spines `spine0..`",
		Ports:    "rail switch: its unit's servers in order on `p0..`, each server's GPUs of that rail in GPU order, then spine `j` after them; spine port `pI` faces the I-th rail switch (unit by unit, rail by rail); GPU `g` of a server is on rail `g / (gpus_per_server / rails)`",
		Params: []kind.Param{
			kind.Int("servers", func(p *P) *int { return &p.Servers }).Range("1", "").Needed().Described("the GPU servers"),
			kind.Int("gpus_per_server", func(p *P) *int { return &p.GPUsPerServer }).Range("1", "").Described("each server's GPUs, each a host with its own NIC; default 8, a DGX H100's"),
			kind.Int("rails", func(p *P) *int { return &p.Rails }).Range("0", "").ZeroMeans("one rail a GPU (gpus_per_server)").Described("the rails: rail switches per scalable unit; must divide gpus_per_server (1: every NIC of a server on one switch, a top-of-rack design); default one a GPU"),
			kind.Int("spines", func(p *P) *int { return &p.Spines }).Range("1", "").Needed().Described("the spine switches, each linked to every rail switch"),
			kind.Int("servers_per_rail_switch", func(p *P) *int { return &p.ServersPerRailSwitch }).Range("1", "").Described("the servers of a scalable unit, which share its rail switches; default 32, the DGX SuperPOD's (a QM9700's 64 ports: 32 down, 32 up)"),
			kind.Link("link", func(p *P) *fabric.LinkSpec { return &p.Link }).Described("each network link's rate and delay; default 400 Gb/s (a ConnectX-7 NDR port, one a GPU on a DGX H100) and 250 ns (50 m, the reach of NVIDIA's NDR multimode optics)"),
			kind.Link("host_link", func(p *P) *fabric.LinkSpec { return &p.HostLink }).Over("link").Described("a GPU's NIC's link to its rail switch; default link's"),
			kind.Link("fabric_link", func(p *P) *fabric.LinkSpec { return &p.FabricLink }).Over("link").Described("a rail switch's link to a spine; default link's"),
			kind.Link("nvlink", func(p *P) *fabric.LinkSpec { return &p.NVLink }).Described("each server's scale-up domain (NVLink through NVSwitch), no part of the network: each GPU's rate into it per direction and a transfer's latency GPU to GPU; default kind.DefaultNVLink's, an H100 SXM5's NVLink 4: 3.6 Tb/s, 600 ns"),
		},
		SizeKey: "servers", LimitAt: "servers",
	}
	row = kind.DefineTopology(row,
		func() P {
			return P{GPUsPerServer: defaultGPUsPerServer, ServersPerRailSwitch: defaultServersPerRailSwitch,
				Link: defaultRailLink, NVLink: kind.DefaultNVLink}
		},
		func(p *P, _ func(string) int64) []kind.Problem {
			if p.Rails > p.GPUsPerServer || p.Rails > 0 && p.GPUsPerServer%p.Rails != 0 {
				return []kind.Problem{kind.Problemf("rails", "%d rails for %d GPUs a server: rails must divide gpus_per_server (each rail takes as many of a server's NICs)", p.Rails, p.GPUsPerServer)}
			}
			return nil
		},
		func(p *P) (int64, int64, int64) {
			hosts := kind.MulSat(int64(p.Servers), int64(p.GPUsPerServer))
			rails := kind.MulSat(int64(p.units()), int64(p.rails()))
			return hosts, rails + int64(p.Spines), hosts + kind.MulSat(rails, int64(p.Spines))
		},
		buildRailOptimized)
	return kind.WithServers(row, railServers)
}

// buildRailOptimized builds p's fabric: rail switches unit by unit, then
// spines, then each server's GPUs, each linked to its rail switch as it
// is made; then every rail switch to every spine.
func buildRailOptimized(p railParams) (*fabric.Topology, error) {
	units, rails := p.units(), p.rails()
	perRail := p.GPUsPerServer / rails // a server's NICs on each rail
	t := fabric.NewTopology()
	leaf := make([]fabric.NodeID, 0, units*rails)
	for u := range units {
		for r := range rails {
			id, err := t.AddNode(railName(u, r, units), fabric.Switch)
			if err != nil {
				return nil, err
			}
			leaf = append(leaf, id)
		}
	}
	spine := make([]fabric.NodeID, p.Spines)
	for j := range spine {
		id, err := t.AddNode(fmt.Sprintf("spine%d", j), fabric.Switch)
		if err != nil {
			return nil, err
		}
		spine[j] = id
	}
	for s := range p.Servers {
		u := s / p.ServersPerRailSwitch
		for g := range p.GPUsPerServer {
			h, err := t.AddNode(gpuName(s, g), fabric.Host)
			if err != nil {
				return nil, err
			}
			t.Connect(leaf[u*rails+g/perRail], h, p.HostLink)
		}
	}
	for _, l := range leaf {
		for _, sp := range spine {
			t.Connect(l, sp, p.FabricLink)
		}
	}
	return t, nil
}

// railServers lists p's servers in t, as buildRailOptimized named them.
func railServers(p railParams, t *fabric.Topology) []kind.Server {
	out := make([]kind.Server, p.Servers)
	for s := range out {
		gpus := make([]fabric.NodeID, p.GPUsPerServer)
		for g := range gpus {
			gpus[g], _ = t.Lookup(gpuName(s, g))
		}
		out[s] = kind.Server{Name: fmt.Sprintf("s%d", s), GPUs: gpus, ScaleUp: p.NVLink}
	}
	return out
}

// gpuName is GPU g of server s's host: s0/g0.
func gpuName(s, g int) string { return fmt.Sprintf("s%d/g%d", s, g) }

// railName is rail r's switch in scalable unit u of units: rail0, or
// su1.rail0 where there is more than one unit.
func railName(u, r, units int) string {
	if units == 1 {
		return fmt.Sprintf("rail%d", r)
	}
	return fmt.Sprintf("su%d.rail%d", u, r)
}
