package assembly

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/cm"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/hca"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// TestIWARPGoodput: one iWARP WRITE flow without loss delivers, once
// past slow start, rate × MTU / (MTU + overhead) within 1% (the issue's
// closed form): overhead per segment is preamble and gap 20, Ethernet
// 14, IPv4 20, TCP 20, MPA's length 2, DDP/RDMAP's tagged header 14,
// MPA's CRC 4 and the FCS 4 (98 bytes), plus TCP's timestamps option 12
// when on, or less the CRC 4 when off. An overlay (eRDMA's VPC) adds
// its outer Ethernet 14, IPv4 20, UDP 8 and VXLAN 8 (RFC 7348 §5: 50
// bytes; the 100·4096/(4194+50) Gb/s), or Geneve's base 8
// (RFC 8926 §3.4) and its options. A connection rdma_cm makes
// (connect: cm: TCP's handshake and MPA's exchange, hca's iwconn.go)
// costs its set-up once, about 1.8 ms of QP commands here, and then
// runs at the same rate: measured from 2.2 ms.
func TestIWARPGoodput(t *testing.T) {
	for _, tc := range []struct {
		tcp, op  string
		mtu      int
		overhead int
		overlay  string
		cm       bool
	}{
		{"{}", "write", 4096, 98, "", false},
		{"{}", "write", 1024, 98, "", false},
		{"{timestamps: true}", "write", 4096, 110, "", false},
		{"{mpa_crc: false, cc: cubic}", "write", 4096, 94, "", false},
		// READ responses are tagged segments as WRITEs are, on the
		// responder's own stream (its TCP, its window).
		{"{}", "read", 4096, 98, "", false},
		{"{cc: dctcp}", "read", 4096, 98, "", false},
		{"{}", "write", 4096, 98 + 50, "{encap: vxlan, vni: 100}", false},
		{"{}", "write", 1024, 98 + 50, "{encap: vxlan, vni: 100, source_port: 50000}", false},
		{"{}", "read", 4096, 98 + 50, "{encap: vxlan, vni: 7}", false},
		{"{}", "write", 4096, 98 + 50 + 16, "{encap: geneve, vni: 100, options: 16}", false},
		{"{}", "write", 4096, 98 + 50, "{encap: vxlan, vni: 100}", true},
		{"{}", "write", 4096, 98, "", true},
	} {
		overlay, connect := "", "instant"
		if tc.overlay != "" {
			overlay = ", overlay: " + tc.overlay
		}
		t1, t2 := 200*sim.Microsecond, 2*sim.Millisecond
		if tc.cm {
			connect, t1, t2 = "cm", 2200*sim.Microsecond, 4*sim.Millisecond
		}
		sc := mustParse(t, fmt.Sprintf(`
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {transport: iwarp, mtu: %d, tcp: %s%s}
traffic:
  - flow: {from: h0, to: h1, size: 1GiB, op: %s, connect: %s}
`, tc.mtu, tc.tcp, overlay, tc.op, connect))
		n, err := Build(sc)
		if err != nil {
			t.Fatal(err)
		}
		n.Eng.Run(t1, nil)
		d1 := n.Flows[0].DeliveredBytes()
		n.Eng.Run(t2, nil)
		got := float64(n.Flows[0].DeliveredBytes()-d1) * 8 / (t2 - t1).Seconds()
		want := 100e9 * float64(tc.mtu) / float64(tc.mtu+tc.overhead)
		if math.Abs(got-want)/want > 0.01 {
			t.Errorf("%s, tcp %s%s, MTU %d, connect: %s: goodput %.3f Gb/s, want %.3f ± 1%%", tc.op, tc.tcp, overlay, tc.mtu, connect, got/1e9, want/1e9)
		}
		t.Logf("%s, tcp %s%s, MTU %d, connect: %s: goodput %.3f Gb/s, closed form %.3f (%+.3f%%)", tc.op, tc.tcp, overlay, tc.mtu, connect, got/1e9, want/1e9, 100*(got-want)/want)
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
		{top + "hca: {transport: iwarp}\ntraffic:\n  - perftest: {test: atomic_bw, from: h0, to: h1}\n", "iWARP has no atomics"},
		{top + "hca: {transport: iwarp}\ntraffic:\n  - mckey: {sender: h0, receivers: [h1]}\n", "mckey sends UD multicast"},
		{top + "hca: {transport: iwarp, cc: dcqcn}\n", "t.yaml:2:29: hca.cc: on iWARP the congestion control is TCP's"},
		{top + "hca: {transport: iwarp, retransmit: selective}\n", "hca.retransmit: on iWARP, TCP recovers lost segments"},
		{top + "hca: {tcp: {cc: cubic}}\n", "t.yaml:2:12: hca.tcp: hca.tcp configures the TCP an iWARP NIC runs"},
		{top + "switch: {link_layer: infiniband}\nhca: {transport: iwarp}\n", "hca.transport: iwarp runs RDMA over TCP on Ethernet"},
		{top + "hca: {transport: iwarp, tcp: {cc: bbr}}\n", "hca.tcp.cc"},
		{top + "hca: {transport: iwarp, bdp_cap: auto}\n", "t.yaml:2:34: hca.bdp_cap: on iWARP, TCP recovers"},
		{top + "hca: {transport: iwarp, rnr_retry: 7}\n", "t.yaml:2:36: hca.rnr_retry: iWARP has no RNR NAK"},
		{top + "hca: {transport: iwarp, tcp: {mpa_markers: true}}\nobserve: {pcap: [h0]}\n", "t.yaml:3:18: observe.pcap: captures write iWARP's FPDUs without MPA markers"},
	} {
		_, err := resolve.Parse("t.yaml", []byte(tc.src))
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

// TestIWARPReadDoneBeforeItsACK runs issue 45's random scenario of seed
// 62763 (metamorphic's case panic-62763): on two switches, a
// perftest of 1-byte READs at priority 0 beside a 256 MiB READ flow at
// priority 3, which the switch serves first (strict priority) and which
// fills the requester's link from about 18 µs: the perftest's last ACKs
// and responses wait behind it. A READ whose response came before the
// wait, but not its request's ACK, completed and left the send queue;
// at 218 µs the requester's retransmission timer (RTO 200 µs) resent its
// request and looked it up in the send queue: index out of range.
// Now, on one worker and on two, with the same outputs: the run
// conserves every packet and byte; at 280 µs the READ flow has delivered
// within 90% to 100% of the line's goodput for that time (100 Gb/s ×
// 4096 / (4096 + 98), TestIWARPGoodput's closed form) and the READ's
// request has gone again, which the perftest's server took as a
// duplicate (once); and when the flow is shortened to 8 MiB, both run to
// the end: the flow delivers every byte and the perftest its 1,000
// iterations.
func TestIWARPReadDoneBeforeItsACK(t *testing.T) {
	const found = `
name: meta-62763-steady
seed: 62763
stop: {at: 280us}
topology:
  kind: explicit
  hosts: [h0, h1, h2, h3, h4, h5]
  switches: [s0, s1]
  link: {rate: 100Gbps, delay: 1us}
  links:
    - [h0, s0]
    - [h1, s0]
    - [h2, s0]
    - [h3, s1]
    - [h4, s1]
    - [h5, s1]
    - [s0, s1]
  routing: ecmp
switch:
  forwarding: cut-through
hca:
  transport: iwarp
  tcp: {rto_min: 200us, sack: true, delayed_ack: 0}
traffic:
  - perftest: {from: h1, to: h5, test: read_bw, size: 1, priority: 0, iterations: 100000}
  - flow: {from: h1, to: h2, op: read, size: 256MiB}
`
	shortened := strings.NewReplacer("stop: {at: 280us}\n", "", "iterations: 100000", "iterations: 1000", "size: 256MiB", "size: 8MiB").Replace(found)
	for _, tc := range []struct {
		name string
		src  string
		end  bool // the shortened run, to the end
	}{
		{"as found, to 280 µs", found, false},
		{"8 MiB and 1000 iterations, to the end", shortened, true},
	} {
		var first []byte
		for _, workers := range []int{1, 2} {
			what := fmt.Sprintf("%s, %d workers", tc.name, workers)
			n, res := runConserved(t, what, "meta-62763.yaml", tc.src, workers)
			sum := res.Summary
			txt := res.Extra["perftest.txt"]
			flow := res.Flows[0]
			if tc.end {
				if flow.Status != "success" || flow.DeliveredBytes != 8<<20 {
					t.Errorf("%s: the READ flow is %s with %d bytes, want success with 8 MiB", what, flow.Status, flow.DeliveredBytes)
				}
				if !regexp.MustCompile(`(?m)^ 1 +1000 `).Match(txt) {
					t.Errorf("%s: perftest did not report its 1000 iterations:\n%s", what, txt)
				}
			} else {
				bound := (280 * sim.Microsecond).Seconds() * 100e9 * 4096 / (4096 + 98) / 8
				if d := float64(flow.DeliveredBytes); d < 0.9*bound || d > bound {
					t.Errorf("%s: the READ flow delivered %.0f bytes, want within 90%% to 100%% of %.0f", what, d, bound)
				}
				if !bytes.Contains(txt, []byte(" incomplete: ")) {
					t.Errorf("%s: want perftest under way:\n%s", what, txt)
				}
				var client, server *hcaStats
				for _, h := range n.HCAs {
					switch {
					case h == nil:
					case h.Name == "h1":
						client = &hcaStats{h.Stats.Timeouts, h.Stats.Retransmitted, h.Stats.Duplicates}
					case h.Name == "h5":
						server = &hcaStats{h.Stats.Timeouts, h.Stats.Retransmitted, h.Stats.Duplicates}
					}
				}
				if client == nil || server == nil || client.timeouts < 1 || client.resent < 1 || server.duplicates != 1 {
					t.Errorf("%s: the client %+v, the server %+v; want the client's request resent after a timeout, a duplicate at the server", what, client, server)
				}
			}
			lines := strings.Split(strings.TrimSpace(string(txt)), "\n")
			t.Logf("%s: READ flow %s, %d bytes; %d packets resent; perftest: %s", what, flow.Status, flow.DeliveredBytes, sum.Packets.Retransmitted, strings.TrimSpace(lines[len(lines)-2]))
			sum.WallSeconds = 0
			b, err := json.Marshal(sum)
			if err != nil {
				t.Fatal(err)
			}
			b = append(append(b, txt...), fmt.Sprint(res.Flows)...)
			if first == nil {
				first = b
			} else if !bytes.Equal(b, first) {
				t.Errorf("%s: the summary, perftest's report or the flows differ from one worker's", what)
			}
		}
	}
}

// hcaStats are the counters TestIWARPReadDoneBeforeItsACK reads.
type hcaStats struct{ timeouts, resent, duplicates int64 }

// TestIWARPConnectCM: a flow with connect: cm on iWARP connects with
// rdma_cm over iw_cm (cm's iwarp.go, hca's iwconn.go): eight QP commands
// and two upcalls, as over CM MADs (TestConnectCM), and the NIC's own
// connection on the wire: the SYN and SYN-ACK, the ACK's serialization
// ahead of the MPA Request, the Request and the Reply, each one-way time
// the wire's and the receiving NIC's RxPktLatency (the NIC makes these
// segments: no doorbell, fetch or DMA), two round trips where RoCE's
// REQ and REP make one. The WRITE then takes what it takes connected out
// of band (its RTR, 130 bytes, goes first: within 100 ns), so the FCT is
// the sum; rdma_cm's programs (rdma_server and rdma_client, perftest's
// -R, rping) run on iWARP too.
func TestIWARPConnectCM(t *testing.T) {
	const base = "stop: {at: 20ms, when: flows-done}\ntopology: {kind: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}\nhca: {transport: iwarp}\ntraffic:\n"
	_, inst := runSource(t, "i.yaml", base+"  - flow: {from: h0, to: h1, size: 1MiB}\n")
	n, r := runSource(t, "c.yaml", base+"  - flow: {from: h0, to: h1, size: 1MiB, connect: cm}\n  - flow: {from: h2, to: h1, size: 1MiB, connect: cm, start: 5ms}\n")
	p := cm.DefaultProfile()
	hp := hca.DefaultProfile()
	ow := func(frame int) sim.Time {
		return 2*fabric.SerializationTime(int64(frame+fabric.PreambleIFGBytes), 100*fabric.Gbps) + 2*sim.Microsecond + n.Switches[0].Prof.Latency + hp.RxPktLatency
	}
	mpa := fabric.MPA{CRC: true}
	syn := fabric.SetupFrame(fabric.StepSYN, mpa, false, false, 0, 0)
	req := fabric.SetupFrame(fabric.StepMPARequest, mpa, false, false, fabric.MPAv2ParamsBytes, 4) // the flow's id
	rep := fabric.SetupFrame(fabric.StepMPAReply, mpa, false, false, fabric.MPAv2ParamsBytes, 0)
	ack := fabric.SerializationTime(int64(fabric.TCPAckWire(false, false)), 100*fabric.Gbps)
	want := (8*p.QPCommand + 2*p.MADProcessing + 2*ow(syn) + ack + ow(req) + ow(rep)).Nanoseconds()
	for _, f := range r.Flows {
		if f.Status != "success" || !f.CM || f.ConnectNs != want {
			t.Errorf("flow %d: %s, connect_ns %d; want success in %d", f.ID, f.Status, f.ConnectNs, want)
		}
		if d := f.FCTNs - (f.ConnectNs + inst.Flows[0].FCTNs); d < -100 || d > 100 {
			t.Errorf("flow %d: FCT %d ns; want connect_ns %d + the instant flow's %d", f.ID, f.FCTNs, f.ConnectNs, inst.Flows[0].FCTNs)
		}
	}
	if c := r.Summary.Connections; c == nil || c.Requested != 2 || c.Established != 2 || c.SetupMaxNs != want || c.MADs != 0 {
		t.Errorf("summary.json connections: %+v", c)
	}
	_, e := runSource(t, "e.yaml", base+"  - rdma_server: {host: h1}\n  - rdma_client: {host: h0, server: h1, start: 1us}\n"+
		"  - perftest: {test: read_bw, from: h0, to: h2, size: 64KiB, iterations: 200, connect: cm}\n  - rping: {client: h2, server: h1, count: 3, connect: cm}\n")
	got := string(e.Extra["perftest.txt"])
	for _, w := range []string{"rdma_client: start\nrdma_client: end 0\n", "rdma_server: start\nrdma_server: end 0\n", " 65536      200  ", "server ping data: rdma-ping-2: ", "client DISCONNECT EVENT..."} {
		if !strings.Contains(got, w) {
			t.Errorf("perftest.txt lacks %q:\n%s", w, got)
		}
	}
}

// TestIWARPCaptureWarnsOutOfBand: connections made out of band
// (connect: instant) are warned of at observe.pcap on iWARP, since
// Wireshark decodes MPA only on a connection whose Request and Reply it
// has seen; connect: cm connections are not, nor a run with no capture.
func TestIWARPCaptureWarnsOutOfBand(t *testing.T) {
	const top = "topology: {kind: star, hosts: 2}\nhca: {transport: iwarp}\n"
	for _, tc := range []struct {
		src  string
		warn string
	}{
		{top + "traffic:\n  - flow: {from: h0, to: h1, size: 1KiB, connect: cm}\nobserve: {pcap: [h0]}\n", ""},
		{top + "traffic:\n  - flow: {from: h0, to: h1, size: 1KiB}\n  - flow: {from: h0, to: h1, size: 1KiB, connect: cm}\n  - pingpong: {from: h0, to: h1}\nobserve: {pcap: [h0]}\n",
			"t.yaml:7:18: observe.pcap: 2 of the traffic's connections are made out of band (connect: instant): Wireshark decodes iWARP's MPA"},
		{top + "traffic:\n  - flow: {from: h0, to: h1, size: 1KiB}\n", ""},
	} {
		sc, err := resolve.Parse("t.yaml", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		var warned []string
		for _, w := range sc.Warnings {
			warned = append(warned, w.Error())
		}
		w := strings.Join(warned, "\n")
		if tc.warn == "" && strings.Contains(w, "out of band") || tc.warn != "" && !strings.Contains(w, tc.warn) {
			t.Errorf("%s: warnings %q, want %q", tc.src, w, tc.warn)
		}
	}
}
