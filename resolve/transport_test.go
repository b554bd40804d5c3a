package resolve

import (
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/kind"
	"github.com/lfsim/lfsim/scenario"
)

// TestToyTransportFromYAML: a transport registered by a test alone (one
// row) is what the format, resolve's checks and devinfo read. The toy is
// bridged on layer 2 with no ECN field or INT (as RoCEv1 is), without
// atomics, with its own devinfo lines. The file may name it (the JSON
// Schema's enumeration has it); a control that reacts to marks, ECN
// marking, a routing, or hca.tcp is refused, and so is an overlay, with the row's title in
// the message; a scenario that names it runs along the spanning tree with
// the toy's framing, and devinfo prints the row's transport line, atomic
// capability and GID type. (It does not run: the HCA has no datapath for
// it, kind's doc says what a transport needs beyond its row.)
func TestToyTransportFromYAML(t *testing.T) {
	const toyFraming = fabric.Transport(200)
	t.Cleanup(kind.RegisterTransport(kind.Transport{Name: "toy", Title: "TOY", Framing: toyFraming, Wire: fabric.RoCEv1Wire,
		Ethernet: true, Does: "frames RDMA for a test", EtherType: 0x88b5, Header: "a toy header", Capture: true,
		VerbsTransport: "Toy (9)", PerftestTransport: "TY", GIDType: "RoCE toy"}))
	const top, flow = "topology: {kind: star, hosts: 2}\n", "traffic:\n  - flow: {from: h0, to: h1, size: 64KiB}\n"
	s, err := Parse("t.yaml", []byte(top+flow+"hca: {transport: toy}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.HCA.Transport != toyFraming || s.Routing != fabric.RoutingSpanningTree {
		t.Errorf("transport %d, routing %s; want the toy's framing, bridged along the spanning tree", s.HCA.Transport, s.Routing)
	}
	if got, want := s.Wire(fabric.OpWriteMiddle, 4096), int64(4194); got != want {
		t.Errorf("a 4096-byte WRITE Middle is %d bytes on the toy's wire, want %d (its row's Wire)", got, want)
	}
	info := s.DevInfo(s.Topology.Hosts()[0], true)
	for _, want := range []string{"transport:\t\t\tToy (9)\n", "atomic_cap:\t\t\tATOMIC_NONE (0)\n", ", RoCE toy\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("devinfo has no %q:\n%s", want, info)
		}
	}
	for _, c := range []struct{ src, want string }{
		{top + flow + "hca: {transport: toy, cc: dcqcn}\n", "t.yaml:4:27: hca.cc: dcqcn reacts to ECN marks, which switches write in the IP header, and a TOY frame has none; on TOY hca.cc takes timely (RTT-based) or none"},
		{top + flow + "hca: {transport: toy}\nswitch: {ecn: {kmin: 5KiB, kmax: 200KiB, pmax: 0.01}}\n", "t.yaml:5:10: switch.ecn: ECN is marked in the IP header, and a TOY frame has none (EtherType 0x88b5, then a toy header): no switch can mark it (ecn: off, or hca.transport: rocev2)"},
		{"topology: {kind: star, hosts: 2, routing: ecmp}\n" + flow + "hca: {transport: toy}\n", "t.yaml:1:43: topology.routing: TOY frames are bridged, not routed"},
		{top + flow + "hca: {transport: toy, tcp: {cc: cubic}}\n", "t.yaml:4:28: hca.tcp: hca.tcp configures the TCP an iWARP NIC runs; set hca.transport: iwarp"},
		{top + flow + "hca: {transport: toy}\nswitch: {link_layer: infiniband}\n", "t.yaml:4:18: hca.transport: toy frames RDMA for a test; on InfiniBand links the transport is InfiniBand's own"},
		{top + flow + "hca: {transport: toy, overlay: {encap: vxlan, vni: 7}}\n", "t.yaml:4:32: hca.overlay: an overlay tunnels IP: it goes with hca.transport: iwarp (eRDMA's) or rocev2; a TOY frame (EtherType 0x88b5) has no IP header"},
		{top + flow + "hca: {transport: toi}\n", "hca.transport: unknown value toi (did you mean toy?); expected one of rocev2, rocev1, iwarp, uet, toy"},
	} {
		_, err := Parse("t.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.src, err, c.want)
		}
	}
	if js := string(scenario.JSONSchema()); !strings.Contains(js, `"uet",
            "toy"
          ]`) {
		t.Error("the JSON Schema's hca.transport has no toy")
	}
}
