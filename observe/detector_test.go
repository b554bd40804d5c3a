package observe_test

import (
	"reflect"
	"testing"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// TestDetectorStartsMidPause: a pause that ends without the detector
// having seen it begin (the engine run before Network.Run, as some tests
// and programs do) leaves the set of paused queues as it was, and a
// pause that began under the detector still leaves it when it ends.
func TestDetectorStartsMidPause(t *testing.T) {
	s, err := resolve.Parse("incast.yaml", []byte(`topology: {kind: star, hosts: 9}
traffic:
  - incast: {to: h8, from: [h0, h1, h2, h3, h4, h5, h6, h7], size: 8MiB}
`))
	if err != nil {
		t.Fatal(err)
	}
	n, err := assembly.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	d := observe.StartDetector(&observe.View{Eng: n.Eng, Topology: s.Topology, Ports: n.Fabric.Ports, Switches: n.Switches}, 50*sim.Microsecond)
	var sw0 *fabric.Port
	for id, sw := range n.Switches {
		if sw != nil {
			sw0 = n.Fabric.Ports[id][0]
			break
		}
	}
	d.PauseChanged(sw0, 3, false) // never seen to begin
	if got := d.PausedPriorities(); len(got) != 0 {
		t.Fatalf("paused set %v after an unseen pause ended; want empty", got)
	}
	d.PauseChanged(sw0, 3, true)
	d.PauseChanged(sw0, 4, true)
	d.PauseChanged(sw0, 5, false) // never seen to begin
	d.PauseChanged(sw0, 3, false)
	if got := d.PausedPriorities(); !reflect.DeepEqual(got, []uint8{4}) {
		t.Fatalf("paused set %v; want priority 4 alone", got)
	}
}
