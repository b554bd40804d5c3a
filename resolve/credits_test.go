package resolve

import (
	"fmt"
	"strings"
	"testing"
)

// creditWarnings returns the credit-limited links' warnings of src (a
// scenario that must load).
func creditWarnings(t *testing.T, src string) []string {
	t.Helper()
	s, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	var out []string
	for _, w := range s.Warnings {
		if strings.Contains(w.Msg, "credit-limited") {
			out = append(out, w.Error())
		}
	}
	return out
}

// TestCreditLimitedLinkWarnings: a link whose credit round trip × rate
// is more than its receiver's buffer holds (IBTA vol. 1, 7.9; UEC's
// CBFC) is warned of at resolve time, identical links in one line, at the
// key that gave their rate and delay, with the round trip in bytes, the
// buffer, the rate one VL runs at (whole packets the buffer holds / the
// round trip: fabric's TestCreditLimitedLink and assembly's
// TestIBLongLinkExample hold the model to it) and what lifts it. The
// numbers are worked here from the arithmetic: an InfiniBand packet of
// 4096 bytes of UD SEND with immediate is 4134 bytes (LRH 8, BTH 12, DETH
// 8, immediate 4, ICRC 4, VCRC 2), 65 credit blocks of 64 bytes, so
// 64 KiB holds 15 and 128 KiB 31; an InfiniBand switch forwards
// cut-through, so its 500 ns of latency start after a packet's first 64
// bytes; a flow-control packet is 6 bytes. NDR at the rail-optimized
// generator's old default of 1 µs: (2 µs + 1.28 ns + 500 ns + 0.12 ns)
// × 400 Gb/s = 125,070 bytes against 15 × 4134 = 62,010, 198.3 Gb/s of
// the wire (the first nccl-tests-h800 run: each NIC carried 24 GB/s of
// its 50; a 64 MiB WRITE over this fabric measured 196.0 Gb/s of
// payload, 197.8 of the wire).
func TestCreditLimitedLinkWarnings(t *testing.T) {
	rail := func(link, sw string) string {
		return "topology: {kind: rail-optimized, servers: 2, gpus_per_server: 4, spines: 1, link: " + link + "}\n" +
			"switch: " + sw + "\ntraffic: [{flow: {from: s0/g0, to: s1/g0, size: 1MiB}}]\n"
	}
	// the rate in Gb/s that pkts packets of 4134 bytes allow per round
	// trip of 2 × delay + 70 bytes' serialization + 500 ns.
	perRTT := func(pkts int, delayNs, gbps float64) float64 {
		rtt := 2*delayNs + 70*8/gbps + 500
		return float64(pkts) * 4134 * 8 / rtt
	}
	for _, c := range []struct {
		name, src string
		want      []string // substrings of the one warning; none: no warning
	}{
		// 31 packets cover 125,070 bytes: 2015 blocks, 126 KiB; 64 KiB
		// covers links of (62,010 × 8 / 400 Gb/s − 501.4 ns) / 2 = 369 ns.
		{"NDR at 1 us: vl_buffer lifts it", rail("{rate: NDR, delay: 1us}", "{link_layer: infiniband}"), []string{
			"t.yaml:1:77: topology.link: 12 links are credit-limited: the credit round trip, (2 × 1us + a packet's first 64 bytes + the receiving switch's cut-through latency, 500ns) × 400Gbps = 125070 bytes, exceeds what a VL's buffer holds, 65536 bytes (switch.ib.vl_buffer: 15 packets of 4134 bytes), so one VL runs at most " +
				fmt.Sprintf("%.1f", perRTT(15, 1000, 400)) + " Gb/s of 400Gbps (buffer / round trip); switch.ib.vl_buffer: 126KiB runs it at line rate (at most 128KiB, what 12-bit credits grant), or links of at most 369ns"}},
		// 1.2 µs: 145,070 bytes, past what 128 KiB holds (31 × 4134 =
		// 128,154), which covers links of (2563.1 − 501.4 ns) / 2.
		{"NDR at 1.2 us: 128 KiB is not enough", rail("{rate: NDR, delay: 1.2us}", "{link_layer: infiniband}"), []string{
			"= 145070 bytes", fmt.Sprintf("at most %.1f Gb/s", perRTT(15, 1200, 400)),
			"switch.ib.vl_buffer: 128KiB, the most a VL's 12-bit credits grant, raises it to " + fmt.Sprintf("%.1f", perRTT(31, 1200, 400)) +
				" Gb/s; line rate needs links of at most 1.031us with 128KiB, or, for a long haul, two range extenders (range_extender), whose own buffer covers it"}},
		// XDR at 250 ns: 100,070 bytes; 25 packets, 102
		// KiB; 64 KiB covers (620.1 − 500.7 ns) / 2 = 60 ns.
		{"XDR at 250 ns", rail("{rate: XDR, delay: 250ns}", "{link_layer: infiniband}"), []string{
			"= 100070 bytes", fmt.Sprintf("at most %.1f Gb/s", perRTT(15, 250, 800)), "switch.ib.vl_buffer: 102KiB runs it at line rate (at most 128KiB, what 12-bit credits grant), or links of at most 60ns"}},
		{"NDR at 1 us with 128 KiB", rail("{rate: NDR, delay: 1us}", "{link_layer: infiniband, ib: {vl_buffer: 128KiB}}"), nil},
		{"NDR at 250 ns", rail("{rate: NDR, delay: 250ns}", "{link_layer: infiniband}"), nil},
		// The rail-optimized generator's default links, 400 Gb/s and
		// 250 ns: (500 + 1.4 + 500 ns) × 50 GB/s = 50,070 bytes.
		{"the generator's default links", rail("{}", "{link_layer: infiniband}"), nil},
		{"NDR at 1 us on Ethernet (PFC: no credits)", rail("{rate: NDR, delay: 1us}", "{}"), nil},
		// Within 5% of the line rate is not warned: at 390 ns the round
		// trip is 64,070 bytes against 62,010, one VL at 96.8%.
		{"within 5%", rail("{rate: NDR, delay: 390ns}", "{link_layer: infiniband}"), nil},
		// The long haul between two range extenders takes its buffer's
		// share per VL: 1 MiB over 8 VLs is 128 KiB, short of (100 µs +
		// 5.6 ns + 500 ns of the extender's cut-through latency) × 12.5
		// GB/s; 304 packets of 65 blocks are 1235 KiB a VL.
		{"range extenders: a buffer short of the long haul", strings.Replace(rangeExtenderScenario, "buffer: 16MiB", "buffer: 1MiB", 2), []string{
			"t.yaml:9:31: topology.links[2]: link x0->x1 is credit-limited:", "(2 × 50us + a packet's first 64 bytes + the receiving switch's cut-through latency, 500ns) × 100Gbps = 1256320 bytes",
			"holds, 131072 bytes (range_extender.buffer over 8 data VLs: 31 packets of 4134 bytes)",
			"range_extender.buffer: 9880KiB (1235KiB a VL) runs it at line rate"}},
		// An explicit topology's identical links are one line, at the
		// first's declaration: (20 µs + 5.6 ns + 500 ns) × 12.5 GB/s.
		{"explicit links grouped", "topology: {kind: explicit, hosts: [h0, h1, h2], switches: [s0], link: {rate: 100Gbps, delay: 10us}, links: [[h0, s0], [h1, s0], [h2, s0]]}\nswitch: {link_layer: infiniband}\ntraffic: [{flow: {from: h0, to: h1, size: 1MiB}}]\n", []string{
			"t.yaml:1:109: topology.links[0]: 3 links are credit-limited", "× 100Gbps = 256320 bytes"}},
		// CBFC: 256 KiB over 50 µs (the uec-cbfc-long-link example):
		// 4178-byte frames (a 4096-byte WRITE Only with immediate, header
		// to FCS), 66 credits each, 62 frames, (100 µs + 334 ns + 500 ns)
		// × 100 Gb/s = 1,260,428 bytes; 20.6 Gb/s, the example's "about
		// 20 Gb/s of 100".
		{"CBFC over 50 us", "topology: {kind: dumbbell, left: 1, right: 1, bottleneck: {delay: 50us}}\nswitch: {cbfc: {buffer: 256KiB}}\ntraffic: [{flow: {from: h0, to: h1, size: 1MiB}}]\n", []string{
			"topology.bottleneck: link s0->s1 is credit-limited", "= 1260428 bytes", "a traffic class's buffer holds, 262144 bytes (switch.cbfc.buffer: 62 packets of 4178 bytes), so one class runs at most 20.6 Gb/s",
			"switch.cbfc: {buffer: 1246KiB} runs it at line rate"}},
		{"CBFC at 1 us", "topology: {kind: star, hosts: 2}\nswitch: {cbfc: true}\ntraffic: [{flow: {from: h0, to: h1, size: 1MiB}}]\n", nil},
	} {
		got := creditWarnings(t, c.src)
		if c.want == nil {
			if len(got) != 0 {
				t.Errorf("%s: %q, want no credit warning", c.name, got)
			}
			continue
		}
		if len(got) != 1 {
			t.Errorf("%s: %d credit warnings %q, want one", c.name, len(got), got)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got[0], w) {
				t.Errorf("%s:\n%s\nwant it to hold\n%s", c.name, got[0], w)
			}
		}
	}

	// The ib-range-extender example: its plain 10 km link is credit-limited,
	// as it means to show (about 5 Gb/s of 100), and warned of; the long
	// haul between its extenders (16 MiB over 8 VLs) is not.
	ex, err := LoadExample("ib-range-extender")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range ex.Warnings {
		if strings.Contains(w.Msg, "credit-limited") {
			got = append(got, w.Msg)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "topology.links[6]: link sa1->sb1 is credit-limited") || !strings.Contains(got[0], "at most 4.9 Gb/s") {
		t.Errorf("ib-range-extender: %q, want one warning, of sa1->sb1 at 4.9 Gb/s", got)
	}
}
