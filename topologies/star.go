package topologies

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
)

// starParams are a star's keys.
type starParams struct {
	Hosts int
	Link  fabric.LinkSpec
}

// star is one switch with its hosts (fabric.Star).
func star() kind.Topology {
	row := kind.Topology{
		Name: "star", Sized: "`hosts: N`", Switches: "`s0`", Ports: "`s0:pI` faces `hI`",
		Params: []kind.Param{
			kind.Int("hosts", func(p *starParams) *int { return &p.Hosts }).Range("2", "").Needed().Described("the hosts, h0..h(N-1)"),
			kind.Link("link", func(p *starParams) *fabric.LinkSpec { return &p.Link }).Described(linkDoc),
		},
		SizeKey: "hosts", LimitAt: "hosts",
	}
	return kind.DefineTopology(row, func() starParams { return starParams{} }, nil,
		func(p *starParams) (int64, int64, int64) { return int64(p.Hosts), 1, int64(p.Hosts) },
		func(p starParams) (*fabric.Topology, error) { return fabric.Star(p.Hosts, p.Link) })
}
