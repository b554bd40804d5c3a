package reproduce

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lfsim/lfsim/reports"
)

// Runs are a reproduction's runs, one per point of its sweep, in point
// order.
type Runs []PointRun

// PointRun is one point's run: its base scenario's name, the values its
// sweep varied (by path) and its folder, which holds what lfsim run
// writes (summary.json, flows.csv, timeseries.csv, ...).
type PointRun struct {
	Base   string
	Values map[string]string
	Dir    string
}

// Base is the one run of base name; an error if there is none or more
// than one.
func (rs Runs) Base(name string) (PointRun, error) {
	var found []PointRun
	for _, r := range rs {
		if r.Base == name {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		return PointRun{}, fmt.Errorf("%d runs of base %s, want one", len(found), name)
	}
	return found[0], nil
}

// Summary reads the run's summary.json.
func (r PointRun) Summary() (*reports.Summary, error) {
	data, err := os.ReadFile(filepath.Join(r.Dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	var s reports.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(r.Dir, "summary.json"), err)
	}
	return &s, nil
}

// Flow is a row of flows.csv (end_ns, fct_ns and slowdown 0 when the
// flow did not complete: its Status says so).
type Flow = reports.FlowRow

// Flows reads the run's flows.csv as lfsim report does
// (reports.ReadFlows); a run without one is an error.
func (r PointRun) Flows() ([]Flow, error) {
	path := filepath.Join(r.Dir, "flows.csv")
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	var out []Flow
	err := reports.ReadFlows(path, func(f *Flow) error {
		out = append(out, *f)
		return nil
	})
	return out, err
}

// Sample is one sample of a time series.
type Sample struct {
	TimeNs int64
	Value  float64
}

// Series reads timeseries.csv's samples of metric at where, from
// fromNs on, in time order.
func (r PointRun) Series(metric, where string, fromNs int64) ([]Sample, error) {
	path := filepath.Join(r.Dir, "timeseries.csv")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	prefix := "," + metric + "," + where + ","
	var out []Sample
	for line := 1; sc.Scan(); line++ {
		s := sc.Text()
		i := strings.Index(s, prefix)
		if line == 1 || i < 0 {
			continue
		}
		t, err1 := strconv.ParseInt(s[:i], 10, 64)
		v, err2 := strconv.ParseFloat(s[i+len(prefix):], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s:%d: expected time_ns,metric,where,value", path, line)
		}
		if t >= fromNs {
			out = append(out, Sample{t, v})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no samples of %s at %s from %d ns", path, metric, where, fromNs)
	}
	return out, nil
}
