package reports

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runDir writes a run folder: a plain summary.json and files, name to
// contents.
func runDir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"scenario": "t", "complete": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadWithin is LoadRun(dir), failing the test if it has not returned
// within 10 s (a read that blocks).
func loadWithin(t *testing.T, dir string) (*Run, error) {
	t.Helper()
	type result struct {
		r   *Run
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := LoadRun(dir)
		done <- result{r, err}
	}()
	select {
	case res := <-done:
		return res.r, res.err
	case <-time.After(10 * time.Second):
		t.Fatalf("LoadRun(%s) still running after 10 s", dir)
		return nil, nil
	}
}

// TestLoadRunRefusesWhatIsNotAFile: each file of a run that lfsim report
// reads is checked as a scenario file is: a FIFO in its place is refused
// at once, not waited on (it blocked for ever), and a link to /dev/zero
// is refused as a device (flows.csv read without end, timeseries.csv
// said only "bufio.Scanner: token too long").
func TestLoadRunRefusesWhatIsNotAFile(t *testing.T) {
	for _, name := range []string{"flows.csv", "timeseries.csv", "pfc.csv", "uplinks.csv", "events.csv", "timeline.csv", "topology.json", "scenario.yaml", "summary.json"} {
		for _, kind := range []string{"FIFO", "device"} {
			t.Run(name+" "+kind, func(t *testing.T) {
				dir := runDir(t, nil)
				path := filepath.Join(dir, name)
				os.Remove(path)
				if kind == "FIFO" {
					if err := syscall.Mkfifo(path, 0o644); err != nil {
						t.Skip(err)
					}
					// A reader the fix does not stop is let go when the test ends.
					t.Cleanup(func() {
						if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
							f.Close()
						}
					})
				} else if err := os.Symlink("/dev/zero", path); err != nil {
					t.Skip(err)
				}
				_, err := loadWithin(t, dir)
				want := fmt.Sprintf("%s is not a regular file (a %s); a run's %s is one", path, kind, name)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("got %v, want %q", err, want)
				}
			})
		}
	}
}

// TestLoadRunRefusesLongLines: a line longer than 64 KiB in a CSV file
// is refused with its file, its line and the limit, before more of it is
// held (a file of zeros without a newline is refused at line 1).
func TestLoadRunRefusesLongLines(t *testing.T) {
	long := strings.Repeat("h", maxLineBytes+1)
	flows := strings.Join(FlowsHeader, ",") + "\n0,h0,h1,rc,write,1024,1024,0,5000,5000,1.2000,0,success\n"
	for _, c := range []struct{ file, body, want string }{
		{"flows.csv", flows + "1,h0," + long + ",rc,write,1024,1024,0,5000,5000,1.2000,0,success\n", "flows.csv:3: the line is longer than 65536 bytes"},
		{"flows.csv", strings.Repeat("\x00", 3*maxLineBytes), "flows.csv:1: the line is longer than 65536 bytes"},
		{"timeseries.csv", "time_ns,metric,where,value\n10,tx_gbps,s0:p1,1\n20,tx_gbps," + long + ",1\n", "timeseries.csv:3: the line is longer than 65536 bytes"},
		{"timeseries.csv", strings.Repeat("\x00", 3*maxLineBytes), "timeseries.csv:1: the line is longer than 65536 bytes"},
		{"pfc.csv", "time_ns,node,port,priority,quanta\n100," + long + ",p1,3,0\n", "pfc.csv:2: the line is longer than 65536 bytes"},
	} {
		dir := runDir(t, map[string]string{c.file: c.body})
		_, err := loadWithin(t, dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %.200v, want %q", c.file, err, c.want)
		}
	}
	// A line of exactly the limit is read.
	name := strings.Repeat("h", maxLineBytes-len("10,tx_gbps,,1"))
	dir := runDir(t, map[string]string{"timeseries.csv": "time_ns,metric,where,value\n10,tx_gbps," + name + ",1\n"})
	if r, err := loadWithin(t, dir); err != nil || len(r.Series[MetricTxGbps][name]) != 1 {
		t.Errorf("a line of %d bytes: %.200v", maxLineBytes, err)
	}
}

// writeFlows writes a flows.csv of n rows to path, as lfsim writes it:
// one in 97 incomplete, the others completed with FCTs from 1 to 5 ms.
func writeFlows(t testing.TB, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, strings.Join(FlowsHeader, ","))
	for i := 0; i < n; i++ {
		size, start := 1024+i%4096, i*100
		if i%97 == 0 {
			fmt.Fprintf(w, "%d,h%d,h%d,rc,write,%d,%d,%d,,,,0,incomplete\n", i, i%256, (i+7)%256, size, size/2, start)
			continue
		}
		fct := 1000 + (i*7919)%4_000_000
		fmt.Fprintf(w, "%d,h%d,h%d,rc,write,%d,%d,%d,%d,%d,%.4f,0,success\n", i, i%256, (i+7)%256, size, size, start, start+fct, fct, float64(fct)/1000)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestLoadRunFlowsInBoundedMemory: a flows.csv of 400,000 rows is read
// row by row into what the report draws (FlowStats): after the read,
// with the run still held, the heap holds under 12 MiB more than before
// (the FCT and slowdown samples are 1 MiB each), where keeping every row
// held about 90 MB (an audit's 10^7 rows took 6.1 GB); and the read
// makes at most 3 allocations a row (the record's string, for
// encoding/csv). Counted with runtime.MemStats, not timed.
//
// With LFSIM_SLOW=1 (as CI runs it) the audit's case: 10^7 rows, about
// 700 MB of flows.csv, held to the same bounds (it took 6.1 GB before).
func TestLoadRunFlowsInBoundedMemory(t *testing.T) {
	rows := int64(400_000)
	if os.Getenv("LFSIM_SLOW") != "" {
		rows = 10_000_000
	}
	dir := runDir(t, nil)
	writeFlows(t, filepath.Join(dir, "flows.csv"), int(rows))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	allocs := float64(after.Mallocs-before.Mallocs) / float64(rows)
	t.Logf("%d rows: %.1f MiB held after the read, %.2f allocations a row, %.1f MiB allocated in all", rows, float64(held)/(1<<20), allocs, float64(after.TotalAlloc-before.TotalAlloc)/(1<<20))
	if held > 12<<20 {
		t.Errorf("the run holds %.1f MiB after reading %d flows; want under 12 MiB, whatever the rows", float64(held)/(1<<20), rows)
	}
	if allocs > 3 {
		t.Errorf("%.2f allocations a row; want at most 3", allocs)
	}
	completed := int64(rows - (rows+96)/97)
	if r.Flows.Rows != rows || r.Flows.FCT.N != completed || r.Flows.Slowdown.N != completed {
		t.Errorf("read %d rows, %d FCTs, %d slowdowns; want %d, %d, %d", r.Flows.Rows, r.Flows.FCT.N, r.Flows.Slowdown.N, rows, completed, completed)
	}
	runtime.KeepAlive(r)
}

// TestSampleCDF: a Sample keeps every value up to sampleCap, exactly; past
// it a uniform sample of sampleCap whose quantiles are those of all the
// values within 1% (the standard deviation of a quantile's rank is
// 0.14% there), with the exact least and greatest at its ends, the same
// from one read to the next; and the report says the CDF was drawn from
// a sample.
func TestSampleCDF(t *testing.T) {
	var small Sample
	for i := 10; i > 0; i-- {
		small.Add(float64(i))
	}
	if xs := small.Sorted(); small.Sampled() || len(xs) != 10 || xs[0] != 1 || xs[9] != 10 {
		t.Errorf("10 values: sampled %v, %v", small.Sampled(), xs)
	}
	const n = 1_000_000
	sample := func() *Sample {
		var s Sample
		for i := 0; i < n; i++ {
			s.Add(float64((i * 7919) % n)) // 0..n-1, in a scrambled order
		}
		return &s
	}
	s := sample()
	xs := s.Sorted()
	if !s.Sampled() || len(xs) != sampleCap || s.N != n || xs[0] != 0 || xs[len(xs)-1] != n-1 {
		t.Fatalf("sampled %v, %d kept of %d, ends %v %v", s.Sampled(), len(xs), s.N, xs[0], xs[len(xs)-1])
	}
	for _, q := range []float64{0.01, 0.1, 0.5, 0.9, 0.99} {
		got := xs[int(q*float64(len(xs)))]
		if math.Abs(got-q*n) > 0.01*n {
			t.Errorf("quantile %.2f of the sample is %.0f; of all, %.0f", q, got, q*n)
		}
	}
	if again := sample().Sorted(); fmt.Sprint(again[:50]) != fmt.Sprint(xs[:50]) {
		t.Error("two samples of the same values differ")
	}
	r := &Run{Summary: Summary{Scenario: "s", Complete: true}, Series: map[string]map[string][]Point{}, Wheres: map[string][]string{}}
	r.Flows.FCT, r.Flows.Slowdown = *s, *s
	page := string(BuildHTML([]*Run{r}))
	for _, want := range []string{"the FCT CDF draws a uniform sample of 131072 of its 1000000 flows", "<h2>FCT CDF</h2>"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
