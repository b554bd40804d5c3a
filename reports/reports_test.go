package reports

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
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
		s.AddKey(s.Key(MetricTxGbps, "s0:p0"), float64(i))
		s.AddKey(s.Key(MetricBufferBytes, "s0"), 1)
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

// TestSeriesChunksAsOneSlice: the store keeps its values in chunks of
// valueChunk; its CSV must be the one a single slice gives (the
// reference below, the store's former layout), through decimations that
// move points across chunk boundaries and samples of uneven sizes.
func TestSeriesChunksAsOneSlice(t *testing.T) {
	type ref struct {
		timeNs int64
		rows   []string
	}
	for _, tc := range []struct{ maxRows, perSample, samples int }{
		{0, 7, 2000},                    // no bound: 14,000 points, four chunks
		{3 * valueChunk, 1000, 60},      // decimates across chunks
		{valueChunk, 333, 200},          // samples straddle chunk ends
		{valueChunk + 1, valueChunk, 9}, // one sample a chunk
	} {
		s := NewSeries(tc.maxRows)
		var want []ref
		for i := 0; i < tc.samples; i++ {
			t0 := int64(i) * 1000
			s.Begin(t0)
			r := ref{timeNs: t0}
			for j := 0; j < tc.perSample+i%3; j++ {
				where := fmt.Sprintf("s%d:p%d", j%5, j)
				s.AddKey(s.Key(MetricQueueBytes, where), float64(i*7+j))
				r.rows = append(r.rows, fmt.Sprintf("%d,%s,%s,%s", t0, MetricQueueBytes, where, strconv.FormatFloat(float64(i*7+j), 'g', 6, 64)))
			}
			want = append(want, r)
			n := 0
			for _, w := range want {
				n += len(w.rows)
			}
			if s.End() {
				if tc.maxRows <= 0 || n <= tc.maxRows {
					t.Fatalf("%+v: decimated at %d rows", tc, n)
				}
				var kept []ref
				for k, w := range want {
					if k%2 == 0 {
						kept = append(kept, w)
					}
				}
				want = kept
			}
		}
		var b strings.Builder
		b.WriteString("time_ns,metric,where,value\n")
		rows := 0
		for _, w := range want {
			for _, r := range w.rows {
				b.WriteString(r + "\n")
				rows++
			}
		}
		if got := string(s.CSV()); got != b.String() {
			t.Errorf("%+v: the CSV differs from one slice's (%d rows against %d)", tc, s.Rows(), rows)
		}
		if s.Rows() != rows {
			t.Errorf("%+v: Rows() %d, want %d", tc, s.Rows(), rows)
		}
		if tc.maxRows > 0 && s.Decimations == 0 && rows > tc.maxRows {
			t.Errorf("%+v: %d rows and no decimation", tc, rows)
		}
	}
}

func TestPFCCSV(t *testing.T) {
	got := string(PFCCSV([]PFCRow{{TimeNs: 5, Port: "s0:p3", Priority: 3, Quanta: 65535}, {TimeNs: 9, Port: "h1:p0", Priority: 3}}))
	want := "time_ns,node,port,priority,quanta\n5,s0,p3,3,65535\n9,h1,p0,3,0\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// BenchmarkSeriesAddKey is a sampler's cost per point: 580 series (a
// 64-host incast's default observe) sampled 500 times, into a store
// bounded at a million rows. The store writes each point once, into
// chunks (docs/PERFORMANCE.md, tenth round).
func BenchmarkSeriesAddKey(b *testing.B) {
	const series, samples = 580, 500
	for b.Loop() {
		s := NewSeries(1_000_000)
		keys := make([]Key, series)
		for i := range keys {
			keys[i] = s.Key(MetricQueueBytes, fmt.Sprintf("s0:p%d:3", i))
		}
		for t := 0; t < samples; t++ {
			s.Begin(int64(t) * 10_000)
			for i, k := range keys {
				s.AddKey(k, float64(t+i))
			}
			s.End()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*series*samples), "ns/point")
}

// TestPrepareDirClearsAnEarlierRun: --force removes the earlier run's
// files (summary.json first), the captures its topology names among them
// (a '/' in a host's name written '_', as captures write it),
// and temporary files a killed run left, and keeps every other file (a
// capture of the user's own, another tool's temporary file); a folder
// that cannot be made is an error before any simulation.
func TestPrepareDirClearsAnEarlierRun(t *testing.T) {
	dir := t.TempDir()
	for _, name := range append([]string{"summary.json", "h8.pcap", "s0_p1.pcap", "s0_g1.pcap", "h8_2.pcap", ".flows.csv.tmp-123", ".h8.pcap.tmp-4",
		"notes.txt", "mine.pcap", "s0_px.pcap", ".other.tmp-1"}, RunFiles...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A host named with a '/' (a rail-optimized fabric's GPU s0/g1, a
	// dual-port HCA's second port h8/2) is captured as s0_g1.pcap.
	topo := TopologyJSON(&Topo{Nodes: []TopoNode{{Name: "s0", Kind: "switch"}, {Name: "h8", Kind: "host"}, {Name: "s0/g1", Kind: "host"}, {Name: "h8/2", Kind: "host"}}})
	if err := os.WriteFile(filepath.Join(dir, "topology.json"), topo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := PrepareDir(dir, true); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{".other.tmp-1", "mine.pcap", "notes.txt", "s0_px.pcap"}; !reflect.DeepEqual(left, want) {
		t.Errorf("after --force: %v, want %v", left, want)
	}
	// A killed run's temporary file goes without --force too (there is no
	// summary.json, so no earlier run to refuse).
	os.WriteFile(filepath.Join(dir, ".report.html.tmp-9"), []byte("x"), 0o644)
	if err := PrepareDir(dir, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".report.html.tmp-9")); !os.IsNotExist(err) {
		t.Errorf("a temporary file survived: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if err := PrepareDir(filepath.Join(file, "out"), false); err == nil {
		t.Error("an output folder under a file was accepted")
	}
}

// TestSeriesLayouts: a sample's keys are kept once per change of the
// sequence, so 1,000 samples of the same series keep one layout (and
// 8 bytes a value); samples that depart from the one before at any
// point (a key changed, one more, one fewer, none at all), and a sample
// still open when the CSV is written, give the rows they were given.
func TestSeriesLayouts(t *testing.T) {
	s := NewSeries(0)
	for i := 0; i < 1000; i++ {
		s.Begin(int64(i))
		for j := 0; j < 50; j++ {
			s.AddKey(s.Key(MetricTxGbps, fmt.Sprintf("s0:p%d", j)), float64(j))
		}
		s.End()
	}
	if len(s.layouts) != 1 || s.Rows() != 50_000 {
		t.Errorf("1,000 equal samples: %d layouts, %d rows; want 1 and 50,000", len(s.layouts), s.Rows())
	}
	s = NewSeries(0)
	var want strings.Builder
	want.WriteString("time_ns,metric,where,value\n")
	shapes := [][]int{{0, 1, 2, 3}, {0, 1, 2, 3}, {0, 1, 9, 3}, {0, 1, 9, 3, 4}, {0, 1}, {}, {0, 1}, {5}, {0, 1, 2}}
	for i, shape := range shapes {
		s.Begin(int64(i))
		for _, j := range shape {
			where := fmt.Sprintf("h%d", j)
			s.AddKey(s.Key(MetricFlowGbps, where), float64(10*i+j))
			fmt.Fprintf(&want, "%d,%s,%s,%s\n", i, MetricFlowGbps, where, strconv.FormatFloat(float64(10*i+j), 'g', 6, 64))
		}
		if i < len(shapes)-1 {
			s.End() // the last stays open
		}
	}
	if got := string(s.CSV()); got != want.String() {
		t.Errorf("CSV:\n%s\nwant:\n%s", got, want.String())
	}
}
