package assembly

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

// lineParams are the toy generator's keys: how many switches, and the
// links.
type lineParams struct {
	Switches int
	Link     fabric.LinkSpec
}

// line is the toy topology: switches s0..s(n-1) in a row, h0 on s0 and
// h1 on the last, built with fabric's exported Topology alone.
func line(p lineParams) (*fabric.Topology, error) {
	t := fabric.NewTopology()
	add := func(name string, k fabric.NodeKind) fabric.NodeID {
		id, err := t.AddNode(name, k)
		if err != nil {
			panic(err) // the names are distinct
		}
		return id
	}
	h0 := add("h0", fabric.Host)
	prev := h0
	for i := 0; i < p.Switches; i++ {
		s := add(fmt.Sprintf("s%d", i), fabric.Switch)
		t.Connect(prev, s, p.Link)
		prev = s
	}
	t.Connect(prev, add("h1", fabric.Host), p.Link)
	return t, nil
}

// lineLink is the toy's own default link.
var lineLink = fabric.LinkSpec{Rate: 40 * fabric.Gbps, Delay: 2 * sim.Microsecond}

// registerLine registers the toy as topology.kind: line, for the test's
// length: one row (its keys, its size for the limits, its build) and one
// RegisterTopology, as a generator's file in topologies/ has.
func registerLine(t *testing.T) {
	row := kind.Topology{Name: "line", SizeKey: "switches",
		Params: []kind.Param{
			kind.Int("switches", func(p *lineParams) *int { return &p.Switches }).Range("1", "").Needed(),
			kind.Link("link", func(p *lineParams) *fabric.LinkSpec { return &p.Link }),
		}}
	t.Cleanup(kind.RegisterTopology(kind.DefineTopology(row, func() lineParams { return lineParams{Link: lineLink} }, nil,
		func(p *lineParams) (int64, int64, int64) { return 2, int64(p.Switches), int64(p.Switches) + 1 }, line)))
}

// TestToyTopologyFromYAML: a topology generator registered by a test
// alone (one row, one RegisterTopology) is chosen, sized and built from
// a scenario file and run: a one-packet WRITE's completion time grows,
// per switch added, by what its request and its ACK each cross once
// more: a 10 us link, the switch's 500 ns latency (swtch.DefaultProfile)
// and a store-and-forward serialization at 100 Gb/s, about 90 ns for
// the 1 KiB request and its headers and 7 ns for the ACK: 21.1 us, held
// within 0.1 us per switch. A link key the file gives in part is laid
// over the generator's own default. The file's mistakes in its keys are
// reported as for any kind's, the limits apply to its size, and the JSON
// Schema has its keys.
func TestToyTopologyFromYAML(t *testing.T) {
	registerLine(t)
	fct := func(switches int) float64 {
		sc := mustParse(t, fmt.Sprintf("topology: {kind: line, switches: %d, link: {rate: 100Gbps, delay: 10us}}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB}\n", switches))
		if got := len(sc.Topology.Nodes); got != switches+2 {
			t.Fatalf("a line of %d switches has %d nodes", switches, got)
		}
		_, _, rows := mustRun(t, sc)
		if len(rows) != 1 || rows[0].Status != "success" {
			t.Fatalf("rows %+v", rows)
		}
		return float64(rows[0].FCTNs)
	}
	one, five := fct(1), fct(5)
	sc := mustParse(t, "topology: {kind: line, switches: 2, link: {delay: 3us}}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB}\n")
	if got, want := sc.Topology.Links[0].LinkSpec, (fabric.LinkSpec{Rate: lineLink.Rate, Delay: 3 * sim.Microsecond}); got != want {
		t.Errorf("link: {delay: 3us} over the toy's own default link: %v, want %v", got, want)
	}
	if grow, want := (five-one)/1000, 4*(2*10+2*0.5+0.097); math.Abs(grow-want) > 4*0.1 {
		t.Errorf("four more switches add %.3f us to the completion, want %.3f us within 0.4 us", grow, want)
	}

	for _, c := range []struct{ topo, want string }{
		{"{kind: line, switches: 0}", "t.yaml:1:34: topology.switches: 0 is out of range; expected at least 1"},
		{"{kind: line, swiches: 3}", "t.yaml:1:24: topology: unknown key swiches for kind line (did you mean switches?); allowed keys are kind, switches, link, routing, routes"},
		{"{kind: line}", "t.yaml:1:1: topology: missing key switches for kind line"},
		{"{kind: lin, switches: 3}", "topology.kind: unknown value lin (did you mean line?); expected one of star, dumbbell, leaf-spine, fat-tree, ring, rail-optimized, line, explicit"},
		{"{kind: line, switches: 200000}", "t.yaml:1:1: topology: this topology would have 200000 switches; at most 100000 are supported"},
	} {
		_, err := resolve.Parse("t.yaml", []byte("topology: "+c.topo+"\ntraffic:\n  - flow: {from: h0, to: h1, size: 1MiB}\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.topo, err, c.want)
		}
	}
	if s := string(scenario.JSONSchema()); !strings.Contains(s, `"LineS"`) || !strings.Contains(s, `"line"`) {
		t.Error("the JSON Schema has no topology kind line")
	}
}
