package main

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
)

// TestOverlayPcapInTshark: a capture of RoCEv2 over an overlay decodes
// in Wireshark's dissectors (tshark) as the tunnel with the RDMA inside:
// every frame VXLAN (UDP 4789) or Geneve (6081) with its VNI and, inside,
// Ethernet, IPv4, UDP 4791 and the IB BTH with the WRITE's opcodes (one
// 16 KiB WRITE at MTU 4096: First, two Middles, Last; then the ACK). A
// WRITE Middle's frame is RoCEv2's 4158 bytes (4178 on the wire less
// preamble and gap) plus the outer 50 (RFC 7348 §5), and Geneve's
// options; the outer UDP source port is the endpoint's hash of the inner
// 5-tuple (fabric.Overlay.SourcePort, RFC 7348 §5), or the constant
// source_port gives.
func TestOverlayPcapInTshark(t *testing.T) {
	tshark := needTool(t, "tshark")
	for _, tc := range []struct {
		name, overlay, vniField string
		dstPort                 int
		extra                   int // bytes past RoCEv2's frame
		fixed                   int
	}{
		{"vxlan", "{encap: vxlan, vni: 100}", "vxlan.vni", fabric.VXLANPort, 50, 0},
		{"geneve", "{encap: geneve, vni: 100, options: 8, source_port: 50000}", "geneve.vni", fabric.GenevePort, 58, 50000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := `topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {overlay: ` + tc.overlay + `}
traffic:
  - flow: {from: h0, to: h1, size: 16KiB}
observe: {pcap: [h0], snaplen: full}
`
			net, _, dir := runAndWrite(t, "overlay.yaml", []byte(src))
			out, err := exec.Command(tshark, "-r", filepath.Join(dir, "h0.pcap"), "-T", "fields", "-E", "separator=/t", "-E", "aggregator=,",
				"-e", "frame.len", "-e", tc.vniField, "-e", "udp.srcport", "-e", "udp.dstport", "-e", "infiniband.bth.opcode", "-e", "ip.src", "-e", "ip.dst").Output()
			if err != nil {
				t.Fatal(err)
			}
			h0, _ := net.Scenario.Topology.Lookup("h0")
			o := net.HCAs[h0].Prof.Overlay
			var ops []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				f := strings.Split(l, "\t")
				if len(f) != 7 {
					t.Fatalf("tshark line %q: want 7 fields", l)
				}
				sport, dport := strings.Split(f[2], ","), strings.Split(f[3], ",")
				if len(sport) != 2 || len(dport) != 2 {
					t.Fatalf("frame %q: want two UDP headers, outer and inner", l)
				}
				if vni, _ := strconv.ParseInt(f[1], 0, 64); vni != 100 {
					t.Errorf("frame %q: %s %q, want 100", l, tc.vniField, f[1])
				}
				if dport[0] != strconv.Itoa(tc.dstPort) || dport[1] != strconv.Itoa(fabric.RoCEv2Port) {
					t.Errorf("frame %q: UDP destination ports %v, want %d outside and %d inside", l, dport, tc.dstPort, fabric.RoCEv2Port)
				}
				ips := strings.Split(f[5], ",")
				dsts := strings.Split(f[6], ",")
				inner, _ := strconv.Atoi(sport[1])
				key := fabric.FlowKey{SrcIP: ipOf(t, ips[1]), DstIP: ipOf(t, dsts[1]), SrcPort: uint16(inner), DstPort: fabric.RoCEv2Port}
				want := int(o.SourcePort(key))
				if tc.fixed != 0 {
					want = tc.fixed
				}
				if sport[0] != strconv.Itoa(want) {
					t.Errorf("frame %q: outer UDP source port %s, want %d (inner flow %+v)", l, sport[0], want, key)
				}
				op, _ := strconv.Atoi(f[4])
				ops = append(ops, f[4])
				if op == int(fabric.OpWriteMiddle) {
					if n, _ := strconv.Atoi(f[0]); n != fabric.RoCEv2Wire(fabric.OpWriteMiddle, 4096)-fabric.PreambleIFGBytes+tc.extra {
						t.Errorf("WRITE Middle frame of %d bytes, want %d + %d", n, fabric.RoCEv2Wire(fabric.OpWriteMiddle, 4096)-fabric.PreambleIFGBytes, tc.extra)
					}
				}
			}
			if got := strings.Join(ops, " "); got != "6 7 7 8 17" {
				t.Errorf("inner BTH opcodes %q, want WRITE First, Middle, Middle, Last, Acknowledge (6 7 7 8 17)", got)
			}
		})
	}
}

// ipOf is dotted-quad s as lfsim's uint32 address.
func ipOf(t *testing.T, s string) uint32 {
	var a uint32
	for _, p := range strings.Split(s, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			t.Fatalf("address %q", s)
		}
		a = a<<8 | uint32(n)
	}
	return a
}
