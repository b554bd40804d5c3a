package assembly

import (
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenarios"
	"github.com/lfsim/lfsim/sim"
)

// buildSource parses and builds a scenario given as text.
func buildSource(t testing.TB, name, src string) *Network {
	t.Helper()
	s, err := resolve.Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// runSource parses, builds and runs a scenario given as text.
func runSource(t testing.TB, name, src string) (*Network, *reports.Results) {
	t.Helper()
	n := buildSource(t, name, src)
	return n, n.Run(nil)
}

func exampleText(t testing.TB, name string) string {
	t.Helper()
	b, err := scenarios.ExampleSource(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func patch(t testing.TB, src string, pairs ...string) string {
	t.Helper()
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(src, pairs[i]) {
			t.Fatalf("patch: %q not in the scenario", pairs[i])
		}
		src = strings.ReplaceAll(src, pairs[i], pairs[i+1])
	}
	return src
}

func pausedFraction(sum *reports.Summary, port string) float64 {
	for _, s := range sum.PFC.Spread {
		if s.Port == port {
			return s.PausedFraction
		}
	}
	return 0
}

// TestFaultExamples runs the library's PFC storm and deadlock scenarios:
// each one's expect: must hold, and the phenomenon is checked in numbers.
func TestFaultExamples(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(t *testing.T, r *reports.Results)
	}{
		{"deadlock-routing-loop", func(t *testing.T, r *reports.Results) {
			// The loop is s1 <-> s2: s1's port to s2, then s2's back.
			d := r.Summary.Deadlock
			if want := []string{"s1:p2", "s2:p1"}; !reflect.DeepEqual(d.Cycle, want) {
				t.Errorf("cycle %v, want %v", d.Cycle, want)
			}
			// It forms after the failure (50us) and within the 200us in which
			// s2 still routes through s1; the run stops at detection.
			if d.AtNs < 50_000 || d.AtNs > 250_000 || r.Summary.StopReason != "deadlock" {
				t.Errorf("formed at %dns, stop %s", d.AtNs, r.Summary.StopReason)
			}
		}},
		{"deadlock-clos-bounce", func(t *testing.T, r *reports.Results) {
			// Hu et al.'s cycle through four switches: spine, leaf, spine, leaf.
			want := []string{"s0:p0", "l0:p3", "s1:p1", "l1:p2"}
			if c := r.Summary.Deadlock.Cycle; !reflect.DeepEqual(c, want) {
				t.Errorf("cycle %v, want %v", c, want)
			}
		}},
		{"deadlock-flooding", func(t *testing.T, r *reports.Results) {
			// Guo et al.'s Figure: t1 -> la -> t1 -> lb, held by flooded copies.
			want := []string{"t1:p3", "la:p1", "t1:p4", "lb:p1"}
			if c := r.Summary.Deadlock.Cycle; !reflect.DeepEqual(c, want) {
				t.Errorf("cycle %v, want %v", c, want)
			}
		}},
		{"pfc-storm", func(t *testing.T, r *reports.Results) {
			// The spread, in causal order: h3's ToR port, then the spine's
			// port to that ToR, then the other leaf's uplink.
			var order []string
			for _, s := range r.Summary.PFC.Spread {
				order = append(order, s.Port)
			}
			pos := func(p string) int {
				for i, o := range order {
					if o == p {
						return i
					}
				}
				return -1
			}
			if a, b, c := pos("s0:p3"), pos("s2:p0"), pos("s1:p4"); a < 0 || !(a < b && b < c) {
				t.Errorf("spread order %v: want s0:p3 before s2:p0 before s1:p4", order)
			}
		}},
		{"slow-receiver", func(t *testing.T, r *reports.Results) {
			// A 100 Gb/s port draining into a 20 Gb/s receiver is paused
			// 1 - 20/100 = 80% of the time it has data (the run ends as the
			// flows do).
			if f := pausedFraction(r.Summary, "s0:p8"); math.Abs(f-0.8) > 0.05 {
				t.Errorf("s0:p8 paused %.3f, want 0.80 +- 0.05", f)
			}
			// The victim h0 -> h1 never touches h8 yet takes far longer than
			// alone (slowdown 1 on an empty network).
			for _, f := range r.Flows {
				if f.Src == "h0" && f.Dst == "h1" && f.Slowdown < 4 {
					t.Errorf("victim slowdown %.2f, want above 4", f.Slowdown)
				}
			}
		}},
		{"livelock-go-back-0", func(t *testing.T, r *reports.Results) {
			st := map[string]string{}
			for _, f := range r.Flows {
				st[f.Src] = f.Status
			}
			// Go-back-0 is still restarting at the end (a livelock: its
			// partial ACKs keep the ACK timer and retry count from
			// failing it; TestGoBack0LongMessage counts the restarts).
			if st["g0"] != "incomplete" || st["gn"] != "success" {
				t.Errorf("go-back-0 %s, go-back-N %s: want go-back-0 incomplete and go-back-N to succeed", st["g0"], st["gn"])
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, r := runSource(t, tc.name+".yaml", exampleText(t, tc.name))
			if len(r.Summary.Expect) == 0 {
				t.Fatal("the example has no expect:")
			}
			for _, c := range r.Summary.Expect {
				if !c.OK {
					t.Errorf("expect %s failed: %s", c.Check, c.Detail)
				}
			}
			tc.check(t, r)
		})
	}
}

// TestCyclicDependencyIsNotDeadlock is Hu et al.'s (HotNets 2016) point:
// the bounced paths of deadlock-clos-bounce hold a cyclic buffer
// dependency at any load, but only a high load fills it. With small
// flows everything completes and nothing is reported; with up*/down*
// routing there is no bounce and no deadlock at the high load either.
func TestCyclicDependencyIsNotDeadlock(t *testing.T) {
	src := exampleText(t, "deadlock-clos-bounce")
	low := patch(t, src, "size: 4MiB", "size: 64KiB", "deadlock: true", "deadlock: false")
	_, r := runSource(t, "low.yaml", low)
	if r.Summary.Deadlock.Detected || r.Summary.Flows.Completed != r.Summary.Flows.Total {
		t.Errorf("low load: deadlock %v, %d of %d flows completed; want none and all", r.Summary.Deadlock, r.Summary.Flows.Completed, r.Summary.Flows.Total)
	}
	i, j := strings.Index(src, "  # What the failed"), strings.Index(src, "hca: {cc: none}")
	updown := patch(t, src[:i]+"\n"+src[j:], "routing: ecmp", "routing: updown", "deadlock: true", "deadlock: false")
	_, r = runSource(t, "updown.yaml", updown)
	if r.Summary.Deadlock.Detected {
		t.Errorf("up*/down*: deadlock %v, want none", r.Summary.Deadlock)
	}
	if r.Summary.PFC.PauseFrames == 0 {
		t.Error("up*/down*: no PAUSE at all; the comparison needs the same heavy load")
	}
	// Tagger (Hu et al., CoNEXT 2017): the same bouncing routes, but a
	// bounced packet moves to priority 4, which breaks the cycle; every
	// flow completes (12 MiB into each 25 Gb/s receiver takes 4 ms).
	tagger := patch(t, src, "hca: {cc: none}", "hca: {cc: none}\nswitch: {tagger: true, pfc: {priorities: [3, 4]}}",
		"stop: {at: 1ms, when: deadlock}", "stop: {at: 12ms, when: [flows-done, deadlock]}", "deadlock: true", "deadlock: false")
	_, r = runSource(t, "tagger.yaml", tagger)
	if r.Summary.Deadlock.Detected || r.Summary.Flows.Completed != r.Summary.Flows.Total {
		t.Errorf("Tagger: deadlock %v, %d of %d flows completed; want none and all", r.Summary.Deadlock, r.Summary.Flows.Completed, r.Summary.Flows.Total)
	}
}

// TestFloodingCure: Guo et al.'s fix, never flooding lossless packets,
// removes the deadlock; the packets for the dead server are dropped.
func TestFloodingCure(t *testing.T) {
	src := patch(t, exampleText(t, "deadlock-flooding"), "flood_lossless: true ", "flood_lossless: false", "deadlock: true", "deadlock: false")
	_, r := runSource(t, "cure.yaml", src)
	if r.Summary.Deadlock.Detected || r.Summary.Packets.DropReasons["no_route"] == 0 {
		t.Errorf("deadlock %v, no_route drops %d: want none and some", r.Summary.Deadlock, r.Summary.Packets.DropReasons["no_route"])
	}
}

// TestWatchdogKeepsStormAtEdge: with the switch PFC watchdog the storm
// from h3 trips it at h3's ToR and the spine stays nearly unpaused.
func TestWatchdogKeepsStormAtEdge(t *testing.T) {
	src := patch(t, exampleText(t, "pfc-storm"),
		"hca: {cc: none}", "hca: {cc: none}\nswitch: {pfc: {watchdog: {detect: 100us, restore: 1ms, action: drop}}}",
		"  storm: true\n", "  storm: false\n")
	_, r := runSource(t, "wd.yaml", src)
	s := r.Summary
	if s.PFC.WatchdogTrips == 0 || s.Packets.DropReasons["watchdog"] == 0 || s.PFC.StormDetected {
		t.Errorf("trips %d, watchdog drops %d, storm %v: want trips, drops, no storm", s.PFC.WatchdogTrips, s.Packets.DropReasons["watchdog"], s.PFC.StormDetected)
	}
	if f := pausedFraction(s, "s2:p0"); f > 0.2 {
		t.Errorf("spine port s2:p0 paused %.3f with the watchdog, want below 0.2 (0.94 without)", f)
	}
}

// TestNICWatchdog: a hung receive pipeline pauses its ToR port until the
// NIC watchdog stops the PAUSE; then the NIC drops what it cannot hold.
func TestNICWatchdog(t *testing.T) {
	src := `topology: {kind: star, hosts: 3}
stop: {at: 2ms}
hca: {cc: none, pfc_watchdog: {after: 200us}}
traffic: [{flow: {from: h0, to: h2, size: 8MiB}}]
faults: [{at: 50us, host: h2, action: rx-hang}]
`
	_, r := runSource(t, "hang.yaml", src)
	s := r.Summary
	if s.PFC.WatchdogTrips != 1 || s.Packets.DropReasons["nic_buffer"] == 0 {
		t.Errorf("trips %d, nic_buffer drops %d: want 1 and some", s.PFC.WatchdogTrips, s.Packets.DropReasons["nic_buffer"])
	}
	// Paused from about 50us until the watchdog (250us) plus at most one
	// pause (335.5us at 100 Gb/s): well under half of 2ms.
	if f := pausedFraction(s, "s0:p2"); f <= 0 || f > 0.35 {
		t.Errorf("s0:p2 paused %.3f, want above 0 and at most 0.35", f)
	}
}

// incastSource is a long 8-to-1 incast on one switch: heavy pausing of
// every sender, and no cycle possible.
const incastSource = `topology: {kind: star, hosts: 9}
stop: {at: 3ms}
hca: {cc: none}
traffic:
  - incast: {to: h8, from: [h0, h1, h2, h3, h4, h5, h6, h7], size: 8MiB}
`

// TestNoFalsePositive: heavy pausing without a cycle is neither a
// deadlock nor a storm.
func TestNoFalsePositive(t *testing.T) {
	n, r := runSource(t, "incast.yaml", incastSource)
	s := r.Summary
	if s.PFC.PauseFrames < 100 || pausedFraction(s, "h0:p0") < 0.5 {
		t.Fatalf("%d PAUSE frames, h0 paused %.2f: the test needs heavy pausing", s.PFC.PauseFrames, pausedFraction(s, "h0:p0"))
	}
	if s.Deadlock.Detected || s.PFC.StormDetected {
		t.Errorf("deadlock %v, storm %v: want neither", s.Deadlock, s.PFC.StormDetected)
	}
	if n.det.Checks != 0 {
		t.Errorf("%d graph searches: no switch egress is ever paused, so none should run", n.det.Checks)
	}
}

func TestFaultErrors(t *testing.T) {
	for _, tc := range []struct{ faults, want string }{
		{`[{at: 0, host: h1, action: slow-receiver}]`, "faults[0]: action: slow-receiver needs rate: (the receive drain rate, such as 20Gbps)"},
		{`[{at: 0, host: h1, action: slow-receiver, rate: fast}]`, `faults[0].rate: expected a rate such as 20Gbps, found "fast"`},
		{`[{at: 0, link: [s0, h1], action: pfc-storm}]`, "faults[0].link: action: pfc-storm does not take link:; it takes host, priority, until"},
		{`[{at: 0, switch: s9, dst: h1, action: missing-entry}]`, "faults[0].switch: unknown switch s9"},
		{`[{at: 1ms, link: [s0, h1], action: down, until: 1ms}]`, "faults[0].until: until (1ms) must be after at (1ms)"},
	} {
		_, err := resolve.Parse("t.yaml", []byte("topology: {kind: star, hosts: 3}\ntraffic: [{flow: {from: h0, to: h1, size: 1}}]\nfaults: "+tc.faults+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %s", tc.faults, err, tc.want)
		}
	}
}

// BenchmarkDetectorIncast measures the deadlock detector's cost on the
// incast with heavy pausing: compare the two sub-benchmarks (the
// detector's must stay within 5% of the other).
func BenchmarkDetectorIncast(b *testing.B) {
	s, err := resolve.Parse("incast.yaml", []byte(incastSource))
	if err != nil {
		b.Fatal(err)
	}
	benchmarkDetector(b, s)
}

// BenchmarkDetectorFatTree is the same on the suite's k=16 permutation
// cut at 500 µs, whose PFC keeps thousands of egress queues paused: the
// detector searches a graph of them every observe.deadlock.after/8
// (docs/PERFORMANCE.md, thirteenth round).
func BenchmarkDetectorFatTree(b *testing.B) {
	s, err := resolve.Load(filepath.Join("..", "scenarios", "bench", "fattree-k16-permutation.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	s.Stop.At = 500 * sim.Microsecond
	benchmarkDetector(b, s)
}

func benchmarkDetector(b *testing.B, s *resolve.Scenario) {
	for _, on := range []bool{false, true} {
		name := "without"
		if on {
			name = "with"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				n, err := Build(s)
				if err != nil {
					b.Fatal(err)
				}
				n.noDetector = !on
				b.StartTimer()
				n.Run(nil)
			}
		})
	}
}

// TestDeadlockWithEgressFIFO: with one FIFO per egress port and priority
// (switch.egress_fifo) the detector still finds which ingress a queue
// holds packets from, and the cyclic buffer dependencies still deadlock.
func TestDeadlockWithEgressFIFO(t *testing.T) {
	for _, name := range []string{"deadlock-routing-loop", "deadlock-clos-bounce"} {
		src, err := scenarios.ExampleSource(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "\nswitch:") {
			t.Fatalf("%s has a switch: block; the test adds its own", name)
		}
		sc := mustParse(t, string(src)+"\nswitch: {egress_fifo: true}\n")
		_, sum, _ := mustRun(t, sc)
		if !sum.Deadlock.Detected {
			t.Errorf("%s with egress_fifo: no deadlock detected", name)
		}
	}
}

// TestDeadlockLabMutations: each cure of the deadlock lab holds its
// "no deadlock" only because of the cure: undoing it as the README says
// brings the deadlock back.
func TestDeadlockLabMutations(t *testing.T) {
	bounce := exampleText(t, "deadlock-clos-bounce")
	i, j := strings.Index(bounce, "  # What the failed"), strings.Index(bounce, "\nhca: {cc: none}")
	pinned := bounce[i:j]
	for _, c := range []struct{ name, from, to string }{
		{"clos-low-load", "size: 64KiB", "size: 4MiB"},
		{"clos-updown", "  routing: updown\n", "  routing: updown\n" + pinned + "\n"},
		{"clos-tagger", "tagger: true", "tagger: false"},
		{"no-lossless-flooding", "flood_lossless: false", "flood_lossless: true "},
		{"ring-updown", "routing: updown", "routing: ecmp"},
	} {
		src := patch(t, exampleText(t, "labs/deadlock/"+c.name), c.from, c.to)
		_, r := runSource(t, c.name+".yaml", src)
		if !r.Summary.Deadlock.Detected {
			t.Errorf("%s with %q: no deadlock; the cure it teaches is not what prevents it", c.name, strings.TrimSpace(c.to))
		}
	}
}

// TestStormLabMutations: the pfc-storm lab's watchdogs are what keep its
// scenarios' checks: without the switch watchdog the storm reaches the
// spine, and without the NIC's the hung port stays paused.
func TestStormLabMutations(t *testing.T) {
	for _, c := range []struct{ name, from, to string }{
		{"switch-watchdog", "\nswitch:\n  pfc:\n    watchdog: {detect: 100us, restore: 1ms, action: drop}", ""},
		{"nic-watchdog", ", pfc_watchdog: {after: 200us}", ""},
	} {
		src := exampleText(t, "labs/pfc-storm/"+c.name)
		i := strings.Index(src, c.from)
		if i < 0 {
			t.Fatalf("%s: %q not in the scenario", c.name, c.from)
		}
		j := i + len(c.from)
		if k := strings.Index(src[j:], "\n"); c.name == "switch-watchdog" && k >= 0 {
			j += k // the comment after the watchdog line
		}
		if _, r := runSource(t, c.name+".yaml", src[:i]+c.to+src[j:]); failedChecks(r) == 0 {
			t.Errorf("%s without its watchdog: every check still holds", c.name)
		}
	}
}

// TestNoStormInCongestion: two fault-free 16-to-1 incasts under DCQCN
// on a 4×8 leaf-spine with 4 MiB switches (lossless-or-not-roce-pfc's,
// without its background load) pause some port for over 100 µs without
// a break, which the storm rule once took for a storm. The paused
// traffic drains all along, at its share of the incast's port: not a
// storm (issue 30's false positive). pfc-storm's stuck NIC still is one
// (TestFaultExamples).
func TestNoStormInCongestion(t *testing.T) {
	n, r := runSource(t, "incasts.yaml", `
stop: {at: 10ms, when: flows-done}
topology: {kind: leaf-spine, leaves: 4, spines: 4, hosts_per_leaf: 8, host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 200Gbps, delay: 1us}}
switch:
  buffer: 4MiB
  pfc: {priorities: [3], xoff: 96KiB, xon: 80KiB, headroom: auto}
  ecn: {kmin: 5KB, kmax: 200KB, pmax: 1%}
hca: {mtu: 4096, cc: dcqcn, dcqcn: {variant: nvidia}, priority: 3}
traffic:
  - incast: {to: h0, from: [h8, h9, h10, h11, h12, h13, h14, h15, h16, h17, h18, h19, h20, h21, h22, h23], size: 1MiB, start: 1ms}
  - incast: {to: h31, from: [h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10, h11, h12, h13, h14, h15], size: 1MiB, start: 3ms}
`)
	if n.det.LongestPause < 100*sim.Microsecond {
		t.Fatalf("longest pause %v: the test needs one of 100 µs or more", n.det.LongestPause)
	}
	if s := r.Summary; s.PFC.StormDetected || s.Deadlock.Detected || s.Flows.Completed != s.Flows.Total {
		t.Errorf("storm %v, deadlock %v, %d of %d flows: want no storm, no deadlock, all done", s.PFC.StormDetected, s.Deadlock.Detected, s.Flows.Completed, s.Flows.Total)
	}
	t.Logf("longest pause %v", n.det.LongestPause)
}
