package reproduce

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
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

// Flow is a row of flows.csv, the columns a measure reads.
type Flow struct {
	ID                        int
	Src, Dst, Status          string
	SizeBytes, DeliveredBytes int64
	FCTNs                     int64   // 0 when the flow did not complete
	Slowdown                  float64 // NaN when the flow did not complete
}

// Flows reads the run's flows.csv.
func (r PointRun) Flows() ([]Flow, error) {
	path := filepath.Join(r.Dir, "flows.csv")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, want := range []string{"id", "src", "dst", "size_bytes", "delivered_bytes", "fct_ns", "slowdown", "status"} {
		if _, ok := col[want]; !ok {
			return nil, fmt.Errorf("%s: no column %s", path, want)
		}
	}
	var out []Flow
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var fl Flow
		var errs [5]error
		fl.ID, errs[0] = strconv.Atoi(rec[col["id"]])
		fl.Src, fl.Dst, fl.Status = rec[col["src"]], rec[col["dst"]], rec[col["status"]]
		fl.SizeBytes, errs[1] = strconv.ParseInt(rec[col["size_bytes"]], 10, 64)
		fl.DeliveredBytes, errs[2] = strconv.ParseInt(rec[col["delivered_bytes"]], 10, 64)
		// An incomplete flow has no FCT and no slowdown: 0 and NaN.
		fl.Slowdown = math.NaN()
		if v := rec[col["fct_ns"]]; v != "" {
			fl.FCTNs, errs[3] = strconv.ParseInt(v, 10, 64)
		}
		if v := rec[col["slowdown"]]; v != "" {
			fl.Slowdown, errs[4] = strconv.ParseFloat(v, 64)
		}
		for _, e := range errs {
			if e != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, e)
			}
		}
		out = append(out, fl)
	}
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
