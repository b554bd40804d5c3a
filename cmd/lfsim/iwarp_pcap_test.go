package main

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/fabric"
)

// TestIWARPPcapInTshark: Wireshark's dissectors (tshark) read a capture
// of iWARP connections made by rdma_cm (connect: cm) as the NICs made
// them, plain and in an overlay's tunnel: the TCP handshake, MPA's
// Request and Reply (revision 2, CRCs, the flow's 4-byte id after the
// IRD and ORD: 8 bytes of private data), then FPDUs with DDP and RDMAP
// inside: per connection the RTR first (a zero-length READ Request, queue
// 1, MSN 1); the 16 KiB WRITE as four tagged segments of ULPDU 4110, one
// STag, offsets 4096 apart, the last flagged; the 5000-byte SEND as two
// untagged segments on queue 0, MSN 1, message offsets 0 and 4096, ULPDU
// 4114 and 922; the 8 KiB READ as a Request on queue 1 with MSN 2 (after
// the RTR) for 8192 bytes, and two tagged Responses. Every CRC checks
// (Wireshark computes it), every TCP and IP checksum too, and no frame is
// malformed; the only expert warnings are revision 2's (Wireshark's
// dissector knows RFC 5044's revision 1 and reserved bits). Over VXLAN
// (UDP 4789) and Geneve (6081) every frame carries the VNI and the same
// iWARP inside.
func TestIWARPPcapInTshark(t *testing.T) {
	tshark := needTool(t, "tshark")
	for _, tc := range []struct {
		name, overlay, vni string
		port               int
	}{
		{"plain", "", "", 0},
		{"vxlan", ", overlay: {encap: vxlan, vni: 100}", "vxlan.vni", fabric.VXLANPort},
		{"geneve", ", overlay: {encap: geneve, vni: 100, options: 8}", "geneve.vni", fabric.GenevePort},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := `stop: {at: 20ms, when: flows-done}
topology: {kind: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
hca: {transport: iwarp` + tc.overlay + `}
traffic:
  - flow: {from: h0, to: h1, size: 16KiB, connect: cm}
  - flow: {from: h0, to: h1, size: 5000, op: send, connect: cm}
  - flow: {from: h0, to: h1, size: 8KiB, op: read, connect: cm}
observe: {pcap: [h0]}
`
			_, res, dir := runAndWrite(t, "iwarp.yaml", []byte(src))
			for _, f := range res.Flows {
				if f.Status != "success" {
					t.Fatalf("flow %d: %s", f.ID, f.Status)
				}
			}
			file := filepath.Join(dir, "h0.pcap")
			fields := []string{"tcp.srcport", "tcp.flags.syn", "iwarp_mpa.key.req", "iwarp_mpa.key.rep", "iwarp_mpa.rev", "iwarp_mpa.crc_flag", "iwarp_mpa.pdlength",
				"iwarp_mpa.ulpdulength", "iwarp_rdma.opcode", "iwarp_ddp.tagged_flag", "iwarp_ddp.last_flag", "iwarp_ddp.stag", "iwarp_ddp.tagged_offset",
				"iwarp_ddp.qn", "iwarp_ddp.msn", "iwarp_ddp.mo", "iwarp_rdma.rdmardsz", "_ws.malformed", "tcp.checksum.status", "ip.checksum.status", "tcp.dstport"}
			args := []string{"-r", file, "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE", "-T", "fields", "-E", "separator=/t", "-E", "occurrence=l"}
			if tc.vni != "" {
				fields = append(fields, tc.vni, "udp.dstport")
			}
			for _, f := range fields {
				args = append(args, "-e", f)
			}
			out, err := exec.Command(tshark, args...).Output()
			if err != nil {
				t.Fatal(err)
			}
			col := map[string]int{}
			for i, f := range fields {
				col[f] = i
			}
			// Each connection's MPA frames and FPDUs, in order, by its
			// active end's port.
			type conn struct{ reqs, reps, fpdus []string }
			conns := map[string]*conn{}
			var order []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				f := strings.Split(l, "\t")
				if len(f) != len(fields) {
					t.Fatalf("tshark line %q: %d fields, want %d", l, len(f), len(fields))
				}
				// Each field as tshark writes it, numbers in decimal
				// (tshark writes some in hex).
				get := func(name string) string {
					v := f[col[name]]
					if n, err := strconv.ParseUint(v, 0, 64); err == nil {
						return strconv.FormatUint(n, 10)
					}
					return v
				}
				if get("_ws.malformed") != "" || get("tcp.checksum.status") != "1" || get("ip.checksum.status") != "1" { // 1: Good, as checked
					t.Errorf("frame %q: malformed, or a bad checksum", l)
				}
				if tc.vni != "" && (get(tc.vni) != "100" || get("udp.dstport") != strconv.Itoa(tc.port)) {
					t.Errorf("frame %q: %s %q, UDP port %q; want 100 and %d", l, tc.vni, get(tc.vni), get("udp.dstport"), tc.port)
				}
				// A connection is named by h0's end; 18516 is h1's listener.
				port, fromH0 := get("tcp.srcport"), true
				if port == "18516" {
					port, fromH0 = get("tcp.dstport"), false
				}
				c := conns[port]
				if c == nil {
					c = &conn{}
					conns[port] = c
					order = append(order, port)
				}
				mpa := get("iwarp_mpa.rev") + " " + get("iwarp_mpa.crc_flag") + " " + get("iwarp_mpa.pdlength")
				switch {
				case get("iwarp_mpa.key.req") != "" && fromH0:
					c.reqs = append(c.reqs, mpa)
				case get("iwarp_mpa.key.rep") != "" && !fromH0:
					c.reps = append(c.reps, mpa)
				case get("iwarp_rdma.opcode") != "" && fromH0:
					var fs []string
					for _, name := range []string{"iwarp_mpa.ulpdulength", "iwarp_rdma.opcode", "iwarp_ddp.tagged_flag", "iwarp_ddp.last_flag",
						"iwarp_ddp.tagged_offset", "iwarp_ddp.qn", "iwarp_ddp.msn", "iwarp_ddp.mo", "iwarp_rdma.rdmardsz"} {
						v := get(name)
						if v == "" {
							v = "-"
						}
						fs = append(fs, v)
					}
					c.fpdus = append(c.fpdus, strings.Join(fs, " "))
				}
			}
			if len(order) != 3 {
				t.Fatalf("%d connections from h0 (%v), want 3", len(order), order)
			}
			// ULPDU length, RDMAP opcode, T, L, tagged offset, QN, MSN, MO,
			// READ size; the WRITE's offsets from its first's.
			rtr := "46 1 0 1 - 1 1 0 0"
			for i, want := range [][]string{
				{rtr, "4110 0 1 0 +0 - - - -", "4110 0 1 0 +4096 - - - -", "4110 0 1 0 +8192 - - - -", "4110 0 1 1 +12288 - - - -"},
				{rtr, "4114 3 0 0 - 0 1 0 -", "922 3 0 1 - 0 1 4096 -"},
				{rtr, "46 1 0 1 - 1 2 0 8192"},
			} {
				c := conns[order[i]]
				if len(c.reqs) != 1 || c.reqs[0] != "2 1 8" {
					t.Errorf("connection %d: MPA Requests %q, want one of revision 2 with CRCs and 8 bytes of private data", i, c.reqs)
				}
				if len(c.reps) != 1 || c.reps[0] != "2 1 4" { // the IRD and ORD alone: the flows accept with no private data
					t.Errorf("connection %d: MPA Replies %q, want one of revision 2 with CRCs and 4 bytes of private data", i, c.reps)
				}
				if len(c.fpdus) < len(want) {
					t.Errorf("connection %d: FPDUs from h0 %q, want %q", i, c.fpdus, want)
					continue
				}
				var base uint64
				for j, w := range want {
					got := strings.Fields(c.fpdus[j])
					ws := strings.Fields(w)
					if strings.HasPrefix(ws[4], "+") && len(got) > 4 {
						to, _ := strconv.ParseUint(got[4], 10, 64)
						if j == 1 {
							base = to
						}
						off, _ := strconv.ParseUint(ws[4][1:], 10, 64)
						ws[4] = strconv.FormatUint(base+off, 10)
					}
					if strings.Join(got, " ") != strings.Join(ws, " ") {
						t.Errorf("connection %d, FPDU %d from h0: %q, want %q", i, j, strings.Join(got, " "), strings.Join(ws, " "))
					}
				}
			}
			// Wireshark checks each CRC, and names no error.
			detail, err := exec.Command(tshark, "-r", file, "-V").Output()
			if err != nil {
				t.Fatal(err)
			}
			good, bad := strings.Count(string(detail), "(Good CRC32)"), strings.Count(string(detail), "(Bad CRC32")
			if bad != 0 || good == 0 {
				t.Errorf("CRCs: %d good, %d bad", good, bad)
			}
			expert, err := exec.Command(tshark, "-r", file, "-q", "-z", "expert").Output()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(expert), "Errors (") || strings.Contains(string(expert), "Malformed") {
				t.Errorf("tshark's expert information has errors:\n%s", expert)
			}
			t.Logf("%s: %d FPDUs with a good CRC; %d connections", tc.name, good, len(order))
		})
	}
}
