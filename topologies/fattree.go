package topologies

import (
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
)

// fatTreeParams are a fat tree's keys.
type fatTreeParams struct {
	K    int
	Link fabric.LinkSpec
}

// fatTree is the k-ary fat-tree of Al-Fares et al. (fabric.FatTree).
func fatTree() kind.Topology {
	type P = fatTreeParams
	row := kind.Topology{
		Name: "fat-tree", Sized: "`k`",
		Switches: "edge switches `s0..s(k²/2-1)` pod by pod, then aggregation `s(k²/2)..s(k²-1)`, then core `s(k²)..`",
		Ports:    "edge `e`: hosts `h(e·k/2+i)` on `p0..p(k/2-1)`, aggregation `j` of its pod on `p(k/2+j)`; aggregation `j`: its pod's edge `i` on `pI`, core `j·k/2+c` on `p(k/2+c)`; core: pod `P`'s aggregation on `pP`",
		Params: []kind.Param{
			kind.Int("k", func(p *P) *int { return &p.K }).Range("2", "").Needed().Described("the switches' port count, even: k pods, k³/4 hosts; at most the limits' FatTreeK, 64"),
			kind.Link("link", func(p *P) *fabric.LinkSpec { return &p.Link }).Described(linkDoc),
		},
		SizeKey: "k", LimitAt: "k",
	}
	return kind.DefineTopology(row, func() P { return P{} },
		func(p *P, limit func(string) int64) []kind.Problem {
			k := int64(p.K)
			if k%2 != 0 {
				return []kind.Problem{kind.Problemf("k", "a fat-tree needs an even k; %d is odd", k)}
			}
			if max := limit("FatTreeK"); k > max {
				return []kind.Problem{kind.Problemf("k", "%d is too large; the largest fat-tree supported has k = %d", k, max)}
			}
			return nil
		},
		func(p *P) (int64, int64, int64) {
			k := int64(p.K) // at most the limits' FatTreeK (Check)
			return k * k * k / 4, 5 * k * k / 4, 3 * k * k * k / 4
		},
		func(p P) (*fabric.Topology, error) { return fabric.FatTree(p.K, p.Link) })
}
