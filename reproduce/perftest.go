package reproduce

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// perftestConnectX: ib_send_lat on ConnectX-4 (Potter, RWTH Aachen
// 2018) against lfsim's perftest on its HCA model.
var perftestConnectX = Reproduction{
	Name:    "perftest-connectx",
	Paper:   "Potter, master's thesis, RWTH Aachen 2018 (ConnectX-4 MT27700, 100 Gb/s)",
	Figure:  "the table of ib_send_lat's typical latency, RC, MTU 4096, at 32 B, 1 KiB, 4 KiB and 32 KiB",
	Setup:   "ib_send_lat, 1,000 iterations, between two EDR HCAs through one switch of no latency with cut-through forwarding (for the cable); sizes as a sweep",
	RunTime: "under 1 s",
	Measure: measurePerftest,
}

// measurePerftest reads t_typical from each run's perftest.txt.
func measurePerftest(runs Runs) (map[string]float64, error) {
	ids := map[string]string{"32": "32 B", "1024": "1 KiB", "4096": "4 KiB", "32768": "32 KiB"}
	out := map[string]float64{}
	for _, r := range runs {
		id, ok := ids[r.Values["traffic[0].perftest.size"]]
		if !ok {
			continue
		}
		v, err := perftestColumn(filepath.Join(r.Dir, "perftest.txt"), "t_typical[usec]")
		if err != nil {
			return nil, err
		}
		out[id] = v
	}
	return out, nil
}

// perftestColumn is column header's value on a test's result line (the
// one after the #bytes header): "t_typical[usec]" of a latency test,
// "BW average[Gb/sec]" of a bandwidth test (whose header's names hold
// spaces: the columns are counted in the header with them joined).
func perftestColumn(path, header string) (float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	col := -1
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) > 1 && f[0] == "#bytes" {
			h := strings.Fields(strings.NewReplacer("BW peak", "BW_peak", "BW average", "BW_average", "99% percentile", "99%_percentile", "99.9% percentile", "99.9%_percentile").Replace(sc.Text()))
			want := strings.ReplaceAll(header, " ", "_")
			for i, name := range h {
				if name == want {
					col = i
				}
			}
			if col < 0 {
				return 0, fmt.Errorf("%s:%d: no column %s in the header", path, line, header)
			}
			continue
		}
		if col >= 0 && len(f) > 0 && f[0] == "incomplete:" {
			return 0, fmt.Errorf("%s:%d: the test did not complete:%s", path, line, strings.TrimPrefix(sc.Text(), " incomplete:"))
		}
		if col >= 0 && len(f) > col {
			v, err := strconv.ParseFloat(f[col], 64)
			if err != nil {
				return 0, fmt.Errorf("%s:%d: %s: %w", path, line, header, err)
			}
			return v, nil
		}
	}
	return 0, fmt.Errorf("%s: no result line with %s", path, header)
}
