package reports

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestJainFairness(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, 1, 1, 1}, 1},
		{[]float64{1, 0, 0, 0}, 0.25}, // 1/n when one flow has everything
		{[]float64{2, 1, 1}, 16.0 / 18},
		{nil, 0},
	} {
		if got := JainFairness(tc.xs); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("JainFairness(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	if q := Quantile(0.5, xs); q != 3 {
		t.Errorf("median = %v, want 3", q)
	}
	if q := Quantile(0.99, xs); q != 5 {
		t.Errorf("p99 = %v, want 5", q)
	}
	if xs[0] != 5 {
		t.Error("Quantile must not sort its input")
	}
}

func TestWriteRunRefusesToOverwrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := PrepareDir(dir, false); err != nil {
		t.Fatal(err)
	}
	s := &Summary{Scenario: "x", Seed: 1}
	if err := WriteRun(dir, &Results{Summary: s, Flows: []FlowRow{{ID: 0, Src: "h0", Dst: "h1", QP: "rc", Op: "write", SizeBytes: 10, Status: "incomplete"}}}); err != nil {
		t.Fatal(err)
	}
	if err := PrepareDir(dir, false); !errors.Is(err, ErrExists) {
		t.Fatalf("second run into the same directory: %v, want ErrExists", err)
	}
	if err := PrepareDir(dir, true); err != nil {
		t.Fatalf("--force: %v", err)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "flows.csv"))
	want := "id,src,dst,qp,op,size_bytes,delivered_bytes,start_ns,end_ns,fct_ns,slowdown,retransmits,status\n0,h0,h1,rc,write,10,0,0,,,,0,incomplete\n"
	if string(csv) != want {
		t.Errorf("flows.csv:\n%s\nwant:\n%s", csv, want)
	}
	js, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	for _, field := range []string{`"scenario": "x"`, `"drop_reasons": {}`, `"cycle": []`, `"expect": []`, `"packet_hops": 0`} {
		if !strings.Contains(string(js), field) {
			t.Errorf("summary.json lacks %s:\n%s", field, js)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestSeriesDecimates(t *testing.T) {
	s := NewSeries(10)
	decimated := 0
	for i := 0; i < 12; i++ {
		s.Begin(int64(i) * 10)
		s.Add(MetricTxGbps, "s0:p0", float64(i))
		s.Add(MetricBufferBytes, "s0", 1)
		if s.End() {
			decimated++
		}
	}
	if decimated == 0 || s.Rows() > 10 {
		t.Fatalf("%d rows after %d decimations; want at most 10", s.Rows(), decimated)
	}
	csv := string(s.CSV())
	if !strings.HasPrefix(csv, "time_ns,metric,where,value\n0,tx_gbps,s0:p0,0\n0,buffer_bytes,s0,1\n") {
		t.Errorf("csv starts:\n%s", csv)
	}
	if strings.Contains(csv, "\n10,") {
		t.Errorf("the second sample should have been dropped:\n%s", csv)
	}
}

func TestPFCCSV(t *testing.T) {
	got := string(PFCCSV([]PFCRow{{TimeNs: 5, Port: "s0:p3", Priority: 3, Quanta: 65535}, {TimeNs: 9, Port: "h1:p0", Priority: 3}}))
	want := "time_ns,node,port,priority,quanta\n5,s0,p3,3,65535\n9,h1,p0,3,0\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
