package metamorphic

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A case is a failure kept in testdata, shrunk: a folder with a.yaml (the
// scenario, or the first of the two a relation compares), b.yaml (the
// second, when there is one) and case.txt, whose lines say
//
//	check: <the check that failed>
//	map: <for relabel: a's names and b's, as h0=h3 s0:p0=s0:p3 ...>
//	seed: <the generator's seed that found it>
//	failure: <what failed, when it was kept>
//
// and anything after, free text. The scenarios are files anyone can run
// (lfsim run a.yaml), and stay the same when the generator changes.
// Replay runs the check on them again.

// Case is a case read back.
type Case struct {
	Dir   string
	Check string
	A, B  string
	Map   map[string]string
	Lines []string // case.txt
}

// WriteCase keeps a failure in dir/name and returns the folder.
func WriteCase(dir, name string, seed uint64, f *Failure, names map[string]string) (string, error) {
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(path, 0o755); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "check: %s\n", f.Check)
	if len(names) > 0 {
		var parts []string
		for _, from := range sortedKeys(names) {
			if names[from] != from {
				parts = append(parts, from+"="+names[from])
			}
		}
		fmt.Fprintf(&b, "map: %s\n", strings.Join(parts, " "))
	}
	fmt.Fprintf(&b, "seed: %d\n", seed)
	detail, _, _ := strings.Cut(f.Detail, "\ngoroutine ") // a panic's stack is the run's to show
	fmt.Fprintf(&b, "failure: %s\n", strings.ReplaceAll(detail, "\n", " "))
	if f.Relation != "" {
		fmt.Fprintf(&b, "relation: %s\n", f.Relation)
	}
	fmt.Fprintf(&b, "\nFound by metamorphic and shrunk. Replayed by TestMetamorphicCases;\n"+
		"reproduce with: go test ./metamorphic -run 'TestMetamorphicCases/%s' -v\n", name)
	files := map[string]string{"case.txt": b.String(), "a.yaml": f.A}
	if f.B != "" {
		files["b.yaml"] = f.B
	}
	for n, text := range files {
		if err := os.WriteFile(filepath.Join(path, n), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	return path, nil
}

// ReadCase reads the case in dir.
func ReadCase(dir string) (*Case, error) {
	c := &Case{Dir: dir, Map: map[string]string{}}
	txt, err := os.ReadFile(filepath.Join(dir, "case.txt"))
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(txt))
	for sc.Scan() {
		line := sc.Text()
		c.Lines = append(c.Lines, line)
		key, val, _ := strings.Cut(line, ": ")
		switch key {
		case "check":
			c.Check = val
		case "map":
			for _, pair := range strings.Fields(val) {
				from, to, ok := strings.Cut(pair, "=")
				if !ok {
					return nil, fmt.Errorf("%s/case.txt: map: %q is not from=to", dir, pair)
				}
				c.Map[from] = to
			}
		}
	}
	if c.Check == "" {
		return nil, fmt.Errorf("%s/case.txt: no check: line", dir)
	}
	a, err := os.ReadFile(filepath.Join(dir, "a.yaml"))
	if err != nil {
		return nil, err
	}
	c.A = string(a)
	if b, err := os.ReadFile(filepath.Join(dir, "b.yaml")); err == nil {
		c.B = string(b)
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	return c, nil
}

// Replay runs the case's check on its scenarios and says what fails ("" when
// it holds now).
func (c *Case) Replay(r *Runner, workers []int) string {
	r0 := r
	run := func(src string, w int) (Outcome, string) {
		o := r.Run(src, w)
		switch {
		case o.Panic != "":
			return o, fmt.Sprintf("panic at %d workers: %s", w, o.Panic)
		case o.Refused != nil:
			return o, "refused: " + o.Refused.Error()
		}
		return o, ""
	}
	pair := func() (Outcome, Outcome, string) {
		if c.B == "" {
			return Outcome{}, Outcome{}, "the case has no b.yaml"
		}
		a, why := run(c.A, 1)
		if why != "" {
			return a, Outcome{}, "a: " + why
		}
		b, why := run(c.B, 1)
		if why != "" {
			return a, b, "b: " + why
		}
		return a, b, ""
	}
	switch c.Check {
	case CheckValid, CheckPanic, CheckConservation, CheckWorkers:
		one, why := run(c.A, 1)
		if why != "" {
			return why
		}
		if !one.Summary.Conservation.OK && (c.Check == CheckConservation || c.Check == CheckPanic) {
			return "conservation: " + strings.Join(one.Summary.Conservation.Errors, "; ")
		}
		if c.Check == CheckWorkers || c.Check == CheckPanic {
			if one.Serial != "" {
				return ""
			}
			for _, w := range workers {
				o, why := run(c.A, w)
				if why != "" {
					return why
				}
				if d := diffFiles(o.Files, one.Files, nil); d != "" && c.Check == CheckWorkers {
					return fmt.Sprintf("%d workers against 1: %s", w, d)
				}
			}
		}
	case CheckCollectives:
		// a is the scenario's collectives alone (CollectivesAlone).
		one, why := run(c.A, 1)
		if why != "" {
			return why
		}
		i, r, excuse, err := unfinished(one)
		switch {
		case err != nil:
			return err.Error()
		case i >= 0 && excuse == "" && !stillMoving(r0, c.A, one):
			return fmt.Sprintf("call %d is %s at the end (stopped by %s): %q", i, r.status, one.Summary.StopReason, r.line)
		}
	case CheckObservers:
		a, b, why := pair()
		if why != "" {
			return why
		}
		if !bytes.Equal(a.Files["flows.csv"], b.Files["flows.csv"]) {
			return "flows.csv: " + firstDiff(a.Files["flows.csv"], b.Files["flows.csv"])
		}
	case CheckLinear:
		a, b, why := pair()
		if why != "" {
			return why
		}
		ea, eb := a.Summary.Events, b.Summary.Events
		ha, hb := a.Summary.PacketHops, b.Summary.PacketHops
		if r := float64(eb) / (4 * float64(ea+StartEvents)); r > LinearFactor {
			return fmt.Sprintf("%d events in a, %d in b: %.2f times 4 × (%d + %d), more than %.1f", ea, eb, r, ea, StartEvents, LinearFactor)
		}
		if r := (float64(eb) / float64(max(hb, 1))) / (float64(ea) / float64(max(ha, 1))); ha >= MinHops && r > PerHopFactor {
			return fmt.Sprintf("%d events for %d hops in a, %d for %d in b: %.2f times the events per hop, more than %.1f", ea, ha, eb, hb, r, PerHopFactor)
		}
	case CheckRelabel:
		a, b, why := pair()
		if why != "" {
			return why
		}
		full := map[string]string{}
		for from, to := range c.Map {
			full[from] = to
		}
		if d := diffFiles(mapFiles(b.Files, nil), mapFiles(a.Files, full), nil); d != "" {
			return d
		}
	default:
		return "unknown check " + c.Check
	}
	return ""
}

// sortedKeys are m's keys, hosts before ports, each in number order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(len(a), len(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return keys
}
