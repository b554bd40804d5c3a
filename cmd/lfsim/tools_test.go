package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/assembly"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenarios"
)

// needTool returns the path of the first of names on PATH. A missing tool
// skips the test, unless LFSIM_REQUIRE_TOOLS=1 (CI), where it fails.
func needTool(t *testing.T, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("LFSIM_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%s not installed, and LFSIM_REQUIRE_TOOLS=1", strings.Join(names, " or "))
	}
	t.Skipf("%s not installed (set LFSIM_REQUIRE_TOOLS=1 to fail instead)", strings.Join(names, " or "))
	return ""
}

// artifactDir is where tests keep what people should look at (browser
// screenshots): $LFSIM_ARTIFACTS, or a temporary directory.
func artifactDir(t *testing.T) string {
	dir := os.Getenv("LFSIM_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pcapIncast is the incast example with ECN marking and DCQCN on, so that
// the capture holds CE-marked packets and CNPs as well as PFC frames, and
// captures at the receiver h8 and at the sender h0.
func pcapIncast(t *testing.T) []byte {
	src, err := scenarios.ExampleSource("incast-8to1")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for _, r := range [][2]string{
		{"  ecn: off", "  ecn: {kmin: 20KiB, kmax: 200KiB, pmax: 0.2}"},
		{"  cc: none", "  cc: dcqcn"},
		{"  queues: all", "  queues: all\n  pcap: [h8, h0]"},
	} {
		if !strings.Contains(s, r[0]) {
			t.Fatalf("incast-8to1.yaml no longer has %q", r[0])
		}
		s = strings.Replace(s, r[0], r[1], 1)
	}
	return []byte(s)
}

// runAndWrite parses src as file, runs it, and writes its results to a
// temporary folder, which it returns with the network and the results.
func runAndWrite(t *testing.T, file string, src []byte) (*assembly.Network, *reports.Results, string) {
	t.Helper()
	sc, err := resolve.Parse(file, src)
	if err != nil {
		t.Fatal(err)
	}
	net, err := assembly.Build(sc)
	if err != nil {
		t.Fatal(err)
	}
	res := net.Run(nil)
	dir := t.TempDir()
	if err := reports.WriteRun(dir, res); err != nil {
		t.Fatal(err)
	}
	return net, res, dir
}

// TestPcapInTshark: Wireshark's dissectors (tshark) read lfsim's pcaps
// of the incast and count the same RoCE opcodes, ECN-CE marks and PFC
// frames, with the same per-priority quanta, as lfsim's own counters.
func TestPcapInTshark(t *testing.T) {
	tshark := needTool(t, "tshark")
	net, res, dir := runAndWrite(t, "incast-pcap.yaml", pcapIncast(t))
	sc := net.Scenario
	h8, _ := sc.Topology.Lookup("h8")
	h0, _ := sc.Topology.Lookup("h0")
	fields := func(file, filter string, f ...string) [][]string {
		args := []string{"-r", filepath.Join(dir, file), "-T", "fields", "-E", "separator=,"}
		if filter != "" {
			args = append(args, "-Y", filter)
		}
		for _, x := range f {
			args = append(args, "-e", x)
		}
		out, err := exec.Command(tshark, args...).Output()
		if err != nil {
			t.Fatalf("tshark %v: %v", args, err)
		}
		var rows [][]string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l != "" {
				rows = append(rows, strings.Split(l, ","))
			}
		}
		return rows
	}
	count := func(file, filter string) int { return len(fields(file, filter, "frame.number")) }

	// Opcodes at the receiver: every flow is one 4 MiB WRITE of 1024
	// packets (MTU 4096).
	var first, middle, last int
	mtu := int64(4096)
	for _, f := range res.Flows {
		n := (f.SizeBytes + mtu - 1) / mtu
		first, last, middle = first+1, last+1, middle+int(n-2)
	}
	if res.Summary.Packets.Retransmitted != 0 {
		t.Fatalf("the incast retransmitted %d packets; the counts below assume none", res.Summary.Packets.Retransmitted)
	}
	h := net.HCAs[h8]
	acks := int(h.Stats.AcksSent)
	for _, c := range []struct {
		what   string
		filter string
		want   int
	}{
		{"RDMA WRITE First", `infiniband.bth.opcode == 6`, first},
		{"RDMA WRITE Middle", `infiniband.bth.opcode == 7`, middle},
		{"RDMA WRITE Last", `infiniband.bth.opcode == 8`, last},
		{"Acknowledge", `infiniband.bth.opcode == 17`, acks},
		{"CNP", `infiniband.bth.opcode == 129`, int(h.Stats.TxPackets) - acks - int(h.Stats.NaksSent)},
		{"ECN-CE", `ip.dsfield.ecn == 3`, int(res.Summary.ECN.Marked)},
		{"all frames", ``, int(net.Fabric.Ports[h8][0].Stats.TxPackets + net.Fabric.Ports[h8][0].Peer().Stats.TxPackets)},
	} {
		if got := count("h8.pcap", c.filter); got != c.want {
			t.Errorf("h8.pcap: tshark counts %d %s frames (%s); lfsim counted %d", got, c.what, c.filter, c.want)
		}
	}
	if first == 0 || acks == 0 || res.Summary.ECN.Marked == 0 {
		t.Errorf("the scenario should have WRITEs (%d), ACKs (%d) and CE marks (%d)", first, acks, res.Summary.ECN.Marked)
	}
	// Named as Wireshark names them (its opcode field's names; frames cut
	// by the snap length are flagged malformed in the Info column, their
	// headers decode whole).
	detail, err := exec.Command(tshark, "-r", filepath.Join(dir, "h8.pcap"), "-O", "infiniband").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"RDMA WRITE First (6)", "RDMA WRITE Middle (7)", "RDMA WRITE Last (8)", "Acknowledge (17)", "DMA Length: 4194304"} {
		if !strings.Contains(string(detail), want) {
			t.Errorf("tshark never decodes %q", want)
		}
	}

	// PFC: the frames in both captures are the rows of pfc.csv for the
	// four ports they cover, priority and quanta alike.
	var want []string
	ports := map[string]bool{}
	for _, n := range []fabric.NodeID{h8, h0} {
		p := net.Fabric.Ports[n][0]
		ports[p.Name], ports[p.Peer().Name] = true, true
	}
	for _, r := range res.PFCRows() {
		if ports[r.Port] {
			want = append(want, strconv.FormatInt(r.TimeNs, 10)+" "+strconv.Itoa(int(r.Priority))+" "+strconv.Itoa(int(r.Quanta)))
		}
	}
	var got []string
	for _, file := range []string{"h8.pcap", "h0.pcap"} {
		for _, row := range fields(file, `macc.opcode == 0x0101`, "frame.time_epoch", "macc.cbfc.enbv",
			"macc.cbfc.pause_time.c0", "macc.cbfc.pause_time.c1", "macc.cbfc.pause_time.c2", "macc.cbfc.pause_time.c3",
			"macc.cbfc.pause_time.c4", "macc.cbfc.pause_time.c5", "macc.cbfc.pause_time.c6", "macc.cbfc.pause_time.c7") {
			sec, _ := strconv.ParseFloat(row[0], 64)
			enbv, _ := strconv.ParseUint(strings.TrimPrefix(row[1], "0x"), 16, 16)
			for prio := 0; prio < 8; prio++ {
				if enbv&(1<<prio) != 0 {
					got = append(got, strconv.FormatInt(int64(sec*1e9+0.5), 10)+" "+strconv.Itoa(prio)+" "+row[2+prio])
				}
			}
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if len(want) == 0 {
		t.Fatal("no PFC frames on the captured ports; the test needs some")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("PFC frames by tshark (time ns, priority, quanta):\n%s\npfc.csv:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Frames kept whole carry a correct FCS.
	out, err := exec.Command(tshark, "-o", "eth.check_fcs:TRUE", "-r", filepath.Join(dir, "h0.pcap"), "-Y", "frame.cap_len == frame.len", "-T", "fields", "-e", "eth.fcs.status").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range strings.Fields(string(out)) {
		if row != "1" {
			t.Fatalf("FCS status %q; want 1 (good)", row)
		}
	}
}

// TestIBCaptureInTshark: lfsim's InfiniBand captures, pcaps of ERF
// records as ibdump writes them, read in tshark as InfiniBand: the LRH's
// LIDs, and the same RC opcodes as lfsim counted at the receiver (the
// ib-incast-8to1 example with 64 KiB flows, captured at h8). Flow-control
// packets, which h8's link made, are not in the capture: ibdump, which
// receives on a sniffer QP, never sees them (observe/capture.go), and
// tshark 4.0's InfiniBand link dissector raised an exception on every
// ERF type 25 record lfsim wrote for them, also on hand-made ones of
// the layout its source reads (Op and FCTBS, VL and FCCL, LPCRC).
func TestIBCaptureInTshark(t *testing.T) {
	tshark := needTool(t, "tshark")
	src, err := scenarios.ExampleSource("ib-incast-8to1")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(strings.Replace(string(src), "size: 4MiB", "size: 64KiB", 1), "  queues: all", "  queues: all\n  pcap: [h8]", 1)
	net, _, dir := runAndWrite(t, "ib.yaml", []byte(s))
	sc := net.Scenario
	out, err := exec.Command(tshark, "-r", filepath.Join(dir, "h8.pcap"), "-T", "fields", "-E", "separator=,",
		"-e", "erf.types.type", "-e", "infiniband.bth.opcode", "-e", "infiniband.lrh.dlid").Output()
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(l, ",")
		if len(f) == 3 {
			count[f[0]+"/"+f[1]]++
			if f[1] == "6" && f[2] != "10" {
				t.Errorf("a WRITE First to LID %s; h8 is LID 10", f[2])
			}
		}
	}
	h8, _ := sc.Topology.Lookup("h8")
	port := net.Fabric.Ports[h8][0]
	if made, _ := port.FCPackets(); made == 0 {
		t.Error("h8 made no flow-control packet; the test needs some")
	}
	pkts := int64(64<<10) / 4096
	for _, c := range []struct {
		key  string
		want int64
	}{
		{"21/6", 8}, {"21/7", 8 * (pkts - 2)}, {"21/8", 8},
		{"21/17", net.HCAs[h8].Stats.AcksSent},
		{"25/", 0},
	} {
		if int64(count[c.key]) != c.want {
			t.Errorf("h8.pcap: tshark counts %d records of type/opcode %s; lfsim counted %d (all: %v)", count[c.key], c.key, c.want, count)
		}
	}
}

// TestRoCEv1PcapInTshark: tshark reads lfsim's RoCEv1 frames as RoCE:
// an 802.1Q tag with the packet's priority, EtherType 0x8915, a GRH from
// the sending host's link-local GID to the receiver's with the BTH's
// length, and the same RC opcodes as lfsim counted at the receiver. With
// the frames kept whole, no frame is malformed and every FCS is good.
func TestRoCEv1PcapInTshark(t *testing.T) {
	tshark := needTool(t, "tshark")
	net, res, dir := runAndWrite(t, "v1.yaml", []byte(`
name: v1
topology: {kind: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}
hca: {transport: rocev1, mtu: 1024}
observe: {pcap: [h2]}
traffic:
  - incast: {to: h2, from: [h0, h1], size: 64KiB}
`))
	whole, err := reports.PcapFile(res.Captures[0], 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "whole.pcap")
	if err := os.WriteFile(file, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	// A RoCEv1 frame says nothing of its length before the FCS, so
	// tshark is told every frame has one (eth.fcs: Always).
	out, err := exec.Command(tshark, "-o", "eth.fcs:Always", "-o", "eth.check_fcs:TRUE", "-r", file, "-T", "fields", "-E", "separator=,",
		"-e", "eth.type", "-e", "vlan.priority", "-e", "vlan.etype", "-e", "infiniband.grh.ipver", "-e", "infiniband.grh.nxthdr",
		"-e", "infiniband.grh.sgid", "-e", "infiniband.bth.opcode", "-e", "eth.fcs.status", "-e", "_ws.malformed").Output()
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := net.Scenario.Topology.Lookup("h2")
	count := map[string]int{}
	rows := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(l, ",")
		if len(f) != 9 {
			t.Fatalf("tshark row %q", l)
		}
		rows++
		if f[0] != "0x8100" || f[1] != "3" || f[2] != "0x8915" || f[3] != "6" || f[4] != "27" || f[7] != "1" || f[8] != "" {
			t.Errorf("frame %d: eth.type %s, PCP %s, inner type %s, GRH version %s, next header %s, FCS %s, malformed %q; want 0x8100, 3, 0x8915, 6, 27, good (1), not malformed", rows, f[0], f[1], f[2], f[3], f[4], f[7], f[8])
		}
		if !strings.HasPrefix(f[5], "fe80::") {
			t.Errorf("frame %d: source GID %s, want a link-local one", rows, f[5])
		}
		count[f[6]]++
	}
	h := net.HCAs[h2]
	// Two 64 KiB WRITEs of 64 packets at MTU 1024: First, 62 Middle, Last.
	for op, want := range map[string]int{"6": 2, "7": 124, "8": 2, "17": int(h.Stats.AcksSent)} {
		if count[op] != want {
			t.Errorf("tshark counts %d frames of opcode %s; want %d", count[op], op, want)
		}
	}
	if rows != int(net.Fabric.Ports[h2][0].Stats.TxPackets+net.Fabric.Ports[h2][0].Peer().Stats.TxPackets) {
		t.Errorf("%d frames in the capture", rows)
	}
}

// TestCMInTshark: Wireshark's InfiniBand dissector reads the CM MADs of
// a flow with connect: cm as rdma_cm's: a ConnectRequest for service
// port 18516 (the flows' listener, in rdma_cm's TCP port space) naming
// the requester's QP, a ConnectReply naming the responder's, a
// ReadyToUse, in that order, and after the flow a DisconnectRequest and
// its reply, none malformed; the REQ's starting PSN is the first WRITE's
// PSN.
func TestCMInTshark(t *testing.T) {
	tshark := needTool(t, "tshark")
	src := "stop: {at: 3ms}\ntopology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}\n" +
		"observe: {pcap: [h1], snaplen: full}\ntraffic:\n  - flow: {from: h0, to: h1, size: 64KiB, connect: cm}\n"
	_, res, dir := runAndWrite(t, "cm-pcap.yaml", []byte(src))
	if res.Flows[0].Status != "success" {
		t.Fatalf("flow: %s", res.Flows[0].Status)
	}
	out, err := exec.Command(tshark, "-r", filepath.Join(dir, "h1.pcap"), "-T", "fields", "-E", "separator=,",
		"-e", "infiniband.mad.attributeid", "-e", "infiniband.cm.req.serviceid.dport", "-e", "infiniband.cm.req.localqpn",
		"-e", "infiniband.cm.req.startpsn", "-e", "infiniband.cm.rep.localqpn", "-e", "infiniband.bth.opcode",
		"-e", "infiniband.bth.psn", "-e", "_ws.malformed").Output()
	if err != nil {
		t.Fatal(err)
	}
	var mads []string
	var reqPSN, firstWrite string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(l, ",")
		if f[7] != "" {
			t.Errorf("malformed frame: %s", l)
		}
		switch {
		case f[0] == "0x0010":
			mads = append(mads, "REQ")
			if f[1] != "0x4854" || f[2] != "0x000002" {
				t.Errorf("REQ: port %s, QPN %s; want 0x4854 (18516, the flows' listener), 0x000002", f[1], f[2])
			}
			reqPSN = f[3]
		case f[0] == "0x0013":
			mads = append(mads, "REP")
			if f[4] == "" {
				t.Errorf("REP without its QPN: %s", l)
			}
		case f[0] != "":
			mads = append(mads, f[0])
		case f[5] == "6" && firstWrite == "":
			firstWrite = f[6]
		}
	}
	if strings.Join(mads, " ") != "REQ REP 0x0014 0x0015 0x0016" {
		t.Errorf("CM MADs on h1's link: %v; want REQ, REP, RTU (0x0014), then after the flow DREQ (0x0015) and DREP (0x0016)", mads)
	}
	if psn, err := strconv.ParseInt(strings.TrimPrefix(reqPSN, "0x"), 16, 64); err != nil || strconv.FormatInt(psn, 10) != firstWrite {
		t.Errorf("REQ's starting PSN %s; the first WRITE's PSN %s", reqPSN, firstWrite)
	}
}

// TestCMInTsharkInfiniBand: on InfiniBand, Wireshark reads the SA's path
// query and answer as the IBTA lays them out (SubnAdmGet and GetResp of
// PathRecord, whose DLID and SLID are the two hosts' LIDs, MTU 4096 and
// packet lifetime 18, OpenSM's), then the REQ naming the same LIDs.
func TestCMInTsharkInfiniBand(t *testing.T) {
	tshark := needTool(t, "tshark")
	src := "stop: {at: 3ms}\ntopology: {kind: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}\nswitch: {link_layer: infiniband}\n" +
		"subnet_manager: {host: h2}\nobserve: {pcap: [h0], snaplen: full}\ntraffic:\n  - flow: {from: h0, to: h1, size: 16KiB, connect: cm}\n"
	_, res, dir := runAndWrite(t, "ib-cm.yaml", []byte(src))
	if res.Flows[0].Status != "success" {
		t.Fatalf("flow: %s", res.Flows[0].Status)
	}
	out, err := exec.Command(tshark, "-r", filepath.Join(dir, "h0.pcap"), "-T", "fields", "-E", "separator=,", "-Y", "infiniband.mad.attributeid",
		"-e", "infiniband.mad.method", "-e", "infiniband.mad.attributeid", "-e", "infiniband.pathrecord.dlid", "-e", "infiniband.pathrecord.slid",
		"-e", "infiniband.pathrecord.mtu", "-e", "infiniband.pathrecord.packetlifetime", "-e", "infiniband.cm.req.prim_locallid",
		"-e", "infiniband.cm.req.prim_remotelid", "-e", "_ws.malformed").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	// h0, h1, h2 are nodes 1..3 after the switch: LIDs 2, 3, 4 (node order from 1).
	want := []string{"0x01,0x0035,0x0000,0x0000,0x00,0x00,,,", "0x81,0x0035,0x0003,0x0002,0x05,0x12,,,", "0x03,0x0010,,,,,2,3,"}
	if len(lines) < 3 {
		t.Fatalf("MADs on h0's link:\n%s", out)
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("MAD %d: %s, want %s", i, lines[i], w)
		}
	}
}

// TestPcapINTInTshark: an HPCC incast's capture holds the INT header in
// every data packet and ACK, and Wireshark still decodes every frame as
// RoCE with no malformed one; a full-size WRITE's payload shows 42 bytes
// longer than its 4096, the INT header in front (reports.appendINT).
func TestPcapINTInTshark(t *testing.T) {
	tshark := needTool(t, "tshark")
	_, _, dir := runAndWrite(t, "hpcc-pcap.yaml", []byte(`
stop: {at: 1ms, when: flows-done}
topology: {kind: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}
hca: {cc: hpcc}
traffic:
  - incast: {to: h2, from: [h0, h1], size: 64KiB}
observe: {pcap: [h2], snaplen: full}
`))
	file := filepath.Join(dir, "h2.pcap")
	run := func(args ...string) string {
		out, err := exec.Command(tshark, append([]string{"-r", file}, args...)...).Output()
		if err != nil {
			t.Fatalf("tshark %v: %v", args, err)
		}
		return string(out)
	}
	all := strings.Count(run("-T", "fields", "-e", "frame.number"), "\n")
	roce := strings.Count(run("-Y", "infiniband.bth", "-T", "fields", "-e", "frame.number"), "\n")
	if all == 0 || roce != all {
		t.Errorf("%d frames, %d decoded as RoCE", all, roce)
	}
	if bad := strings.TrimSpace(run("-Y", "_ws.malformed", "-T", "fields", "-e", "frame.number")); bad != "" {
		t.Errorf("malformed frames: %s", bad)
	}
	if mid := strings.Fields(run("-Y", "infiniband.bth.opcode == 7", "-T", "fields", "-e", "data.len")); len(mid) == 0 || mid[0] != "4138" {
		t.Errorf("WRITE Middle payloads %v, want 4138 (4096 + the INT header's 42)", mid)
	}
}
