package resolve

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/observe"
	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/scenarios"
	"github.com/lfsim/lfsim/sim"
	swtch "github.com/lfsim/lfsim/switch"
)

func mustParse(t *testing.T, src string) *Scenario {
	t.Helper()
	s, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatalf("unexpected error:\n%v", err)
	}
	return s
}

// flowPairs lists the flows as "src>dst".
func flowPairs(s *Scenario) []string {
	var out []string
	for _, f := range s.Flows {
		out = append(out, s.Topology.Nodes[f.Src].Name+">"+s.Topology.Nodes[f.Dst].Name)
	}
	return out
}

func TestExamplesLoad(t *testing.T) {
	ex := scenarios.Examples()
	want := []string{"adaptive-degraded-uplink", "allreduce-rail-4x4", "chakra-all-reduce-16", "chakra-all-to-all-16", "chakra-dp-overlap", "connect-storm", "deadlock-adaptive-ring", "deadlock-clos-bounce", "deadlock-flooding", "deadlock-routing-loop", "dumbbell-4x4", "erdma-vpc", "fat-tree-k4-all-to-all", "flow-trace", "ib-cc-victim", "ib-credit-loop", "ib-incast-8to1", "ib-long-link", "ib-range-extender", "incast-8to1", "incast-dcqcn", "job-data-parallel", "leaf-spine-permutation", "livelock-go-back-0", "lossless-or-not-iwarp-cubic", "lossless-or-not-iwarp-dctcp", "lossless-or-not-roce-irn", "lossless-or-not-roce-pfc", "lossless-or-not-uet", "nccl-tests-8", "pfc-storm", "qos-roce-ets", "rail-optimized-4x4", "routing-loop", "single-write", "slow-receiver", "sonic-dell-s6100", "two-jobs-shared-uplinks", "uec-cbfc-credit-loop", "uec-cbfc-incast", "uec-cbfc-long-link", "uec-llr-lossy-link", "uec-trim-incast", "uet-degraded-k8", "uet-nscc-incast", "uet-permutation-k8", "uet-reps-degraded-uplink", "uet-trim-incast", "vpi-two-fabrics"}
	var names []string
	for _, e := range ex {
		names = append(names, e.Name)
	}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("examples %v, want %v", names, want)
	}
	for _, e := range ex {
		s, err := LoadExample(e.Name)
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		if s.Name != e.Name || e.File != e.Name+".yaml" || s.File != "examples/"+e.File {
			t.Errorf("%s: name %q, file %q, scenario file %q", e.Name, s.Name, e.File, s.File)
		}
		if e.Description == "" || e.Description != s.Description {
			t.Errorf("%s: description %q vs %q", e.Name, e.Description, s.Description)
		}
		if len(s.Flows)+len(s.Collectives)+len(s.NCCLTests)+len(s.Jobs) == 0 || s.Routes == nil {
			t.Errorf("%s: %d flows, %d collectives, %d nccl_tests, %d jobs, routes %v", e.Name, len(s.Flows), len(s.Collectives), len(s.NCCLTests), len(s.Jobs), s.Routes)
		}
		// routing-loop warns of its loop; qos-roce-ets that its
		// background class (DSCP 10, priority 1) is lossy, as it is on
		// purpose; sonic-dell-s6100 the same of its DSCP 0, and of what
		// lfsim reads of its SONiC configuration as an approximation or
		// to no effect (sonic's tests hold those). ib-long-link,
		// ib-range-extender and uec-cbfc-long-link warn of the long link
		// they hold to its credits on purpose, and of nothing else
		// (TestCreditLimitedLinkWarnings holds the numbers).
		warns := s.Warnings
		if e.Name == "ib-long-link" || e.Name == "ib-range-extender" || e.Name == "uec-cbfc-long-link" {
			if len(warns) != 1 || !strings.Contains(warns[0].Msg, "credit-limited") {
				t.Errorf("%s: warnings %v, want one, of its long link's credits", e.Name, warns)
			}
			warns = nil
		}
		if e.Name != "routing-loop" && e.Name != "qos-roce-ets" && e.Name != "sonic-dell-s6100" && len(warns) > 0 {
			t.Errorf("%s: warnings %v", e.Name, warns)
		}
	}
}

func TestDefaultExample(t *testing.T) {
	s, err := LoadExample(scenarios.DefaultExample)
	if err != nil {
		t.Fatal(err)
	}
	if got := flowPairs(s); strings.Join(got, " ") != "h0>h8 h1>h8 h2>h8 h3>h8 h4>h8 h5>h8 h6>h8 h7>h8" {
		t.Errorf("flows %v", got)
	}
	for _, f := range s.Flows {
		if f.Size != 4<<20 || f.QP != "rc" || f.Op != "write" || f.Priority != 3 {
			t.Errorf("flow %+v", f)
		}
	}
	if !reflect.DeepEqual(s.Switch.PFC.Priorities, []uint8{3}) || s.Switch.PFC.XOFF != 96*fabric.KiB || s.Switch.PFC.XON != 80*fabric.KiB {
		t.Errorf("pfc %+v", s.Switch.PFC)
	}
	if s.HCA.CC != "none" || s.Stop != (Stop{At: 10 * sim.Millisecond, WhenFlowsDone: true}) {
		t.Errorf("cc %q, stop %+v", s.HCA.CC, s.Stop)
	}
	if s.Expect.Drops == nil || *s.Expect.Drops != 0 || s.Expect.FlowsCompleted == nil || *s.Expect.FlowsCompleted != -1 {
		t.Errorf("expect %+v", s.Expect)
	}
	if got := s.Expect.DropsAt; got != "examples/incast-8to1.yaml:29:3" {
		t.Errorf("drops check at %s", got)
	}
	if l := s.Topology.Links[0]; l.Rate != 100*fabric.Gbps || l.Delay != sim.Microsecond {
		t.Errorf("link %+v", l)
	}
}

func TestDefaults(t *testing.T) {
	s, err := Parse("dir/my-test.yaml", []byte("topology: {kind: star, hosts: 2}\ntraffic: [{flow: {from: h0, to: h1, size: 1MiB}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "my-test" || s.File != "dir/my-test.yaml" || s.Seed != 1 {
		t.Errorf("name %q file %q seed %d", s.Name, s.File, s.Seed)
	}
	if s.Stop != (Stop{At: 10 * sim.Millisecond}) {
		t.Errorf("stop %+v", s.Stop)
	}
	if s.Routing != fabric.RoutingECMP || s.Routes == nil || s.ExplicitRoutes != nil {
		t.Errorf("routing %q", s.Routing)
	}
	if !reflect.DeepEqual(s.Switch, swtch.DefaultProfile()) {
		t.Errorf("switch profile %+v, want the default", s.Switch)
	}
	if !reflect.DeepEqual(s.HCA, hca.DefaultProfile()) {
		t.Errorf("hca profile %+v, want the default", s.HCA)
	}
	if l := s.Topology.Links[0]; l.Rate != 100*fabric.Gbps || l.Delay != sim.Microsecond {
		t.Errorf("default link %+v", l.LinkSpec)
	}
	wantObs := observe.Config{Interval: 10 * sim.Microsecond, Links: observe.Selector{All: true}, Queues: observe.Selector{All: true}, Flows: observe.Selector{All: true}, DeadlockAfter: 50 * sim.Microsecond}
	if !reflect.DeepEqual(s.Observe, wantObs) {
		t.Errorf("observe %+v", s.Observe)
	}
	if !reflect.DeepEqual(s.Expect, observe.Expect{}) {
		t.Errorf("expect %+v", s.Expect)
	}
	f := s.Flows[0]
	if f.ID != 0 || f.QP != "rc" || f.Op != "write" || f.Start != 0 || f.Priority != 3 || f.Size != 1<<20 || f.Generator != 0 || f.Pos.String() != "dir/my-test.yaml:2:11" {
		t.Errorf("flow %+v", f)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings %v", s.Warnings)
	}
}

func TestProfileOverrides(t *testing.T) {
	s, err := Load("testdata/explicit-overrides.yaml")
	if err != nil {
		t.Fatal(err)
	}
	id := func(n string) fabric.NodeID {
		x, ok := s.Topology.Lookup(n)
		if !ok {
			t.Fatalf("no node %s", n)
		}
		return x
	}
	// Global: default <- switch:.
	wantGlobal := swtch.DefaultProfile()
	wantGlobal.Latency = sim.Microsecond
	wantGlobal.PFC.Priorities = []uint8{3, 5}
	if !reflect.DeepEqual(s.Switch, wantGlobal) || !reflect.DeepEqual(s.SwitchProfile(id("s2")), wantGlobal) {
		t.Errorf("global switch profile %+v", s.Switch)
	}
	// s1: default <- switch: <- its own.
	want1 := wantGlobal
	want1.PFC.Priorities = []uint8{3, 5}
	want1.Buffer = 2 * fabric.MiB
	want1.PFC.XOFF, want1.PFC.XONOffset, want1.PFC.XON = 64*fabric.KiB, 16*fabric.KiB, 48*fabric.KiB
	if got := s.SwitchProfile(id("s1")); !reflect.DeepEqual(got, want1) {
		t.Errorf("s1 profile\n%+v\nwant\n%+v", got, want1)
	}
	if len(s.SwitchProfiles) != 1 || len(s.HCAProfiles) != 1 {
		t.Errorf("%d switch and %d hca overrides, want 1 and 1", len(s.SwitchProfiles), len(s.HCAProfiles))
	}
	if s.HCA.MTU != 2048 || s.HCAProfile(id("a")).MTU != 2048 {
		t.Errorf("global mtu %d", s.HCA.MTU)
	}
	if b := s.HCAProfile(id("b")); b.MTU != 1024 || b.Priority != 5 || b.AckTimeout != 14 {
		t.Errorf("b's profile %+v", b)
	}
	// A flow takes its source's priority unless it gives one.
	var prios []uint8
	for _, f := range s.Flows {
		prios = append(prios, f.Priority)
	}
	if !reflect.DeepEqual(prios, []uint8{3, 5, 3}) {
		t.Errorf("priorities %v", prios)
	}
	// Links: the default, then per link; ports in link order.
	lk := s.Topology.Links
	if lk[1].Delay != 2*sim.Microsecond || lk[1].Rate != 100*fabric.Gbps || lk[3].Rate != 400*fabric.Gbps || lk[3].Delay != sim.Microsecond {
		t.Errorf("links %+v", lk)
	}
	if p, _ := s.Topology.PortTo(id("s1"), id("s2")); p != 2 {
		t.Errorf("s1's port to s2 is p%d, want p2", p)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings %v", s.Warnings)
	}
}

func TestExpansionOrder(t *testing.T) {
	s := mustParse(t, `seed: 1
topology: {kind: star, hosts: 5}
traffic:
  - incast: {to: h0, from: [h3, h1, h4], size: 1KiB, start: 5us, priority: 3}
  - all_to_all: {hosts: [h2, h0, h1], size: 2KiB}
  - flow: {from: h4, to: h2, size: 3KiB}
  - incast: {to: h2, from: all, size: 1}
`)
	want := "h3>h0 h1>h0 h4>h0 " + // incast: from: order
		"h2>h0 h2>h1 h0>h2 h0>h1 h1>h2 h1>h0 " + // all_to_all: sources, then destinations, in list order
		"h4>h2 " +
		"h0>h2 h1>h2 h3>h2 h4>h2" // from: all is host order without the receiver
	if got := strings.Join(flowPairs(s), " "); got != want {
		t.Errorf("flows\n%s\nwant\n%s", got, want)
	}
	for i, f := range s.Flows {
		if f.ID != i {
			t.Errorf("flow %d has id %d", i, f.ID)
		}
	}
	if f := s.Flows[0]; f.Start != 5*sim.Microsecond || f.Size != 1024 || f.Generator != 0 {
		t.Errorf("first flow %+v", f)
	}
	if f := s.Flows[9]; f.Generator != 2 || f.Pos.Line != 6 {
		t.Errorf("flow 9 %+v", f)
	}
}

func TestPermutation(t *testing.T) {
	s, err := LoadExample("leaf-spine-permutation")
	if err != nil {
		t.Fatal(err)
	}
	// Pinned: the draw from sim.Stream(1, "traffic/permutation/0") must not
	// change between versions, or results would.
	want := "h0>h13 h1>h4 h2>h6 h3>h2 h4>h5 h5>h0 h6>h10 h7>h11 h8>h15 h9>h1 h10>h12 h11>h8 h12>h7 h13>h14 h14>h3 h15>h9"
	if got := strings.Join(flowPairs(s), " "); got != want {
		t.Errorf("permutation\n%s\nwant\n%s", got, want)
	}
	// A derangement for every seed, a different one for another seed or
	// another generator index.
	src := "topology: {kind: star, hosts: 6}\ntraffic:\n  - permutation: {size: 1}\n  - permutation: {hosts: all, size: 1}\n"
	seen := map[string]bool{}
	for seed := 1; seed <= 20; seed++ {
		s := mustParse(t, "seed: "+strconv.Itoa(seed)+"\n"+src)
		dst := map[fabric.NodeID]bool{}
		for i, f := range s.Flows {
			if f.Src == f.Dst || (i < 6 && dst[f.Dst]) {
				t.Fatalf("seed %d: not a derangement: %v", seed, flowPairs(s))
			}
			dst[f.Dst] = true
		}
		p := flowPairs(s)
		seen[strings.Join(p[:6], " ")] = true
		if strings.Join(p[:6], " ") == strings.Join(p[6:], " ") && seed == 1 {
			t.Errorf("both generators drew the same permutation %v", p)
		}
	}
	if len(seen) < 10 {
		t.Errorf("only %d different permutations in 20 seeds", len(seen))
	}
}

func TestRoutingLoopIsAWarning(t *testing.T) {
	s, err := LoadExample("routing-loop")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"examples/routing-loop.yaml:19:3: topology.routes: the pinned routes make a loop: traffic for c loops s1 -> s2 -> s3 -> s1 (allowed, e.g. to build a deadlock on purpose)"}
	var got []string
	for _, w := range s.Warnings {
		got = append(got, w.Error())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n%v\nwant\n%v", got, want)
	}
	if len(s.ExplicitRoutes) != 4 {
		t.Errorf("explicit routes %v", s.ExplicitRoutes)
	}
	at, _ := s.Topology.Lookup("s1")
	c, _ := s.Topology.Lookup("c")
	if ports := s.Routes.NextPorts(at, c); len(ports) != 1 || s.Topology.Nodes[at].Ports[ports[0]].Peer != mustLookup(t, s, "s2") {
		t.Errorf("s1's next hop for c: ports %v", ports)
	}
}

func mustLookup(t *testing.T, s *Scenario, name string) fabric.NodeID {
	id, ok := s.Topology.Lookup(name)
	if !ok {
		t.Fatalf("no node %s", name)
	}
	return id
}

func TestWarnings(t *testing.T) {
	s := mustParse(t, `topology: {kind: star, hosts: 3}
stop: {at: 1ms}
traffic:
  - flow: {from: h0, to: h1, size: 1, priority: 0}
  - flow: {from: h0, to: h2, size: 1, start: 2ms}
observe:
  pcap: [h2, s0->h1]
  deadlock: {after: 10us}
`)
	want := []string{
		"t.yaml:4:49: traffic[0].flow: priority 0 is not lossless on every switch (switch.pfc.priorities); its packets can be dropped",
		"t.yaml:5:46: traffic[1].flow.start: starts at 2ms, not before stop.at (1ms); it will not run",
	}
	var got []string
	for _, w := range s.Warnings {
		got = append(got, w.Error())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	h2, s0 := mustLookup(t, s, "h2"), mustLookup(t, s, "s0")
	if !reflect.DeepEqual(s.Observe.Pcap, []observe.PortRef{{Node: h2, Port: 0}, {Node: s0, Port: 1}}) || s.Observe.DeadlockAfter != 10*sim.Microsecond {
		t.Errorf("observe %+v", s.Observe)
	}

	s = mustParse(t, "topology: {kind: star, hosts: 3}\n")
	if len(s.Warnings) != 1 || s.Warnings[0].Error() != "t.yaml:1:1: traffic: no traffic: the run only idles until stop.at" {
		t.Errorf("warnings %v", s.Warnings)
	}
}

func TestObserveAndExpect(t *testing.T) {
	s := mustParse(t, `topology: {kind: star, hosts: 9}
stop: {at: 0, when: flows-done}
traffic:
  - incast: {to: h8, from: [h0, h1], size: 1MiB}
observe:
  interval: 1us
  links: [s0:p8, s0->h8, h3]
  queues: none
  flows: [1]
expect:
  drops: 0
  flows_completed: 1
  min_fairness: 95%
  max_pause_fraction: {port: s0->h8, value: 0.2}
`)
	s0, h3 := mustLookup(t, s, "s0"), mustLookup(t, s, "h3")
	if s.Stop.At != sim.Never || !s.Stop.WhenFlowsDone {
		t.Errorf("stop %+v", s.Stop)
	}
	o := s.Observe
	if o.Interval != sim.Microsecond || !reflect.DeepEqual(o.Links.Ports, []observe.PortRef{{Node: s0, Port: 8}, {Node: s0, Port: 8}, {Node: h3, Port: 0}}) || o.Links.All {
		t.Errorf("links %+v", o.Links)
	}
	if o.Queues.All || len(o.Queues.Ports) != 0 || o.Queues.HasPort(observe.PortRef{Node: s0, Port: 8}) {
		t.Errorf("queues %+v", o.Queues)
	}
	if !o.Flows.HasFlow(1) || o.Flows.HasFlow(0) || !o.Links.HasPort(observe.PortRef{Node: s0, Port: 8}) {
		t.Errorf("flows %+v", o.Flows)
	}
	e := s.Expect
	if *e.Drops != 0 || *e.FlowsCompleted != 1 || *e.MinFairness != 0.95 || e.Deadlock != nil {
		t.Errorf("expect %+v", e)
	}
	if len(e.MaxPauseFraction) != 1 || e.MaxPauseFraction[0].Port != (observe.PortRef{Node: s0, Port: 8}) || e.MaxPauseFraction[0].Value != 0.2 {
		t.Errorf("max_pause_fraction %+v", e.MaxPauseFraction)
	}
	if got := e.MaxPauseFraction[0].At + " " + e.MinFairnessAt + " " + e.FlowsCompletedAt; got != "t.yaml:14:23 t.yaml:13:3 t.yaml:12:3" {
		t.Errorf("positions %s", got)
	}
	if d := (scenario.Pos{File: "t.yaml", Line: 14, Col: 23}).Diag("paused %.0f%% of the time", 50.0); d.Error() != "t.yaml:14:23: paused 50% of the time" {
		t.Errorf("diag %q", d.Error())
	}
}

func TestGenerators(t *testing.T) {
	for _, c := range []struct {
		src                    string
		hosts, switches, links int
		port                   string // a port name that resolves
	}{
		{"{kind: star, hosts: 4}", 4, 1, 4, "s0->h3"},
		{"{kind: dumbbell, left: 2, right: 3, bottleneck: {rate: 40G, delay: 2us}}", 5, 2, 6, "s0->s1"},
		{"{kind: leaf-spine, leaves: 4, spines: 2, hosts_per_leaf: 8, host_link: {rate: 100Gbps, delay: 500ns}, fabric_link: {rate: 400Gbps}}", 32, 6, 40, "s0->s5"},
		{"{kind: fat-tree, k: 4, routing: updown}", 16, 20, 48, "s16->s8"},
		{"{kind: ring, switches: 3, hosts_per_switch: 2, routing: shortest}", 6, 3, 9, "s0->s1"},
		{"{kind: ring, switches: 4}", 4, 4, 8, "s3->s0"},
	} {
		s, err := Parse("t.yaml", []byte("topology: "+c.src+"\ntraffic: [{flow: {from: h0, to: h1, size: 1}}]\nobserve: {links: ["+c.port+"]}\n"))
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if len(s.Topology.Hosts()) != c.hosts || len(s.Topology.Nodes)-c.hosts != c.switches || len(s.Topology.Links) != c.links {
			t.Errorf("%s: %d hosts, %d nodes, %d links", c.src, len(s.Topology.Hosts()), len(s.Topology.Nodes), len(s.Topology.Links))
		}
	}
	s := mustParse(t, "topology: {kind: dumbbell, left: 1, right: 1, link: {rate: 25Gbps, delay: 3us}, bottleneck: {rate: 10Gbps}}\ntraffic: [{flow: {from: h0, to: h1, size: 1}}]\n")
	if l := s.Topology.Links[2]; l.Rate != 10*fabric.Gbps || l.Delay != 3*sim.Microsecond {
		t.Errorf("bottleneck %+v, want 10Gbps with the link's 3us", l.LinkSpec)
	}
	s = mustParse(t, "topology: {kind: fat-tree, k: 4, routing: updown}\ntraffic: [{flow: {from: h0, to: h1, size: 1}}]\n")
	if s.Routing != fabric.RoutingUpDown || s.Routes.Algo() != fabric.RoutingUpDown {
		t.Errorf("routing %q", s.Routing)
	}
}

func TestUnits(t *testing.T) {
	s := mustParse(t, `topology: {kind: star, hosts: 2, link: {rate: 1.5Tbps, delay: 2µs}}
switch:
  buffer: 1.5MB
  latency: 0
  pfc: {priorities: [], xoff: 100000, xon: 64KiB, headroom: 32KiB, response: 3us}
  ecn: off
  scheduler: strict
  ecmp_seed: 18446744073709551615
  link_layer: ethernet
  forwarding: store-and-forward
hca: {mtu: 1024, priority: 0, retransmit: go-back-n, ack_timeout: 0, retry_count: 0, rnr_retry: 0, max_rd_atomic: 1, ack_every: 1, rx_rate: line, cc: none}
traffic: [{flow: {from: h0, to: h1, size: 1.5KB}}]
expect: {min_fairness: 0.5}
`)
	if l := s.Topology.Links[0]; l.Rate != 1500*fabric.Gbps || l.Delay != 2*sim.Microsecond {
		t.Errorf("link %+v", l.LinkSpec)
	}
	p := s.Switch
	if p.Buffer != 1500000 || p.Latency != 0 || len(p.PFC.Priorities) != 0 || p.PFC.XOFF != 100000 || p.PFC.XON != 64*fabric.KiB ||
		p.PFC.HeadroomAuto || p.PFC.Headroom != 32*fabric.KiB || p.PFC.ResponseAuto || p.PFC.Response != 3*sim.Microsecond || p.ECMPSeed != 1<<64-1 {
		t.Errorf("switch %+v", p)
	}
	if s.Flows[0].Size != 1500 || *s.Expect.MinFairness != 0.5 || s.Flows[0].Priority != 0 {
		t.Errorf("flow %+v", s.Flows[0])
	}
	// PFC is off: priority 0 is no less lossless than any other.
	if len(s.Warnings) != 0 {
		t.Errorf("warnings %v", s.Warnings)
	}
}

func TestSeveralErrorsFromAFile(t *testing.T) {
	_, err := Load("testdata/several-errors.yaml")
	var errs scenario.Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error %v is not an Errors", err)
	}
	want := []string{
		`testdata/several-errors.yaml:6:16: topology.link.rate: ` + rateErr("100"),
		`testdata/several-errors.yaml:8:3: switch: unknown key bufer (did you mean buffer?); allowed keys are buffer, latency, forwarding, reserved, ingress_threshold, egress_threshold, pfc, ecn, scheduler, ecmp_seed, ecmp_per_switch, link_layer, ib, load_balance, flowlet_timeout, spray, adaptive_bias, egress_fifo, flood_lossless, tagger, range_extender, trust, dscp2prio, prio2tc, sonic, trim, cbfc, llr`,
		`testdata/several-errors.yaml:10:8: hca.mtu: 9000 is not allowed; expected one of 256, 512, 1024, 2048, 4096`,
		`testdata/several-errors.yaml:12:18: traffic[0].incast.to: unknown host h88 (did you mean h8?); hosts are h0..h8`,
		`testdata/several-errors.yaml:13:36: traffic[1].flow.size: ` + sizeErr("1 MiBs"),
	}
	if got := err.Error(); got != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if len(errs) != len(want) || errs[3].Line != 12 || errs[3].Col != 18 || errs[3].File != "testdata/several-errors.yaml" {
		t.Errorf("diagnostics %+v", errs)
	}
}

func TestLoadNamed(t *testing.T) {
	s, err := LoadNamed("incast-8to1")
	if err != nil || s.Name != "incast-8to1" {
		t.Fatalf("%v %v", s, err)
	}
	if s, err = LoadNamed("single-write.yaml"); err != nil || s.Name != "single-write" {
		t.Fatalf("%v %v", s, err)
	}
	if s, err = LoadNamed("testdata/explicit-overrides.yaml"); err != nil || s.Name != "explicit-overrides" {
		t.Fatalf("%v %v", s, err)
	}
	// A file wins over an example of the same name.
	dir := t.TempDir()
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	os.WriteFile("incast-8to1", []byte("name: mine\ntopology: {kind: star, hosts: 2}\ntraffic: [{flow: {from: h0, to: h1, size: 1}}]\n"), 0o644)
	if s, err = LoadNamed("incast-8to1"); err != nil || s.Name != "mine" {
		t.Fatalf("%v %v", s, err)
	}
	os.Chdir(wd)
	_, err = LoadNamed("incst-8to1")
	want := "no file or example named incst-8to1 (did you mean incast-8to1?); examples are adaptive-degraded-uplink, allreduce-rail-4x4, chakra-all-reduce-16, chakra-all-to-all-16, chakra-dp-overlap, connect-storm, deadlock-adaptive-ring, deadlock-clos-bounce, deadlock-flooding, deadlock-routing-loop, dumbbell-4x4, erdma-vpc, fat-tree-k4-all-to-all, flow-trace, ib-cc-victim, ib-credit-loop, ib-incast-8to1, ib-long-link, ib-range-extender, incast-8to1, incast-dcqcn, job-data-parallel, leaf-spine-permutation, livelock-go-back-0, lossless-or-not-iwarp-cubic, lossless-or-not-iwarp-dctcp, lossless-or-not-roce-irn, lossless-or-not-roce-pfc, lossless-or-not-uet, nccl-tests-8, pfc-storm, qos-roce-ets, rail-optimized-4x4, routing-loop, single-write, slow-receiver, sonic-dell-s6100, two-jobs-shared-uplinks, uec-cbfc-credit-loop, uec-cbfc-incast, uec-cbfc-long-link, uec-llr-lossy-link, uec-trim-incast, uet-degraded-k8, uet-nscc-incast, uet-permutation-k8, uet-reps-degraded-uplink, uet-trim-incast, vpi-two-fabrics"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	_, err = LoadNamed(filepath.Join("nowhere", "x.yaml"))
	if err == nil || !strings.HasPrefix(err.Error(), "no file or example named nowhere/x.yaml; examples are") {
		t.Errorf("got %v", err)
	}
	if _, err = LoadExample("../scenarios"); err == nil {
		t.Errorf("LoadExample escaped the examples folder")
	}
}

func TestLimits(t *testing.T) {
	lim := DefaultLimits
	lim.Flows = 100
	for _, c := range []struct{ src, want string }{
		{"topology: {kind: star, hosts: 11}\ntraffic: [{all_to_all: {size: 1}}]\n",
			"t.yaml:2:11: traffic[0]: this all_to_all makes 110 flows, 110 in all; at most 100 flows are supported"},
		{"topology: {kind: star, hosts: 100}\ntraffic: [{all_to_all: {hosts: [h0, h1], size: 1}}, {incast: {to: h0, from: all, size: 1}}]\n",
			"t.yaml:2:53: traffic[1]: this incast makes 99 flows, 101 in all; at most 100 flows are supported"},
		{"topology: {kind: star, hosts: 100001}\n",
			"t.yaml:1:31: topology: this topology would have 100001 hosts; at most 100000 are supported"},
		{"topology: {kind: ring, switches: 20000, hosts_per_switch: 1}\n",
			"t.yaml:1:1: topology: this topology would have 20000 switches and 20000 hosts, too many for the routing tables (one entry per switch and host)"},
		{"topology: {kind: leaf-spine, leaves: 9223372036854775807, spines: 9223372036854775807, hosts_per_leaf: 9223372036854775807}\n",
			"t.yaml:1:1: topology: this topology would have more than 9223372036854775806 hosts; at most 100000 are supported"},
	} {
		_, err := ParseLimits("t.yaml", []byte(c.src), lim)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got\n%v\nwant\n%s", c.src, err, c.want)
		}
	}
	// The node budget stops merge-key bombs (each level merges the one
	// below eight times).
	bomb := "x-0: &m0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8}\n"
	for i := 1; i <= 9; i++ {
		p := "*m" + strconv.Itoa(i-1)
		bomb += "x-" + strconv.Itoa(i) + ": &m" + strconv.Itoa(i) + " {<<: [" + strings.Repeat(p+", ", 7) + p + "]}\n"
	}
	bomb += "hca: {<<: *m9}\n"
	_, err := Parse("t.yaml", []byte(bomb))
	if err == nil || !strings.Contains(err.Error(), "the aliases expand too much (over 200000 nodes through aliases and merge keys); stopped checking here") {
		t.Errorf("merge bomb: %v", err)
	}
}

func TestTooManyErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("topology: {kind: star, hosts: 10000}\ntraffic:\n  - all_to_all:\n      size: 1\n      hosts:\n")
	for i := 0; i < 50000; i++ {
		b.WriteString("        - x" + strconv.Itoa(i) + "\n")
	}
	// A buffer for 10000 ports' headroom, so that the hosts are the only
	// mistakes.
	b.WriteString("switch: {buffer: 2GiB}\n")
	_, err := Parse("t.yaml", []byte(b.String()))
	var errs scenario.Errors
	if !errors.As(err, &errs) || len(errs) != scenario.MaxErrors+1 {
		t.Fatalf("%d errors", len(errs))
	}
	if errs[0].Error() != "t.yaml:6:11: traffic[0].all_to_all.hosts: unknown host x0; hosts are h0..h9999" ||
		errs[scenario.MaxErrors].Error() != "t.yaml: too many errors: 49800 more not shown" {
		t.Errorf("first %q, last %q", errs[0].Error(), errs[scenario.MaxErrors].Error())
	}
}

func TestMergeKeysAndAnchors(t *testing.T) {
	s := mustParse(t, `x-defaults:
  link: &link {rate: 40Gbps, delay: 2us}
  write: &w {size: 64KiB, priority: 3}
topology: {kind: star, hosts: 3, link: *link}
traffic:
  - flow: {<<: *w, from: h0, to: h1}
  - flow: {<<: *w, from: h0, to: h2, size: 1MiB}
`)
	if l := s.Topology.Links[0]; l.Rate != 40*fabric.Gbps || l.Delay != 2*sim.Microsecond {
		t.Errorf("link %+v", l.LinkSpec)
	}
	if s.Flows[0].Size != 64*1024 || s.Flows[1].Size != 1<<20 {
		t.Errorf("flows %+v", s.Flows)
	}
}
