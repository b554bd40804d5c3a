package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
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
	labFileName = regexp.MustCompile("(?:^|[\\s(`])([a-z0-9_-]+\\.(?:txt|csv|json|html|pcap))\\b")  // in backquotes or not: summary.json's `jobs`
	labOutDir   = regexp.MustCompile(`lfsim-out/([A-Za-z0-9_-]+(?:\.[a-z]+)*)(?:/([a-z0-9_.-]+))?`) // a folder, and a file of it
	sectionName = regexp.MustCompile(`<h2>([^<]*)</h2>`)
	chartTitle  = regexp.MustCompile(`"title":\{"text":"([^"]*)"`) // a chart's own title, as ECharts' option holds it
)

// TestLabTextsMatchOutputs: each lab's README and its teacher's notes
// (ANSWERS.md) hold to what the README's commands give. Every `lfsim run`
// it lists runs; every lfsim-out folder either text names is one its runs
// or its sweep write (run: the scenario's name; sweep: the sweep file's);
// every `lfsim report` it lists names runs made before it and builds a
// page; every name either text puts in italics is a section (a chart or
// table's title) of the pages of the lab's runs, comparisons or sweep,
// unless labNotSections lists it (a protocol's message names); every output file
// either names is in one of its runs' folders; and labClaims' figures are
// what the outputs say. Each lab is a subtest (`-run
// TestLabTextsMatchOutputs/labs/infiniband`), one after another (two at
// a time took twice as long in wall time: each run already uses both
// workers).
// -short leaves it out: it runs each lab's commands, about 70 runs.
func TestLabTextsMatchOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every lab's commands")
	}
	base := t.TempDir()
	if keep := os.Getenv("LFSIM_LAB_OUT"); keep != "" {
		base = keep // a teacher's look at what the labs wrote
	}
	labs := scenarios.Labs()
	pages := make([]labPages, len(labs))
	t.Run("labs", func(t *testing.T) {
		for i, l := range labs {
			t.Run(l.Name, func(t *testing.T) {
				pages[i] = runLab(t, l.Name, filepath.Join(base, l.Name))
			})
		}
	})
	known := map[string]bool{}
	for _, l := range labs {
		known[l.Name] = true
	}
	for lab := range labClaims {
		if !known[lab] {
			t.Errorf("labClaims names lab %s, which is not a lab", lab)
		}
	}
}

// labPages is what a lab's commands made: the report sections of its
// pages, the files of its runs' folders, the folders under lfsim-out, and
// the lab's two texts (whitespace as one space).
type labPages struct {
	sections map[string]bool
	files    map[string]bool
	dirs     map[string]bool
	texts    []labDoc
}

// labDoc is one of a lab's texts: README.md or ANSWERS.md.
type labDoc struct{ name, text string }

// runLab runs the commands of lab name's README in dir, checks what its
// texts name against what they made, and holds labClaims[name] to it.
func runLab(t *testing.T, name, dir string) labPages {
	readme, err := scenarios.LabREADME(name)
	if err != nil {
		t.Fatal(err)
	}
	answers, err := scenarios.LabAnswers(name)
	if err != nil {
		t.Fatal(err)
	}
	lp := labPages{sections: map[string]bool{}, files: map[string]bool{}, dirs: map[string]bool{}}
	for _, d := range []labDoc{{"README.md", readme}, {"ANSWERS.md", answers}} {
		lp.texts = append(lp.texts, labDoc{d.name, strings.Join(strings.Fields(d.text), " ")})
	}
	out := filepath.Join(dir, "lfsim-out")
	readPage := func(page string) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Error(err)
			return
		}
		for _, m := range append(sectionName.FindAllStringSubmatch(string(data), -1), chartTitle.FindAllStringSubmatch(string(data), -1)...) {
			section, _, _ := strings.Cut(m[1], " against ") // a sweep's comparison: "Mean queue against switch.ecn"
			lp.sections[section] = true
		}
	}
	reports := 0
	for _, m := range labCommand.FindAllStringSubmatch(readme, -1) {
		args := strings.Fields(m[2])
		switch m[1] {
		case "run":
			sc, err := resolve.LoadExample(args[0])
			if err != nil {
				t.Errorf("lfsim run %s: %v", args[0], err)
				continue
			}
			run := filepath.Join(out, sc.Name)
			if code, _, stderr := lfsim(t, "run", args[0], "-q", "-o", run); code != 0 && code != exitFailed {
				t.Errorf("lfsim run %s: exit %d\n%s", args[0], code, stderr)
				continue
			}
			lp.dirs[sc.Name] = true
			entries, _ := os.ReadDir(run)
			for _, e := range entries {
				lp.files[e.Name()] = true
			}
			readPage(filepath.Join(run, "report.html"))
		case "report":
			var dirs []string
			for _, a := range args {
				run, ok := strings.CutPrefix(a, "lfsim-out/")
				if !ok || !lp.dirs[run] {
					t.Errorf("`lfsim report %s`: %s is no run the README made before", m[2], a)
				}
				dirs = append(dirs, filepath.Join(out, run))
			}
			reports++
			page := filepath.Join(dir, fmt.Sprintf("report-%d.html", reports))
			if code, _, stderr := lfsim(t, append(append([]string{"report"}, dirs...), "-o", page)...); code != 0 {
				t.Errorf("lfsim report %s: exit %d\n%s", m[2], code, stderr)
				continue
			}
			readPage(page)
		case "sweep":
			src, ok := labSweep(readme, args[0])
			if !ok {
				t.Errorf("`lfsim sweep %s`, and no yaml block above it to save as %s", args[0], args[0])
				continue
			}
			file := filepath.Join(dir, args[0])
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			sweep := strings.TrimSuffix(args[0], ".yaml")
			if code, _, stderr := lfsim(t, "sweep", file, "-q", "-o", filepath.Join(out, sweep)); code != 0 {
				t.Errorf("lfsim sweep %s: exit %d\n%s", args[0], code, stderr)
				continue
			}
			lp.dirs[sweep] = true
			readPage(filepath.Join(out, sweep, "report.html"))
		}
	}
	for _, doc := range lp.texts {
		for _, m := range labOutDir.FindAllStringSubmatch(doc.text, -1) {
			if !lp.dirs[m[1]] {
				t.Errorf("%s names lfsim-out/%s, which none of the README's commands writes (they write %s)", doc.name, m[1], sortedKeys(lp.dirs))
			} else if _, err := os.Stat(filepath.Join(out, m[1], m[2])); m[2] != "" && err != nil {
				t.Errorf("%s names lfsim-out/%s/%s, which its command does not write: %v", doc.name, m[1], m[2], err)
			}
		}
		for _, m := range labFileName.FindAllStringSubmatch(doc.text, -1) {
			if !lp.files[m[1]] {
				t.Errorf("%s names %s, which none of the README's runs writes", doc.name, m[1])
			}
		}
	}
	for _, doc := range lp.texts {
		for _, m := range labItalic.FindAllStringSubmatch(doc.text, -1) {
			if !lp.sections[m[1]] && !labNotSections[m[1]] {
				t.Errorf("%s points at the report's %q, which none of its pages has (they have %s)", doc.name, m[1], sortedKeys(lp.sections))
			}
		}
	}
	for _, c := range labClaims[name] {
		checkLabClaim(t, lp.texts, out, c)
	}
	return lp
}

// labNotSections are the names the labs put in italics that are not a
// report's section: the CM messages of the connecting lab.
var labNotSections = map[string]bool{"REQ": true, "REP": true, "RTU": true, "DREQ": true, "DREP": true, "REJ": true}

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

// checkLabClaim holds one figure of a lab's text to the run it is read
// from (out is the lab's lfsim-out).
func checkLabClaim(t *testing.T, texts []labDoc, out string, c labClaim) {
	t.Helper()
	doc := texts[0]
	if c.answers {
		doc = texts[1]
	}
	if !strings.Contains(doc.text, c.text) {
		t.Errorf("%s no longer says %q", doc.name, c.text)
	}
	dir := filepath.Join(out, c.run)
	switch {
	case c.file != "":
		data, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil || !strings.Contains(string(data), c.line+"\n") {
			t.Errorf("%s: %q: %s has no line %q (%v)", doc.name, c.text, filepath.Join(c.run, c.file), c.line, err)
		}
		return
	case c.read != nil:
		got, err := c.read(dir)
		if err != nil || !c.holds(got) {
			t.Errorf("%s: %q: %s gives %v (%v), want %s", doc.name, c.text, c.run, got, err, c.wants())
		}
		return
	case c.flow != "":
		got, err := flowsCSVAt(filepath.Join(dir, "flows.csv"), c.flow, c.json)
		if err != nil || !c.holds(got) {
			t.Errorf("%s: %q: %s's flows.csv, flow %s's %s is %v (%v), want %s", doc.name, c.text, c.run, c.flow, c.json, got, err, c.wants())
		}
		return
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Errorf("%s: %q: %v", doc.name, c.text, err)
		return
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if c.line != "" { // a string, or a list of them joined by " -> " (a deadlock's cycle)
		at, found := jsonAt(v, c.json)
		if got := jsonText(at); !found || got != c.line {
			t.Errorf("%s: %q: %s's %s is %q (found %v), want %q", doc.name, c.text, c.run, c.json, got, found, c.line)
		}
		return
	}
	got, found := summaryFigure(v, c)
	if !found || !c.holds(got) {
		path := c.json
		if c.of != "" {
			path += " as a share of " + c.of
		}
		t.Errorf("%s: %q: %s's %s is %v (found %v), want %s", doc.name, c.text, c.run, path, got, found, c.wants())
	}
}

// summaryFigure is the number a claim reads in summary.json (v): the sum
// of json's paths (joined by +), a boolean as 0 or 1, and when the claim
// has of, that as a share of of's value.
func summaryFigure(v any, c labClaim) (float64, bool) {
	number := func(path string) (float64, bool) {
		at, found := jsonAt(v, path)
		if b, isBool := at.(bool); isBool {
			if b {
				return 1, true
			}
			return 0, true
		}
		x, ok := at.(float64)
		return x, found && ok
	}
	got, ok := 0.0, true
	for _, path := range strings.Split(c.json, "+") {
		x, found := number(path)
		got, ok = got+x, ok && found
	}
	if c.of != "" {
		whole, found := number(c.of)
		ok = ok && found && whole != 0
		got /= whole
	}
	return got, ok
}

// holds says whether got is what the claim wants: want within tol, or
// above want where the text says only that there are some.
func (c labClaim) holds(got float64) bool {
	if c.above {
		return got > c.want
	}
	return math.Abs(got-c.want) <= c.tol
}

func (c labClaim) wants() string {
	if c.above {
		return fmt.Sprintf("above %v", c.want)
	}
	return fmt.Sprintf("%v ± %v", c.want, c.tol)
}

// jsonText is a JSON string, or a list of them joined by " -> ".
func jsonText(v any) string {
	if list, ok := v.([]any); ok {
		var parts []string
		for _, e := range list {
			parts = append(parts, fmt.Sprint(e))
		}
		return strings.Join(parts, " -> ")
	}
	return fmt.Sprint(v)
}

// flowsCSVAt reads column col of the row of flows.csv whose id is id, or
// its largest over the rows of ids A to B (id "A..B") or over every row
// (id "max").
func flowsCSVAt(file, id, col string) (float64, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return 0, err
	}
	at := slices.Index(rows[0], col)
	if at < 0 {
		return 0, fmt.Errorf("no column %s in %s", col, rows[0])
	}
	lo, hi, isRange := strings.Cut(id, "..")
	found, most := false, math.Inf(-1)
	for _, r := range rows[1:] {
		in := r[0] == id || id == "max"
		if isRange {
			n, _ := strconv.Atoi(r[0])
			a, _ := strconv.Atoi(lo)
			b, _ := strconv.Atoi(hi)
			in = n >= a && n <= b
		}
		if !in {
			continue
		}
		v, err := strconv.ParseFloat(r[at], 64)
		if err != nil {
			return 0, fmt.Errorf("flow %s's %s: %v", r[0], col, err)
		}
		found, most = true, max(most, v)
	}
	if found {
		return most, nil
	}
	return 0, fmt.Errorf("no flow %s", id)
}

// jsonAt reads the value at a path of keys, with [key=value] picking the
// element of a list whose key has that value.
func jsonAt(v any, path string) (any, bool) {
	for _, step := range strings.Split(path, ".") {
		key, sel, _ := strings.Cut(step, "[")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[key]; !ok {
			return nil, false
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
	return v, v != nil
}

func sortedKeys(m map[string]bool) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// labFigure is a figure as a text quotes it: a number with a decimal
// point or a thousands comma (6.85, 1,804), the kind a prediction's
// answer gives and a description must not.
var labFigure = regexp.MustCompile(`\d+(?:[.,]\d+)+`)

// labGiveaways are words that answered a lab's "Predict, then run"
// question in a description of the scenarios the student is asked to
// predict (issue 51), each kept out of that scenario's description.
var labGiveaways = map[string][]string{
	"labs/ai-training/beside-ecmp":           {"times as long", "paused"},
	"labs/ai-training/beside-spray":          {"as fast as alone", "no collision"},
	"labs/connecting/one-connection":         {"ms", "QP commands"},
	"labs/deadlock/clos-low-load":            {"never fills", "completes"},
	"labs/ecmp-polarisation/polarised":       {"core link"},
	"labs/ecmp-polarisation/per-switch":      {"core link", "spread"},
	"labs/lossless-or-not/go-back-n":         {"unfinished", "ACK timeout"},
	"labs/lossless-or-not/irn":               {"completes", "held up"},
	"labs/memory-protection/no-remote-write": {"refuses the first", "flushed"},
	"labs/one-and-two-sided/read-depth-1":    {"round trip"},
	"labs/one-and-two-sided/read-depth-16":   {"line rate", "overlap"},
	"labs/pfc-head-of-line/pfc":              {"waits too", "whole priority"},
	"labs/transports/rc":                     {"every message completes"},
	"labs/transports/uc":                     {"lost whole"},
	"labs/transports/ud":                     {"lost is lost"},
	"labs/tuning-dcqcn/aggressive":           {"vanishes", "throughput"},
	"labs/tuning-dcqcn/default":              {"tens of KB", "nearly full", "PFC"},
	"labs/tuning-dcqcn/lax":                  {"too late", "PFC", "pauses"},
}

// TestLabDescriptionsKeepPredictions: a lab's scenario descriptions
// (printed by lfsim list, in the scenario's file, summary.json and the
// report) do not give away the answer to its "Predict, then run"
// question: no figure its ANSWERS.md answer quotes (issue 51:
// rc-pingpong's said 6.85 us per iteration, 5.06 of wire and switch and
// 1.8 in the NICs, the very answer), and none of labGiveaways' words. It
// reads no outputs and runs in -short.
func TestLabDescriptionsKeepPredictions(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range scenarios.Labs() {
		for _, name := range l.Scenarios {
			seen[name] = true
		}
		answers, err := scenarios.LabAnswers(l.Name)
		if err != nil {
			t.Fatal(err)
		}
		_, predict, _ := strings.Cut(answers, "## Predict, then run")
		predict, _, _ = strings.Cut(predict, "\n## ")
		figures := labFigure.FindAllString(predict, -1)
		for _, name := range l.Scenarios {
			sc, err := resolve.LoadExample(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range labGiveaways[name] {
				if strings.Contains(sc.Description, w) {
					t.Errorf("%s: its description says %q, the answer to the lab's prediction: %q", name, w, sc.Description)
				}
			}
			for _, f := range figures {
				if regexp.MustCompile(`(^|[^\d.,])` + regexp.QuoteMeta(f) + `($|[^\d])`).MatchString(sc.Description) {
					t.Errorf("%s: its description quotes %s, a figure of the answer to the lab's prediction (ANSWERS.md): %q", name, f, sc.Description)
				}
			}
		}
	}
	for name := range labGiveaways {
		if !seen[name] {
			t.Errorf("labGiveaways names %s, which is no lab's scenario", name)
		}
	}
}
