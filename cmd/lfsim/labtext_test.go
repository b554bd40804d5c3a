package main

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/lfsim/lfsim/resolve"
	"github.com/lfsim/lfsim/scenarios"
)

// A lab's README is what a student runs and reads (issue 51: texts that
// pointed at a chart no run drew, a folder the sweep does not write, a
// table entry that shows no difference). labCommand, labItalic,
// labFileName and labOutDir find, in a README, the commands it gives, the
// names it puts in italics (the report's sections it points at), the
// output files it names and the folders it names.
var (
	labCommand  = regexp.MustCompile(`(?m)^ {4}lfsim (run|report|sweep) (.+)$`)
	labItalic   = regexp.MustCompile(`\*([A-Z][^*]*)\*`)
	labFileName = regexp.MustCompile("`([a-z_.-]+\\.(?:txt|csv|json|html|pcap))`")
	labOutDir   = regexp.MustCompile(`lfsim-out/([A-Za-z0-9_.-]+)`)
	sectionName = regexp.MustCompile(`<h2>([^<]*)</h2>`)
)

// labClaim is a figure a lab's README quotes (its text, whitespace as one
// space) and where the run that the README names writes it: a JSON path
// in summary.json with the value it must have within tol (the README's
// rounding), or a line of a file.
type labClaim struct {
	text string  // as the README writes it
	run  string  // the run's folder under lfsim-out
	json string  // a path in summary.json: keys, and [key=value] for a list's element; paths joined by + are summed
	of   string  // when set, json's value is taken as a share of this path's
	want float64 // the value at json
	tol  float64 // how far from want it may be
	file string  // or a file of the run
	line string  // and a line it holds
}

// labClaims are figures the labs quote (those of the labs issue 51 found
// pointing at what their outputs did not show, and others), each held to
// the run it is read from.
var labClaims = map[string][]labClaim{
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
		{text: "`default` holds 64 KB", run: "dcqcn-default", json: "queues.mean_bytes", want: 64e3, tol: 0.5e3},
		{text: "`aggressive` 4.5 KB", run: "dcqcn-aggressive", json: "queues.mean_bytes", want: 4.5e3, tol: 0.05e3},
		{text: "`lax` 382 KB", run: "dcqcn-lax", json: "queues.mean_bytes", want: 382e3, tol: 0.5e3},
		{text: "8.39 for `default`", run: "dcqcn-default", json: "fct.mean_slowdown", want: 8.39, tol: 0.005},
		{text: "8.79 for `aggressive`", run: "dcqcn-aggressive", json: "fct.mean_slowdown", want: 8.79, tol: 0.005},
		{text: "8.03 for `lax`", run: "dcqcn-lax", json: "fct.mean_slowdown", want: 8.03, tol: 0.005},
		{text: "p99 FCT is 12.76 ms", run: "dcqcn-lax", json: "fct.p99_ns", want: 12.76e6, tol: 0.005e6},
		{text: "`default`'s 12.52 ms", run: "dcqcn-default", json: "fct.p99_ns", want: 12.52e6, tol: 0.005e6},
		{text: "8% of the run for h0", run: "dcqcn-lax", json: "pfc.spread[port=h0:p0].paused_fraction", want: 0.08, tol: 0.005},
		{text: "10.5% for h1", run: "dcqcn-lax", json: "pfc.spread[port=h1:p0].paused_fraction", want: 0.105, tol: 0.0005},
		{text: "1.0% for h5", run: "dcqcn-lax", json: "pfc.spread[port=h5:p0].paused_fraction", want: 0.010, tol: 0.0005},
		// ANSWERS.md (review E, finding 7: no teacher's note was checked).
		{text: "h1 is paused 10.5% of the run", run: "dcqcn-lax", json: "pfc.spread[port=h1:p0].paused_fraction", want: 0.105, tol: 0.0005},
		{text: "and h5 1.0%", run: "dcqcn-lax", json: "pfc.spread[port=h5:p0].paused_fraction", want: 0.010, tol: 0.0005},
		{text: "(p99 12.76 ms against 12.52 for `default`)", run: "dcqcn-lax", json: "fct.p99_ns", want: 12.76e6, tol: 0.005e6},
		{text: "382 KB is about 31 µs", run: "dcqcn-lax", json: "queues.mean_bytes", want: 382e3, tol: 0.5e3},
	},
	"pfc-head-of-line": {
		{text: "h0's included, about three quarters of the run", run: "hol-pfc", json: "pfc.spread[port=h0:p0].paused_fraction", want: 0.75, tol: 0.05},
	},
	"one-and-two-sided": {
		{text: "is 696 µs for 512 KiB", run: "os-send-before-recv", json: "fct.p50_ns", want: 696e3, tol: 0.5e3},
		{text: "19 packets went twice", run: "os-send-before-recv", json: "packets.retransmitted", want: 19},
		{text: "finish in 50 µs (slowdown 1.04)", run: "os-write", json: "fct.p50_ns", want: 50e3, tol: 0.5e3},
		{text: "finish in 50 µs (slowdown 1.04)", run: "os-write", json: "fct.mean_slowdown", want: 1.04, tol: 0.005},
		{text: "390 µs against 31 µs", run: "os-read-depth-1", json: "fct.p50_ns", want: 390e3, tol: 1e3},
		{text: "390 µs against 31 µs", run: "os-read-depth-16", json: "fct.p50_ns", want: 31e3, tol: 0.5e3},
	},
	"transports": {
		{text: "25 frames lost on the RC run, 22 on the others", run: "tr-rc", json: "packets.dropped", want: 25},
		{text: "25 frames lost on the RC run, 22 on the others", run: "tr-uc", json: "packets.dropped", want: 22},
		{text: "25 frames lost on the RC run, 22 on the others", run: "tr-ud", json: "packets.dropped", want: 22},
		{text: "209 packets retransmitted by RC", run: "tr-rc", json: "packets.retransmitted", want: 209},
		{text: "179 of the 198 UC messages", run: "tr-uc", json: "flows.completed", want: 179},
		{text: "3,161 of the 3,183 UD datagrams", run: "tr-ud", json: "flows.completed", want: 3161},
		{text: "3,161 of the 3,183 UD datagrams", run: "tr-ud", json: "flows.total", want: 3183},
	},
	"ai-training": {
		{text: "about 662 µs an iteration", run: "ai-alone", json: "jobs[name=a].iteration_ns_mean", want: 662e3, tol: 0.5e3},
		{text: "of which 120 µs is compute", run: "ai-alone", json: "jobs[name=a].compute_ns_mean", want: 120e3, tol: 0.5e3},
		{text: "82% of each rank's iteration is exposed communication", run: "ai-alone", json: "jobs[name=a].exposed_comm_fraction", want: 0.82, tol: 0.005},
		{text: "`slowdown` 1.73 and 1.69", run: "ai-beside-ecmp", json: "jobs[name=a].slowdown", want: 1.73, tol: 0.005},
		{text: "`slowdown` 1.73 and 1.69", run: "ai-beside-ecmp", json: "jobs[name=b].slowdown", want: 1.69, tol: 0.005},
		{text: "PFC pauses s0/g0's link 42% of the run", run: "ai-beside-ecmp", json: "pfc.spread[port=s0/g0:p0].paused_fraction", want: 0.42, tol: 0.005},
		{text: "PFC hardly pauses (0.3% of the run)", run: "ai-beside-dcqcn", json: "pfc.spread[port=s0/g0:p0].paused_fraction", want: 0.003, tol: 0.0005},
		{text: "about 2.0 times slower than alone", run: "ai-beside-dcqcn", json: "jobs[name=a].slowdown", want: 2.0, tol: 0.05},
	},
	"pfc-storm": {
		{text: "(0.09 and 0.08 of the run, against 0.94 and 0.93)", run: "storm-switch-watchdog", json: "pfc.spread[port=s2:p0].paused_fraction", want: 0.09, tol: 0.005},
		{text: "(0.09 and 0.08 of the run, against 0.94 and 0.93)", run: "storm-switch-watchdog", json: "pfc.spread[port=s1:p4].paused_fraction", want: 0.08, tol: 0.005},
		{text: "(0.09 and 0.08 of the run, against 0.94 and 0.93)", run: "pfc-storm", json: "pfc.spread[port=s2:p0].paused_fraction", want: 0.94, tol: 0.005},
		{text: "(0.09 and 0.08 of the run, against 0.94 and 0.93)", run: "pfc-storm", json: "pfc.spread[port=s1:p4].paused_fraction", want: 0.93, tol: 0.005},
		{text: "the port is paused only 17% of the run", run: "storm-nic-watchdog", json: "pfc.spread[port=s0:p2].paused_fraction", want: 0.17, tol: 0.005},
	},
	"lossless-or-not": {
		// The README said "only 2 of 17": 3 complete, two of the
		// incast's and flow 16 (review E, finding 7).
		{text: "only 3 of 17 flows have completed", run: "lon-go-back-n", json: "flows.completed", want: 3},
		{text: "drops about 5,850 packets", run: "lon-go-back-n", json: "packets.dropped", want: 5850, tol: 5},
		{text: "and resends 2,800", run: "lon-go-back-n", json: "packets.retransmitted", want: 2800, tol: 5},
		{text: "`irn` drops about 75 packets", run: "lon-irn", json: "packets.dropped", want: 75},
		{text: "`irn` drops about 75 packets, resends the same number", run: "lon-irn", json: "packets.retransmitted", want: 75},
		{text: "finishes every flow by 1.61 ms", run: "lon-irn", json: "sim_time_ns", want: 1.61e6, tol: 0.005e6},
	},
	"memory-protection": {
		{text: "exactly 262,144 (the first four messages)", run: "mp-out-of-bounds", json: "bytes.delivered", want: 262144},
		{text: "`no-remote-write` sent 20 packets", run: "mp-no-remote-write", json: "packets.sent", want: 20},
	},
	"infiniband": {
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

// TestLabTextsMatchOutputs: each lab's README holds to what its commands
// give. Every `lfsim run` it lists runs; every lfsim-out folder it names
// is one its runs or its sweep write (run: the scenario's name; sweep:
// the sweep file's); every `lfsim report` it lists names runs made before
// it and builds a page; every section of lfsim's reports it names in
// italics is in the pages of the lab's runs, comparisons or sweep
// (sections any lab's pages have, so that a name no run of this lab
// draws is caught, and italics that are not a section name are let be);
// every output file it names is in one of its runs' folders; and
// labClaims' figures are what the outputs say. -short leaves it out: it
// runs each lab's commands, about 70 runs.
func TestLabTextsMatchOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every lab's commands")
	}
	base := t.TempDir()
	type labPages struct {
		sections map[string]bool
		files    map[string]bool
		dirs     map[string]bool
	}
	pages := map[string]*labPages{}
	everySection := map[string]bool{}
	var labs []string
	for _, l := range scenarios.Labs() {
		labs = append(labs, l.Name)
		readme, err := scenarios.LabREADME(l.Name)
		if err != nil {
			t.Fatal(err)
		}
		lp := &labPages{sections: map[string]bool{}, files: map[string]bool{}, dirs: map[string]bool{}}
		pages[l.Name] = lp
		out := filepath.Join(base, l.Name, "lfsim-out")
		readPage := func(page string) {
			data, err := os.ReadFile(page)
			if err != nil {
				t.Errorf("%s: %v", l.Name, err)
				return
			}
			for _, m := range sectionName.FindAllStringSubmatch(string(data), -1) {
				name, _, _ := strings.Cut(m[1], " against ") // a sweep's comparison: "Mean queue against switch.ecn"
				lp.sections[name], everySection[name] = true, true
			}
		}
		reports := 0
		for _, m := range labCommand.FindAllStringSubmatch(readme, -1) {
			args := strings.Fields(m[2])
			switch m[1] {
			case "run":
				sc, err := resolve.LoadExample(args[0])
				if err != nil {
					t.Errorf("%s: lfsim run %s: %v", l.Name, args[0], err)
					continue
				}
				dir := filepath.Join(out, sc.Name)
				if code, _, stderr := lfsim(t, "run", args[0], "-q", "-o", dir); code != 0 && code != exitFailed {
					t.Errorf("%s: lfsim run %s: exit %d\n%s", l.Name, args[0], code, stderr)
					continue
				}
				lp.dirs[sc.Name] = true
				entries, _ := os.ReadDir(dir)
				for _, e := range entries {
					lp.files[e.Name()] = true
				}
				readPage(filepath.Join(dir, "report.html"))
			case "report":
				var dirs []string
				for _, a := range args {
					name, ok := strings.CutPrefix(a, "lfsim-out/")
					if !ok || !lp.dirs[name] {
						t.Errorf("%s: `lfsim report %s`: %s is no run the README made before", l.Name, m[2], a)
					}
					dirs = append(dirs, filepath.Join(out, name))
				}
				reports++
				page := filepath.Join(base, l.Name, "report-"+string(rune('0'+reports))+".html")
				if code, _, stderr := lfsim(t, append(append([]string{"report"}, dirs...), "-o", page)...); code != 0 {
					t.Errorf("%s: lfsim report %s: exit %d\n%s", l.Name, m[2], code, stderr)
					continue
				}
				readPage(page)
			case "sweep":
				src, ok := labSweep(readme, args[0])
				if !ok {
					t.Errorf("%s: `lfsim sweep %s`, and no yaml block above it to save as %s", l.Name, args[0], args[0])
					continue
				}
				file := filepath.Join(base, l.Name, args[0])
				if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				name := strings.TrimSuffix(args[0], ".yaml")
				dir := filepath.Join(out, name)
				if code, _, stderr := lfsim(t, "sweep", file, "-q", "-o", dir); code != 0 {
					t.Errorf("%s: lfsim sweep %s: exit %d\n%s", l.Name, args[0], code, stderr)
					continue
				}
				lp.dirs[name] = true
				readPage(filepath.Join(dir, "report.html"))
			}
		}
		text := strings.Join(strings.Fields(readme), " ")
		for _, m := range labOutDir.FindAllStringSubmatch(text, -1) {
			if !lp.dirs[m[1]] {
				t.Errorf("%s: the README names lfsim-out/%s, which none of its commands writes (they write %s)", l.Name, m[1], sortedKeys(lp.dirs))
			}
		}
		for _, m := range labFileName.FindAllStringSubmatch(text, -1) {
			if !lp.files[m[1]] {
				t.Errorf("%s: the README names %s, which none of its runs writes", l.Name, m[1])
			}
		}
		// Claims may quote the README or the teacher's ANSWERS.md.
		answers, _ := scenarios.LabAnswers(l.Name)
		both := text + " " + strings.Join(strings.Fields(answers), " ")
		for _, c := range labClaims[l.Name] {
			checkLabClaim(t, l.Name, both, filepath.Join(out, c.run), c)
		}
	}
	for _, name := range labs {
		readme, _ := scenarios.LabREADME(name)
		text := strings.Join(strings.Fields(readme), " ")
		for _, m := range labItalic.FindAllStringSubmatch(text, -1) {
			if everySection[m[1]] && !pages[name].sections[m[1]] {
				t.Errorf("%s: the README points at the report's %q, which none of its pages has (they have %s)", name, m[1], sortedKeys(pages[name].sections))
			}
		}
	}
	for lab := range labClaims {
		if pages[lab] == nil {
			t.Errorf("labClaims names lab %s, which is not a lab", lab)
		}
	}
}

// labSweep is the yaml block of a README that comes before the `lfsim
// sweep FILE` it is saved as.
func labSweep(readme, file string) (string, bool) {
	i := strings.Index(readme, "lfsim sweep "+file)
	if i < 0 {
		return "", false
	}
	j := strings.LastIndex(readme[:i], "```yaml\n")
	if j < 0 {
		return "", false
	}
	src, _, ok := strings.Cut(readme[j+len("```yaml\n"):], "```")
	return src, ok
}

// checkLabClaim holds one figure of a README to the run it is read from.
func checkLabClaim(t *testing.T, lab, text, dir string, c labClaim) {
	t.Helper()
	if !strings.Contains(text, c.text) {
		t.Errorf("%s: neither the README nor ANSWERS.md says %q", lab, c.text)
	}
	if c.file != "" {
		data, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil || !strings.Contains(string(data), c.line+"\n") {
			t.Errorf("%s: %q: %s has no line %q (%v)", lab, c.text, filepath.Join(filepath.Base(dir), c.file), c.line, err)
		}
		return
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Errorf("%s: %q: %v", lab, c.text, err)
		return
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	got, ok := 0.0, true
	for _, path := range strings.Split(c.json, "+") {
		x, found := jsonAt(v, path)
		got, ok = got+x, ok && found
	}
	if c.of != "" {
		whole, found := jsonAt(v, c.of)
		ok = ok && found && whole != 0
		got /= whole
	}
	if !ok || math.Abs(got-c.want) > c.tol {
		t.Errorf("%s: %q: %s's %s is %v (found %v), want %v ± %v", lab, c.text, filepath.Base(dir), c.json, got, ok, c.want, c.tol)
	}
}

// jsonAt reads a number at a path of keys, with [key=value] picking the
// element of a list whose key has that value.
func jsonAt(v any, path string) (float64, bool) {
	for _, step := range strings.Split(path, ".") {
		key, sel, _ := strings.Cut(step, "[")
		m, ok := v.(map[string]any)
		if !ok {
			return 0, false
		}
		if v, ok = m[key]; !ok {
			return 0, false
		}
		if sel == "" {
			continue
		}
		k, want, _ := strings.Cut(strings.TrimSuffix(sel, "]"), "=")
		list, _ := v.([]any)
		v = nil
		for _, e := range list {
			if em, ok := e.(map[string]any); ok && em[k] == want {
				v = em
				break
			}
		}
	}
	f, ok := v.(float64)
	return f, ok
}

func sortedKeys(m map[string]bool) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// labNumber is a figure in a claim's text: a number (thousands with
// commas) not part of a name (h0, s1), and the unit after it, if any.
var labNumber = regexp.MustCompile(`(?:^|[^\w.])(\d[\d,]*(?:\.\d+)?)\s*(ms|µs|us|ns|KB|MB|%)?`)

// labUnit is what one of a text's units is in summary.json's units (time
// in ns, bytes, fractions).
var labUnit = map[string]float64{"": 1, "ms": 1e6, "µs": 1e3, "us": 1e3, "ns": 1, "KB": 1e3, "MB": 1e6, "%": 0.01}

// textHolds says whether one of the figures text quotes is want, read at
// the text's rounding (half a unit of its last digit): a claim's want is
// typed beside its text, and nothing else ties the two.
func textHolds(text string, want float64) (found bool, ok bool) {
	for _, m := range labNumber.FindAllStringSubmatch(text, -1) {
		digits := strings.ReplaceAll(m[1], ",", "")
		v, err := strconv.ParseFloat(digits, 64)
		if err != nil {
			continue
		}
		found = true
		places := 0
		if _, frac, dot := strings.Cut(digits, "."); dot {
			places = len(frac)
		}
		f := labUnit[m[2]]
		if math.Abs(v*f-want) <= 0.5*math.Pow(10, -float64(places))*f*(1+1e-9) {
			return true, true
		}
	}
	return found, false
}

// TestLabClaimsAgreeWithTheirText: each claim's want is a figure its own
// text quotes, at the text's rounding (review E, finding 7: a claim whose
// want disagreed with its text passed as long as the text was in the
// README and the run gave want). Claims of a line of a file carry the
// line itself, and claims in words ("about three quarters") quote no
// number to check. No run: the usual tier.
func TestLabClaimsAgreeWithTheirText(t *testing.T) {
	checked := 0
	for _, lab := range slices.Sorted(maps.Keys(labClaims)) {
		for _, c := range labClaims[lab] {
			if c.json == "" {
				continue
			}
			found, ok := textHolds(c.text, c.want)
			switch {
			case !found:
			case !ok:
				t.Errorf("%s: claim %q wants %g at %s, which its text does not say", lab, c.text, c.want, c.json)
			default:
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no claim checked")
	}
	t.Logf("%d claims' figures checked against their text", checked)
	// The check can fail: a want that is not the text's figure.
	for _, c := range []struct {
		text string
		want float64
		ok   bool
	}{
		{"`lax` 382 KB", 382e3, true},
		{"`lax` 382 KB", 383e3, false},
		{"p99 FCT is 12.76 ms", 12.764e6, true},
		{"p99 FCT is 12.76 ms", 12.77e6, false},
		{"3,161 of the 3,183 UD datagrams", 3183, true},
		{"paused 86% of the run", 0.86, true},
		{"paused 86% of the run", 0.87, false},
	} {
		if _, ok := textHolds(c.text, c.want); ok != c.ok {
			t.Errorf("textHolds(%q, %g) = %v, want %v", c.text, c.want, ok, c.ok)
		}
	}
}
