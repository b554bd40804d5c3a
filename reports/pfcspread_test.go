package reports

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// pfcRows are n frames from 100 ports, PAUSEs and RESUMEs, in time
// order; the ports start pausing in an order other than their names'.
func pfcRows(n int) []PFCRow {
	rows := make([]PFCRow, 0, n)
	for i := 0; i < n; i++ {
		port := (i * 37) % 100
		q := uint16(65535)
		if i%3 == 2 {
			q = 0
		}
		rows = append(rows, PFCRow{TimeNs: int64(i) * 17, Port: fmt.Sprintf("s%d:p%d", port/8, port%8), Priority: 3, Quanta: q})
	}
	return rows
}

// TestPFCSpreadFromFile: the PFC spread LoadRun reads from pfc.csv (in
// two passes, keeping no rows) draws report.html as the rows held in
// memory draw it, byte for byte, with more ports than it shows (100,
// 64 shown) and more PAUSE frames than it draws (every 2nd);
// the run keeps none of the rows.
func TestPFCSpreadFromFile(t *testing.T) {
	rows := pfcRows(20000)
	var csv bytes.Buffer
	if err := WritePFCCSV(&csv, rows); err != nil {
		t.Fatal(err)
	}
	r, err := LoadRun(runDir(t, map[string]string{"pfc.csv": csv.String()}))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.PFC) != 0 || r.pfcSpread == nil {
		t.Fatalf("LoadRun kept %d rows, spread %v", len(r.PFC), r.pfcSpread)
	}
	held := *r
	held.pfcSpread, held.PFC = nil, rows
	got, want := BuildHTML([]*Run{r}), BuildHTML([]*Run{&held})
	for _, note := range []string{"the PFC spread shows the first 64 of 100 ports that sent PAUSE", "the PFC spread draws every 2th of "} {
		if !bytes.Contains(want, []byte(note)) {
			t.Errorf("report.html lacks %q: the case does not test what it says", note)
		}
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Errorf("report.html from pfc.csv differs from the rows' at byte %d:\n%s\nwant\n%s", i, got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
	}
}

// TestLoadRunPFCInBoundedMemory: a pfc.csv of 400,000 frames (half of
// them PAUSEs, from 150 ports) is read into what the report draws of it: after the read the run holds under
// 1 MiB more than before, where keeping every row held 12.8 MB (32
// bytes a frame; a 50 ms run of hpcc-320 sends about 100,000 frames, a
// simulated second 2 million). Counted with runtime.MemStats.
func TestLoadRunPFCInBoundedMemory(t *testing.T) {
	const n = 400_000
	var b strings.Builder
	b.WriteString("time_ns,node,port,priority,quanta\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d,s%d,p%d,3,%d\n", i*11, (i*37)%300/8, (i*37)%300%8, 65535*(i%2))
	}
	dir := runDir(t, map[string]string{"pfc.csv": b.String()})
	b.Reset()
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
	t.Logf("%d frames: %.2f MiB held after the read", n, float64(held)/(1<<20))
	if held > 1<<20 {
		t.Errorf("the run holds %.1f MiB after reading %d PFC frames; want under 1 MiB, whatever the frames", float64(held)/(1<<20), n)
	}
	if r.pfcSpread == nil {
		t.Fatal("no spread")
	}
	if sp := r.pfcSpread; sp.ports != 150 || len(sp.order) != maxSpreadPorts || len(sp.dots) > 2*maxSpreadDots {
		t.Errorf("spread of 150 ports, %d shown, %d dots", len(sp.order), len(sp.dots)) // a step of total/maxSpreadDots draws under twice that
	}
	runtime.KeepAlive(r)
	os.RemoveAll(filepath.Join(dir, "pfc.csv"))
}
