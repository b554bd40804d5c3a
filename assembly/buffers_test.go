package assembly

import (
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenarios"
)

// TestBufferCheckAgreesWithTheSwitches: the headroom validate computes
// for each switch port, before anything is built (Scenario.PortLinks,
// swtch.Profile.PortHeadroom), is the headroom the built switch has, for
// every example and lab: the check and the model cannot drift apart.
func TestBufferCheckAgreesWithTheSwitches(t *testing.T) {
	names := []string{}
	for _, ex := range scenarios.Examples() {
		names = append(names, ex.Name)
	}
	for _, l := range scenarios.Labs() {
		names = append(names, l.Scenarios...)
	}
	for _, name := range names {
		s, err := resolve.LoadExample(name)
		if err != nil {
			t.Fatal(err)
		}
		n, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		for id, sw := range n.Switches {
			if sw == nil {
				continue
			}
			maxFrame := s.MaxFrameOf(fabric.NodeID(id)) // its fabric's, on a mixed network
			for i, l := range s.PortLinks(fabric.NodeID(id), nil) {
				if got, want := sw.Prof.PortHeadroom(l, maxFrame), sw.Headroom(i); got != want {
					t.Errorf("%s: %s port %d: headroom %d before the build, %d in the switch", name, sw.Name, i, got, want)
				}
			}
		}
	}
}
