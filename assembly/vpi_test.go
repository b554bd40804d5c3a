package assembly

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/sim"
)

// vpiPair is SCENARIO.md's VPI contract: two hosts, each with an
// InfiniBand port (port 1, on ib0) and an Ethernet port (port 2, on
// eth0), and a 64 MiB WRITE on each port at once.
const vpiPair = `
stop: {at: 20ms, when: flows-done}
topology:
  kind: explicit
  hosts: [h0, h1]
  switches:
    - {name: ib0, switch: {link_layer: infiniband}}
    - {name: eth0, switch: {link_layer: ethernet}}
  link: {rate: 100Gbps, delay: 1us}
  links: [[h0, ib0], [h1, ib0], [h0, eth0], [h1, eth0]]
traffic:
  - flow: {from: h0, to: h1, size: 64MiB}
  - flow: {from: h0, to: h1, size: 64MiB, port: 2}
`

// TestVPITwoFabricsAtOnce: a VPI pair's two ports run at once, each at
// its own fabric's closed form within 0.5% (the brief asks 1%; the two
// differ by 1.35%, so either bound fails a port framed as the other's):
// the InfiniBand port at 100 × 4096 / 4122 Gb/s (LRH, BTH, ICRC, VCRC:
// TestIBWriteGoodput's framing), the Ethernet port at 100 × 4096 / 4178
// Gb/s (Ethernet, IPv4, UDP, BTH, ICRC, FCS, preamble and gap:
// TestSingleFlowLineRate's), each with its first packet's RETH. The
// InfiniBand side is held by credits (flow-control packets, no PFC
// frame); every byte and packet is accounted for.
func TestVPITwoFabricsAtOnce(t *testing.T) {
	sc := mustParse(t, vpiPair)
	_, sum, rows := mustRun(t, sc)
	assertConserved(t, "vpi", sum)
	const size = 64 << 20
	pkts := float64(size / 4096)
	for i, c := range []struct {
		src  string
		wire int
	}{{"h0", fabric.IBWire(fabric.OpWriteMiddle, 4096, false)}, {"h0/2", fabric.RoCEv2Wire(fabric.OpWriteMiddle, 4096)}} {
		want := 100e9 * size / (pkts*float64(c.wire) + fabric.RETHBytes)
		got := size * 8 / (float64(rows[i].FCTNs) * 1e-9)
		if rows[i].Src != c.src || rows[i].Status != "success" || math.Abs(got-want)/want > 0.005 {
			t.Errorf("flow %d from %s: %s, %.3f Gb/s; want from %s at %.3f Gb/s within 0.5%%", i, rows[i].Src, rows[i].Status, got/1e9, c.src, want/1e9)
		}
	}
	if w := fabric.IBWire(fabric.OpWriteMiddle, 4096, false); w != 4122 {
		t.Errorf("an InfiniBand MTU packet is %d bytes on the wire, want 4122", w)
	}
	if w := fabric.RoCEv2Wire(fabric.OpWriteMiddle, 4096); w != 4178 {
		t.Errorf("a RoCEv2 MTU packet is %d bytes on the wire, want 4178", w)
	}
	if fc := sum.Conservation.FCPackets.Made; fc == 0 || sum.PFC.PauseFrames != 0 {
		t.Errorf("%d flow-control packets, %d PAUSE frames; want the InfiniBand side's credits and no PAUSE", fc, sum.PFC.PauseFrames)
	}
	if sum.Deadlock.Detected {
		t.Error("a deadlock detected on two flows that complete")
	}
}

// TestVPIHostBandwidth: with hca.host_bandwidth narrower than the two
// ports' sum, the adapter's host interface holds their payload to it:
// the VPI pair's two flows move 2 × 64 MiB in the time the host
// interface reads it, their sum within 1% of host_bandwidth, each port
// about half (within 5% of it: the interface serves them in turn). Ignored,
// the two would sum to 99.37 + 98.04 = 197.4 Gb/s. At line (the default) a
// single flow is not held (TestVPITwoFabricsAtOnce).
func TestVPIHostBandwidth(t *testing.T) {
	for _, bw := range []float64{150, 120} {
		sc := mustParse(t, vpiPair+fmt.Sprintf("hca: {host_bandwidth: %gGbps}\n", bw))
		_, sum, rows := mustRun(t, sc)
		assertConserved(t, "vpi host_bandwidth", sum)
		const size = 64 << 20
		last := max(rows[0].FCTNs, rows[1].FCTNs)
		got := 2 * size * 8 / (float64(last) * 1e-9) / 1e9
		if math.Abs(got-bw)/bw > 0.01 {
			t.Errorf("host_bandwidth %g Gb/s: the two ports moved %.3f Gb/s together, want %g within 1%%", bw, got, bw)
		}
		for i, r := range rows {
			each := size * 8 / (float64(r.FCTNs) * 1e-9) / 1e9
			if r.Status != "success" || math.Abs(each-bw/2)/(bw/2) > 0.05 {
				t.Errorf("host_bandwidth %g Gb/s: flow %d (%s) %s at %.3f Gb/s, want about %g", bw, i, r.Src, r.Status, each, bw/2)
			}
		}
	}
}

// TestVPIHostBandwidthAboveThePorts: a host interface at least as wide
// as the two ports together holds neither: each port at its own fabric's
// closed form within 0.5%, as TestVPITwoFabricsAtOnce has them at line
// (IB 100 × 4096/4122 = 99.369 Gb/s, RoCEv2 100 × 4096/4178 = 98.037,
// their payload 197.4 Gb/s together, under 200). From the review of
// issue 47 (commit 349affa, TestReviewHostBandwidthAboveThePorts, at
// 400 Gb/s): hostif.go refused a port while the other's read was under
// way, so the InfiniBand port, whose packets end inside the Ethernet
// port's reads, was paced to the Ethernet port's packet rate (97.918 Gb/s
// at 400, not 99.369).
func TestVPIHostBandwidthAboveThePorts(t *testing.T) {
	for _, bw := range []string{"200Gbps", "400Gbps"} {
		sc := mustParse(t, vpiPair+"hca: {host_bandwidth: "+bw+"}\n")
		_, _, rows := mustRun(t, sc)
		const size = 64 << 20
		pkts := float64(size / 4096)
		for i, wire := range []int{fabric.IBWire(fabric.OpWriteMiddle, 4096, false), fabric.RoCEv2Wire(fabric.OpWriteMiddle, 4096)} {
			want := 100e9 * size / (pkts*float64(wire) + fabric.RETHBytes)
			got := size * 8 / (float64(rows[i].FCTNs) * 1e-9)
			if d := (got - want) / want; rows[i].Status != "success" || d < -0.005 || d > 0.005 {
				t.Errorf("host_bandwidth %s: flow %d (%s) %s at %.3f Gb/s, want %.3f within 0.5%%", bw, i, rows[i].Src, rows[i].Status, got/1e9, want/1e9)
			}
		}
	}
}

// TestHostBandwidthOnePort: a one-port adapter whose host interface is
// slower than its link sends at the interface's rate: a 16 MiB WRITE over
// a 100 Gb/s link behind host_bandwidth 50 Gb/s moves its payload at 50
// Gb/s within 1% (its payload is what the interface reads).
func TestHostBandwidthOnePort(t *testing.T) {
	sc := mustParse(t, `
stop: {at: 20ms, when: flows-done}
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {host_bandwidth: 50Gbps}
traffic:
  - flow: {from: h0, to: h1, size: 16MiB}
`)
	_, sum, rows := mustRun(t, sc)
	assertConserved(t, "one port", sum)
	got := 16 << 20 * 8 / (float64(rows[0].FCTNs) * 1e-9) / 1e9
	if rows[0].Status != "success" || math.Abs(got-50)/50 > 0.01 {
		t.Errorf("%s at %.3f Gb/s, want 50 within 1%%", rows[0].Status, got)
	}
}

// TestVPIReportsAndCaptures: on a mixed network topology.json gives each
// node its link layer, lfts.txt holds the InfiniBand switch's table to the
// InfiniBand ports' LIDs only, and each port's capture is its fabric's: h0's
// port 1 (InfiniBand) as ibdump writes it, ERF records (link type 197),
// its port 2 (h0/2, written h0_2.pcap) and the Ethernet switch's port as
// Ethernet (link type 1).
func TestVPIReportsAndCaptures(t *testing.T) {
	files, _ := runFiles(t, strings.Replace(vpiPair, "64MiB", "64KiB", 2)+"observe: {pcap: [h0, h0/2, ib0:p1, eth0:p1]}\n", 1)
	var topo struct {
		Nodes []struct {
			Name      string `json:"name"`
			LinkLayer string `json:"link_layer"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(files["topology.json"], &topo); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"h0": "infiniband", "h1": "infiniband", "ib0": "infiniband", "eth0": "ethernet", "h0/2": "ethernet", "h1/2": "ethernet"}
	for _, n := range topo.Nodes {
		if n.LinkLayer != want[n.Name] {
			t.Errorf("topology.json: %s on %q, want %q", n.Name, n.LinkLayer, want[n.Name])
		}
	}
	// The subnet manager's tables: the InfiniBand switch's, to the
	// InfiniBand ports' LIDs, and nothing of the Ethernet side.
	lfts := string(files["lfts.txt"])
	if want := "Unicast lids [0-6] of switch Lid 3 guid 0x0002c90300000003 ('ib0'):\n0x0001 001 # Channel Adapter portguid 0x0002c90300000001: 'h0'\n0x0002 002 # Channel Adapter portguid 0x0002c90300000002: 'h1'\n0x0003 000 # Switch portguid 0x0002c90300000003: 'ib0'\n6 lids dumped\n"; lfts != want {
		t.Errorf("lfts.txt:\n%s\nwant\n%s", lfts, want)
	}
	for name, link := range map[string]uint32{"h0.pcap": 197, "ib0_p1.pcap": 197, "h0_2.pcap": 1, "eth0_p1.pcap": 1} {
		b := files[name]
		if len(b) < 100 {
			t.Errorf("%s: %d bytes; want a capture", name, len(b))
			continue
		}
		if got := binary.LittleEndian.Uint32(b[20:24]); got != link {
			t.Errorf("%s: link type %d, want %d", name, got, link)
		}
	}
}

// TestVPICreditLoopDetected: the deadlock detector on a mixed network.
// The InfiniBand side is the ib-credit-loop example's ring (seven
// switches, one VL of 16 KiB, each host sending three hops clockwise on
// the subnet manager's minhop tables), its hosts VPI with their Ethernet
// ports on one Ethernet switch, which carries flows of its own. The credit
// loop closes on the InfiniBand ring, and the detector names a cycle of
// ring ports only; nothing of the Ethernet side is in it.
func TestVPICreditLoopDetected(t *testing.T) {
	var b strings.Builder
	b.WriteString("stop: {at: 10ms, when: [flows-done, deadlock]}\nswitch: {ib: {vl_buffer: 16KiB, data_vls: 1}}\ntopology:\n  kind: explicit\n  link: {rate: 100Gbps, delay: 100ns}\n  hosts: [h0, h1, h2, h3, h4, h5, h6]\n  switches: [eth0")
	for i := 0; i < 7; i++ {
		fmt.Fprintf(&b, ", {name: s%d, switch: {link_layer: infiniband}}", i)
	}
	b.WriteString("]\n  links: [")
	for i := 0; i < 7; i++ {
		fmt.Fprintf(&b, "[h%d, s%d], [s%d, s%d], ", i, i, i, (i+1)%7)
	}
	for i := 0; i < 7; i++ {
		fmt.Fprintf(&b, "[h%d, eth0], ", i)
	}
	b.WriteString("]\ntraffic:\n")
	for i := 0; i < 7; i++ {
		fmt.Fprintf(&b, "  - flow: {from: h%d, to: h%d, size: 4MiB}\n  - flow: {from: h%d, to: h%d, size: 256KiB, port: 2}\n", i, (i+3)%7, i, (i+1)%7)
	}
	sc := mustParse(t, b.String())
	_, sum, _ := mustRun(t, sc)
	d := sum.Deadlock
	t.Logf("deadlock at %d ns: %v", d.AtNs, d.Cycle)
	if !d.Detected || len(d.Cycle) == 0 {
		t.Fatalf("no deadlock detected on the InfiniBand ring (stop %s)", sum.StopReason)
	}
	for _, port := range d.Cycle {
		if !strings.HasPrefix(port, "s") {
			t.Errorf("the cycle %v has %s, which is not a ring switch's port", d.Cycle, port)
		}
	}
}

// TestVPIConservationLinkFault: the conservation check on a mixed network
// whose links go down on both sides: a ring of three InfiniBand switches
// and one of three Ethernet switches, four VPI hosts, all-to-all on the
// InfiniBand side and two flows on the Ethernet side, ib0-ib1 down at
// 5 us (two flow-control packets made and never sent: discarded) and
// eth0-eth1 at 30 us (the InfiniBand side's RC flows resend after their
// 67 ms ACK timeout, ack_timeout 14: the subnet manager moves them only
// 1 ms after each change). Every byte, packet and link-control packet is
// accounted for, each discard as its port's link's kind: it counted every
// discard as a PFC frame on an Ethernet network, and so failed here
// ("PFC frames {Made:0 ... Discarded:2} do not add up").
func TestVPIConservationLinkFault(t *testing.T) {
	_, sum, rows := mustRun(t, mustParse(t, `topology:
  kind: explicit
  hosts: [h0, h1, h2, h3]
  switches: [{name: ib0, switch: {link_layer: infiniband}}, {name: ib1, switch: {link_layer: infiniband}}, {name: ib2, switch: {link_layer: infiniband}}, eth0, eth1, eth2]
  links: [[h0, ib0], [h1, ib0], [h2, ib1], [h3, ib1], [ib0, ib1], [ib0, ib2], [ib2, ib1], [h0, eth0], [h1, eth0], [h2, eth1], [h3, eth1], [eth0, eth1], [eth0, eth2], [eth2, eth1]]
stop: {at: 100ms, when: flows-done}
faults:
  - {at: 5us, link: [ib0, ib1], action: down, until: 200us}
  - {at: 30us, link: [eth0, eth1], action: down, until: 300us}
traffic:
  - all_to_all: {size: 256KiB}
  - flow: {from: h0, to: h3, size: 1MiB, port: 2}
  - flow: {from: h3, to: h0, size: 1MiB, port: 2}
`))
	assertConserved(t, "mixed faults", sum)
	if d := sum.Conservation.FCPackets.Discarded; d == 0 {
		t.Errorf("no flow-control packet discarded; the case should discard some (the link goes down under them)")
	}
	for _, r := range rows {
		if r.Status != "success" {
			t.Errorf("flow %d (%s -> %s): %s", r.ID, r.Src, r.Dst, r.Status)
		}
	}
}

// TestVPIOverlayHeadroom: on a VPI pair with hca.overlay, the Ethernet
// switch's headroom for each port facing a host's Ethernet port (h0/2,
// h1/2) is the one the buffer check computed before the build
// (Scenario.PortLinks: the peer's frame with the overlay's 50 bytes),
// 62,950 bytes here. From the review of issue 47 (commit 349affa,
// TestReviewVPIOverlayHeadroom): assemble.go gave a VPI host's second
// port a SenderFrame without the overlay's bytes, and the switch sized
// 62,850.
func TestVPIOverlayHeadroom(t *testing.T) {
	s := mustParse(t, vpiPair+"hca: {overlay: {encap: vxlan, vni: 5}}\n")
	n, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for id, sw := range n.Switches {
		if sw == nil || s.LinkLayerOf(fabric.NodeID(id)) != fabric.Ethernet {
			continue
		}
		maxFrame := s.MaxFrameOf(fabric.NodeID(id))
		for i, l := range s.PortLinks(fabric.NodeID(id), nil) {
			checked++
			if got, want := sw.Prof.PortHeadroom(l, maxFrame), sw.Headroom(i); got != want {
				t.Errorf("%s port %d: headroom %d before the build, %d in the switch", sw.Name, i, got, want)
			}
		}
	}
	if checked != 2 {
		t.Errorf("%d Ethernet switch ports checked, want eth0's 2", checked)
	}
}

// TestVPIFabricFrames: on a mixed network each fabric's switches are
// built for their own fabric's largest frame. An InfiniBand switch's
// ports count credits for the largest InfiniBand packet, a 4096-byte UD
// SEND with immediate (LRH 8, BTH 12, DETH 8, immediate 4, ICRC 4, VCRC
// 2: 4,134 bytes, 65 blocks of 64), even where a host's port 1 is on
// Ethernet (h2, RoCEv2 under VXLAN: 4,228 bytes, 67 blocks); an Ethernet
// switch's headroom takes the Ethernet ports' frame even where every
// host's port 1 is on InfiniBand (the VPI pair). From the review of issue
// 47, defect 9: assemble.go gave every switch the largest frame over the
// hosts' port 1, whatever their fabric, inflating the InfiniBand ports'
// largest packet (and so their low water mark and paused marking) or
// shrinking the Ethernet switch's headroom bound.
func TestVPIFabricFrames(t *testing.T) {
	ibFrame := int64(fabric.IBWire(fabric.TransportUD|fabric.OpSendOnlyImm, 4096, false))
	ethFrame := fabric.MaxRoCEv2Frame(4096) + 50
	if ibFrame != 4134 || fabric.IBPacketBlocks(ibFrame) != 65 || ethFrame != 4228 || fabric.IBPacketBlocks(ethFrame) != 67 {
		t.Fatalf("frames %d and %d bytes (%d and %d blocks); want 4134 (65) and 4228 (67)", ibFrame, ethFrame, fabric.IBPacketBlocks(ibFrame), fabric.IBPacketBlocks(ethFrame))
	}
	const overlay = "hca: {overlay: {encap: vxlan, vni: 5}}\n"
	for _, c := range []struct{ name, src string }{
		{"an Ethernet host's port 1 beside the VPI pair", strings.NewReplacer("hosts: [h0, h1]", "hosts: [h0, h1, h2]", "[h1, eth0]]", "[h1, eth0], [h2, eth0]]").Replace(vpiPair) + overlay},
		{"the VPI pair", vpiPair + overlay},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustParse(t, c.src)
			n, err := Build(s)
			if err != nil {
				t.Fatal(err)
			}
			for id, sw := range n.Switches {
				if sw == nil {
					continue
				}
				for i, p := range n.Fabric.Ports[id] {
					if s.LinkLayerOf(fabric.NodeID(id)) == fabric.InfiniBand {
						if got := p.CreditState().MaxBlocks(); got != 65 {
							t.Errorf("%s port %d: its largest packet %d blocks, want 65 (an InfiniBand MTU packet's)", sw.Name, i, got)
						}
						continue
					}
					l := s.PortLinks(fabric.NodeID(id), nil)[i]
					if got, want := sw.Headroom(i), sw.Prof.PortHeadroom(l, ethFrame); got != want {
						t.Errorf("%s port %d: headroom %d, want %d (for %d-byte frames)", sw.Name, i, got, want, ethFrame)
					}
				}
			}
		})
	}
}

// TestVPIStormFromPort2: a PAUSE storm named on a VPI host's Ethernet
// port (host: h1/2) comes from that port's HCA: the Ethernet switch's
// port facing h1/2 is paused by it, and PAUSE frames go on Ethernet only
// (the InfiniBand side has none to send). From the review of issue 47,
// defect 7: host faults reached port 1 only, and h1/2 was refused.
func TestVPIStormFromPort2(t *testing.T) {
	sc := mustParse(t, strings.Replace(vpiPair, "64MiB", "1MiB", 2)+"faults:\n  - {at: 20us, host: h1/2, action: pfc-storm, priority: 3, until: 200us}\n")
	_, sum, _ := mustRun(t, sc)
	found := false
	for _, p := range sum.PFC.Spread {
		if p.By == "h1/2:p0" && strings.HasPrefix(p.Port, "eth0:") {
			found = true
		}
	}
	if !found || sum.PFC.PauseFrames == 0 {
		t.Errorf("%d PAUSE frames, spread %+v; want eth0's port paused by h1/2:p0", sum.PFC.PauseFrames, sum.PFC.Spread)
	}
}

// TestVPIInfiniBandSideSweeps: on a mixed network a link change on the
// InfiniBand side reaches that side's switches as on an InfiniBand
// network, all at once, when the subnet manager pushes its new tables
// sweep_delay after the change (1 ms by default, resolve/infiniband.go),
// not hop by hop as Ethernet's routing converges; the Ethernet switches
// keep their tables. Here ib0-ib1 goes down at 5 us: a run stopped at
// 5 us + 1 ms - 1 ns has installed no new table, one stopped 1 ns after
// the sweep has installed one at each InfiniBand switch and none at the
// Ethernet ones. Before, the InfiniBand switches took theirs hop by hop
// at the Ethernet side's convergence, so ib0 and ib1 had theirs at 5 us.
func TestVPIInfiniBandSideSweeps(t *testing.T) {
	const net = `topology:
  kind: explicit
  hosts: [h0, h1, h2, h3]
  switches: [{name: ib0, switch: {link_layer: infiniband}}, {name: ib1, switch: {link_layer: infiniband}}, {name: ib2, switch: {link_layer: infiniband}}, eth0, eth1]
  links: [[h0, ib0], [h1, ib0], [h2, ib1], [h3, ib1], [ib0, ib1], [ib0, ib2], [ib2, ib1], [h0, eth0], [h1, eth0], [h2, eth1], [h3, eth1], [eth0, eth1]]
faults:
  - {at: 5us, link: [ib0, ib1], action: down}
traffic:
  - flow: {from: h0, to: h3, size: 64KiB}
`
	installed := func(stop sim.Time) (ib, eth []string) {
		s := mustParse(t, net+fmt.Sprintf("stop: {at: %dns}\n", stop/sim.Nanosecond))
		n, _, _ := mustRun(t, s)
		for _, sw := range n.Switches {
			if sw == nil || n.faults.installed[sw.ID] == 0 {
				continue
			}
			if s.LinkLayerOf(sw.ID) == fabric.InfiniBand {
				ib = append(ib, sw.Name)
			} else {
				eth = append(eth, sw.Name)
			}
		}
		return ib, eth
	}
	sweep := 5*sim.Microsecond + sim.Millisecond
	if ib, eth := installed(sweep - sim.Nanosecond); len(ib)+len(eth) != 0 {
		t.Errorf("before the sweep: new tables at %v %v, want none", ib, eth)
	}
	if ib, eth := installed(sweep + sim.Nanosecond); len(ib) != 3 || len(eth) != 0 {
		t.Errorf("after the sweep: new tables at InfiniBand %v and Ethernet %v, want ib0, ib1, ib2 and none", ib, eth)
	}
}
