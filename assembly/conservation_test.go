package assembly

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// assertConserved fails t unless the run's conservation check passed and
// its equations hold in the summary's own terms (so that a check that
// says ok over terms that do not add up fails too).
func assertConserved(t *testing.T, what string, sum *reports.Summary) {
	t.Helper()
	c := sum.Conservation
	if !c.OK || len(c.Errors) > 0 {
		t.Errorf("%s: conservation failed: %v", what, c.Errors)
	}
	p, b, f := sum.Packets, sum.Bytes, c.PFCFrames
	if p.Sent+p.Flooded != p.Delivered+p.Dropped+p.InFlight {
		t.Errorf("%s: packets %+v do not add up", what, p)
	}
	if b.Offered+b.Copied != b.Delivered+b.Dropped+b.InFlight {
		t.Errorf("%s: bytes %+v do not add up", what, b)
	}
	if f.Made != f.Received+f.Cut+f.Discarded+f.InFlight {
		t.Errorf("%s: PFC frames %+v do not add up", what, f)
	}
	if c.Census != c.PoolLive {
		t.Errorf("%s: census %d, pool %d", what, c.Census, c.PoolLive)
	}
	var reasons int64
	for _, k := range p.DropReasons {
		reasons += k
	}
	if reasons != p.Dropped {
		t.Errorf("%s: packet drop reasons %v sum to %d, dropped %d", what, p.DropReasons, reasons, p.Dropped)
	}
	reasons = 0
	for _, k := range b.DropReasons {
		reasons += k
	}
	if reasons != b.Dropped {
		t.Errorf("%s: byte drop reasons %v sum to %d, dropped %d", what, b.DropReasons, reasons, b.Dropped)
	}
}

// stormScenario is a fault storm on a k=4 fat tree: RC, UC and UD traffic
// (WRITEs and SENDs) through a lossy link, two links that flap, a NIC
// that floods PAUSE and a slow receiver, stopped at stop.
func stormScenario(t *testing.T, stop string) *resolve.Scenario {
	return mustParse(t, `
name: storm
stop: {at: `+stop+`}
topology: {kind: fat-tree, k: 4}
switch: {pfc: {priorities: [3], xoff: 20KiB, xon: 10KiB, watchdog: {detect: 100us, restore: 300us, action: drop}}}
hca: {cc: dcqcn, ack_timeout: 8}
traffic:
  - all_to_all: {hosts: [h0, h1, h4, h5, h8, h9], size: 256KiB}
  - permutation: {hosts: [h2, h3, h6, h7, h10, h11, h12, h13], size: 192KiB, qp: uc}
  - poisson: {hosts: [h14, h15, h0], load: 30%, sizes: 1000, qp: ud, op: send, until: 1ms}
  - poisson: {hosts: [h4, h12], load: 20%, sizes: 20000, qp: uc, op: send, until: 1ms}
faults:
  - {action: loss, link: [s0, s8], rate: 0.02, at: 0us}
  - {action: loss, link: [h14, s7], rate: 0.05, at: 0us}
  - {action: loss, link: [h4, s2], rate: 0.05, at: 0us}
  - {action: down, link: [s9, s18], at: 100us, until: 200us}
  - {action: down, link: [s9, s18], at: 300us, until: 350us}
  - {action: down, link: [s4, s12], at: 150us, until: 400us}
  - {action: pfc-storm, host: h7, at: 200us, until: 500us}
  - {action: slow-receiver, host: h5, rate: 25Gbps, at: 0us}
`)
}

// TestConservationFaultStorm: the fault storm balances at every moment it
// is stopped, and it exercises what the check is for: UD and UC bytes
// dropped by links, switches and NICs, data on cut links, PFC frames,
// packets still inside.
func TestConservationFaultStorm(t *testing.T) {
	seen := map[string]bool{}
	for _, stop := range []string{"90us", "160us", "250us", "333us", "700us", "3ms"} {
		_, sum, _ := mustRun(t, stormScenario(t, stop))
		assertConserved(t, "stop "+stop, sum)
		for r := range sum.Bytes.DropReasons {
			seen["bytes:"+r] = true
		}
		for r := range sum.Packets.DropReasons {
			seen["packets:"+r] = true
		}
		if sum.Packets.InFlight > 0 {
			seen["in flight"] = true
		}
		if sum.Conservation.PFCFrames.Cut+sum.Conservation.PFCFrames.Discarded > 0 {
			seen["pfc cut"] = true
		}
	}
	for _, want := range []string{"bytes:loss", "bytes:link_down", "bytes:uc_incomplete", "packets:loss", "packets:link_down", "packets:watchdog", "in flight", "pfc cut"} {
		if !seen[want] {
			t.Errorf("the storm never showed %s; seen %v", want, seen)
		}
	}
}

// TestConservationFailsWhenCheated: the check can fail. Each case breaks
// one term of the accounting in the middle of the fault storm (as a bug
// would) and the run must say which equation failed.
func TestConservationFailsWhenCheated(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cheat func(n *Network)
		want  string
	}{
		{"a packet lost track of", func(n *Network) { n.Fabric.Pool.Get() }, "census: found"},
		{"a drop counted twice", func(n *Network) {
			for _, sw := range n.Switches {
				if sw != nil {
					sw.Stats.Drops[0]++
					return
				}
			}
		}, "packets: sent"},
		{"a PFC frame not counted", func(n *Network) { n.Fabric.Ports[0][0].Stats.PauseSent++ }, "PFC frames: made"},
		{"a UD byte dropped twice", func(n *Network) {
			for _, fr := range n.Flows {
				if fr.Flow.QP == "ud" && fr.started {
					fr.lost++
					return
				}
			}
			panic("no UD flow has started")
		}, "bytes: offered"},
		{"an RC flow that completes short", func(n *Network) {
			for _, fr := range n.Flows {
				if fr.Flow.QP == "rc" && fr.Live != nil && fr.Live.Responder != nil {
					fr.Live.Responder.Delivered -= 10
					return
				}
			}
			panic("no RC flow is running")
		}, "of its"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Build(stormScenario(t, "3ms"))
			if err != nil {
				t.Fatal(err)
			}
			n.Eng.Schedule(120*sim.Microsecond, cheatAt(func() { tc.cheat(n) }), 0, 0, nil)
			sum := n.Run(nil).Summary
			c := sum.Conservation
			if c.OK || len(c.Errors) == 0 || !strings.Contains(strings.Join(c.Errors, "\n"), tc.want) {
				t.Fatalf("ok %v, errors %q; want a failure naming %q", c.OK, c.Errors, tc.want)
			}
			if !strings.Contains(strings.Join(sum.Warnings, "\n"), "CONSERVATION CHECK FAILED") {
				t.Errorf("warnings %q do not say it", sum.Warnings)
			}
		})
	}
}

// cheatAt is an event that runs a function.
type cheatAt func()

func (f cheatAt) HandleEvent(*sim.Event) { f() }

// TestConservationBenchScenarios: the performance suite's scenarios, the
// largest the project runs, balance when cut at 200 µs, with their
// fabrics full of packets (k=16: 1,024 hosts). -short leaves out the
// diagnostic ones (bench/diag: the k=16 fabric at several loads).
func TestConservationBenchScenarios(t *testing.T) {
	suite, _ := filepath.Glob(filepath.Join("..", "scenarios", "bench", "*.yaml"))
	diag, _ := filepath.Glob(filepath.Join("..", "scenarios", "bench", "diag", "*.yaml"))
	if len(suite)+len(diag) < 10 {
		t.Fatalf("found %d scenarios", len(suite)+len(diag))
	}
	if testing.Short() {
		diag = nil
	}
	for _, f := range append(suite, diag...) {
		sc, err := resolve.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		sc.Stop.At = min(sc.Stop.At, 200*sim.Microsecond)
		_, sum, _ := mustRun(t, sc)
		assertConserved(t, f, sum)
		if sum.Packets.InFlight == 0 {
			t.Errorf("%s: nothing in flight at 200 µs", f)
		}
	}
}
