package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ns3Scenario: two hosts under each of two leaves, both leaves on one
// spine; 100 Gb/s host links, 400 Gb/s between switches, 1 us each;
// HPCC with eta 0.99 and w_ai 77 B; three flows from a trace.
const ns3Scenario = `name: ns3
stop: {at: 5ms, when: flows-done}
topology:
  kind: explicit
  hosts: [h0, h1, h2, h3]
  switches: [l0, l1, s0]
  link: {rate: 100Gbps, delay: 1us}
  links:
    - [h0, l0]
    - [h1, l0]
    - [h2, l1]
    - [h3, l1]
    - {a: l0, b: s0, rate: 400Gbps}
    - {a: l1, b: s0, rate: 400Gbps}
switch: {buffer: 32MB, ecn: off}
hca: {cc: hpcc, mtu: 1024, hpcc: {eta: 0.99, max_stage: 0, w_ai: 77B}}
traffic:
  - trace: {file: flows.csv}
`

const ns3Flows = `start,from,to,size
0,h0,h2,100KB
1500ns,h1,h3,2000
1000002ns,h3,h0,1
`

// TestNS3Command: lfsim ns3 writes a run's fabric and flows as the HPCC
// authors' simulator reads them. Node i is lfsim's node i (hosts h0-h3
// are 0-3, the switches 4-6), links in the scenario's order, flows in
// start order with their sizes and starts in seconds to the ns; the
// config carries eta, maxStage and W_AI as a rate over their global T:
// 4 links of 1 us there and back plus a 1,024-byte payload's
// serialization on each, in whole ns as third.cc's integers have it (81
// ns at 100 Gb/s, 20 at 400), is 8,202 ns, and 77 B x 8 / 8,202 ns is
// 75.104 Mb/s.
func TestNS3Command(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"ns3.yaml": ns3Scenario, "flows.csv": ns3Flows} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := filepath.Join(dir, "run")
	if code, stdout, stderr := lfsim(t, "run", filepath.Join(dir, "ns3.yaml"), "-q", "-o", run); code != exitOK {
		t.Fatalf("lfsim run: exit %d\n%s%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "ns3")
	if code, stdout, stderr := lfsim(t, "ns3", run, out); code != exitOK || !strings.Contains(stdout, "wrote 3 flows and 6 links") {
		t.Fatalf("lfsim ns3: exit %d\n%s%s", code, stdout, stderr)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, c := range []struct{ file, want string }{
		{"topology.txt", "7 3 6\n4 5 6\n0 4 100000Mbps 1000ns 0\n1 4 100000Mbps 1000ns 0\n2 5 100000Mbps 1000ns 0\n3 5 100000Mbps 1000ns 0\n4 6 400000Mbps 1000ns 0\n5 6 400000Mbps 1000ns 0\n"},
		{"flow.txt", "3\n0 2 3 100 100000 0.000000000\n1 3 3 100 2000 0.000001500\n3 0 3 100 1 0.001000002\n"},
		{"trace.txt", "0\n"},
		{"nodes.txt", "0 h0\n1 h1\n2 h2\n3 h3\n4 l0\n5 l1\n6 s0\n"},
	} {
		if got := read(c.file); got != c.want {
			t.Errorf("%s:\n%s\nwant:\n%s", c.file, got, c.want)
		}
	}
	config := read("config.txt")
	for _, want := range []string{
		"PACKET_PAYLOAD_SIZE 1024\n", "CC_MODE 3\n", "U_TARGET 0.99\n", "MI_THRESH 0\n",
		"RATE_AI 75.104Mb/s\n", "INT_MULTI 4\n", "BUFFER_SIZE 31\n", "SIMULATOR_STOP_TIME 0.005000000\n",
		"FLOW_FILE " + out + "/flow.txt\n", "FCT_OUTPUT_FILE " + out + "/fct.txt\n",
		"KMAX_MAP 2 100000000000 1600 400000000000 6400\n",
	} {
		if !strings.Contains(config, want) {
			t.Errorf("config.txt has no %q:\n%s", want, config)
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"ns3", run}, exitUsage, "takes a run's folder"},
		{[]string{"ns3", "--seed", run, out}, exitUsage, "unknown flag --seed"},
		{[]string{"ns3", dir, out}, exitFailed, "scenario.yaml"},
	} {
		if code, _, stderr := lfsim(t, c.args...); code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("lfsim %v: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestNS3Refuses: a scenario the authors' simulator cannot run the same
// way is refused with the reason, not converted into something else.
func TestNS3Refuses(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, from, to, want string }{
		{"dcqcn", "cc: hpcc, mtu: 1024, hpcc: {eta: 0.99, max_stage: 0, w_ai: 77B}", "cc: dcqcn", "every host must run hca.cc: hpcc"},
		{"ud", "  - trace: {file: flows.csv}", "  - trace: {file: flows.csv, qp: ud, op: send}", "a ud flow"},
	} {
		src := strings.Replace(ns3Scenario, c.from, c.to, 1)
		flows := ns3Flows
		if c.name == "ud" {
			flows = "start,from,to,size\n0,h0,h2,1000\n"
		}
		for name, s := range map[string]string{"ns3.yaml": src, "flows.csv": flows} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		run := filepath.Join(dir, c.name)
		if code, stdout, stderr := lfsim(t, "run", filepath.Join(dir, "ns3.yaml"), "-q", "-o", run); code != exitOK {
			t.Fatalf("%s: lfsim run: exit %d\n%s%s", c.name, code, stdout, stderr)
		}
		if code, _, stderr := lfsim(t, "ns3", run, filepath.Join(dir, "out")); code != exitFailed || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: lfsim ns3: exit %d, %q; want %d and %q", c.name, code, stderr, exitFailed, c.want)
		}
	}
}
