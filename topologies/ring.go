package topologies

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
)

// ringParams are a ring's keys.
type ringParams struct {
	Switches, HostsPerSwitch int
	Link                     fabric.LinkSpec
}

// ring is switches in a cycle (fabric.Ring).
func ring() kind.Topology {
	type P = ringParams
	row := kind.Topology{
		Name: "ring", Sized: "`switches`, `hosts_per_switch: H`", Switches: "`s0..s(n-1)`",
		Ports: "`sI`: hosts on `p0..p(H-1)`, the next switch on `pH`, the previous on `p(H+1)`",
		Params: []kind.Param{
			kind.Int("switches", func(p *P) *int { return &p.Switches }).Range("3", "").Needed().Described("the switches in the cycle"),
			kind.Int("hosts_per_switch", func(p *P) *int { return &p.HostsPerSwitch }).Range("1", "").Described("the hosts on each switch; default 1"),
			kind.Link("link", func(p *P) *fabric.LinkSpec { return &p.Link }).Described(linkDoc),
		},
		SizeKey: "switches",
	}
	return kind.DefineTopology(row, func() P { return P{HostsPerSwitch: 1} }, nil,
		func(p *P) (int64, int64, int64) {
			h := kind.MulSat(int64(p.Switches), int64(p.HostsPerSwitch))
			return h, int64(p.Switches), h + int64(p.Switches)
		},
		func(p P) (*fabric.Topology, error) { return fabric.Ring(p.Switches, p.HostsPerSwitch, p.Link) })
}
