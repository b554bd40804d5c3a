package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lfsim/lfsim/congestion"
	"github.com/lfsim/lfsim/fabric"
	"github.com/lfsim/lfsim/reports"
	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/sim"
)

// ns3Cmd is `lfsim ns3 RUN DIR`: a run's fabric and flows as the input
// files of the HPCC authors' ns-3 simulator
// (alibaba-edu/High-Precision-Congestion-Control, simulation/scratch/
// third.cc), so that both simulators run the same flows on the same
// fabric with HPCC's parameters as lfsim used them (docs/RELIABILITY.md,
// "HPCC beside its authors' simulator"). RUN is a folder lfsim run or a
// sweep wrote (its scenario.yaml and flows.csv); DIR gets topology.txt,
// flow.txt, trace.txt and config.txt, whose output files (fct.txt,
// pfc.txt, ...) are named into DIR too, and nodes.txt ("id name" a
// line: their node id of each lfsim node, for scripts/ns3-compare.py).
func ns3Cmd(args []string, stdout, stderr io.Writer) int {
	const help = "lfsim ns3 RUN DIR: write a run's fabric and flows (RUN/scenario.yaml, RUN/flows.csv) as the HPCC authors' ns-3 simulator's input files in DIR: topology.txt, flow.txt, trace.txt, config.txt"
	for _, a := range args {
		if a == "-h" || a == "--help" {
			fmt.Fprintln(stdout, help)
			return exitOK
		}
		if len(a) > 1 && a[0] == '-' {
			fmt.Fprintf(stderr, "lfsim ns3: unknown flag %s\n%s\n", a, help)
			return exitUsage
		}
	}
	if len(args) != 2 {
		fmt.Fprintf(stderr, "lfsim ns3 takes a run's folder and the directory to write to\n%s\n", help)
		return exitUsage
	}
	run, dir := args[0], args[1]
	sc, err := resolve.Load(filepath.Join(run, "scenario.yaml"))
	if err != nil {
		fmt.Fprintf(stderr, "lfsim ns3: %v\n", err)
		return exitFailed
	}
	var flows []reports.FlowRow
	err = reports.ReadFlows(filepath.Join(run, "flows.csv"), func(f *reports.FlowRow) error {
		flows = append(flows, *f)
		return nil
	})
	if err != nil {
		fmt.Fprintf(stderr, "lfsim ns3: %v\n", err)
		return exitFailed
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		err = os.MkdirAll(abs, 0o755)
	}
	var in *ns3Inputs
	if err == nil {
		in, err = makeNS3Inputs(sc, flows, abs)
	}
	if err == nil {
		for _, f := range []struct {
			name string
			data []byte
		}{{"topology.txt", in.topology()}, {"flow.txt", in.flow}, {"trace.txt", []byte("0\n")}, {"config.txt", in.config}, {"nodes.txt", ns3Names(sc.Topology)}} {
			if err == nil {
				err = os.WriteFile(filepath.Join(abs, f.name), f.data, 0o644)
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "lfsim ns3: %s: %v\n", run, err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "wrote %d flows and %d links to %s. Then, in the simulator's simulation/ folder:\n  ./waf --run 'scratch/third %s'\nIts FCTs go to %s (sip dip sport dport size start_ns fct_ns ideal_ns).\n",
		len(flows), len(sc.Topology.Links), abs, filepath.Join(abs, "config.txt"), filepath.Join(abs, "fct.txt"))
	return exitOK
}

// ns3Inputs are the authors' simulator's input files for one run.
type ns3Inputs struct {
	// nodes, switches and links are topology.txt's: its first line and
	// its switches, then a line per link ("a b rate delay error").
	nodes    int
	switches []int
	links    []string
	// flow is flow.txt: the count, then "src dst pg dport size start_s"
	// per flow in start order (third.cc reads them in turn).
	flow []byte
	// config is config.txt (run.py's template for its "hp" runs).
	config []byte
	// maxRTT is the authors' global T for the fabric: the largest over
	// host pairs of twice the shortest path's propagation plus one
	// packet's serialization on each of its links (third.cc,
	// CalculateRoutes).
	maxRTT sim.Time
}

// ns3Names is nodes.txt: "id name" a line, in id order.
func ns3Names(t *fabric.Topology) []byte {
	var b bytes.Buffer
	for id, n := range t.Nodes {
		fmt.Fprintf(&b, "%d %s\n", id, n.Name)
	}
	return b.Bytes()
}

func (in *ns3Inputs) topology() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d %d %d\n", in.nodes, len(in.switches), len(in.links))
	for i, s := range in.switches {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, s)
	}
	b.WriteByte('\n')
	for _, l := range in.links {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// makeNS3Inputs converts sc's fabric and flows. The authors' node i is
// lfsim's node i; a flow is "src dst 3 100 size start" (priority group
// 3 and port 100, as their flow generator and fct_analysis.py expect).
// Only what both simulators model is accepted: an Ethernet fabric of
// hosts with one port each, every host on HPCC, RC flows.
func makeNS3Inputs(sc *resolve.Scenario, flows []reports.FlowRow, dir string) (*ns3Inputs, error) {
	t := sc.Topology
	const cc = "hpcc"
	if sc.LinkLayer != fabric.Ethernet || sc.Mixed() {
		return nil, fmt.Errorf("%s: the authors' simulator models RoCEv2 on Ethernet; this fabric is %s", sc.Name, sc.LinkLayer)
	}
	if sc.HCA.CC != cc || len(sc.HCAProfiles) > 0 {
		return nil, fmt.Errorf("%s: every host must run hca.cc: %s with the top-level hca: (the config file has one control and one set of parameters); this scenario runs %s", sc.Name, cc, sc.HCA.CC)
	}
	p, ok := sc.CC[cc].(*congestion.HPCCParams)
	if !ok {
		return nil, fmt.Errorf("%s: no parameters for hca.cc: %s", sc.Name, cc)
	}
	in := &ns3Inputs{nodes: len(t.Nodes)}
	for id, n := range t.Nodes {
		if n.Kind == fabric.Switch {
			in.switches = append(in.switches, id)
		} else if len(n.Ports) != 1 || n.Second {
			return nil, fmt.Errorf("%s: host %s has %d ports; the authors' simulator gives a host one", sc.Name, n.Name, len(n.Ports))
		}
	}
	for _, l := range t.Links {
		if l.Rate%1_000_000 != 0 || l.Delay%sim.Nanosecond != 0 {
			return nil, fmt.Errorf("%s: link %s-%s: %d b/s and %d ps: the topology file takes whole Mb/s and whole ns", sc.Name, t.Nodes[l.A].Name, t.Nodes[l.B].Name, int64(l.Rate), int64(l.Delay))
		}
		in.links = append(in.links, fmt.Sprintf("%d %d %dMbps %dns 0", l.A, l.B, int64(l.Rate)/1_000_000, l.Delay.Nanoseconds()))
	}
	mtu := sc.HCA.MTU
	in.maxRTT = ns3MaxRTT(t, mtu)
	if in.maxRTT <= 0 {
		return nil, fmt.Errorf("%s: no two hosts reach each other", sc.Name)
	}

	var fb bytes.Buffer
	fmt.Fprintf(&fb, "%d\n", len(flows))
	last := int64(-1)
	for _, f := range flows {
		src, ok1 := t.Lookup(f.Src)
		dst, ok2 := t.Lookup(f.Dst)
		switch {
		case !ok1 || !ok2:
			return nil, fmt.Errorf("flow %d: %s to %s: not hosts of %s", f.ID, f.Src, f.Dst, sc.Name)
		case f.QP != "rc":
			return nil, fmt.Errorf("flow %d: a %s flow; the authors' simulator sends RC flows only", f.ID, f.QP)
		case f.StartNs < last:
			return nil, fmt.Errorf("flow %d starts at %d ns, before the flow above it (%d ns): the flow file is read in start order", f.ID, f.StartNs, last)
		case f.SizeBytes <= 0 || f.SizeBytes >= 1<<32:
			return nil, fmt.Errorf("flow %d: %d bytes; the authors' simulator takes 1 byte to 4 GiB", f.ID, f.SizeBytes)
		}
		last = f.StartNs
		fmt.Fprintf(&fb, "%d %d 3 100 %d %d.%09d\n", src, dst, f.SizeBytes, f.StartNs/1e9, f.StartNs%1e9)
	}
	in.flow = fb.Bytes()

	// Host links' rate: run.py's bw, from which it sets INT_MULTI and the
	// ECN maps (unused by HPCC but read).
	host := t.Links[t.Nodes[t.Hosts()[0]].Ports[0].Link].Rate
	gbps := int64(host) / 1e9
	if gbps < 1 {
		gbps = 1
	}
	intMulti := max(gbps/25, 1)
	// W_AI bytes a base RTT, as the authors' rate increase over their
	// global T (their window is rate x T); lfsim's default is the paper's
	// rule W_init (1 - eta) / 100, which is the line rate x (1 - eta) /
	// 100 as a rate.
	var raiMbps float64
	if p.WAI > 0 {
		raiMbps = float64(p.WAI) * 8 / in.maxRTT.Seconds() / 1e6
	} else {
		raiMbps = float64(host) * (1 - p.Eta) / 100 / 1e6
	}
	stop := sc.Stop.At
	if stop == sim.Never {
		stop = 4 * sim.Second // run.py's
	}
	r := strings.NewReplacer(
		"{dir}", dir,
		"{payload}", fmt.Sprint(mtu),
		"{stop}", fmt.Sprintf("%.9f", stop.Seconds()),
		"{ai}", fmt.Sprintf("%.3f", raiMbps),
		"{eta}", fmt.Sprint(p.Eta),
		"{mi}", fmt.Sprint(p.MaxStage),
		"{int_multi}", fmt.Sprint(intMulti),
		"{bw}", fmt.Sprint(gbps*1e9), "{bw4}", fmt.Sprint(4*gbps*1e9),
		"{kmax}", fmt.Sprint(400*gbps/25), "{kmax4}", fmt.Sprint(4*400*gbps/25),
		"{kmin}", fmt.Sprint(100*gbps/25), "{kmin4}", fmt.Sprint(4*100*gbps/25),
		"{buffer}", fmt.Sprint(max((int64(sc.Switch.Buffer)+1<<19)/(1<<20), 1)), // MiB, the nearest
	)
	in.config = []byte(r.Replace(ns3Config))
	return in, nil
}

// ns3MaxRTT is third.cc's maxRtt: over every pair of hosts, twice the
// propagation delay of the shortest path (in hops, the first found
// breadth first) plus one payload's serialization on each of its links,
// in whole ns a link.
func ns3MaxRTT(t *fabric.Topology, payload int) sim.Time {
	var worst sim.Time
	for _, h := range t.Hosts() {
		delay := map[fabric.NodeID]sim.Time{h: 0}
		tx := map[fabric.NodeID]sim.Time{h: 0}
		queue := []fabric.NodeID{h}
		for len(queue) > 0 {
			at := queue[0]
			queue = queue[1:]
			for _, p := range t.Nodes[at].Ports {
				if _, seen := delay[p.Peer]; seen {
					continue
				}
				l := t.Links[p.Link]
				delay[p.Peer] = delay[at] + l.Delay
				// whole ns a hop, truncated, as third.cc's integer arithmetic
				tx[p.Peer] = tx[at] + sim.Time(int64(payload)*8*1e9/int64(l.Rate))*sim.Nanosecond
				if t.Nodes[p.Peer].Kind == fabric.Switch {
					queue = append(queue, p.Peer)
				}
			}
		}
		for _, o := range t.Hosts() {
			if d, ok := delay[o]; ok && o != h {
				worst = max(worst, 2*d+tx[o])
			}
		}
	}
	return worst
}

// ns3Config is the authors' run.py config template as it fills it for
// "--cc hp" (HPCC with its window, per-ACK reaction and global T), the
// files named into {dir}, no packet trace.
const ns3Config = `ENABLE_QCN 1
USE_DYNAMIC_PFC_THRESHOLD 1

PACKET_PAYLOAD_SIZE {payload}

TOPOLOGY_FILE {dir}/topology.txt
FLOW_FILE {dir}/flow.txt
TRACE_FILE {dir}/trace.txt
TRACE_OUTPUT_FILE {dir}/mix.tr
FCT_OUTPUT_FILE {dir}/fct.txt
PFC_OUTPUT_FILE {dir}/pfc.txt

SIMULATOR_STOP_TIME {stop}

CC_MODE 3
ALPHA_RESUME_INTERVAL 1
RATE_DECREASE_INTERVAL 4
CLAMP_TARGET_RATE 0
RP_TIMER 300
EWMA_GAIN 0.00390625
FAST_RECOVERY_TIMES 1
RATE_AI {ai}Mb/s
RATE_HAI {ai}Mb/s
MIN_RATE 1000Mb/s
DCTCP_RATE_AI 1000Mb/s

ERROR_RATE_PER_LINK 0.0000
L2_CHUNK_SIZE 4000
L2_ACK_INTERVAL 1
L2_BACK_TO_ZERO 0

HAS_WIN 1
GLOBAL_T 1
VAR_WIN 1
FAST_REACT 1
U_TARGET {eta}
MI_THRESH {mi}
INT_MULTI {int_multi}
MULTI_RATE 0
SAMPLE_FEEDBACK 0
PINT_LOG_BASE 1.01
PINT_PROB 1.0

RATE_BOUND 1

ACK_HIGH_PRIO 0

LINK_DOWN 0 0 0

ENABLE_TRACE 0

KMAX_MAP 2 {bw} {kmax} {bw4} {kmax4}
KMIN_MAP 2 {bw} {kmin} {bw4} {kmin4}
PMAX_MAP 2 {bw} 0.20 {bw4} 0.20
BUFFER_SIZE {buffer}
QLEN_MON_FILE {dir}/qlen.txt
QLEN_MON_START 2000000000
QLEN_MON_END 2000000000
`
