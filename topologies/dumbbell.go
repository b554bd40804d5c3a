package topologies

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
)

// dumbbellParams are a dumbbell's keys.
type dumbbellParams struct {
	Left, Right      int
	Link, Bottleneck fabric.LinkSpec
}

// dumbbell is two switches joined by one bottleneck link
// (fabric.Dumbbell).
func dumbbell() kind.Topology {
	row := kind.Topology{
		Name: "dumbbell", Sized: "`left: L, right: R`", Switches: "`s0` (left), `s1` (right)",
		Ports: "`s0:p0..p(L-1)` face `h0..h(L-1)`, `s1:p0..p(R-1)` face `hL..`; the bottleneck joins `s0:pL` and `s1:pR`",
		Params: []kind.Param{
			kind.Int("left", func(p *dumbbellParams) *int { return &p.Left }).Range("1", "").Needed().Described("the hosts on s0"),
			kind.Int("right", func(p *dumbbellParams) *int { return &p.Right }).Range("1", "").Needed().Described("the hosts on s1"),
			kind.Link("link", func(p *dumbbellParams) *fabric.LinkSpec { return &p.Link }).Described(linkDoc),
			kind.Link("bottleneck", func(p *dumbbellParams) *fabric.LinkSpec { return &p.Bottleneck }).Over("link").Described("the link between s0 and s1; default link's"),
		},
	}
	return kind.DefineTopology(row, func() dumbbellParams { return dumbbellParams{} }, nil,
		func(p *dumbbellParams) (int64, int64, int64) {
			h := int64(p.Left) + int64(p.Right)
			return h, 2, h + 1
		},
		func(p dumbbellParams) (*fabric.Topology, error) {
			return fabric.Dumbbell(p.Left, p.Right, p.Link, p.Bottleneck)
		})
}
