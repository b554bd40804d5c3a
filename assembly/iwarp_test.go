package assembly

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/sim"
)

// TestIWARPGoodput: one iWARP WRITE flow without loss delivers, once
// past slow start, rate × MTU / (MTU + overhead) within 1% (the issue's
// closed form): overhead per segment is preamble and gap 20, Ethernet
// 14, IPv4 20, TCP 20, MPA's length 2, DDP/RDMAP's tagged header 14,
// MPA's CRC 4 and the FCS 4 (98 bytes), plus TCP's timestamps option 12
// when on, or less the CRC 4 when off.
func TestIWARPGoodput(t *testing.T) {
	for _, tc := range []struct {
		tcp, op  string
		mtu      int
		overhead int
	}{
		{"{}", "write", 4096, 98},
		{"{}", "write", 1024, 98},
		{"{timestamps: true}", "write", 4096, 110},
		{"{mpa_crc: false, cc: cubic}", "write", 4096, 94},
		// READ responses are tagged segments as WRITEs are, on the
		// responder's own stream (its TCP, its window).
		{"{}", "read", 4096, 98},
		{"{cc: dctcp}", "read", 4096, 98},
	} {
		sc := mustParse(t, fmt.Sprintf(`
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {transport: iwarp, mtu: %d, tcp: %s}
traffic:
  - flow: {from: h0, to: h1, size: 1GiB, op: %s}
`, tc.mtu, tc.tcp, tc.op))
		n, err := Build(sc)
		if err != nil {
			t.Fatal(err)
		}
		t1, t2 := 200*sim.Microsecond, 2*sim.Millisecond
		n.Eng.Run(t1, nil)
		d1 := n.Flows[0].DeliveredBytes()
		n.Eng.Run(t2, nil)
		got := float64(n.Flows[0].DeliveredBytes()-d1) * 8 / (t2 - t1).Seconds()
		want := 100e9 * float64(tc.mtu) / float64(tc.mtu+tc.overhead)
		if math.Abs(got-want)/want > 0.01 {
			t.Errorf("%s, tcp %s, MTU %d: goodput %.3f Gb/s, want %.3f ± 1%%", tc.op, tc.tcp, tc.mtu, got/1e9, want/1e9)
		}
		t.Logf("%s, tcp %s, MTU %d: goodput %.3f Gb/s, closed form %.3f (%+.3f%%)", tc.op, tc.tcp, tc.mtu, got/1e9, want/1e9, 100*(got-want)/want)
	}
}

// TestIWARPRefuses: what iWARP cannot do is refused at load, with the
// position and the reason.
func TestIWARPRefuses(t *testing.T) {
	const top = "topology: {kind: star, hosts: 2}\n"
	for _, tc := range []struct{ src, want string }{
		{top + "hca: {transport: iwarp}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB, qp: ud, op: send}\n", "t.yaml:4:46: traffic[0].flow.qp: iWARP has only reliable connections (RC over TCP), not ud"},
		{top + "hca: {transport: iwarp}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB, op: atomic}\n", "traffic[0].flow.op: iWARP's RDMAP (RFC 5040) has no atomic"},
		{top + "hca: {transport: iwarp}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB, op: write_imm}\n", "has no write_imm"},
		{top + "hca: {transport: iwarp}\ntraffic:\n  - flow: {from: h0, to: h1, size: 1KiB, connect: cm}\n", "traffic[0].flow.connect: iWARP's connection manager"},
		{top + "hca: {transport: iwarp}\ntraffic:\n  - perftest: {test: atomic_bw, from: h0, to: h1}\n", "iWARP has no atomics"},
		{top + "hca: {transport: iwarp}\ntraffic:\n  - mckey: {sender: h0, receivers: [h1]}\n", "mckey sends UD multicast"},
		{top + "hca: {transport: iwarp, cc: dcqcn}\n", "t.yaml:2:29: hca.cc: on iWARP the congestion control is TCP's"},
		{top + "hca: {transport: iwarp, retransmit: selective}\n", "hca.retransmit: on iWARP, TCP recovers lost segments"},
		{top + "hca: {tcp: {cc: cubic}}\n", "t.yaml:2:12: hca.tcp: hca.tcp configures the TCP an iWARP NIC runs"},
		{top + "switch: {link_layer: infiniband}\nhca: {transport: iwarp}\n", "hca.transport: iwarp runs RDMA over TCP on Ethernet"},
		{top + "hca: {transport: iwarp, tcp: {cc: bbr}}\n", "hca.tcp.cc"},
		{top + "hca: {transport: iwarp, bdp_cap: auto}\n", "t.yaml:2:34: hca.bdp_cap: on iWARP, TCP recovers"},
		{top + "hca: {transport: iwarp, rnr_retry: 7}\n", "t.yaml:2:36: hca.rnr_retry: iWARP has no RNR NAK"},
		{top + "hca: {transport: iwarp}\nobserve: {pcap: [h0]}\n", "t.yaml:3:18: observe.pcap: captures write RoCE's and InfiniBand's frames; iWARP's TCP segments are not written yet"},
	} {
		_, err := Parse("t.yaml", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestIWARPDevInfo: ibv_devinfo on an iWARP NIC says so, with no
// atomics and its MAC as its GID (as iw_cxgb4 reports them).
func TestIWARPDevInfo(t *testing.T) {
	sc := mustParse(t, "topology: {kind: star, hosts: 2}\nhca: {transport: iwarp}\n")
	h, _ := sc.Topology.Lookup("h0")
	out := sc.DevInfo(h, true)
	for _, want := range []string{"\ttransport:\t\t\tiWARP (1)\n", "\tatomic_cap:\t\t\tATOMIC_NONE (0)\n", "\t\t\tGID[  0]:\t\t200:1::\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("devinfo lacks %q:\n%s", want, out)
		}
	}
}

// TestIWARPSeries: an iWARP flow's TCP shows as window_bytes (cwnd) and
// rtt_us (SRTT) per flow, and not as a rate (rc_gbps: TCP has none);
// flow_gbps counts a READ's data where it lands, at the requester. In a
// 4-to-1 incast of WRITEs, and in four READs of h4's memory (their
// responses the same incast, on h4's own streams), under DCTCP: the SRTT
// lies between the path's base RTT and that plus the queue K (100 KB)
// drains in at 100 Gb/s, with room for the NIC's latencies (10 µs); the
// window never falls below DCTCP's floor of one segment (it may grow past
// the 128 KiB send window, which bounds the flight, not cwnd); the four
// flows share the 100 Gb/s link (each over 15 Gb/s on average).
func TestIWARPSeries(t *testing.T) {
	for _, tc := range []struct{ name, traffic string }{
		{"write", "  - incast: {to: h4, from: all, size: 64MiB}\n"},
		{"read", "  - flow: {from: h0, to: h4, size: 64MiB, op: read}\n  - flow: {from: h1, to: h4, size: 64MiB, op: read}\n" +
			"  - flow: {from: h2, to: h4, size: 64MiB, op: read}\n  - flow: {from: h3, to: h4, size: 64MiB, op: read}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := mustParse(t, `
stop: {at: 2ms}
topology: {kind: star, hosts: 5, link: {rate: 100Gbps, delay: 1us}}
switch: {pfc: {priorities: []}}
hca: {transport: iwarp, tcp: {cc: dctcp}}
traffic:
`+tc.traffic)
			n, err := Build(sc)
			if err != nil {
				t.Fatal(err)
			}
			res := n.Run(nil)
			base := n.pathOf(n.Flows[0].Flow, n.Flows[0].Live.Requester).baseRTT(4096)
			counts := map[string]int{}
			gbps := map[string]float64{}
			for _, line := range strings.Split(string(res.Series.CSV()), "\n") {
				f := strings.Split(line, ",")
				if len(f) != 4 || !strings.HasPrefix(f[2], "flow:") {
					continue
				}
				var v float64
				fmt.Sscan(f[3], &v)
				switch f[1] {
				case "rtt_us":
					if lo, hi := base.Seconds()*1e6, base.Seconds()*1e6+100e3*8/100e9*1e6+10; v < lo || v > hi {
						t.Errorf("rtt_us %s = %.2f, want %.2f..%.2f", f[2], v, lo, hi)
					}
				case "window_bytes":
					if v < 4096 || math.IsInf(v, 0) || math.IsNaN(v) {
						t.Errorf("window_bytes %s = %v", f[2], v)
					}
				case "flow_gbps":
					gbps[f[2]] += v
				}
				counts[f[1]+" "+f[2]]++
			}
			for id := 0; id < 4; id++ {
				where := fmt.Sprintf("flow:%d", id)
				for _, m := range []string{"rtt_us", "window_bytes"} {
					if c := counts[m+" "+where]; c < 190 {
						t.Errorf("%s of flow %d: %d samples, want about 200", m, id, c)
					}
				}
				if c := counts["rc_gbps "+where]; c != 0 {
					t.Errorf("flow %d has %d rc_gbps samples; TCP has no rate", id, c)
				}
				if mean := gbps[where] / float64(max(1, counts["flow_gbps "+where])); mean < 15 {
					t.Errorf("flow %d: mean flow_gbps %.1f, want over 15", id, mean)
				}
			}
		})
	}
}

// TestIWARPPerftestRead: ib_read_bw on iWARP prints perftest's header
// for an iWARP device (Transport type : IW, as perftest's transport_str
// has it) and reaches, over the 64 KiB READs of a 1000-iteration run
// with its first round trip, within 1% of the closed form of READ
// responses as tagged segments (4096 B each with 98 B of headers and
// MPA's CRC: 97.66 Gb/s).
func TestIWARPPerftestRead(t *testing.T) {
	sc := mustParse(t, `
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {transport: iwarp}
traffic:
  - perftest: {test: read_bw, from: h0, to: h1}
`)
	n, err := Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	res := n.Run(nil)
	txt := string(res.Extra["perftest.txt"])
	if !strings.Contains(txt, "Transport type : IW\n") {
		t.Errorf("header lacks Transport type : IW:\n%s", txt)
	}
	want := 100 * 4096.0 / (4096 + 98)
	if got := n.Tests[0].Perftest.BWResult().AvgGbps; math.Abs(got-want)/want > 0.01 {
		t.Errorf("read_bw BW average %.2f Gb/s, want %.2f ± 1%%", got, want)
	}
}
