package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReportRefusesHostileRunFiles: `lfsim report` reads a run's files
// with a scenario file's checks. A FIFO as flows.csv is refused at once
// (it waited for ever), a timeseries.csv linked to /dev/zero as a device
// (it said only "bufio.Scanner: token too long"), a line over 64 KiB,
// negative sizes and times and a column given twice at their file, line
// and column; each exits 1 and writes no report.
func TestReportRefusesHostileRunFiles(t *testing.T) {
	header := "id,src,dst,qp,op,size_bytes,delivered_bytes,start_ns,end_ns,fct_ns,slowdown,retransmits,status\n"
	row := "0,h0,h1,rc,write,1024,1024,0,5000,5000,1.2000,0,success\n"
	for _, c := range []struct {
		name  string
		setup func(dir string) error
		want  string
	}{
		{"a FIFO as flows.csv", func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "flows.csv"), 0o644) },
			"flows.csv is not a regular file (a FIFO); a run's flows.csv is one"},
		{"timeseries.csv linked to /dev/zero", func(dir string) error { return os.Symlink("/dev/zero", filepath.Join(dir, "timeseries.csv")) },
			"timeseries.csv is not a regular file (a device); a run's timeseries.csv is one"},
		{"a line over 64 KiB", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "flows.csv"), []byte(header+row+"1,"+strings.Repeat("h", 70000)+"\n"), 0o644)
		}, "flows.csv:3: the line is longer than 65536 bytes"},
		{"a negative size", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "flows.csv"), []byte(header+row+"1,h0,h1,rc,write,-1024,0,0,,,,0,incomplete\n"), 0o644)
		}, `flows.csv:3: size_bytes: "-1024" is negative; expected 0 or more`},
		{"a negative time", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "flows.csv"), []byte(header+row+"1,h0,h1,rc,write,1024,1024,-7,5000,5007,1.2,0,success\n"), 0o644)
		}, `flows.csv:3: start_ns: "-7" is negative; expected 0 or more`},
		{"a column given twice", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "flows.csv"), []byte(strings.Replace(header, "fct_ns", "end_ns", 1)+row), 0o644)
		}, `flows.csv:1: column "end_ns" is given twice (columns 9 and 10)`},
		{"a bad value in timeseries.csv", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "timeseries.csv"), []byte("time_ns,metric,where,value\n10,tx_gbps,s0:p1,1\n20,tx_gbps,s0:p1,fast\n"), 0o644)
		}, `timeseries.csv:3: value: "fast" is not a number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"scenario": "t", "complete": true}`), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := c.setup(dir); err != nil {
				t.Skip(err)
			}
			// A reader left waiting on the FIFO is let go when the test ends.
			t.Cleanup(func() {
				if f, err := os.OpenFile(filepath.Join(dir, "flows.csv"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			})
			out := filepath.Join(dir, "out.html")
			var o, e bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- Main([]string{"report", dir, "-o", out}, &o, &e) }()
			var code int
			select {
			case code = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("lfsim report still running after 10 s")
			}
			if code != exitFailed || !strings.Contains(e.String(), c.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, e.String(), c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a report was written")
			}
		})
	}
}
