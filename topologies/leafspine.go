package topologies

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
)

// leafSpineParams are a leaf-spine's keys.
type leafSpineParams struct {
	Leaves, Spines, HostsPerLeaf int
	Link, HostLink, FabricLink   fabric.LinkSpec
}

// leafSpine is a two-tier Clos (fabric.LeafSpine).
func leafSpine() kind.Topology {
	type P = leafSpineParams
	row := kind.Topology{
		Name: "leaf-spine", Switches: "leaves `s0..s(leaves-1)`, then spines",
		Ports: "leaf `sL`: hosts `h(L*hosts_per_leaf+i)` on `p0..`, spine `j` on `p(hosts_per_leaf+j)`; spine port `pL` faces leaf `L`",
		Params: []kind.Param{
			kind.Int("leaves", func(p *P) *int { return &p.Leaves }).Range("1", "").Needed().Described("the leaf switches"),
			kind.Int("spines", func(p *P) *int { return &p.Spines }).Range("1", "").Needed().Described("the spine switches, each linked to every leaf"),
			kind.Int("hosts_per_leaf", func(p *P) *int { return &p.HostsPerLeaf }).Range("1", "").Needed().Described("the hosts on each leaf"),
			kind.Link("link", func(p *P) *fabric.LinkSpec { return &p.Link }).Described(linkDoc),
			kind.Link("host_link", func(p *P) *fabric.LinkSpec { return &p.HostLink }).Over("link").Described("a host's link to its leaf; default link's"),
			kind.Link("fabric_link", func(p *P) *fabric.LinkSpec { return &p.FabricLink }).Over("link").Described("a leaf's link to a spine; default link's"),
		},
		SizeKey: "leaves",
	}
	return kind.DefineTopology(row, func() P { return P{} }, nil,
		func(p *P) (int64, int64, int64) {
			h := kind.MulSat(int64(p.Leaves), int64(p.HostsPerLeaf))
			return h, int64(p.Leaves) + int64(p.Spines), h + kind.MulSat(int64(p.Leaves), int64(p.Spines))
		},
		func(p P) (*fabric.Topology, error) {
			return fabric.LeafSpine(p.Leaves, p.Spines, p.HostsPerLeaf, p.HostLink, p.FabricLink)
		})
}
