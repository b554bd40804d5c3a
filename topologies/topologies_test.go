package topologies

import (
	"strconv"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/sim"
)

// TestSizeIsWhatBuildBuilds: each registered generator's Size, which
// the limits check before anything is built, counts the hosts, switches
// and links its Build builds, with every required size at 4 (an even k,
// above every generator's minimum) and the other keys at their defaults.
func TestSizeIsWhatBuildBuilds(t *testing.T) {
	link := fabric.LinkSpec{Rate: 100 * fabric.Gbps, Delay: sim.Microsecond}
	rows := kind.Topologies()
	if len(rows) < 5 {
		t.Fatalf("%d generators registered", len(rows))
	}
	for _, row := range rows {
		params := row.Defaults()
		for _, p := range row.Params {
			switch {
			case p.Type == kind.TypeLink:
				p.Set(params, link)
			case p.Type == kind.TypeInt && p.Required:
				if min, _ := strconv.Atoi(p.Min); min > 4 {
					t.Fatalf("%s.%s: minimum %d; the test sizes at 4", row.Name, p.Key, min)
				}
				p.Set(params, int64(4))
			}
		}
		if problems := row.Check(params, func(string) int64 { return 64 }); problems != nil {
			t.Fatalf("%s: %v", row.Name, problems)
		}
		top, err := row.Build(params)
		if err != nil {
			t.Fatalf("%s: %v", row.Name, err)
		}
		var switches int64
		for _, n := range top.Nodes {
			if n.Kind == fabric.Switch {
				switches++
			}
		}
		h, s, l := row.Size(params)
		if got := [3]int64{int64(len(top.Hosts())), switches, int64(len(top.Links))}; got != [3]int64{h, s, l} {
			t.Errorf("%s: built %v hosts, switches and links; Size says %v", row.Name, got, [3]int64{h, s, l})
		}
	}
}
