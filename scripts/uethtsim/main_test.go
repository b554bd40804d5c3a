package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// TestFatTreeIsTheKinds: the explicit fat tree this writes is the one
// lfsim's fat-tree kind builds (fabric.FatTree), node for node and port
// for port (by name: the explicit topology numbers its hosts first), for
// k = 2, 4 and 8; -slow gives one link its rate, the others
// keep theirs. Without the port order (an aggregation switch's cores
// before its edges, say) a port's peer differs and this fails.
func TestFatTreeIsTheKinds(t *testing.T) {
	spec := fabric.LinkSpec{Rate: 100 * fabric.Gbps, Delay: sim.Microsecond}
	for _, k := range []int{2, 4, 8} {
		var out bytes.Buffer
		slow := ""
		if k == 8 {
			slow = "s64,s32,50Gbps"
		}
		if err := fatTree(k, "100Gbps", "1us", slow, &out); err != nil {
			t.Fatal(err)
		}
		sc, err := resolve.Parse("ft.yaml", out.Bytes())
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		want, err := fabric.FatTree(k, spec)
		if err != nil {
			t.Fatal(err)
		}
		got := sc.Topology
		if describe(got) != describe(want) {
			t.Errorf("k=%d: the explicit topology differs from fabric.FatTree's:\n%s\nwant\n%s", k, describe(got), describe(want))
		}
		for _, l := range got.Links {
			a, b := got.Nodes[l.A].Name, got.Nodes[l.B].Name
			wantRate := 100 * fabric.Gbps
			if slow != "" && (a == "s32" && b == "s64" || a == "s64" && b == "s32") {
				wantRate = 50 * fabric.Gbps
			}
			if l.Rate != wantRate || l.Delay != sim.Microsecond {
				t.Errorf("k=%d: link %s-%s at %v, %v; want %v, 1us", k, a, b, l.Rate, l.Delay, wantRate)
			}
		}
	}
	if err := fatTree(8, "100Gbps", "1us", "s0,s64,50Gbps", &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "no link between s0 and s64") {
		t.Errorf("a link that is not there: %v", err)
	}
}

// describe lists each node's ports' peers, by name (an explicit
// topology numbers its hosts first, the fat-tree kind its switches).
func describe(t *fabric.Topology) string {
	var lines []string
	for _, n := range t.Nodes {
		l := n.Name + ":"
		for _, p := range n.Ports {
			l += fmt.Sprintf(" %s.%d", t.Nodes[p.Peer].Name, p.PeerPort)
		}
		lines = append(lines, l)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestConnectionMatrix: flows.csv's flows become htsim's lines, hosts by
// number, starts in picoseconds; a file that is not flows.csv, or a host
// not named hN, is refused with its line.
func TestConnectionMatrix(t *testing.T) {
	const flows = "id,src,dst,qp,op,size_bytes,delivered_bytes,start_ns,end_ns,fct_ns,slowdown,retransmits,status\n" +
		"0,h0,h16,rc,write,1048576,1048576,0,1641527,1641527,17.8937,3964,success\n" +
		"1,h15,h3,rc,write,2097152,2097152,250,1642202,1642202,17.9011,4091,success\n"
	for _, c := range []struct {
		in    string
		nodes int
		want  string
	}{
		{flows, 0, "Nodes 17\nConnections 2\n0->16 start 0 size 1048576\n15->3 start 250000 size 2097152\n"},
		{flows, 128, "Nodes 128\nConnections 2\n0->16 start 0 size 1048576\n15->3 start 250000 size 2097152\n"},
		{flows, 16, "f.csv: host h16, but -nodes is 16"},
		{"id,src,dst\n0,h0,h1\n", 0, "f.csv:1: no column size_bytes; expected lfsim's flows.csv (src, dst, size_bytes, start_ns)"},
		{"src,dst,size_bytes,start_ns\nh0,s1,8,0\n", 0, `f.csv:2: hosts "h0" and "s1": expected names hN (htsim numbers its nodes)`},
	} {
		var out bytes.Buffer
		err := connectionMatrix(strings.NewReader(c.in), "f.csv", c.nodes, &out)
		got := out.String()
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("-nodes %d: got\n%s\nwant\n%s", c.nodes, got, c.want)
		}
	}
}

// TestHtsimTopo: the uet-htsim topology file of a k=8 fat tree has its
// three tiers as htsim's fat_tree_128_1os.topo gives them (128 nodes,
// pods of 16, 4 down and 4 up at the ToR and aggregation tiers, 8 down
// at the core), with lfsim's link delay and switch latency; a star is one
// ToR. An odd k is refused.
func TestHtsimTopo(t *testing.T) {
	for _, c := range []struct {
		k, star int
		want    []string
	}{
		{8, 0, []string{"Nodes 128\nTiers 3\nPodsize 16\n", "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\nOversubscribed 1\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 500\n",
			"Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\nOversubscribed 1\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 500\nBundle 1\n",
			"Tier 2\nDownlink_speed_Gbps 100\nRadix_Down 8\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 500\nBundle 1\n"}},
		{0, 32, []string{"Nodes 32\nTiers 2\nPodsize 32\n", "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 32\nRadix_Up 1\nOversubscribed 32\n", "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 1\n"}},
	} {
		var out bytes.Buffer
		if err := htsimTopo(c.k, c.star, 100, 1000*time.Nanosecond, 500*time.Nanosecond, &out); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("k %d, star %d: no\n%s\nin\n%s", c.k, c.star, w, out.String())
			}
		}
	}
	if err := htsimTopo(7, 0, 100, 0, 0, &bytes.Buffer{}); err == nil {
		t.Errorf("k=7 accepted")
	}
}

// TestSummarize: htsim_uec's flow lines and last line, summed up; an
// output without them is refused.
func TestSummarize(t *testing.T) {
	const run = "Starting simulation\n" +
		"Flow Uec_0_16 flowId 1000000001 uecSrc 0 finished at 1560.36 total messages 1 total packets 256 RTS 0 total bytes 1048576 in_flight now 0\n" +
		"Flow Uec_4_16 flowId 1000000009 uecSrc 4 finished at 1428.58 total messages 1 total packets 256 RTS 0 total bytes 1048576 in_flight now 0\n" +
		"New: 4096 Rtx: 37475 RTS: 0 Bounced: 0 ACKs: 4095 NACKs: 37475 Pulls: 0 sleek_pkts: 0\n"
	var out bytes.Buffer
	if err := summarize(strings.NewReader(run), "o.txt", &out); err != nil {
		t.Fatal(err)
	}
	if want := "flows 2, mean 1494.5 us, last 1560.4 us; new 4096, retransmitted 37475, NACKs 37475\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	if err := summarize(strings.NewReader("Unknown parameter -x\n"), "o.txt", &out); err == nil {
		t.Errorf("an output without flows accepted")
	}
}

// TestSummarizeFlows: lfsim's flows.csv summed up as htsim's output is:
// each flow's finish time from the run's start (end_ns), which is what
// htsim prints ("finished at"); a flow that started at 100 us counts
// where it ended, not its completion time (fct_ns), which compared a
// duration with htsim's finish time.
func TestSummarizeFlows(t *testing.T) {
	const flows = "id,src,dst,qp,op,size_bytes,delivered_bytes,start_ns,end_ns,fct_ns,slowdown,retransmits,status\n" +
		"0,h0,h16,rc,write,1048576,1048576,0,1641527,1641527,17.8937,3964,success\n" +
		"1,h1,h16,rc,write,1048576,1048576,100000,1642202,1542202,17.9011,4091,success\n" +
		"2,h2,h16,rc,write,1048576,0,0,0,0,0,0,timeout\n"
	var out bytes.Buffer
	if err := summarizeFlows(strings.NewReader(flows), "f.csv", &out); err != nil {
		t.Fatal(err)
	}
	if want := "flows 2, mean 1641.9 us, last 1642.2 us; retransmitted 8055\n"; out.String() != want {
		t.Errorf("got %q, want %q (the finish times 1641.5 and 1642.2 us)", out.String(), want)
	}
}
