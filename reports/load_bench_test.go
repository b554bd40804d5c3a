package reports

import (
	"fmt"
	"testing"
)

// BenchmarkLoadRunPFC reads back a run whose pfc.csv has 400,000 frames
// over 512 ports, as a k=16 fat-tree under PFC writes (374,472 there).
// The rows kept are 32 bytes each, 12.8 MB. Reading the whole file into
// records first (csv.ReadAll), a string per row for its port and rows
// grown by appending allocated 173 MB a read (321 ms); streaming the
// records into rows sized from the file's line count, each sharing its
// port's name, allocates 20.8 MB (154 ms): the rows and one line at a
// time.
func BenchmarkLoadRunPFC(b *testing.B) {
	dir := b.TempDir()
	rows := make([]PFCRow, 400_000)
	for i := range rows {
		rows[i] = PFCRow{TimeNs: int64(i) * 29, Port: fmt.Sprintf("s%d:p%d", i%32, i%16), Priority: 3, Quanta: uint16(i % 2 * 65535)}
	}
	if err := WriteFileAtomic(dir, "pfc.csv", PFCCSV(rows)); err != nil {
		b.Fatal(err)
	}
	if err := WriteFileAtomic(dir, "summary.json", SummaryJSON(&Summary{})); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := LoadRun(dir)
		if err != nil {
			b.Fatal(err)
		}
		if len(r.PFC) != len(rows) {
			b.Fatalf("%d rows read back, want %d", len(r.PFC), len(rows))
		}
	}
}

// seriesRun writes a run directory whose timeseries.csv has 638,000 rows
// (580 series, 1,100 samples), as the k=8 permutation's default observe
// writes (19.5 MB), and returns it with the samples per series.
func seriesRun(b *testing.B) (dir string, samples int) {
	dir = b.TempDir()
	const series = 580
	samples = 1100
	s := NewSeries(0)
	keys := make([]Key, series)
	for i := range keys {
		keys[i] = s.Key([]string{MetricTxGbps, MetricQueueBytes, MetricPaused}[i%3], fmt.Sprintf("s%d:p%d:3", i/16, i%16))
	}
	for t := 0; t < samples; t++ {
		s.Begin(int64(t+1) * 10_000)
		for i, k := range keys {
			s.AddKey(k, float64(t*i%977)/7)
		}
		s.End()
	}
	if err := WriteFileAtomic(dir, "timeseries.csv", s.CSV()); err != nil {
		b.Fatal(err)
	}
	if err := WriteFileAtomic(dir, "summary.json", SummaryJSON(&Summary{Scenario: "bench"})); err != nil {
		b.Fatal(err)
	}
	return dir, samples
}

// BenchmarkLoadRunSeries reads back seriesRun's run: what `lfsim run`
// does before it draws the report.
func BenchmarkLoadRunSeries(b *testing.B) {
	dir, samples := seriesRun(b)
	b.ReportAllocs()
	for b.Loop() {
		r, err := LoadRun(dir)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(r.Series[MetricPaused]["s0:p2:3"]); n != samples {
			b.Fatalf("%d points read back for one series, want %d", n, samples)
		}
	}
}

// BenchmarkBuildHTML draws report.html for seriesRun's run: each chart's
// options are rendered once and no regular expression passes over them
// unless a chart has a JavaScript function, and the templates are parsed
// once (page.chart): 19 ms and 16 MB a report, against 112 ms and 28 MB
// through go-echarts' RenderSnippet.
func BenchmarkBuildHTML(b *testing.B) {
	dir, _ := seriesRun(b)
	r, err := LoadRun(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if page := BuildHTML([]*Run{r}); len(page) < 1<<20 {
			b.Fatalf("report of %d bytes", len(page))
		}
	}
}
