package collective

import "testing"

// TestNetworkLinks: NetworkLinks' closed form is the number of links
// NewComm lays on single-NIC hosts (the memory estimate counts them
// without laying them out): ring n, tree 2(n-1), halving_doubling
// n·log2 n, direct n(n-1), each a channel.
func TestNetworkLinks(t *testing.T) {
	for _, a := range []Algorithm{Ring, Tree, HalvingDoubling, Direct} {
		for _, n := range []int{2, 4, 8, 16} {
			for _, ch := range []int{1, 3} {
				p := make([]Place, n)
				for i := range p {
					p[i] = Place{Server: -1}
				}
				c, err := NewComm(p, Options{Algorithm: a, Channels: ch, RailAware: true, PXN: true})
				if err != nil {
					t.Fatal(err)
				}
				if got, want := NetworkLinks(a, n, ch), int64(len(c.Links)); got != want {
					t.Errorf("%s over %d ranks, %d channels: NetworkLinks %d, NewComm lays %d", a, n, ch, got, want)
				}
			}
		}
	}
}
