package assembly

import (
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sim"
)

// toyParams are the toy controller's parameters: the one rate it sends
// at.
type toyParams struct{ Rate fabric.Rate }

// toy is a congestion control that sets its rate once and never moves:
// the least a controller can be.
type toy struct{ rate fabric.Rate }

func (c *toy) OnSent(sim.Time, *fabric.Packet)    {}
func (c *toy) OnAck(sim.Time, *fabric.Packet)     {}
func (c *toy) OnCNP(sim.Time)                     {}
func (c *toy) State(sim.Time) congestion.State    { return congestion.State{Rate: c.rate} }
func newToy(p toyParams, env congestion.Env) *toy { env.Apply(p.Rate, 0); return &toy{rate: p.Rate} }
func toyDefaults(string) toyParams                { return toyParams{Rate: 25 * fabric.Gbps} }
func toyRate(p *toyParams) *fabric.Rate           { return &p.Rate }
func toyCheck(p *toyParams) (out []kind.Problem) {
	if p.Rate > 100*fabric.Gbps {
		out = append(out, kind.Problemf("rate", "rate must be at most 100 Gb/s"))
	}
	return out
}

// registerToy registers the toy as hca.cc: toy, with hca.toy.rate, for
// the test's length.
func registerToy(t *testing.T) {
	row := kind.CC{Name: "toy", Title: "TOY", Basis: "fixed", RDMA: true, Ethernet: true, Metrics: []string{"rc_gbps"},
		Params: []kind.Param{kind.Rate("rate", toyRate)}}
	t.Cleanup(congestion.Register(congestion.Define(row, toyDefaults, toyCheck, func(p toyParams, env congestion.Env) congestion.Sender { return newToy(p, env) })))
}

// TestToyControllerFromYAML: a congestion control registered by a test
// alone (one definition, one Register) is chosen, given its parameters
// and run from a scenario file: the flow's goodput is the toy's 10 Gb/s
// less the headers, 10 × 4096 / 4178 Gb/s within 0.5% (as
// TestSingleFlowSlowdownIsOne holds the line rate's); the file's mistakes
// in its keys are reported as for any control's, and the JSON Schema
// has its keys.
func TestToyControllerFromYAML(t *testing.T) {
	registerToy(t)
	sc := mustParse(t, "topology: {kind: star, hosts: 2, link: {rate: 100Gbps}}\nhca: {cc: toy, toy: {rate: 10Gbps}}\ntraffic:\n  - flow: {from: h0, to: h1, size: 4MiB}\n")
	_, _, rows := mustRun(t, sc)
	if len(rows) != 1 || rows[0].Status != "success" {
		t.Fatalf("rows %+v", rows)
	}
	gbps := float64(rows[0].SizeBytes) * 8 / float64(rows[0].FCTNs)
	if want := 10.0 * 4096 / 4178; math.Abs(gbps-want)/want > 0.005 {
		t.Errorf("goodput %.3f Gb/s under the toy at 10 Gb/s, want %.3f", gbps, want)
	}

	for _, c := range []struct{ src, want string }{
		{"hca: {cc: toy, toy: {rate: 200Gbps}}", "t.yaml:2:22: hca.toy.rate: rate must be at most 100 Gb/s"},
		{"hca: {cc: toy, toy: {rat: 1Gbps}}", "t.yaml:2:22: hca.toy: unknown key rat (did you mean rate?); allowed keys are rate"},
		{"hca: {cc: toi}", "hca.cc: unknown value toi (did you mean toy?); expected one of dcqcn, hpcc, timely, dctcp, ibcc, nscc, toy, none"},
	} {
		_, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 2}\n"+c.src+"\ntraffic:\n  - flow: {from: h0, to: h1, size: 1MiB}\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.src, err, c.want)
		}
	}
	if s := string(scenario.JSONSchema()); !strings.Contains(s, `"TOYS"`) || !strings.Contains(s, `"toy"`) {
		t.Error("the JSON Schema has no hca.toy")
	}
}
