package metamorphic

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/sim"
)

// small is a scenario every check runs on: a star of six hosts, two of
// them sending to a third (DCQCN, PFC), sampled every 2 us.
func small() *Spec {
	return &Spec{
		Seed: 1, StopNs: 40000,
		Topo: Topo{Kind: "star", Hosts: 6, Rate: "100Gbps", DelayNs: 1000},
		HCA:  []KV{{"cc", "dcqcn"}},
		Traffic: []Item{
			{Kind: "incast", From: -1, To: 2, Hosts: []int{0, 1}, Opts: []KV{{"size", "64KiB"}}},
			{Kind: "flow", From: 1, To: 0, Opts: []KV{{"size", "32KiB"}, {"op", "read"}}},
		},
		Observe: []KV{{"interval", "2us"}},
	}
}

// every is an event that calls a function.
type every func(ev *sim.Event)

func (f every) HandleEvent(ev *sim.Event) { f(ev) }

// TestMetamorphicCatches: each check fails when the simulator does what
// it guards against, each fault put in through Runner.Hook as a bug
// would put it; and none fails without the fault. The faults: a packet
// taken from the pool and never returned (conservation); a counter
// bumped on two workers only (a divergence between worker counts); a
// flow started 1 ns late when no observer samples (observers changing
// what they observe); a run of a scenario's collectives alone that ends
// at 10 us, before its calls do, however long it is given (a run that
// stops with work left, which no deadlock, failure or drop explains); a flow from the second node started late (a model
// that depends on a host's node number, which relabelling moves); and an
// event that schedules itself ever more often (a cost that grows with
// time: events ∝ t²).
func TestMetamorphicCatches(t *testing.T) {
	for _, tc := range []struct {
		check string
		hook  func(n *assembly.Network, workers int)
		want  string
	}{
		{CheckConservation, func(n *assembly.Network, workers int) {
			n.Eng.Schedule(5*sim.Microsecond, every(func(*sim.Event) { n.Fabric.Pool.Get() }), 0, 0, nil)
		}, "census"},
		{CheckWorkers, func(n *assembly.Network, workers int) {
			if workers == 2 {
				for _, h := range n.HCAs {
					if h != nil {
						h.Stats.Retransmitted++
						return
					}
				}
			}
		}, "2 workers against 1: summary.json"},
		{CheckObservers, func(n *assembly.Network, workers int) {
			if n.Scenario.Observe.Interval == 40*sim.Microsecond { // ObserversOff's
				n.Flows[0].Flow.Start += sim.Nanosecond
			}
		}, "flows.csv"},
		{CheckRelabel, func(n *assembly.Network, workers int) {
			for _, fr := range n.Flows {
				if fr.Flow.Src == 1 { // h0's node on a star (s0 is node 0)
					fr.Flow.Start += sim.Microsecond
				}
			}
		}, "flows.csv"},
		{CheckCollectives, func(n *assembly.Network, workers int) {
			if n.Scenario.Stop.At >= AloneStopNs*sim.Nanosecond { // CollectivesAlone's, and its run for twice as long
				n.Scenario.Stop.At = 10 * sim.Microsecond
			}
		}, "collectives alone: call 0 is incomplete"},
		{CheckLinear, func(n *assembly.Network, workers int) {
			var tick every
			tick = func(ev *sim.Event) {
				// The gap shrinks as time goes (4 ns at 1 us, 0.4 ns at
				// 10 us): 256 events a microsecond more each microsecond,
				// 128 t² in all (t in us).
				now := n.Eng.Now()
				n.Eng.Schedule(now+max(sim.Picosecond, sim.Microsecond*sim.Microsecond/now/256), tick, 0, 0, nil)
			}
			n.Eng.Schedule(sim.Microsecond, tick, 0, 0, nil)
		}, "times"},
	} {
		t.Run(tc.check, func(t *testing.T) {
			for _, broken := range []bool{false, true} {
				r := &Runner{Dir: t.TempDir()}
				if broken {
					r.Hook = tc.hook
				}
				c := &Checker{Runner: r, Workers: []int{2, 3}}
				spec := small()
				for tc.check == CheckRelabel && Relabel(spec, relabelRand(spec.Seed)).Map[0] == 0 {
					spec.Seed++ // a seed whose relabelling moves h0
				}
				if tc.check == CheckCollectives {
					spec.Traffic = append(spec.Traffic, Item{Kind: "collective", From: -1, To: -1, Hosts: []int{3, 4, 5},
						Opts: []KV{{"op", "all_reduce"}, {"size", "256KiB"}}})
				}
				if tc.check == CheckLinear {
					spec.HCA = nil // PFC only: the first inequality holds no congestion control
				}
				var got []string
				for _, f := range c.Check(spec, tc.check) {
					got = append(got, f.String())
				}
				if broken {
					t.Logf("caught: %.300s", strings.Join(got, "; "))
				}
				switch {
				case !broken && len(got) > 0:
					t.Fatalf("fails without a fault: %s", strings.Join(got, "; "))
				case broken && (len(got) == 0 || !strings.HasPrefix(got[0], tc.check) || !strings.Contains(got[0], tc.want)):
					t.Fatalf("with the fault, %q; want a %s failure naming %q", got, tc.check, tc.want)
				case tc.check == CheckRelabel && c.Relabelled == 0:
					t.Fatal("the scenario was not relabelled")
				}
			}
		})
	}
}
