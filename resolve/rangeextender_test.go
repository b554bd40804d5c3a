package resolve

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
)

// rangeExtenderScenario is two sites joined by two extenders, with
// switch blocks and links to patch.
const rangeExtenderScenario = `topology:
  kind: explicit
  hosts: [h0, h1]
  switches:
    - s0
    - s1
    - {name: x0, switch: {range_extender: {buffer: 16MiB}}}
    - {name: x1, switch: {range_extender: {buffer: 16MiB}}}
  links: [[h0, s0], [s0, x0], {a: x0, b: x1, delay: 50us}, [x1, s1], [s1, h1]]
switch: {link_layer: infiniband}
traffic: [{flow: {from: h0, to: h1, size: 1MiB}}]
`

// TestRangeExtenderErrors: what a range extender cannot be is refused at
// its key, naming what is allowed; a well-formed pair resolves.
func TestRangeExtenderErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		pairs []string
		want  string
	}{
		{"valid", nil, ""},
		{"ethernet", []string{"switch: {link_layer: infiniband}", "switch: {}"},
			`t.yaml:7:27: topology.switches[2].switch.range_extender: a range extender carries InfiniBand; this scenario's links are Ethernet (switch.link_layer: infiniband)
t.yaml:8:27: topology.switches[3].switch.range_extender: a range extender carries InfiniBand; this scenario's links are Ethernet (switch.link_layer: infiniband)`},
		// From the review of issue 47, defect 8 (the case below):
		// with link_layer: infiniband on its switches (a mixed network)
		// an extender was on the network's Ethernet, and its links to
		// them were refused as a gateway between the fabrics.
		{"on a mixed network", []string{"    - s0\n    - s1", "    - {name: s0, switch: {link_layer: infiniband}}\n    - {name: s1, switch: {link_layer: infiniband}}", "switch: {link_layer: infiniband}\n", ""},
			`t.yaml:7:27: topology.switches[2].switch.range_extender: a range extender where switches give their own link_layer: infiniband (a network with InfiniBand and Ethernet switches) is not modelled yet; on an InfiniBand network it is: give switch.link_layer: infiniband at the top level
t.yaml:8:27: topology.switches[3].switch.range_extender: a range extender where switches give their own link_layer: infiniband (a network with InfiniBand and Ethernet switches) is not modelled yet; on an InfiniBand network it is: give switch.link_layer: infiniband at the top level`},
		{"top level", []string{"switch: {link_layer: infiniband}", "switch: {link_layer: infiniband, range_extender: {buffer: 16MiB}}"},
			`t.yaml:10:34: switch.range_extender: a range extender is one device: give it to a switch of an explicit topology (topology.switches: [{name: x0, switch: {range_extender: {buffer: 16MiB}}}])`},
		{"three links", []string{"[s1, h1]]", "[s1, h1], [x0, s1]]"},
			`t.yaml:7:27: topology.switches[2].switch.range_extender: range extender x0 has 3 links; it has two: a local port to an InfiniBand switch or host and a long-haul port to the other extender`},
		{"lone extender", []string{"{a: x0, b: x1, delay: 50us}, [x1, s1]", "{a: x0, b: s1, delay: 50us}, [x1, s1], [x1, s0]"},
			`t.yaml:7:27: topology.switches[2].switch.range_extender: range extender x0 has no extender at the far side of its links; a long haul runs between two extenders (link it to another switch with range_extender, or link its two neighbours directly)
t.yaml:8:27: topology.switches[3].switch.range_extender: range extender x1 has no extender at the far side of its links; a long haul runs between two extenders (link it to another switch with range_extender, or link its two neighbours directly)`},
		{"chain of three", []string{"    - {name: x1,", "    - {name: x2, switch: {range_extender: {buffer: 16MiB}}}\n    - {name: x1,", "[x1, s1]", "[x1, x2], [x2, s1]"},
			`t.yaml:9:27: topology.switches[4].switch.range_extender: both links of range extender x1 lead to extenders; one is its local port, to an InfiniBand switch or host`},
		{"buffer below a VL's", []string{"x0, switch: {range_extender: {buffer: 16MiB}}", "x0, switch: {range_extender: {buffer: 512KiB}}"},
			`t.yaml:7:52: topology.switches[2].switch.range_extender.buffer: the buffer (512KiB) gives each of the 8 data VLs 64KiB; at least 128KiB each is needed to go past a plain link's credits (128 KiB, 12-bit counters): raise it to 1MiB or more, or lower switch.ib.data_vls`},
		{"buffer too small", []string{"x0, switch: {range_extender: {buffer: 16MiB}}", "x0, switch: {range_extender: {buffer: 64KiB}}"},
			`t.yaml:7:52: topology.switches[2].switch.range_extender.buffer: 64KiB is out of range; expected 128KiB..1GiB`},
		{"buffer too large", []string{"x0, switch: {range_extender: {buffer: 16MiB}}", "x0, switch: {range_extender: {buffer: 2GiB}}"},
			`t.yaml:7:52: topology.switches[2].switch.range_extender.buffer: 2GiB is out of range; expected 128KiB..1GiB`},
		{"other key", []string{"x1, switch: {range_extender: {buffer: 16MiB}}", "x1, switch: {load_balance: spray, range_extender: {buffer: 16MiB}, latency: 1us}"},
			`t.yaml:8:27: topology.switches[3].switch.load_balance: a range extender forwards between its two ports only: of the switch keys it takes latency and forwarding beside range_extender`},
	} {
		src := rangeExtenderScenario
		for i := 0; i < len(c.pairs); i += 2 {
			if !strings.Contains(src, c.pairs[i]) {
				t.Fatalf("%s: %q not in the scenario", c.name, c.pairs[i])
			}
			src = strings.Replace(src, c.pairs[i], c.pairs[i+1], 1)
		}
		_, err := Parse("t.yaml", []byte(src))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestRangeExtenderProfile: an extender's profile has its buffer and
// none of the switch features the subnet manager would configure (it
// does not see the device): with switch.ib.hoq_lifetime and fecn given,
// s0 has them and x0 does not. x0's long-haul port (p1, to x1) grants
// 16 MiB / 8 VLs = 2 MiB per VL; its local port (p0) is no long haul.
func TestRangeExtenderProfile(t *testing.T) {
	src := strings.Replace(rangeExtenderScenario, "switch: {link_layer: infiniband}",
		"switch: {link_layer: infiniband, ib: {hoq_lifetime: 1ms, fecn: {threshold: 64KiB}}}", 1)
	s, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s0, _ := s.Topology.Lookup("s0")
	x0, _ := s.Topology.Lookup("x0")
	if p := s.SwitchProfile(s0); p.HOQLifetime == 0 || !p.ECN.Enabled || p.RangeExtender.Buffer != 0 {
		t.Errorf("s0: hoq %v, fecn %v, extender buffer %d; want the scenario's, and no extender", p.HOQLifetime, p.ECN.Enabled, p.RangeExtender.Buffer)
	}
	if p := s.SwitchProfile(x0); p.HOQLifetime != 0 || p.ECN.Enabled || p.RangeExtender.Buffer != 16<<20 {
		t.Errorf("x0: hoq %v, fecn %v, extender buffer %d; want none, none, 16 MiB", p.HOQLifetime, p.ECN.Enabled, p.RangeExtender.Buffer)
	}
	if perVL, ok := s.LongHaul(x0, 1); !ok || perVL != 2<<20 {
		t.Errorf("x0:p1: long haul %v, %d bytes per VL; want 2 MiB", ok, perVL)
	}
	if _, ok := s.LongHaul(x0, 0); ok {
		t.Error("x0:p0, its local port, is a long haul")
	}
	if _, ok := s.LongHaul(s0, 1); ok {
		t.Error("s0:p1, to x0, is a long haul")
	}
}

// TestRangeExtenderLIDs: the subnet manager gives a range extender no LID
// (it does not see the device): with the extenders declared before s0 and
// s1, the hosts are LIDs 1 and 2, s0 and s1 3 and 4, and the LFT dump
// goes to LID 4 with no table for x0 or x1.
func TestRangeExtenderLIDs(t *testing.T) {
	src := strings.Replace(rangeExtenderScenario, "    - s0\n    - s1\n", "", 1)
	src = strings.Replace(src, "  links:", "    - s0\n    - s1\n  links:", 1)
	s, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	lids := fabric.AssignLIDs(s.Topology)
	for name, want := range map[string]uint16{"h0": 1, "h1": 2, "x0": 0, "x1": 0, "s0": 3, "s1": 4} {
		if id, _ := s.Topology.Lookup(name); lids.Of(id) != want {
			t.Errorf("%s: LID %d, want %d", name, lids.Of(id), want)
		}
	}
	dump := string(fabric.LFTDump(s.Topology, s.Routes, lids))
	if !strings.HasPrefix(dump, "Unicast lids [0-4] of switch Lid 3 ") || strings.Contains(dump, "'x0'") || strings.Contains(dump, "'x1'") {
		t.Errorf("LFT dump:\n%s", dump)
	}
}
