package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// labClaim is a figure a lab's README or its teacher's notes quote (its
// text, whitespace as one space) and where the run that the README names
// writes it: a JSON path in summary.json with the value it must have
// within tol (the text's rounding: half its last digit, unless the text
// says "about"), a column of one row of flows.csv, or a line of a file.
// A claim is checked in both directions: the text must still say it, and
// the output must still show it.
type labClaim struct {
	text  string                            // as the text writes it
	run   string                            // the run's folder under lfsim-out
	json  string                            // a path in summary.json: keys, and [key=value] for a list's element (a boolean reads as 0 or 1), paths joined by + summed; with flow, a column of flows.csv
	of    string                            // when set, json's value is taken as a share of this path's (summary.json)
	want  float64                           // the value at json
	tol   float64                           // how far from want it may be
	above bool                              // or: the value is above want (the text says only "some")
	flow  string                            // flows.csv's row of this id, json naming its column; "A..B" the largest over ids A to B, "max" over every row
	read  func(dir string) (float64, error) // or a figure read from the run's folder by a function of its own
	file  string                            // or a file of the run
	line  string                            // and the line(s) it holds; with json, the string at json (a list joined by " -> ")

	answers bool // the figure is in ANSWERS.md, not in README.md
}

// labClaims are figures the labs quote (those of the labs issue 51 found
// pointing at what their outputs did not show, and others), each held to
// the run it is read from.
var labClaims = map[string][]labClaim{
	"ecmp-polarisation": {
		{text: "about 2.0 when polarised, about 1.5 with a seed per switch", run: "ecmp-polarised", json: "fct.mean_slowdown", want: 2.0, tol: 0.05},
		{text: "about 2.0 when polarised, about 1.5 with a seed per switch", run: "ecmp-per-switch", json: "fct.mean_slowdown", want: 1.5, tol: 0.05},
		{text: "carries traffic, 8 of the 16; with a seed per switch, 13 of them", run: "ecmp-polarised", read: coreLinksUsed, want: 8},
		{text: "carries traffic, 8 of the 16; with a seed per switch, 13 of them", run: "ecmp-per-switch", read: coreLinksUsed, want: 13},
		{text: "ECMP's busiest uplink carries about four times the mean", run: "lb-collisions", json: "uplinks.imbalance", want: 4, tol: 0.3},
		{text: "mean slowdown about 2.5 with ECMP, 1.85 with flowlets, 1.3 with adaptive routing, 1.02 sprayed", run: "lb-collisions", json: "fct.mean_slowdown", want: 2.5, tol: 0.05},
		{text: "mean slowdown about 2.5 with ECMP, 1.85 with flowlets, 1.3 with adaptive routing, 1.02 sprayed", run: "lb-flowlets", json: "fct.mean_slowdown", want: 1.85, tol: 0.005},
		{text: "mean slowdown about 2.5 with ECMP, 1.85 with flowlets, 1.3 with adaptive routing, 1.02 sprayed", run: "lb-adaptive", json: "fct.mean_slowdown", want: 1.3, tol: 0.05},
		{text: "mean slowdown about 2.5 with ECMP, 1.85 with flowlets, 1.3 with adaptive routing, 1.02 sprayed", run: "lb-spray", json: "fct.mean_slowdown", want: 1.02, tol: 0.005},
		{text: "`packets.retransmitted`: 0 sprayed with direct placement", run: "lb-spray", json: "packets.retransmitted", want: 0},
		{text: "the largest reorder, 66 PSNs, is well inside the reorder window of 256", run: "lb-spray", flow: "max", json: "reorder_max", want: 66},
		{text: "3,649 with adaptive routing, whose reorder reaches 449 PSNs", run: "lb-adaptive", json: "packets.retransmitted", want: 3649},
		{text: "3,649 with adaptive routing, whose reorder reaches 449 PSNs", run: "lb-adaptive", flow: "max", json: "reorder_max", want: 449},
		{text: "about 1.7 million sprayed to in-order NICs", run: "lb-spray-in-order", json: "packets.retransmitted", want: 1.7e6, tol: 0.05e6},
		{text: "more than ten times the 131,072 packets the flows carry, and every flow 14 times slower than alone", run: "lb-spray-in-order", json: "fct.mean_slowdown", want: 14, tol: 0.5},
		{text: "more than ten times the 131,072 packets the flows carry", run: "lb-spray-in-order", read: fromSummary("bytes.offered", func(b float64) float64 { return b / 4096 }), want: 131072}, // packets of 4 KiB
		{answers: true, text: "the slowdown stays ECMP's (2.50 against 2.47)", run: "lb-collisions", json: "fct.mean_slowdown", want: 2.47, tol: 0.005},
		{answers: true, text: "the resends (1.7 million) exceed the packets (131,072)", run: "lb-spray-in-order", json: "packets.retransmitted", want: 1.7e6, tol: 0.05e6},
	},
	"lossless-or-not": {
		{text: "nothing is dropped and the incast ends at 1.38 ms", run: "lon-pfc", flow: "0..15", json: "end_ns", want: 1.38e6, tol: 0.005e6},
		{text: "nothing is dropped", run: "lon-pfc", json: "packets.dropped", want: 0},
		{text: "flow 16 take 1.58 ms (4.5 times its time alone)", run: "lon-pfc", flow: "16", json: "fct_ns", want: 1.58e6, tol: 0.005e6},
		{text: "flow 16 take 1.58 ms (4.5 times its time alone)", run: "lon-pfc", flow: "16", json: "slowdown", want: 4.5, tol: 0.05},
		{text: "drops about 5,850 packets and resends 2,800", run: "lon-go-back-n", json: "packets.dropped", want: 5850, tol: 5},
		{text: "drops about 5,850 packets and resends 2,800", run: "lon-go-back-n", json: "packets.retransmitted", want: 2800, tol: 5},
		{text: "at 10 ms only 3 of 17 flows have completed", run: "lon-go-back-n", json: "flows.completed", want: 3},
		{text: "at 10 ms only 3 of 17 flows have completed", run: "lon-go-back-n", json: "sim_time_ns", want: 10e6},
		{text: "`irn` drops about 75 packets, resends the same number, finishes every flow by 1.61 ms", run: "lon-irn", json: "packets.dropped", want: 75, tol: 5},
		{text: "`irn` drops about 75 packets, resends the same number, finishes every flow by 1.61 ms", run: "lon-irn", json: "packets.retransmitted", want: 75, tol: 5},
		{text: "`irn` drops about 75 packets, resends the same number, finishes every flow by 1.61 ms", run: "lon-irn", flow: "0..16", json: "end_ns", want: 1.61e6, tol: 0.005e6},
		{text: "`iwarp` drops nothing without PFC", run: "lon-iwarp", json: "packets.dropped", want: 0},
		{answers: true, text: "h0's link is paused 73% of the run", run: "lon-pfc", json: "pfc.spread[port=h0:p0].paused_fraction", want: 0.73, tol: 0.005},
		{answers: true, text: "75 drops, 75 resends", run: "lon-irn", json: "packets.retransmitted", want: 75},
		{answers: true, text: "Flow 16 is at 1.04 of its time alone", run: "lon-irn", flow: "16", json: "slowdown", want: 1.04, tol: 0.005},
		{answers: true, text: "against flow 16's 4.5× slowdown", run: "lon-pfc", flow: "16", json: "slowdown", want: 4.5, tol: 0.05},
	},
	"pfc-storm": {
		{text: "summary.json's `pfc.storm_detected` is true", run: "pfc-storm", json: "pfc.storm_detected", want: 1},
		{text: "the victim h5 → h0 delivers 0.7 MB in 2 ms", run: "pfc-storm", flow: "1", json: "delivered_bytes", want: 0.7e6, tol: 0.05e6},
		{text: "s0:p3 is still paused (h3 still sends PAUSE)", run: "storm-switch-watchdog", json: "pfc.spread[port=s0:p3].paused_fraction", want: 0.95, tol: 0.01},
		{text: "the watchdog trips (`pfc.watchdog_trips`)", run: "storm-switch-watchdog", json: "pfc.watchdog_trips", above: true},
		{text: "drops what is queued for h3 and what comes for it (`drop_reasons.watchdog`)", run: "storm-switch-watchdog", json: "packets.drop_reasons.watchdog", above: true},
		{text: "(0.09 and 0.08 of the run, against 0.94 and 0.93)", run: "storm-switch-watchdog", json: "pfc.spread[port=s2:p0].paused_fraction", want: 0.09, tol: 0.005},
		{text: "(0.09 and 0.08 of the run, against 0.94 and 0.93)", run: "storm-switch-watchdog", json: "pfc.spread[port=s1:p4].paused_fraction", want: 0.08, tol: 0.005},
		{text: "(0.09 and 0.08 of the run, against 0.94 and 0.93)", run: "pfc-storm", json: "pfc.spread[port=s2:p0].paused_fraction", want: 0.94, tol: 0.005},
		{text: "(0.09 and 0.08 of the run, against 0.94 and 0.93)", run: "pfc-storm", json: "pfc.spread[port=s1:p4].paused_fraction", want: 0.93, tol: 0.005},
		{text: "The victim delivers 11.2 MB", run: "storm-switch-watchdog", flow: "1", json: "delivered_bytes", want: 11.2e6, tol: 0.05e6},
		{text: "its NIC is still paused about half the time", run: "storm-switch-watchdog", json: "pfc.spread[port=h5:p0].paused_fraction", want: 0.5, tol: 0.1},
		{text: "the hung NIC's switch port is paused for the whole rest of the run", run: "storm-nic-hang", json: "pfc.spread[port=s0:p2].paused_fraction", want: 0.96, tol: 0.02},
		{text: "(`drop_reasons.nic_buffer`)", run: "storm-nic-watchdog", json: "packets.drop_reasons.nic_buffer", above: true},
		{text: "(`drop_reasons.nic_buffer`); the port is paused only 17% of the run", run: "storm-nic-watchdog", json: "pfc.spread[port=s0:p2].paused_fraction", want: 0.17, tol: 0.005},
		{text: "the lab's checks fail (the spine paused 0.94 of the run)", run: "pfc-storm", json: "pfc.spread[port=s2:p0].paused_fraction", want: 0.94, tol: 0.005},
		{answers: true, text: "delivers only 0.7 MB in 2 ms", run: "pfc-storm", flow: "1", json: "delivered_bytes", want: 0.7e6, tol: 0.05e6},
		{answers: true, text: "so it finishes in 1.38 ms, as alone", run: "pfc-storm", flow: "2", json: "end_ns", want: 1.38e6, tol: 0.005e6},
		{answers: true, text: "(2,583 packets here)", run: "storm-switch-watchdog", json: "packets.drop_reasons.watchdog", want: 2583},
	},
	"deadlock": {
		{text: "the cycle is two ports, `s1:p2 -> s2:p1`", run: "deadlock-routing-loop", json: "deadlock.cycle", line: "s1:p2 -> s2:p1"},
		{text: "their paths close a cycle through four switches", run: "deadlock-clos-bounce", json: "deadlock.cycle", line: "s0:p0 -> l0:p3 -> s1:p1 -> l1:p2"},
		{text: "the dependency is there, but nothing fills it", run: "dl-clos-low-load", json: "deadlock.detected", want: 0},
		{text: "the copies close the cycle", run: "deadlock-flooding", json: "deadlock.detected", want: 1},
		{text: "so each direction's queues wait on each other", run: "deadlock-adaptive-ring", json: "deadlock.detected", want: 1},
		{text: "up*/down* routing (`clos-updown`, `ring-updown`)", run: "dl-clos-updown", json: "deadlock.detected", want: 0},
		{text: "up*/down* routing (`clos-updown`, `ring-updown`)", run: "dl-ring-updown", json: "deadlock.detected", want: 0},
		{text: "Tagger (`clos-tagger`", run: "dl-clos-tagger", json: "deadlock.detected", want: 0},
		{text: "the packets for the dead server are dropped as `no_route`", run: "dl-no-lossless-flooding", json: "deadlock.detected", want: 0},
		{text: "the packets for the dead server are dropped as `no_route`", run: "dl-no-lossless-flooding", json: "packets.drop_reasons.no_route", above: true},
		{text: "which flows still go both ways round, and which only one", run: "dl-ring-updown", flow: "6", json: "paths", want: 2},
		{text: "which flows still go both ways round, and which only one", run: "dl-ring-updown", flow: "0", json: "paths", want: 1},
		{answers: true, text: "Only the loaded one.", run: "deadlock-clos-bounce", json: "deadlock.detected", want: 1},
		{answers: true, text: "Only the loaded one.", run: "dl-clos-low-load", json: "deadlock.detected", want: 0},
		{answers: true, text: "and every flow completes", run: "dl-clos-low-load", json: "flows.completed", want: 6},
		{answers: true, text: "and every flow completes", run: "dl-clos-low-load", json: "flows.total", want: 6},
	},
	"ai-training": {
		{text: "about 662 µs an iteration", run: "ai-alone", json: "jobs[name=a].iteration_ns_mean", want: 662e3, tol: 0.5e3},
		{text: "of which 120 µs is compute", run: "ai-alone", json: "jobs[name=a].compute_ns_mean", want: 120e3, tol: 0.5e3},
		{text: "82% of each rank's iteration is exposed communication", run: "ai-alone", json: "jobs[name=a].exposed_comm_fraction", want: 0.82, tol: 0.005},
		{text: "`slowdown` 1.73 and 1.69", run: "ai-beside-ecmp", json: "jobs[name=a].slowdown", want: 1.73, tol: 0.005},
		{text: "`slowdown` 1.73 and 1.69", run: "ai-beside-ecmp", json: "jobs[name=b].slowdown", want: 1.69, tol: 0.005},
		{text: "PFC pauses s0/g0's link 42% of the run", run: "ai-beside-ecmp", json: "pfc.spread[port=s0/g0:p0].paused_fraction", want: 0.42, tol: 0.005},
		{text: "each job within about 1% of its time alone", run: "ai-beside-spray", read: fromSummary("jobs[name=a].slowdown", func(s float64) float64 { return s - 1 }), want: 0.01, tol: 0.01},
		{text: "each job within about 1% of its time alone", run: "ai-beside-spray", read: fromSummary("jobs[name=b].slowdown", func(s float64) float64 { return s - 1 }), want: 0.01, tol: 0.01},
		{text: "no pause and no packet resent", run: "ai-beside-spray", json: "packets.retransmitted", want: 0},
		{text: "PFC hardly pauses (0.3% of the run)", run: "ai-beside-dcqcn", json: "pfc.spread[port=s0/g0:p0].paused_fraction", want: 0.003, tol: 0.0005},
		{text: "about 2.0 times slower than alone", run: "ai-beside-dcqcn", json: "jobs[name=a].slowdown", want: 2.0, tol: 0.05},
		{text: "about 2.0 times slower than alone", run: "ai-beside-dcqcn", json: "jobs[name=b].slowdown", want: 2.0, tol: 0.05},
		{answers: true, text: "1.73 times alone for job `a` (1.69 for `b`)", run: "ai-beside-ecmp", json: "jobs[name=a].slowdown", want: 1.73, tol: 0.005},
		{answers: true, text: "within about 1% of its time alone (1.01)", run: "ai-beside-spray", json: "jobs[name=a].slowdown", want: 1.01, tol: 0.005},
		{answers: true, text: "541 of 662 µs, 82%", run: "ai-alone", json: "jobs[name=a].exposed_comm_ns_mean", want: 541e3, tol: 0.5e3},
		{answers: true, text: "su0.rail0:p3 and su1.rail0:p3 carry 38.5 MB each", run: "ai-beside-ecmp", file: "uplinks.csv", line: "su0.rail0:p3,spine1:p0,38529796"},
		{answers: true, text: "su0.rail0:p3 and su1.rail0:p3 carry 38.5 MB each", run: "ai-beside-ecmp", file: "uplinks.csv", line: "su1.rail0:p3,spine1:p2,38529796"},
		{answers: true, text: "(imbalance 2.0: the busiest uplink carries twice the mean)", run: "ai-beside-ecmp", json: "uplinks.imbalance", want: 2.0, tol: 0.05},
		{answers: true, text: "evenly (imbalance 1.01)", run: "ai-beside-spray", json: "uplinks.imbalance", want: 1.01, tol: 0.005},
		{answers: true, text: "(0.3% of the run against 42%)", run: "ai-beside-dcqcn", json: "pfc.spread[port=s0/g0:p0].paused_fraction", want: 0.003, tol: 0.0005},
		{answers: true, text: "slowdown 1.98 against 1.73 with PFC alone", run: "ai-beside-dcqcn", json: "jobs[name=a].slowdown", want: 1.98, tol: 0.005},
	},
	"connecting": {
		{text: "1.804 ms of set-up", run: "connect-one", json: "connections.setup_mean_ns", want: 1.804e6, tol: 0.5e3},
		{text: "1.804 ms of set-up for a 64 KiB WRITE that takes 12.5 µs", run: "connect-one", read: dataAfterConnect, want: 12.5e3, tol: 0.1e3},
		{text: "`fct_ns` includes it", run: "connect-one", flow: "0", json: "fct_ns", want: 1.817e6, tol: 0.5e3},
		{text: "a straight ramp from 444 ms to 889 ms", run: "connect-thousand", flow: "0", json: "connect_ns", want: 444e6, tol: 0.5e6},
		{text: "a straight ramp from 444 ms to 889 ms", run: "connect-thousand", json: "connections.setup_max_ns", want: 889e6, tol: 0.5e6},
		{text: "the mean (666 ms) and the total (889 ms)", run: "connect-thousand", json: "connections.setup_mean_ns", want: 666e6, tol: 0.5e6},
		{text: "the mean (666 ms) and the total (889 ms)", run: "connect-thousand", json: "connections.total_ns", want: 889e6, tol: 0.5e6},
		{text: "`client DISCONNECT EVENT...`", run: "connect-rping", file: "perftest.txt", line: "client DISCONNECT EVENT..."},
		{text: "`server DISCONNECT EVENT...`", run: "connect-rping", file: "perftest.txt", line: "server DISCONNECT EVENT..."},
		{text: "`wait for RDMA_READ_ADV state 10`", run: "connect-rping", file: "perftest.txt", line: "wait for RDMA_READ_ADV state 10"},
		{text: "The header line says how long the connection took", run: "connect-rping", file: "perftest.txt", line: "# traffic[0] rping h0 -> h1 (connected by rdma_cm in 1.804ms)"},
		{text: "`rdma_connect: Connection refused` and `rdma_client: end -1`", run: "connect-no-server", file: "perftest.txt", line: "rdma_connect: Connection refused\nrdma_client: end -1"},
		{text: "on the right port, `rdma_client: end 0`", run: "connect-no-server", file: "perftest.txt", line: "# traffic[2] rdma_client on h2: rdma_client -s h1 -p 7472\nrdma_client: start\nrdma_client: end 0"},
		{text: "1 of 2 made", run: "connect-no-server", json: "connections.established", want: 1},
		{text: "1 of 2 made", run: "connect-no-server", json: "connections.requested", want: 2},
		{answers: true, text: "About 140 times longer: 1.8 ms", run: "connect-one", json: "connections.setup_mean_ns", want: 1.8e6, tol: 0.05e6},
		{answers: true, text: "That is 1,776 µs of commands and 20 µs of processing; the remaining 8.4 µs are the REQ's and REP's one way trips", run: "connect-one", read: fromSummary("connections.setup_mean_ns", func(s float64) float64 { return s - 1776e3 - 20e3 }), want: 8.4e3, tol: 50},
		{answers: true, text: "(2,000 commands, 444 ms)", run: "connect-thousand", flow: "0", json: "connect_ns", want: 2000 * 222e3, tol: 0.5e6},
		{answers: true, text: "each runs 4,000 (888 ms) in all", run: "connect-thousand", json: "connections.setup_max_ns", want: 4000 * 222e3, tol: 1e6},
	},
	"first-verbs-program": {
		{text: "`rc-pingpong` 6.85", run: "first-rc-pingpong", file: "perftest.txt", line: "1000 iters in 0.01 seconds = 6.85 usec/iter"},
		{text: "`no-nic-latency` 5.06", run: "first-no-nic-latency", file: "perftest.txt", line: "1000 iters in 0.01 seconds = 5.06 usec/iter"},
		{text: "`no-inline` 8.35", run: "first-no-inline", file: "perftest.txt", line: "1000 iters in 0.01 seconds = 8.35 usec/iter"},
		// Part 3's reading of timeline.csv: its rows, and summary.json's
		// timeline.stages.
		{text: "146 bytes × 8 at 100 Gb/s, 11.68 ns", run: "first-timeline", file: "timeline.csv", line: "ping,serialization,h0:p0,400.000,411.680,11.680,1"},
		{text: "`switch_pipeline` is the switch's store-and-forward latency (500 ns)", run: "first-timeline", file: "timeline.csv", line: "ping,switch_pipeline,s0,1411.680,1911.680,500.000,1"},
		{text: "The server's RECV completes at 3,423.36 ns", run: "first-timeline", file: "timeline.csv", line: "ping,dma_cqe,h1,3123.360,3423.360,300.000,1"},
		{text: "completes the client's SEND at 6,137.12 ns", run: "first-timeline", file: "timeline.csv", line: "ping_ack,dma_cqe,h0,5837.120,6137.120,300.000,0"},
		{text: "add up to the iteration, 6,846.72 ns, which is the 6.85 usec/iter the client prints", run: "first-timeline", file: "timeline.csv", line: "iteration,total,h0,0.000,6846.720,6846.720,1"},
		{text: "add up to the iteration, 6,846.72 ns, which is the 6.85 usec/iter the client prints", run: "first-timeline", file: "perftest.txt", line: "1000 iters in 0.01 seconds = 6.85 usec/iter"},
		{text: "add up to the iteration, 6,846.72 ns", run: "first-timeline", json: "timeline.total_ns", want: 6846.72, tol: 0.005},
		{text: "Propagation is 4,000 ns of it (four link crossings, 58%)", run: "first-timeline", json: "timeline.stages.propagation", want: 4000},
		{text: "Propagation is 4,000 ns of it (four link crossings, 58%)", run: "first-timeline", json: "timeline.stages.propagation", of: "timeline.total_ns", want: 0.58, tol: 0.005},
		{text: "the NICs 1,800 ns", run: "first-timeline", json: nicStages, want: 1800},
		{text: "the NICs 1,800 ns (doorbell, transmit and receive pipelines, DMA: 26%)", run: "first-timeline", json: nicStages, of: "timeline.total_ns", want: 0.26, tol: 0.005},
		{text: "the switch 1,000 ns (15%)", run: "first-timeline", json: "timeline.stages.switch_pipeline", want: 1000},
		{text: "the switch 1,000 ns (15%)", run: "first-timeline", json: "timeline.stages.switch_pipeline", of: "timeline.total_ns", want: 0.15, tol: 0.005},
		{text: "46.72 ns, under 1%", run: "first-timeline", json: "timeline.stages.serialization", want: 46.72, tol: 0.005},
		{text: "46.72 ns, under 1%", run: "first-timeline", json: "timeline.stages.serialization", of: "timeline.total_ns", want: 0.005, tol: 0.005},
	},
	"tuning-dcqcn": {
		{text: "8% of the run for h0, 10.5% for h1, 1.0% for h5", run: "dcqcn-lax", json: "pfc.spread[port=h1:p0].paused_fraction", want: 0.105, tol: 0.0005},
		{text: "8% of the run for h0, 10.5% for h1, 1.0% for h5", run: "dcqcn-lax", json: "pfc.spread[port=h5:p0].paused_fraction", want: 0.010, tol: 0.0005},
		{answers: true, text: "`aggressive` holds the smallest queue (4.5 KB) and loses throughput (mean slowdown 8.79", run: "dcqcn-aggressive", json: "fct.mean_slowdown", want: 8.79, tol: 0.005},
		{answers: true, text: "`lax` holds 382 KB", run: "dcqcn-lax", json: "queues.mean_bytes", want: 382e3, tol: 0.5e3},
		{answers: true, text: "(64 KB, 8.39)", run: "dcqcn-default", json: "fct.mean_slowdown", want: 8.39, tol: 0.005},
		{answers: true, text: "h1 is paused 10.5% of the run and h5 1.0%", run: "dcqcn-lax", json: "pfc.spread[port=h1:p0].paused_fraction", want: 0.105, tol: 0.0005},
		{answers: true, text: "h1 is paused 10.5% of the run and h5 1.0%", run: "dcqcn-lax", json: "pfc.spread[port=h5:p0].paused_fraction", want: 0.010, tol: 0.0005},
		{answers: true, text: "(p99 12.76 ms against 12.52 for `default`)", run: "dcqcn-lax", json: "fct.p99_ns", want: 12.76e6, tol: 0.005e6},
		{text: "`default` holds 64 KB", run: "dcqcn-default", json: "queues.mean_bytes", want: 64e3, tol: 0.5e3},
		{text: "`aggressive` 4.5 KB", run: "dcqcn-aggressive", json: "queues.mean_bytes", want: 4.5e3, tol: 0.05e3},
		{text: "`lax` 382 KB", run: "dcqcn-lax", json: "queues.mean_bytes", want: 382e3, tol: 0.5e3},
		{text: "8.39 for `default`", run: "dcqcn-default", json: "fct.mean_slowdown", want: 8.39, tol: 0.005},
		{text: "8.79 for `aggressive`", run: "dcqcn-aggressive", json: "fct.mean_slowdown", want: 8.79, tol: 0.005},
		{text: "8.04 for `lax`", run: "dcqcn-lax", json: "fct.mean_slowdown", want: 8.04, tol: 0.005},
		{text: "p99 FCT is 12.76 ms", run: "dcqcn-lax", json: "fct.p99_ns", want: 12.76e6, tol: 0.005e6},
		{text: "`default`'s 12.52 ms", run: "dcqcn-default", json: "fct.p99_ns", want: 12.52e6, tol: 0.005e6},
		{text: "8% of the run for h0", run: "dcqcn-lax", json: "pfc.spread[port=h0:p0].paused_fraction", want: 0.08, tol: 0.005},
		{answers: true, text: "382 KB is about 31 µs", run: "dcqcn-lax", json: "queues.mean_bytes", want: 382e3, tol: 0.5e3},
	},
	"pfc-head-of-line": {
		{text: "Under PFC alone it is about 7.7 (it finishes with the incast, in about 2.7 ms, instead of in 0.35 ms); with DCQCN about 1.0", run: "hol-pfc", flow: "8", json: "slowdown", want: 7.7, tol: 0.05},
		{text: "Under PFC alone it is about 7.7 (it finishes with the incast, in about 2.7 ms, instead of in 0.35 ms); with DCQCN about 1.0", run: "hol-pfc", flow: "8", json: "end_ns", want: 2.7e6, tol: 0.05e6},
		{text: "Under PFC alone it is about 7.7 (it finishes with the incast, in about 2.7 ms, instead of in 0.35 ms); with DCQCN about 1.0", run: "hol-dcqcn", flow: "8", json: "slowdown", want: 1.0, tol: 0.05},
		{answers: true, text: "its slowdown is about 7.7 (2.7 ms instead of 0.35 ms)", run: "hol-pfc", flow: "8", json: "slowdown", want: 7.7, tol: 0.05},
		{answers: true, text: "(3.4 ms against 2.7)", run: "hol-dcqcn", flow: "0..7", json: "end_ns", want: 3.4e6, tol: 0.05e6},
		{answers: true, text: "(3.4 ms against 2.7)", run: "hol-pfc", flow: "0..7", json: "end_ns", want: 2.7e6, tol: 0.05e6},
		{text: "h0's included, about three quarters of the run", run: "hol-pfc", json: "pfc.spread[port=h0:p0].paused_fraction", want: 0.75, tol: 0.05},
	},
	"one-and-two-sided": {
		{answers: true, text: "About 13 times: 390 µs against 31 µs", run: "os-read-depth-1", json: "fct.p50_ns", want: 390e3, tol: 1e3},
		{answers: true, text: "About 13 times: 390 µs against 31 µs", run: "os-read-depth-16", json: "fct.p50_ns", want: 31e3, tol: 0.5e3},
		{text: "is 696 µs for 512 KiB", run: "os-send-before-recv", json: "fct.p50_ns", want: 696e3, tol: 0.5e3},
		{text: "19 packets went twice", run: "os-send-before-recv", json: "packets.retransmitted", want: 19},
		{text: "finish in 50 µs (slowdown 1.00)", run: "os-write", json: "fct.p50_ns", want: 50e3, tol: 0.5e3},
		{text: "finish in 50 µs (slowdown 1.00)", run: "os-write", json: "fct.mean_slowdown", want: 1, tol: 0.005},
		{text: "390 µs against 31 µs", run: "os-read-depth-1", json: "fct.p50_ns", want: 390e3, tol: 1e3},
		{text: "390 µs against 31 µs", run: "os-read-depth-16", json: "fct.p50_ns", want: 31e3, tol: 0.5e3},
	},
	"transports": {
		{text: "RC's mean slowdown is above 100 while its median FCT is 17 µs", run: "tr-rc", json: "fct.mean_slowdown", want: 100, above: true},
		{text: "RC's mean slowdown is above 100 while its median FCT is 17 µs", run: "tr-rc", json: "fct.p50_ns", want: 17e3, tol: 0.5e3},
		{text: "and four take", run: "tr-rc", read: slowFlows(60e6), want: 4}, // flows of 67 ms: above 60
		{text: "and four take 67 ms", run: "tr-rc", flow: "max", json: "fct_ns", want: 67e6, tol: 0.5e6},
		{text: "all 198 RC messages", run: "tr-rc", json: "flows.completed", want: 198},
		{answers: true, text: "RC completes all 198 messages and resends 209 packets for 25 lost", run: "tr-rc", json: "packets.retransmitted", want: 209},
		{answers: true, text: "UC completes 179 of 198", run: "tr-uc", json: "flows.completed", want: 179},
		{answers: true, text: "UD 3,161 of 3,183", run: "tr-ud", json: "flows.completed", want: 3161},
		{text: "25 frames lost on the RC run, 22 on the others", run: "tr-rc", json: "packets.dropped", want: 25},
		{text: "25 frames lost on the RC run, 22 on the others", run: "tr-uc", json: "packets.dropped", want: 22},
		{text: "25 frames lost on the RC run, 22 on the others", run: "tr-ud", json: "packets.dropped", want: 22},
		{text: "209 packets retransmitted by RC", run: "tr-rc", json: "packets.retransmitted", want: 209},
		{text: "179 of the 198 UC messages", run: "tr-uc", json: "flows.completed", want: 179},
		{text: "3,161 of the 3,183 UD datagrams", run: "tr-ud", json: "flows.completed", want: 3161},
		{text: "3,161 of the 3,183 UD datagrams", run: "tr-ud", json: "flows.total", want: 3183},
	},
	"memory-protection": {
		{text: "the first WRITE completes with `rem_access_err` and the other seven with `wr_flush_err`", run: "mp-no-remote-write", json: "flows.work_completions.rem_access_err", want: 1},
		{text: "the first WRITE completes with `rem_access_err` and the other seven with `wr_flush_err`", run: "mp-no-remote-write", json: "flows.work_completions.wr_flush_err", want: 7},
		{text: "0 delivered in `no-remote-write`, `bad-rkey` and `other-pd`", run: "mp-no-remote-write", json: "bytes.delivered", want: 0},
		{text: "0 delivered in `no-remote-write`, `bad-rkey` and `other-pd`", run: "mp-bad-rkey", json: "bytes.delivered", want: 0},
		{text: "0 delivered in `no-remote-write`, `bad-rkey` and `other-pd`", run: "mp-other-pd", json: "bytes.delivered", want: 0},
		{text: "(the first four messages)", run: "mp-out-of-bounds", json: "flows.work_completions.success", want: 4},
		{answers: true, text: "All eight, and no byte.", run: "mp-no-remote-write", json: "bytes.delivered", want: 0},
		{answers: true, text: "All eight, and no byte.", run: "mp-no-remote-write", json: "flows.work_completions.wr_flush_err", want: 7},
		{answers: true, text: "19 data packets and the NAK", run: "mp-no-remote-write", read: fromSummary("packets.sent", func(s float64) float64 { return s - 1 }), want: 19}, // packets.sent counts the NAK
		{text: "exactly 262,144 (the first four messages)", run: "mp-out-of-bounds", json: "bytes.delivered", want: 262144},
		{text: "`no-remote-write` sent 20 packets", run: "mp-no-remote-write", json: "packets.sent", want: 20},
	},
	"infiniband": {
		{answers: true, text: "(2.75 ms with PFC, 2.70 ms with credits)", run: "ib-lab-incast-pfc", json: "sim_time_ns", want: 2.75e6, tol: 0.005e6},
		{answers: true, text: "(2.75 ms with PFC, 2.70 ms with credits)", run: "ib-lab-incast-credits", json: "sim_time_ns", want: 2.70e6, tol: 0.005e6},
		{answers: true, text: "paused by PAUSE frames 86% of the run, or waiting for credit 98% of it", run: "ib-lab-incast-pfc", json: "pfc.spread[port=h0:p0].paused_fraction", want: 0.86, tol: 0.005},
		{answers: true, text: "paused by PAUSE frames 86% of the run, or waiting for credit 98% of it", run: "ib-lab-incast-credits", json: "pfc.spread[port=h0:p0].paused_fraction", want: 0.98, tol: 0.005},
		{text: "h0's link paused 86% of the run", run: "ib-lab-incast-pfc", json: "pfc.spread[port=h0:p0].paused_fraction", want: 0.86, tol: 0.005},
		{text: "waiting for credit 98% of the run", run: "ib-lab-incast-credits", json: "pfc.spread[port=h0:p0].paused_fraction", want: 0.98, tol: 0.005},
		{text: "both finish in about 2.7 ms", run: "ib-lab-incast-pfc", json: "sim_time_ns", want: 2.7e6, tol: 0.05e6},
		{text: "both finish in about 2.7 ms", run: "ib-lab-incast-credits", json: "sim_time_ns", want: 2.7e6, tol: 0.05e6},
		{text: "every flow completes, in 1.5 ms", run: "ib-lab-loop-updn", json: "sim_time_ns", want: 1.5e6, tol: 0.05e6},
		{text: "all done in 2.2 ms and 1.2 ms", run: "ib-lab-loop-dfsssp", json: "sim_time_ns", want: 2.2e6, tol: 0.05e6},
		{text: "all done in 2.2 ms and 1.2 ms", run: "ib-lab-loop-lash", json: "sim_time_ns", want: 1.2e6, tol: 0.05e6},
		{text: "s0 for h4 and h5", run: "ib-lab-loop-updn", file: "lfts.txt", line: "0x000c 002 # Channel Adapter portguid 0x0002c9030000000c: 'h4'"},
		{text: "s0 for h4 and h5", run: "ib-credit-loop", file: "lfts.txt", line: "0x000c 003 # Channel Adapter portguid 0x0002c9030000000c: 'h4'"},
	},
}

// nicStages are the NICs' stages of a timeline's critical path
// (summary.json's timeline.stages): an inline SEND's.
const nicStages = "timeline.stages.doorbell+timeline.stages.tx_pipeline+timeline.stages.rx_pipeline+timeline.stages.dma_cqe"

// fromSummary reads a figure of summary.json (a path as labClaim's json)
// and gives f of it: a figure the text derives from the output's, such as
// a slowdown's excess over 1 ("within 1% of its time alone").
func fromSummary(path string, f func(float64) float64) func(dir string) (float64, error) {
	return func(dir string) (float64, error) {
		data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			return 0, err
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return 0, err
		}
		got, found := summaryFigure(v, labClaim{json: path})
		if !found {
			return 0, fmt.Errorf("no number at %s", path)
		}
		return f(got), nil
	}
}

// coreLinksUsed counts the core links of a k=4 fat tree (ports p2 and p3
// of the aggregation switches s8..s15) that sent anything: "only one of
// each aggregation switch's two core links carries traffic".
func coreLinksUsed(dir string) (float64, error) {
	data, err := os.ReadFile(filepath.Join(dir, "uplinks.csv"))
	if err != nil {
		return 0, err
	}
	used := 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ",")
		if len(f) != 3 {
			continue
		}
		node, port, _ := strings.Cut(f[0], ":")
		n, err := strconv.Atoi(strings.TrimPrefix(node, "s"))
		if err == nil && n >= 8 && n <= 15 && (port == "p2" || port == "p3") && f[2] != "0" {
			used++
		}
	}
	return float64(used), nil
}

// slowFlows counts flows.csv's rows whose FCT is above fct ns.
func slowFlows(fct float64) func(dir string) (float64, error) {
	return func(dir string) (float64, error) {
		data, err := os.ReadFile(filepath.Join(dir, "flows.csv"))
		if err != nil {
			return 0, err
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		at := slices.Index(strings.Split(lines[0], ","), "fct_ns")
		slow := 0
		for _, line := range lines[1:] {
			if v, err := strconv.ParseFloat(strings.Split(line, ",")[at], 64); err == nil && v > fct {
				slow++
			}
		}
		return float64(slow), nil
	}
}

// dataAfterConnect is flow 0's FCT less its connection's set-up: how long
// its data took once connected.
func dataAfterConnect(dir string) (float64, error) {
	fct, err := flowsCSVAt(filepath.Join(dir, "flows.csv"), "0", "fct_ns")
	if err != nil {
		return 0, err
	}
	setup, err := flowsCSVAt(filepath.Join(dir, "flows.csv"), "0", "connect_ns")
	return fct - setup, err
}
