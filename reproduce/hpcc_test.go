package reproduce

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSlowdownWindow: measureSlowdownBySize takes the flows that start
// from slowdownWarmup (1 ms) to slowdownEnd (20 ms), each load's
// 200 flows of slowdown 2 there; flows before or after the window have
// a slowdown of 50 (and those after may be unfinished), and must move no
// point. A run whose arrivals stop before 30 ms (slowdownEnd +
// slowdownLoadAfter, less 0.1 ms) is refused, as is a measured flow not
// done. The numbers are the test's own.
func TestSlowdownWindow(t *testing.T) {
	type flow struct {
		startNs  int64
		slowdown string // "" for a flow not done
	}
	inside := make([]flow, 200)
	for i := range inside {
		inside[i] = flow{1_000_000 + int64(i)*90_000, "2"}
	}
	outside := []flow{{0, "50"}, {999_999, "50"}, {20_000_000, "50"}, {25_000_000, ""}}
	for _, c := range []struct {
		name    string
		flows   []flow
		wantErr string // "" for the points: every one 2
	}{
		{"the window's flows alone", append(append([]flow{}, inside...), append(outside, flow{29_950_000, "50"})...), ""},
		{"arrivals stop at 8 ms", append(append([]flow{}, inside[:70]...), flow{8_000_000, "2"}), "the last flow starts at 8.000 ms"},
		{"arrivals stop at 29.8 ms", append(append([]flow{}, inside...), flow{29_800_000, "50"}), "the last flow starts at 29.800 ms"},
		{"a measured flow not done", append(append([]flow{}, inside...), flow{19_000_000, ""}, flow{29_950_000, "50"}), "did not complete"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var runs Runs
			for _, load := range []string{"30%", "50%"} {
				dir := filepath.Join(t.TempDir(), load)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				b.WriteString("id,src,dst,qp,op,size_bytes,delivered_bytes,start_ns,end_ns,fct_ns,slowdown,retransmits,status\n")
				for i, f := range c.flows {
					// Sizes grow with the id, so each bin holds flows of every
					// start; a flow not done has no end, FCT nor slowdown.
					if f.slowdown == "" {
						fmt.Fprintf(&b, "%d,h0,h1,rc,write,%d,0,%d,,,,0,incomplete\n", i, 1000+i, f.startNs)
						continue
					}
					fmt.Fprintf(&b, "%d,h0,h1,rc,write,%d,%d,%d,%d,100,%s,0,success\n", i, 1000+i, 1000+i, f.startNs, f.startNs+100, f.slowdown)
				}
				if err := os.WriteFile(filepath.Join(dir, "flows.csv"), []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				runs = append(runs, PointRun{Base: "fat", Values: map[string]string{"traffic[0].poisson.load": load}, Dir: dir})
			}
			got, err := measureSlowdownBySize(runs)
			switch {
			case c.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one with %q", err, c.wantErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if len(got) != 20 {
				t.Errorf("%d points, want 20", len(got))
			}
			for id, v := range got {
				if v != 2 {
					t.Errorf("%s: %g, want 2 (a flow outside the window counted)", id, v)
				}
			}
		})
	}
}

// TestSlowdownBy1PctBins: measureSlowdownBy1PctBins cuts the measured
// flows (1,000 a load, sizes growing with the id) into 1% bins of ten,
// takes get_pctl's element in each (the 6th of ten for p50, the 10th for
// p95) and each point is the median of its 5% bin's five. Bin i's flows
// have slowdowns 1+i, 1.01+i, ..., 1.09+i, so the 5% bin from a% has
// p50 a+3.05 and p95 a+3.09, its middle 1% bin's; pooling the 5% bin
// would give a+3.05 and a+5.07 (the 48th of 50 is bin a+4's 8th). A
// flow outside the window (slowdown 500) must move no point. The
// numbers are the test's own.
func TestSlowdownBy1PctBins(t *testing.T) {
	var runs Runs
	for _, load := range []string{"30%", "50%"} {
		dir := filepath.Join(t.TempDir(), load)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("id,src,dst,qp,op,size_bytes,delivered_bytes,start_ns,end_ns,fct_ns,slowdown,retransmits,status\n")
		row := func(id int, start int64, slowdown float64) {
			fmt.Fprintf(&b, "%d,h0,h1,rc,write,%d,%d,%d,%d,100,%g,0,success\n", id, 1000+id, 1000+id, start, start+100, slowdown)
		}
		for i := range 1000 {
			row(i, 1_000_000+int64(i)*18_000, 1+float64(i/10)+float64(i%10)/100)
		}
		row(1000, 500_000, 500)
		row(1001, 29_950_000, 500)
		if err := os.WriteFile(filepath.Join(dir, "flows.csv"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, PointRun{Base: "fat", Values: map[string]string{"traffic[0].poisson.load": load}, Dir: dir})
	}
	got, err := measureSlowdownBy1PctBins(runs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 20 {
		t.Errorf("%d points, want 20", len(got))
	}
	for _, load := range []string{"30%", "50%"} {
		for _, bin := range hadoopBins {
			for _, c := range []struct {
				p    int
				want float64
			}{{50, 3.05}, {95, 3.09}} {
				id := fmt.Sprintf("%s p%d %d-%d%%", load, c.p, bin[0], bin[1])
				if want := float64(bin[0]) + c.want; math.Abs(got[id]-want) > 1e-9 {
					t.Errorf("%s: %g, want %g", id, got[id], want)
				}
			}
		}
	}
}
