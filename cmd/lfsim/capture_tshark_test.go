package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/scenarios"
)

// TestDefaultCapturesOpenClean: captures made with default settings open
// in tshark (Debian 12's 4.0, which CI installs) with no frame
// "[Malformed Packet]" (issue 51: at the 128-byte default snap, 1,802 of
// the RoCEv2 incast's 1,872 frames were; on InfiniBand every
// flow-control record was, and with LMC the LRH's LIDs were not the
// subnet manager's): the incast example captured at h8 (RoCEv2), the
// same on RoCEv1, and an InfiniBand fat tree with LMC 2. Each frame is
// kept whole, RoCEv2's go to UDP port 4791, and an InfiniBand packet's
// DLID is one of its destination's LIDs as lfsim devinfo and lfts.txt
// give them.
func TestDefaultCapturesOpenClean(t *testing.T) {
	tshark := needTool(t, "tshark")
	src, err := scenarios.ExampleSource("incast-8to1")
	if err != nil {
		t.Fatal(err)
	}
	incast := strings.Replace(string(src), "  queues: all", "  queues: all\n  pcap: [h8]", 1)
	v1 := strings.Replace(incast, "hca:\n", "hca:\n  transport: rocev1\n", 1)
	if v1 == incast {
		t.Fatal("incast-8to1.yaml has no hca: block")
	}
	const ib = `name: ib-lmc
stop: {at: 300us}
topology: {kind: fat-tree, k: 4, link: {rate: EDR, delay: 100ns}}
switch: {link_layer: infiniband}
subnet_manager: {lmc: 2}
observe: {pcap: [h0]}
traffic:
  - flow: {from: h0, to: h5, size: 64KiB}
  - flow: {from: h0, to: h5, size: 64KiB}
  - flow: {from: h5, to: h0, size: 16KiB, op: read}
`
	for _, c := range []struct {
		name, src, pcap string
		fields          []string
	}{
		{"rocev2", incast, "h8.pcap", []string{"udp.dstport", "infiniband.bth.opcode"}},
		{"rocev1", v1, "h8.pcap", []string{"eth.type", "infiniband.grh.nxthdr"}},
		{"infiniband", ib, "h0.pcap", []string{"erf.types.type", "infiniband.lrh.dlid"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "s.yaml")
			if err := writeFile(file, c.src); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			if code, stdout, stderr := lfsim(t, "run", file, "-q", "-o", out); code != exitOK {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			args := []string{"-r", filepath.Join(out, c.pcap), "-T", "fields", "-E", "separator=,",
				"-e", "frame.len", "-e", "frame.cap_len", "-e", "_ws.malformed", "-e", "_ws.col.Info"}
			for _, f := range c.fields {
				args = append(args, "-e", f)
			}
			raw, err := exec.Command(tshark, args...).Output()
			if err != nil {
				t.Fatal(err)
			}
			rows := strings.Split(strings.TrimSpace(string(raw)), "\n")
			if len(rows) < 20 {
				t.Fatalf("%d frames", len(rows))
			}
			var lids map[string]bool
			if c.name == "infiniband" {
				lids = hostLIDs(t, file, out, "h0", "h5")
			}
			malformed, pfc := 0, 0
			for i, l := range rows {
				f := strings.Split(l, ",")
				if f[2] != "" || strings.Contains(l, "Malformed") {
					malformed++
					continue
				}
				if f[0] != f[1] {
					t.Errorf("frame %d: %s of %s bytes kept", i+1, f[1], f[0])
				}
				switch c.name {
				case "rocev2":
					if strings.Contains(f[3], "PFC") || f[4] == "" {
						pfc++ // a PFC frame, MAC control
					} else if f[4] != "4791" {
						t.Errorf("frame %d: UDP port %s", i+1, f[4])
					}
				case "rocev1":
					if f[4] == "0x8808" {
						pfc++
					} else if f[4] != "0x8100" || f[5] != "27" {
						t.Errorf("frame %d: EtherType %s, GRH next header %s; want 0x8100 (then 0x8915), 27", i+1, f[4], f[5])
					}
				case "infiniband":
					if f[4] != "21" || !lids[f[5]] {
						t.Errorf("frame %d: ERF type %s, DLID %s; want 21 and one of the SM's LIDs of h0 and h5 %v", i+1, f[4], f[5], lids)
					}
				}
			}
			if malformed > 0 {
				t.Errorf("%d of %d frames Malformed", malformed, len(rows))
			}
			if pfc == len(rows) {
				t.Error("only PFC frames")
			}
		})
	}
}

// hostLIDs are the LIDs of hosts as lfsim devinfo gives them (port_lid
// and port_lmc) of the scenario in file, each checked against the run's
// lfts.txt in out.
func hostLIDs(t *testing.T, file, out string, hosts ...string) map[string]bool {
	lfts := readFile(t, filepath.Join(out, "lfts.txt"))
	lids := map[string]bool{}
	for _, h := range hosts {
		code, info, stderr := lfsim(t, "devinfo", file, h)
		if code != exitOK {
			t.Fatalf("devinfo %s: exit %d: %s", h, code, stderr)
		}
		var base, lmc int
		for _, l := range strings.Split(info, "\n") {
			k, v, _ := strings.Cut(strings.TrimSpace(l), ":")
			v = strings.TrimSpace(v)
			switch k {
			case "port_lid":
				base, _ = strconv.Atoi(v)
			case "port_lmc":
				n, _ := strconv.ParseInt(strings.TrimPrefix(v, "0x"), 16, 64)
				lmc = int(n)
			}
		}
		if base == 0 || lmc != 2 {
			t.Fatalf("devinfo %s: port_lid %d, port_lmc %d", h, base, lmc)
		}
		for j := 0; j < 1<<lmc; j++ {
			lid := base + j
			if !strings.Contains(lfts, "0x"+leftPad(strconv.FormatInt(int64(lid), 16))+" ") || !strings.Contains(lfts, ": '"+h+"'") {
				t.Errorf("lfts.txt has no entry for %s's LID %d", h, lid)
			}
			lids[strconv.Itoa(lid)] = true
		}
	}
	return lids
}

func leftPad(hex string) string { return strings.Repeat("0", max(0, 4-len(hex))) + hex }

func writeFile(name, text string) error { return os.WriteFile(name, []byte(text), 0o644) }

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
