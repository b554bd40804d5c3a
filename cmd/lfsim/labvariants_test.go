package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/scenarios"
)

// labVariant is a change a lab's text asks the student to make to one of
// its scenarios ("What to change", or a question the teacher's notes
// answer with a run), made as a sweep of one point (base and vary: the
// keys and the values the text gives), with the figures the text quotes
// for it: labClaims read from that point's outputs (their run is left
// empty).
type labVariant struct {
	lab    string
	base   string   // the scenario, as lfsim run names it
	vary   []string // "key: value", each a YAML line of the sweep's vary: (one value; hca.bdp_cap: 0 is the text's "remove bdp_cap", checked to give the same run)
	claims []labClaim
}

// labVariants are the figures the labs quote for their changed
// scenarios. Each is a run of its own, so they are LFSIM_SLOW's.
var labVariants = []labVariant{
	{lab: "infiniband", base: "ib-credit-loop", vary: []string{"switch.ib.hoq_lifetime: 20us", "stop: {at: 200ms}"}, claims: []labClaim{
		{answers: true, text: "28,616 packets are discarded and 21,504 resent (after the RC senders' 67 ms ACK timeout), and nothing is delivered", json: "packets.drop_reasons.hoq_lifetime", want: 28616},
		{answers: true, text: "28,616 packets are discarded and 21,504 resent (after the RC senders' 67 ms ACK timeout), and nothing is delivered", json: "packets.retransmitted", want: 21504},
		{answers: true, text: "28,616 packets are discarded and 21,504 resent (after the RC senders' 67 ms ACK timeout), and nothing is delivered", json: "bytes.delivered", want: 0},
	}},
	{lab: "memory-protection", base: "labs/memory-protection/out-of-bounds", vary: []string{"traffic[0].flow.remote_mr.length: 512KiB"}, claims: []labClaim{
		{text: "Set `length: 512KiB` in `out-of-bounds`: every WRITE fits", json: "flows.work_completions.success", want: 8},
	}},
	{lab: "memory-protection", base: "labs/memory-protection/out-of-bounds", vary: []string{"traffic[0].flow.remote_mr.length: 320KiB"}, claims: []labClaim{
		{text: "At `length: 320KiB` five do", json: "flows.work_completions.success", want: 5},
	}},
	{lab: "memory-protection", base: "labs/memory-protection/out-of-bounds", vary: []string{"traffic[0].flow.messages: 1"}, claims: []labClaim{
		{text: "one 512 KiB WRITE, refused whole (nothing delivered)", json: "bytes.delivered", want: 0},
		{text: "one 512 KiB WRITE, refused whole (nothing delivered)", json: "flows.work_completions.rem_access_err", want: 1},
	}},
	{lab: "memory-protection", base: "labs/memory-protection/no-remote-write", vary: []string{"traffic[0].flow.remote_mr.access: [local_write, remote_read, remote_write]"}, claims: []labClaim{
		{text: "all eight WRITEs succeed, 512 KiB are delivered", json: "flows.work_completions.success", want: 8},
		{text: "all eight WRITEs succeed, 512 KiB are delivered", json: "bytes.delivered", want: 512 << 10},
	}},
	{lab: "memory-protection", base: "labs/memory-protection/no-remote-write", vary: []string{"traffic[0].flow.op: read"}, claims: []labClaim{
		{text: "the region allows remote reads, so the READs succeed", json: "flows.work_completions.success", want: 8},
	}},
	{lab: "connecting", base: "labs/connecting/one-connection", vary: []string{"hca.cm.qp_command: 20us"}, claims: []labClaim{
		{text: "the set-up falls to 0.19 ms and `min_setup_time` fails", json: "connections.setup_mean_ns", want: 0.19e6, tol: 0.005e6},
		{text: "the set-up falls to 0.19 ms and `min_setup_time` fails", json: "expect[check=min_setup_time].ok", want: 0},
	}},
	{lab: "connecting", base: "labs/connecting/one-connection", vary: []string{"traffic[0].flow.connect: instant"}, claims: []labClaim{
		{text: "(`connections_established` fails): the FCT is 12.5 µs", flow: "0", json: "fct_ns", want: 12.5e3, tol: 0.05e3},
		{text: "(`connections_established` fails): the FCT is 12.5 µs", json: "expect[check=connections_established].ok", want: 0},
		{text: "its 64 KiB WRITE takes about 12.5 µs on the wire", flow: "0", json: "fct_ns", want: 12.5e3, tol: 0.05e3},
		{answers: true, text: "About 140 times longer: 1.8 ms", flow: "0", json: "fct_ns", want: 1.8e6 / 140, tol: 0.5e3},
	}},
	{lab: "connecting", base: "labs/connecting/thousand-connections", vary: []string{"traffic[0].flow.count: 100"}, claims: []labClaim{
		{text: "the last connection comes at 89.7 ms", json: "connections.setup_max_ns", want: 89.7e6, tol: 0.05e6},
	}},
	{lab: "transports", base: "labs/transports/uc", vary: []string{"faults[0].rate: 0.1%"}, claims: []labClaim{
		{text: "UC loses one message of 198", json: "flows.completed", want: 197},
		{text: "UC loses one message of 198", json: "flows.total", want: 198},
	}},
	{lab: "ecmp-polarisation", base: "labs/ecmp-polarisation/spray", vary: []string{"switch.spray: random"}, claims: []labClaim{
		{text: "the reorder grows from 66 to 157 PSNs, still inside the window", flow: "max", json: "reorder_max", want: 157},
		{text: "the reorder grows from 66 to 157 PSNs, still inside the window", json: "packets.retransmitted", want: 0},
	}},
	{lab: "ecmp-polarisation", base: "labs/ecmp-polarisation/spray", vary: []string{"switch.spray: random", "hca.reorder_window: 64"}, claims: []labClaim{
		{text: "25,081 packets are resent although nothing was lost", json: "packets.retransmitted", want: 25081},
		{text: "25,081 packets are resent although nothing was lost", json: "packets.dropped", want: 0},
	}},
	{lab: "ecmp-polarisation", base: "labs/ecmp-polarisation/spray", vary: []string{"hca.reorder_window: 64"}, claims: []labClaim{
		{text: "(round robin, whose 66 is just past that window, resends 107)", json: "packets.retransmitted", want: 107},
	}},
	{lab: "tuning-dcqcn", base: "labs/tuning-dcqcn/aggressive", vary: []string{"switch.ecn: {kmin: 2KB, kmax: 20KB, pmax: 1%}"}, claims: []labClaim{
		{text: "the queue doubles (9.5 KB) and the link stays full (slowdown 8.42)", json: "queues.mean_bytes", want: 9.5e3, tol: 0.05e3},
		{text: "the queue doubles (9.5 KB) and the link stays full (slowdown 8.42)", json: "fct.mean_slowdown", want: 8.42, tol: 0.005},
		{text: "`min_mean_slowdown` no longer holds", json: "expect[check=min_mean_slowdown].ok", want: 0},
	}},
	{lab: "first-verbs-program", base: "labs/first-verbs-program/rc-pingpong", vary: []string{"hca.doorbell_latency: 0"}, claims: []labClaim{
		{text: "0.4 µs less per iteration (one doorbell per SEND, two SENDs per iteration), and `min_usec_per_iter` fails", file: "perftest.txt", line: "1000 iters in 0.01 seconds = 6.45 usec/iter"},
		{text: "0.4 µs less per iteration (one doorbell per SEND, two SENDs per iteration), and `min_usec_per_iter` fails", json: "expect[check=min_usec_per_iter].ok", want: 0},
	}},
	{lab: "first-verbs-program", base: "labs/first-verbs-program/rc-pingpong", vary: []string{"traffic[0].pingpong.size: 4096"}, claims: []labClaim{
		{text: "(too big for inline, and 4 KiB on the wire each way): 9.64 µs", file: "perftest.txt", line: "1000 iters in 0.01 seconds = 9.64 usec/iter"},
	}},
	{lab: "first-verbs-program", base: "labs/first-verbs-program/timeline", vary: []string{"topology.link.delay: 500ns"}, claims: []labClaim{
		{text: "In `timeline`, `delay: 500ns`: 4.85 µs per iteration (each of the four propagation stages 500 ns shorter), and `min_usec_per_iter` fails", file: "perftest.txt", line: "1000 iters in 0.00 seconds = 4.85 usec/iter"},
		{text: "In `timeline`, `delay: 500ns`: 4.85 µs per iteration (each of the four propagation stages 500 ns shorter), and `min_usec_per_iter` fails", json: "timeline.stages.propagation", want: 4 * 500},
		{text: "In `timeline`, `delay: 500ns`: 4.85 µs per iteration (each of the four propagation stages 500 ns shorter), and `min_usec_per_iter` fails", json: "expect[check=min_usec_per_iter].ok", want: 0},
		{answers: true, text: "each 1,000 ns to 500 ns: 2 µs less, 4.85 µs per iteration (the run prints 4.85)", json: "timeline.total_ns", want: 4.85e3, tol: 0.005e3},
		{answers: true, text: "Everything else, NICs, switch and serialization, is the same", json: nicStages, want: 1800},
		{answers: true, text: "Everything else, NICs, switch and serialization, is the same", json: "timeline.stages.switch_pipeline", want: 1000},
		{answers: true, text: "Everything else, NICs, switch and serialization, is the same", json: "timeline.stages.serialization", want: 46.72, tol: 0.005},
	}},
	{lab: "first-verbs-program", base: "labs/first-verbs-program/no-nic-latency", vary: []string{"observe.timeline: {}"}, claims: []labClaim{
		{answers: true, text: "`tx_wait`, 6.88 ns on the `ping` and again on the `pong`", file: "timeline.csv", line: "ping,tx_wait,h0:p0,0.000,6.880,6.880,1"},
		{answers: true, text: "`tx_wait`, 6.88 ns on the `ping` and again on the `pong`", file: "timeline.csv", line: "pong,tx_wait,h1:p0,2530.240,2537.120,6.880,1"},
		{answers: true, text: "`tx_wait`, 6.88 ns on the `ping` and again on the `pong`: the 5,060.48 ns of the iteration against 2 × 2,523.36", json: "timeline.stages.tx_wait", want: 2 * 6.88, tol: 0.005},
		{answers: true, text: "the 5,060.48 ns of the iteration against 2 × 2,523.36", json: "timeline.total_ns", want: 5060.48, tol: 0.005},
		{answers: true, text: "the 5,060.48 ns of the iteration against 2 × 2,523.36", json: "timeline.stages.propagation+timeline.stages.serialization+timeline.stages.switch_pipeline", want: 2 * 2523.36, tol: 0.005}, // every stage but tx_wait
	}},
	{lab: "transports", base: "labs/transports/rc", vary: []string{"hca.retransmit: selective"}, claims: []labClaim{
		{text: "resends only what was lost (29 packets for 27 lost)", json: "packets.retransmitted", want: 29},
		{text: "resends only what was lost (29 packets for 27 lost)", json: "packets.dropped", want: 27},
		{text: "the p99 FCT falls from 67 ms to 0.37 ms", json: "fct.p99_ns", want: 0.37e6, tol: 0.005e6},
	}},
	{lab: "one-and-two-sided", base: "labs/one-and-two-sided/send-before-recv", vary: []string{"hca.min_rnr_timer: 1"}, claims: []labClaim{
		{text: "With `hca: {min_rnr_timer: 1}` the flow ends near 146 µs, after many more RNR NAKs (114 packets retransmitted)", json: "fct.p50_ns", want: 146e3, tol: 0.5e3},
		{text: "With `hca: {min_rnr_timer: 1}` the flow ends near 146 µs, after many more RNR NAKs (114 packets retransmitted)", json: "packets.retransmitted", want: 114},
	}},
	{lab: "pfc-head-of-line", base: "labs/pfc-head-of-line/dcqcn", vary: []string{"hca.cc: none"}, claims: []labClaim{
		{text: "h0's link is paused 0.74 of the run, the victim's slowdown goes back to 7.7", json: "pfc.spread[port=h0:p0].paused_fraction", want: 0.74, tol: 0.005},
		{text: "h0's link is paused 0.74 of the run, the victim's slowdown goes back to 7.7", flow: "8", json: "slowdown", want: 7.7, tol: 0.05},
	}},
	{lab: "pfc-head-of-line", base: "labs/pfc-head-of-line/pfc", vary: []string{"hca.cc: dcqcn"}, claims: []labClaim{
		{text: "h0's link is never paused, the victim's slowdown is 1.03", flow: "8", json: "slowdown", want: 1.03, tol: 0.005},
	}},
	{lab: "lossless-or-not", base: "labs/lossless-or-not/iwarp", vary: []string{"hca.tcp.cc: cubic"}, claims: []labClaim{
		{text: "About 350 packets are dropped, and 13 flows are still unfinished at 10 ms", json: "packets.dropped", want: 350, tol: 25},
		{text: "About 350 packets are dropped, and 13 flows are still unfinished at 10 ms", json: "flows.completed", want: 17 - 13},
	}},
	{lab: "lossless-or-not", base: "labs/lossless-or-not/iwarp", vary: []string{"hca.tcp.cc: cubic", "hca.tcp.rto_min: 1ms"}, claims: []labClaim{
		{text: "Then add `rto_min: 1ms` to `tcp:`: every flow completes by 2.1 ms", json: "flows.completed", want: 17},
		{text: "Then add `rto_min: 1ms` to `tcp:`: every flow completes by 2.1 ms", flow: "0..16", json: "end_ns", want: 2.05e6, tol: 0.05e6},
	}},
	{lab: "lossless-or-not", base: "labs/lossless-or-not/irn", vary: []string{"hca.bdp_cap: 0"}, claims: []labClaim{
		{text: "About half the packets are dropped and resent (over 10,000), and the lab's `max_retransmitted` check fails", json: "packets.retransmitted", want: 10000, above: true},
		{text: "About half the packets are dropped and resent (over 10,000), and the lab's `max_retransmitted` check fails", json: "expect[check=max_retransmitted].ok", want: 0},
		{answers: true, text: "Without the cap, selective repeat still completes every flow (1.9 ms)", flow: "0..16", json: "end_ns", want: 1.9e6, tol: 0.05e6},
	}},
	{lab: "lossless-or-not", base: "labs/lossless-or-not/go-back-n", vary: []string{"hca.retransmit: selective"}, claims: []labClaim{
		{text: "Every flow now completes, but nearly 10,000 packets (9,908) are resent", json: "flows.completed", want: 17},
		{text: "Every flow now completes, but nearly 10,000 packets (9,908) are resent", json: "packets.retransmitted", want: 9908},
	}},
	{lab: "pfc-head-of-line", base: "labs/pfc-head-of-line/pfc", vary: []string{"switch.pfc.xoff: 400KiB"}, claims: []labClaim{
		{answers: true, text: "With `xoff: 400KiB` s0 sends 142 PAUSE frames instead of 433 and with 2 MiB 102, but the victim's slowdown only falls from 7.7 to 7.1 and 6.9", json: "pfc.pause_frames", want: 142},
		{answers: true, text: "With `xoff: 400KiB` s0 sends 142 PAUSE frames instead of 433 and with 2 MiB 102, but the victim's slowdown only falls from 7.7 to 7.1 and 6.9", flow: "8", json: "slowdown", want: 7.1, tol: 0.05},
	}},
	{lab: "pfc-head-of-line", base: "labs/pfc-head-of-line/pfc", vary: []string{"switch.pfc.xoff: 2MiB"}, claims: []labClaim{
		{answers: true, text: "With `xoff: 400KiB` s0 sends 142 PAUSE frames instead of 433 and with 2 MiB 102, but the victim's slowdown only falls from 7.7 to 7.1 and 6.9", json: "pfc.pause_frames", want: 102},
		{answers: true, text: "With `xoff: 400KiB` s0 sends 142 PAUSE frames instead of 433 and with 2 MiB 102, but the victim's slowdown only falls from 7.7 to 7.1 and 6.9", flow: "8", json: "slowdown", want: 6.9, tol: 0.05},
	}},
	{lab: "infiniband", base: "labs/infiniband/incast-pfc", vary: []string{"switch.pfc.priorities: []"}, claims: []labClaim{
		{text: "without PFC the switch drops what its buffer cannot hold (3,135 packets), three flows fail", json: "packets.dropped", want: 3135},
		{text: "without PFC the switch drops what its buffer cannot hold (3,135 packets), three flows fail", json: "flows.completed", want: 8 - 3},
	}},
	{lab: "infiniband", base: "labs/infiniband/incast-credits", vary: []string{"switch.ib.vl_buffer: 16KiB"}, claims: []labClaim{
		{text: "the incast takes 2.70 ms either way", json: "sim_time_ns", want: 2.70e6, tol: 0.005e6},
	}},
	{lab: "infiniband", base: "labs/infiniband/incast-credits", vary: []string{"switch.ib.vl_buffer: 128KiB"}, claims: []labClaim{
		{text: "the incast takes 2.70 ms either way", json: "sim_time_ns", want: 2.70e6, tol: 0.005e6},
	}},
	{lab: "ai-training", base: "labs/ai-training/beside-ecmp", vary: []string{"topology.servers_per_rail_switch: 4"}, claims: []labClaim{
		{answers: true, text: "Slowdown 1.000: with all four servers on one rail switch per rail", json: "jobs[name=a].slowdown", want: 1, tol: 0.0005},
	}},
}

// TestLabVariants: the figures the labs quote for the changes they ask
// the student to make are what those changed scenarios give (issue 51:
// every number a lab text or its answers quote). LFSIM_SLOW: a run each.
func TestLabVariants(t *testing.T) {
	if os.Getenv("LFSIM_SLOW") == "" {
		t.Skip("LFSIM_SLOW=1: a run for each change a lab asks for")
	}
	base := t.TempDir()
	for i, v := range labVariants {
		t.Run(fmt.Sprintf("%s/%d", v.lab, i), func(t *testing.T) {
			t.Parallel()
			readme, err := scenarios.LabREADME(v.lab)
			if err != nil {
				t.Fatal(err)
			}
			answers, _ := scenarios.LabAnswers(v.lab)
			texts := []labDoc{{"README.md", strings.Join(strings.Fields(readme), " ")}, {"ANSWERS.md", strings.Join(strings.Fields(answers), " ")}}
			src := "base: " + v.base + "\nvary:\n"
			for _, kv := range v.vary {
				key, value, _ := strings.Cut(kv, ": ")
				src += "  " + key + ": [" + value + "]\n"
			}
			dir := filepath.Join(base, fmt.Sprint(i))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "change.sweep.yaml")
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			code, _, stderr := lfsim(t, "sweep", file, "-q", "-o", out)
			if code != 0 && code != exitFailed {
				t.Fatalf("lfsim sweep of %s with %v: exit %d\n%s", v.base, v.vary, code, stderr)
			}
			points, _ := filepath.Glob(filepath.Join(out, "points", "*"))
			if len(points) != 1 {
				t.Fatalf("%s with %v: %d points, want 1 (%v); the sweep said:\n%s", v.base, v.vary, len(points), points, stderr)
			}
			for _, c := range v.claims {
				c.run = filepath.Base(points[0])
				checkLabClaim(t, texts, filepath.Dir(points[0]), c)
			}
		})
	}
}
